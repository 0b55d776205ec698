#!/usr/bin/env bash
# (Re)writes the consumer module of one Argo CD release, tools/go/MODULE/go.mod and go.sum, and tidies it
# against the harness sources here (tools/go/argocd/cmd, built against every release with go's -modfile).
#   tools/go/argocd/module.sh MODULE VERSION [TOOLCHAIN]      e.g. argocd-v3.6 v3.6.1 go1.27.3
# Derived: the require, the go line and Argo CD's own replace block from the proxy's copy of its go.mod
# (replaces in a dependency are ignored, so they are repeated here) without its local-directory replaces
# (`=> ./gitops-engine`: a dependency's go.mod cannot point into its own zip). Kept from an existing go.mod:
# the comment above `module` and every line from `// ours:` on (the replaces the release needs besides).
# Then add the line to tools/go/argocd/versions.txt; tools/build.sh builds it.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 MODULE VERSION [TOOLCHAIN]" >&2; exit 2; }
module=$1 version=$2
export GOTOOLCHAIN=${3:-local}
here="$(cd "$(dirname "$0")" && pwd)"
dir="$here/../$module"
mkdir -p "$dir"
old="$dir/go.mod"
[ -f "$old" ] || : > "$old"
# outside any module, so no go.mod or go.sum of ours is read or changed
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
upstream=$(cd "$scratch" && go mod download -json "github.com/argoproj/argo-cd/v3@$version" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["GoMod"])')
new="$scratch/go.mod"
{
  awk '/^module |^\/\/ ours:/{exit} /^\/\//{print; n++} END{exit !n}' "$old" || echo "// Consumer module for Argo CD $version (built from the Go module proxy, nothing copied)."
  echo "module argocd-lifecycle.local/argocd-tools"
  echo
  grep -m1 '^go ' "$upstream"
  echo
  echo "require github.com/argoproj/argo-cd/v3 $version"
  echo
  # the replace block(s) and one-line replaces of upstream, minus those naming a directory
  awk '/=> \.\//{next} /^replace \(/{p=1; print; next} p&&/^\)/{print; p=0; next} p||/^replace /{print}' "$upstream"
  echo
  awk '/^\/\/ ours:/{p=1} p && !/^tool /' "$old"
  echo
  echo "tool github.com/argoproj/argo-cd/v3/cmd"
} > "$new"
mv "$new" "$old"
# tidy sees every build tag, so it keeps what each harness variant imports
(cd "$here" && go mod tidy -modfile="$dir/go.mod")
echo "wrote $dir/go.mod and go.sum" >&2
