#!/usr/bin/env bash
# Builds the argocd-lifecycle image without a container engine, from pinned inputs only, and writes an
# OCI archive that `podman load` and `docker load` accept. Runs as root (chroot, file ownership).
#
#   layer 1  Debian root file system: every package of tools/image/debian.lock (mmdebstrap), the
#            standard library precompiled                                       cached, keyed by its inputs
#   layer 2  Python dependencies of requirements/image.txt, hash-checked, installed by pip inside the
#            image's own root, precompiled                                      cached, keyed by its inputs
#   layer 3  helm and kustomize from `make tools`, and Argo CD's argocd-k8s-auth (the prober's exec
#            credential helper), checked against tools/image/versions.env
#   layer 4  our wheel, /etc/passwd and /etc/group (uid/gid 999), the CA bundle link
#
# Reproducible: every timestamp is SOURCE_DATE_EPOCH (default: the commit time of HEAD), files are
# sorted, owners numeric; two builds of one commit give the same digest.
# Usage: tools/image/build.sh [OUTPUT_DIR]   (default build/image). Prints the digest and size on stdout.
# Environment: IMAGE_CACHE=DIR (default ~/.cache/argocd-lifecycle/image; an empty one builds cold),
#   IMAGE_SOURCE=DIR (the tree our wheel is built from, default this working tree),
#   IMAGE_REVISION (the revision label, default HEAD), SOURCE_DATE_EPOCH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"
. "$here/lib.sh"
out="${1:-$repo/build/image}"
cache="${IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argocd-lifecycle/image}"  # IMAGE_CACHE: a cold build
src="$(cd "${IMAGE_SOURCE:-$repo}" && pwd)"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}"
revision="${IMAGE_REVISION:-$(git -C "$repo" rev-parse HEAD)}"
created="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
version="$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' "$src/pyproject.toml")"
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL  # nothing but the locks decides what goes in
start=$SECONDS

[ "$(id -u)" = 0 ] || die "the image build runs as root (chroot, file ownership): run it as root"
for tool in mmdebstrap umoci strip; do
  command -v "$tool" >/dev/null || die "$tool is missing: run make system (tools/apt-packages.txt)"
done
mkdir -p "$cache" "$out"
exec 9> "$cache/.lock"
flock 9  # one build (or unpack) of this cache at a time: the tests rebuild a stale image themselves
work="$(mktemp -d "$cache/work.XXXXXX")"
trap 'rm -rf "$work"' EXIT

key() { cat "$@" | sha256sum | cut -c1-16; }

# --- layer 1: the Debian root file system ---
base_key=$(key "$here/debian.lock" "$here/base.sh" "$here/lib.sh" "$here/layer.py" <(echo "$DEBIAN_SUITE $PYTHON $CACHED_LAYER_EPOCH"))
base="$cache/base-$base_key.tar"
if [ ! -f "$base" ]; then
  log "building the Debian root file system ($DEBIAN_SUITE, $(grep -vc '^#' "$here/debian.lock") packages)"
  t=$SECONDS
  SOURCE_DATE_EPOCH=$CACHED_LAYER_EPOCH "$here/base.sh" "$work/base" "$base.tmp"
  mv "$base.tmp" "$base"
  log "Debian root file system built in $((SECONDS - t))s"
else
  log "Debian root file system from the cache ($base)"
fi

# --- layer 2: the locked Python dependencies ---
deps_key=$(key <(echo "$base_key $VENV") "$repo/requirements/image.txt" "$repo/requirements/build.txt" "$here/deps.sh" "$here/dedupe.py")
deps="$cache/deps-$deps_key.tar"
if [ ! -f "$deps" ]; then
  log "installing requirements/image.txt (hash-checked) into the image's root"
  t=$SECONDS
  SOURCE_DATE_EPOCH=$CACHED_LAYER_EPOCH "$here/deps.sh" "$base" "$work/deps" "$deps.tmp" "$cache/wheels"
  mv "$deps.tmp" "$deps"
  log "Python dependencies installed in $((SECONDS - t))s"
