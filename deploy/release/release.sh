#!/usr/bin/env bash
# make release VERSION=x.y.z: the release artifacts in build/release/, from this working tree.
#   argocd-lifecycle-x.y.z.tgz        the chart package (helm package)
#   argocd-lifecycle-x.y.z.oci.tar    the image archive (make image: reproducible, daemonless)
#   argocd-lifecycle-x.y.z.spdx.json  an SPDX SBOM of the image's Debian and Python packages, read from the archive
#   SHA256SUMS                        the checksums of the three (sha256sum -c SHA256SUMS)
# Versions come from one place, pyproject.toml: VERSION must be that version (Chart.yaml's version and
# appVersion follow it; tests/unit/chart/test_chart_versions.py), so a release cannot carry two.
# Usage: deploy/release/release.sh [--check] VERSION [OUT_DIR]   (prints the image digest and the artifacts;
#   --check: only the version checks, before make builds the image). IMAGE_ARCHIVE=FILE: another archive.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
py="${PYTHON:-$repo/.venv/bin/python}"
die() { echo "error: $*" >&2; exit 1; }
check_only=false
if [ "${1:-}" = "--check" ]; then check_only=true; shift; fi
[ $# -ge 1 ] && [ -n "$1" ] || die "VERSION is required: make release VERSION=x.y.z"
want="$1"
out="${2:-$repo/build/release}"
version="$("$py" -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' "$repo/pyproject.toml")"
[ "$want" = "$version" ] || die "VERSION=$want, but pyproject.toml (where versions come from) says $version: change it there first"
chart="$repo/charts/argocd-lifecycle"
for key in version appVersion; do
  got="$("$py" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))[sys.argv[2]])' "$chart/Chart.yaml" "$key")"
  [ "$got" = "$version" ] || die "charts/argocd-lifecycle/Chart.yaml $key is $got, not $version"
done
"$check_only" && exit 0
image="${IMAGE_ARCHIVE:-$repo/build/image/argocd-lifecycle-$version.oci.tar}"
[ -f "$image" ] || die "$image is missing: run make image (make release does)"
command -v helm >/dev/null || die "helm is missing: run make tools"

rm -rf "$out"
mkdir -p "$out"
helm package "$chart" --destination "$out" >/dev/null
cp "$image" "$out/argocd-lifecycle-$version.oci.tar"
"$py" "$repo/deploy/release/sbom.py" "$out/argocd-lifecycle-$version.oci.tar" > "$out/argocd-lifecycle-$version.spdx.json"
(cd "$out" && sha256sum "argocd-lifecycle-$version.tgz" "argocd-lifecycle-$version.oci.tar" \
  "argocd-lifecycle-$version.spdx.json" > SHA256SUMS)
digest="$("$py" -c 'import json, sys, tarfile; print(json.load(tarfile.open(sys.argv[1]).extractfile("index.json"))["manifests"][0]["digest"])' "$out/argocd-lifecycle-$version.oci.tar")"
echo "argocd-lifecycle $version: image $digest"
(cd "$out" && ls -l)
