#!/usr/bin/env bash
# Builds the pinned upstream tools from the Go module proxy into a cache outside the repository,
# keyed by version: $TOOLS_DIR/<name>-<version>/<name>. Only missing tools are built.
# Usage: tools/build.sh [NAME...]   (default: every tool)    tools/build.sh --path
# The Argo CD harnesses (argocd-notify-eval, appset-eval) are built for every release of
# tools/go/argocd/versions.txt, the argocd binary for the oldest and the newest; each is linked as
# bin/<name>-<minor> and, for the newest, bin/<name>; NAME-<minor> (e.g. argocd-v3.3) builds one of them.
set -euo pipefail
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
here="$(cd "$(dirname "$0")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/argocd-lifecycle/tools"
bin="$cache/bin"
mkdir -p "$bin"
if [ "${1:-}" = "--path" ]; then echo "$bin"; exit 0; fi

HELM_VERSION=v3.18.4
KUSTOMIZE_VERSION=v5.7.0

log() { printf '[tools %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# `go build -v` names each package as it compiles it: turn that into a progress line every 100
# packages (cold builds of kube-apiserver and argocd compile thousands), passing other output through.
progress() {
  local name=$1 n=0 start=$SECONDS line
  while IFS= read -r line; do
    case "$line" in
      *" "*|"#"*) printf '%s\n' "$line" >&2 ;;  # compiler messages, "go: downloading ..."
      *) n=$((n + 1)); [ $((n % 100)) -ne 0 ] || log "$name: $n packages compiled ($((SECONDS - start))s)" ;;
    esac
  done
}

# install NAME VERSION PACKAGE@VERSION [LDFLAGS]: go install into a version-keyed folder, link into bin/.
install_go() {
  local name=$1 version=$2 pkg=$3 ldflags=${4:-}
  local dest="$cache/$name-$version"
  if [ -x "$dest/$name" ]; then ln -sfn "$dest/$name" "$bin/$name"; return 0; fi
  log "building $name $version (cold builds take minutes)"
  local start=$SECONDS
  mkdir -p "$dest.tmp"
  GOBIN="$dest.tmp" go install -v -trimpath -ldflags "-s -w $ldflags" "$pkg" 2>&1 | progress "$name"
  mv "$dest.tmp/$(basename "${pkg%@*}")" "$dest.tmp/$name" 2>/dev/null || true
  rm -rf "$dest"; mv "$dest.tmp" "$dest"
  ln -sfn "$dest/$name" "$bin/$name"
  log "built $name $version in $((SECONDS - start))s"
}

