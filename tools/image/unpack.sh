#!/usr/bin/env bash
# Unpacks an OCI archive's layers into a root file system (umoci applies them in order, whiteouts and
# ownership included), cached by the image's digest; prints the root file system's path.
# Usage: tools/image/unpack.sh [IMAGE.oci.tar]   (default build/image/argocd-lifecycle.oci.tar)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
. "$here/versions.env"
. "$here/lib.sh"
archive="${1:-$repo/build/image/$IMAGE_NAME.oci.tar}"
[ -f "$archive" ] || die "$archive is missing: run make image"
cache="${IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/argocd-lifecycle/image}"
mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9  # not while a build replaces the archive, nor with another unpack of it
digest=$(tar -xOf "$archive" index.json | python3 -c 'import json, sys; print(json.load(sys.stdin)["manifests"][0]["digest"])')
dest="$cache/rootfs-${digest#sha256:}"
if [ ! -f "$dest/.complete" ]; then
  rm -rf "$dest" "$dest.tmp"; mkdir -p "$dest.tmp/layout"
  tar -xf "$archive" -C "$dest.tmp/layout"
  tag=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"])' "$dest.tmp/layout/index.json")
  umoci unpack --image "$dest.tmp/layout:$tag" "$dest.tmp/bundle" >&2
  mv "$dest.tmp/bundle" "$dest"; rm -rf "$dest.tmp"
  touch "$dest/.complete"
  # only the five used last are kept (a running test may still use an older one)
  ls -dt "$cache"/rootfs-* 2>/dev/null | tail -n +6 | xargs -r rm -rf
fi
touch "$dest"  # used now
echo "$dest/rootfs"