else
  log "Python dependencies from the cache ($deps)"
fi

# --- layer 3: helm, kustomize and argocd-k8s-auth, the very builds the tests use ---
tools_bin="$("$repo/tools/build.sh" --path)"
# pinned TOOL DEST: the tests' build of TOOL, checked against its pin, installed at DEST in the layer
pinned() {
  local tool=$1 dest=$2 upper
  upper=${tool^^}; upper=${upper//-/_}
  local want_version=${upper}_VERSION want_sha=${upper}_SHA256
  [ -x "$tools_bin/$tool" ] || die "$tool is missing from $tools_bin: run make tools"
  local sha; sha=$(sha256sum "$tools_bin/$tool" | cut -d' ' -f1)
  [ "$sha" = "${!want_sha}" ] || die "$tools_bin/$tool is not the pinned $tool ${!want_version}: sha256 $sha," \
    "tools/image/versions.env says ${!want_sha} (Go $GO_VERSION, flags of tools/build.sh)"
  install -m 0755 "$tools_bin/$tool" "$work/tools/$dest"
}
install -d -m 0755 "$work/tools/usr/local/bin" "$work/tools/usr/local/libexec" "$work/tools/usr/local/libexec/argocd-lifecycle"
pinned helm usr/local/bin/helm
pinned kustomize usr/local/bin/kustomize
pinned argocd-k8s-auth usr/local/libexec/argocd-lifecycle/argocd-k8s-auth
chown -R 0:0 "$work/tools"
# usr/local/libexec is new (the folders with it), usr/local/bin is the base layer's
layer_tar "$SOURCE_DATE_EPOCH" "$work/tools" "$work/tools.tar" usr/local/bin/helm usr/local/bin/kustomize usr/local/libexec

# --- layer 4: our wheel and the user ---
log "building the argocd-lifecycle $version wheel"
"$here/app.sh" "$base" "$deps" "$work/app" "$work/app.tar" "$cache" "$src"

# --- the OCI image ---
oci="$work/oci"
tag="$version"
umoci init --layout "$oci"
umoci new --image "$oci:$tag"
add_layer() {
  umoci raw add-layer --image "$oci:$tag" --history.created "$created" --history.created_by "$2" "$1"
}
add_layer "$base" "Debian $DEBIAN_SUITE: $PYTHON and its libraries (tools/image/debian.lock)"
add_layer "$deps" "Python dependencies (requirements/image.txt, hash-checked)"
add_layer "$work/tools.tar" "helm $HELM_VERSION, kustomize $KUSTOMIZE_VERSION, argocd-k8s-auth $ARGOCD_K8S_AUTH_VERSION"
add_layer "$work/app.tar" "argocd-lifecycle $version, user $IMAGE_UID:$IMAGE_UID"
config=(
  --created "$created" --author "argocd-lifecycle" --architecture amd64 --os linux
  --config.user "$IMAGE_UID:$IMAGE_UID" --config.workingdir /tmp
  --config.entrypoint argocd-lifecycle --config.cmd --help
  --config.label "org.opencontainers.image.title=argocd-lifecycle"
  --config.label "org.opencontainers.image.version=$version"
  --config.label "org.opencontainers.image.revision=$revision"
  --config.label "org.opencontainers.image.licenses=Apache-2.0"
)
# A read-only root file system in mind: every writable path is under /tmp (an emptyDir in the pods).
while read -r line; do
  [ -n "$line" ] && config+=(--config.env "$line")
done < "$here/image.env"
umoci config --image "$oci:$tag" --no-history "${config[@]}"
umoci gc --layout "$oci"

name="$IMAGE_NAME-$version.oci.tar"
layer_tar "$SOURCE_DATE_EPOCH" "$oci" "$out/$name.tmp"
mv "$out/$name.tmp" "$out/$name"
ln -sfn "$name" "$out/$IMAGE_NAME.oci.tar"
python3 "$here/describe.py" "$out/$name" --json "$out/$IMAGE_NAME.json"
echo "archive $out/$name"
log "built in $((SECONDS - start))s; load it with: podman load -i $out/$name"