# build_in_module [OPTION...] NAME VERSION MODULE_DIR PACKAGE [LDFLAGS]: go build inside one of our consumer
# modules (tools/go/*), for upstream mains that `go install pkg@version` refuses (replace directives), and
# for our own Go programs (PACKAGE ./cmd/NAME) built against upstream packages. Options:
#   --modfile DIR    build MODULE_DIR's PACKAGE against tools/go/DIR/go.mod and go.sum (go's -modfile): one
#                    copy of our sources built against several releases
#   --tags TAGS      Go build tags          --toolchain GO   the Go toolchain (default: the local one)
#   --link LINK      the name(s) in bin/ (default: NAME)
build_in_module() {
  local modfile="" tags="" toolchain=local links=()
  while [ $# -gt 0 ]; do
    case $1 in
      --modfile) modfile=$2; shift 2 ;;
      --tags) tags=$2; shift 2 ;;
      --toolchain) toolchain=$2; shift 2 ;;
      --link) links+=("$2"); shift 2 ;;
      *) break ;;
    esac
  done
  local name=$1 version=$2 moddir=$3 pkg=$4 ldflags=${5:-}
  [ ${#links[@]} -gt 0 ] || links=("$name")
  local dest="$cache/$name-$version"
  # the key hashes go.mod/go.sum, for our own programs their sources, and the tags and toolchain when
  # set: a change rebuilds
  local keyfiles=(go.mod go.sum)
  [ -z "$modfile" ] || keyfiles=()
  case "$pkg" in ./*) keyfiles+=("$pkg");; esac
  local key; key=$(
    [ -z "$modfile" ] || (cd "$here/go/$modfile" && sha256sum go.mod go.sum)
    (cd "$here/go/$moddir" && find "${keyfiles[@]}" -type f -print0 | sort -z | xargs -0 sha256sum)
    [ -z "$tags" ] && [ "$toolchain" = local ] || echo "tags=$tags toolchain=$toolchain"
  ) && key=$(printf '%s\n' "$key" | sha256sum | cut -c1-12)
  dest="$dest-$key"
  local link
  if [ -x "$dest/$name" ]; then
    for link in "${links[@]}"; do ln -sfn "$dest/$name" "$bin/$link"; done
    return 0
  fi
  log "building $name $version from tools/go/${modfile:-$moddir} (cold builds take many minutes)"
  local start=$SECONDS args=(-v -trimpath -pgo=off)
  [ -z "$modfile" ] || args+=("-modfile=$here/go/$modfile/go.mod")
  [ -z "$tags" ] || args+=("-tags=$tags")
  mkdir -p "$dest.tmp"
  (cd "$here/go/$moddir" && GOTOOLCHAIN=$toolchain go build "${args[@]}" -ldflags "-s -w $ldflags" -o "$dest.tmp/$name" "$pkg" 2>&1) |
    progress "$name"
  rm -rf "$dest"; mv "$dest.tmp" "$dest"
  for link in "${links[@]}"; do ln -sfn "$dest/$name" "$bin/$link"; done
  log "built $name $version in $((SECONDS - start))s"
}

# Argo CD, one line per release (minor, release, consumer module, Go toolchain, harness build tags; "-" for
# none): the upstream multi-call binary from its module, our harnesses from tools/go/argocd/cmd against it.
ARGOCD_VERSIONS="$here/go/argocd/versions.txt"

# argocd_each KIND [MINOR]: build KIND (argocd, argocd-notify-eval or appset-eval) for MINOR, or for
# every release; bin/KIND-<minor>, and bin/KIND for the newest (the table's last line)
argocd_each() {
  local kind=$1 only=${2:-} rows row minor release module toolchain tags built=""
  mapfile -t rows < <(grep -v -e '^#' -e '^[[:space:]]*$' "$ARGOCD_VERSIONS")
  local newest oldest; read -r newest _ <<< "${rows[-1]}"; read -r oldest _ <<< "${rows[0]}"
  for row in "${rows[@]}"; do
    read -r minor release module toolchain tags <<< "$row"
    [ -z "$only" ] || [ "$only" = "$minor" ] || continue
    # the e2e platform runs the newest and, for the lifecycle loop, the oldest: the upstream binary (the
    # longest build) of a release between them is built only when named (argocd-<minor>)
    [ "$kind" != argocd ] || [ -n "$only" ] || [ "$minor" = "$newest" ] || [ "$minor" = "$oldest" ] || continue
    local opts=(--toolchain "$toolchain" --link "$kind-$minor")
    [ "$minor" != "$newest" ] || opts+=(--link "$kind")
    [ "$tags" = - ] || opts+=(--tags "$tags")
    if [ "$kind" = argocd ]; then
      build_in_module "${opts[@]}" argocd "$release" "$module" github.com/argoproj/argo-cd/v3/cmd \
        "-X github.com/argoproj/argo-cd/v3/common.version=${release#v}"
    else
      [ "$module" = argocd ] || opts+=(--modfile "$module")
      build_in_module "${opts[@]}" "$kind" "$release" argocd "./cmd/$kind"
    fi
    built=1
  done
  [ -n "$built" ] || { echo "tools/build.sh: no Argo CD $only in tools/go/argocd/versions.txt" >&2; exit 2; }
}

build_argocd() { argocd_each argocd "$@"; }
# our notifications evaluator, built against Argo CD's own notification packages
build_argocd_notify_eval() { argocd_each argocd-notify-eval "$@"; }
# our ApplicationSet evaluator: Argo CD's own plugin generator and template rendering
build_appset_eval() { argocd_each appset-eval "$@"; }

# Argo CD's exec credential helper (awsAuthConfig runs `argocd-k8s-auth aws ...`), from the oldest
# release's module (the local toolchain): the image ships it, the prober's tests run it
build_argocd_k8s_auth() {
  local release
  release=$(grep -v -e '^#' -e '^[[:space:]]*$' "$ARGOCD_VERSIONS" | awk '$3 == "argocd" {print $2; exit}')
  build_in_module argocd-k8s-auth "$release" argocd ./cmd/argocd-k8s-auth
}

ETCD_VERSION=v3.6.4
build_etcd() {
  build_in_module etcd "$ETCD_VERSION" etcd go.etcd.io/etcd/server/v3
}

KUBE_VERSION=v1.34.2
build_kube_apiserver() {
  # without the -X flags /version says v0.0.0-master, which Argo CD passes on as KUBE_VERSION
  local v=$KUBE_VERSION minor; minor=$(echo "$v" | cut -d. -f2)
  local x="" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    x+=" -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  build_in_module kube-apiserver "$KUBE_VERSION" kube k8s.io/kubernetes/cmd/kube-apiserver "$x"
}

# helm's release Makefile stamps the Kubernetes version of its client libraries (1.33 for 3.18) as the
# default --kube-version; without it a plain build assumes 1.20. The cache key carries it too.
HELM_K8S_MINOR=33
build_helm() {
  install_go helm "$HELM_VERSION-k8s1.$HELM_K8S_MINOR" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" \
    "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$HELM_K8S_MINOR"
}
build_kustomize() {
  install_go kustomize "$KUSTOMIZE_VERSION" "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
}

# the chart's README values table is generated with helm-docs; a test fails when it drifts
HELM_DOCS_VERSION=v1.14.2
build_helm_docs() {
  install_go helm-docs "$HELM_DOCS_VERSION" "github.com/norwoodj/helm-docs/cmd/helm-docs@$HELM_DOCS_VERSION"
}

# what Argo CD's repo-server reads from a YAML stream (sigs.k8s.io/yaml at Argo CD's pin), for the
# plugin's YAML round-trip tests
SIGS_YAML_VERSION=v1.6.0
build_yamlcheck() {
  build_in_module yamlcheck "$SIGS_YAML_VERSION" yamlcheck ./cmd/yamlcheck
}

# the chart's ServiceMonitor/PrometheusRule decoded strictly into the Prometheus Operator's own types
PROMETHEUS_OPERATOR_VERSION=v0.85.0
build_monitoring_validate() {
  build_in_module monitoring-validate "$PROMETHEUS_OPERATOR_VERSION" monitoring ./cmd/monitoring-validate
}

# Cluster API's CRDs (core and the kubeadm control plane), read from the module as the proxy serves it
# (nothing is built): $TOOLS_DIR/capi-crds-<version>/*.yaml, linked as bin/capi-crds for the tests.
CAPI_VERSION=v1.14.2
build_capi_crds() {
  local dest="$cache/capi-crds-$CAPI_VERSION"
  if [ -f "$dest/.complete" ]; then ln -sfn "$dest" "$bin/capi-crds"; return 0; fi
  log "fetching the Cluster API $CAPI_VERSION CRDs (go mod download)"
  local dir
  # outside any module (the cache folder), so no go.mod of ours is read or changed
  dir=$(cd "$cache" && go mod download -json "sigs.k8s.io/cluster-api@$CAPI_VERSION" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
  rm -rf "$dest.tmp"; mkdir -p "$dest.tmp"
  cp "$dir"/core/config/crd/bases/*.yaml "$dir"/controlplane/kubeadm/config/crd/bases/*.yaml "$dest.tmp/"
  chmod u+w "$dest.tmp"/*.yaml  # the module cache is read-only
  touch "$dest.tmp/.complete"
  rm -rf "$dest"; mv "$dest.tmp" "$dest"
  ln -sfn "$dest" "$bin/capi-crds"
  log "Cluster API $CAPI_VERSION CRDs in $dest ($(find "$dest" -name '*.yaml' | wc -l) files)"
}

# an OCI registry on loopback for the release round trip (tests/integration/deploy/test_deploy_release.py):
# go-containerregistry's in-memory registry, `registry -port 0` logs the port it serves on; v0.22.1 is the
# newest release the proxy serves (v0.22.2 and v0.23.0 are refused)
GGCR_VERSION=v0.22.1
build_registry() {
  install_go registry "$GGCR_VERSION" "github.com/google/go-containerregistry/cmd/registry@$GGCR_VERSION"
}

# the Argo CD Operator's CRDs (and its repo-server source), which the install path for an `ArgoCD` resource is validated against
# (tests/integration/deploy/test_deploy_install_paths.py); v0.18.0 is the newest the proxy serves
OPERATOR_VERSION=v0.18.0
build_operator_crds() {
  local dest="$cache/argocd-operator-crds-$OPERATOR_VERSION"
  if [ -f "$dest/.complete" ]; then ln -sfn "$dest" "$bin/argocd-operator-crds"; return 0; fi
  log "fetching the Argo CD Operator $OPERATOR_VERSION CRDs (go mod download)"
  local dir
  dir=$(cd "$cache" && go mod download -json "github.com/argoproj-labs/argocd-operator@$OPERATOR_VERSION" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
  # the CRDs, and the source that builds the repo-server Deployment (which volumes a sidecar may mount)
  rm -rf "$dest.tmp"; mkdir -p "$dest.tmp/config/crd/bases" "$dest.tmp/controllers/argocd"
  cp "$dir"/config/crd/bases/*.yaml "$dest.tmp/config/crd/bases/"
  cp "$dir"/controllers/argocd/repo_server.go "$dest.tmp/controllers/argocd/"
  chmod -R u+w "$dest.tmp"  # the module cache is read-only
  touch "$dest.tmp/.complete"
  rm -rf "$dest"; mv "$dest.tmp" "$dest"
  ln -sfn "$dest" "$bin/argocd-operator-crds"
}

tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(helm kustomize helm_docs monitoring_validate yamlcheck etcd kube_apiserver argocd argocd_k8s_auth argocd_notify_eval appset_eval capi_crds registry operator_crds)
for t in "${tools[@]}"; do
  case "$t" in
    *-v[0-9]*) base=${t%-v[0-9]*}; "build_${base//-/_}" "${t#"$base"-}" ;;  # NAME-<minor>
    *) "build_${t//-/_}" ;;
  esac
done
