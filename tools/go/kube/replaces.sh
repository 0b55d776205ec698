#!/usr/bin/env bash
# Rewrites the staging replaces in go.mod from the proxy's copy of k8s.io/kubernetes' own go.mod:
# every `k8s.io/X => ./staging/src/k8s.io/X` there becomes `k8s.io/X => k8s.io/X v0.<minor>.<patch>`.
# Usage (after changing the k8s.io/kubernetes require): tools/go/kube/replaces.sh && go mod tidy
set -euo pipefail
cd "$(dirname "$0")"
export GOTOOLCHAIN=local
version=$(go mod edit -json | python3 -c 'import json,sys
print(next(r["Version"] for r in json.load(sys.stdin)["Require"] if r["Path"] == "k8s.io/kubernetes"))')
staging="v0.${version#v1.}"
gomod=$(go mod download -json "k8s.io/kubernetes@$version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
mapfile -t names < <(sed -nE 's#^\s*(k8s\.io/[a-z0-9-]+) => \./staging/src/k8s\.io/.*#\1#p' "$gomod")
[ ${#names[@]} -gt 0 ] || { echo "no staging replaces found in $gomod" >&2; exit 1; }
args=()
for n in "${names[@]}"; do args+=("-replace=$n=$n@$staging"); done
go mod edit "${args[@]}"
echo "replaced ${#names[@]} staging modules with $staging" >&2
