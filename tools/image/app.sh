#!/usr/bin/env bash
# Layer 4: our wheel (built from the working tree with the locked build backend), the image's user and
# group 999, and the CA bundle where Go and OpenSSL look for it (certifi's, from the lock).
# Usage: tools/image/app.sh BASE.tar DEPS.tar WORKDIR OUT.tar CACHE SOURCE_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
. "$here/versions.env"
. "$here/lib.sh"
base=$1 deps=$2 work=$3 tar=$4 cache=$5 src=$6
root="$work/root"
site="${VENV#/}/lib/$PYTHON/site-packages"
version="$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' "$src/pyproject.toml")"
# the folders pyproject.toml maps its packages from (one list: the wheel's own)
sources() { python3 -c 'import sys, tomllib; print(*sorted(set(tomllib.load(open(sys.argv[1], "rb"))["tool"]["setuptools"]["package-dir"].values())))' "$src/pyproject.toml"; }
mkdir -p "$root" "$work/src" "$work/dist"

venv="$cache/build-venv-$(sha256sum < "$repo/requirements/build.txt" | cut -c1-16)"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  python3 -m venv --without-pip "$venv"
  python3 -m pip --python "$venv/bin/python" install -q --disable-pip-version-check --require-hashes \
    --no-deps -r "$repo/requirements/build.txt"
  touch "$venv/.complete"
fi
# The same files the Dockerfile's context holds (.dockerignore): the wheel's sources, nothing else.
tar --create --directory "$src" --exclude=__pycache__ --exclude='*.pyc' \
  pyproject.toml README.md $(sources) | tar --extract --directory "$work/src"
"$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
  --wheel-dir "$work/dist" "$work/src" > "$work/wheel.log" 2>&1 || { cat "$work/wheel.log" >&2; die "the wheel did not build"; }

tar --extract --file "$base" --directory "$root" --same-owner --same-permissions
tar --extract --file "$deps" --directory "$root" --same-owner --same-permissions
(cd "$root" && find "./${VENV#/}" | LC_ALL=C sort) > "$work/before"
mkdir -p "$root/tmp/wheel"
cp "$work/dist/"*.whl "$root/tmp/wheel/"
pip_wheel=$(awk -F'[= ]+' '/^pip==/{print "pip-" $2 "-py3-none-any.whl"}' "$repo/requirements/build.txt")
cp "$cache/wheels/$pip_wheel" "$root/tmp/"
in_root "$root" "$VENV/bin/python" "/tmp/$pip_wheel/pip" install --quiet --no-index --find-links /tmp/wheel \
  --no-deps --no-compile --no-cache-dir --root-user-action=ignore --disable-pip-version-check \
  "argocd-lifecycle==$version"
rm -rf "$root/tmp/wheel" "$root/tmp/$pip_wheel" "$root/root/.cache"
compile_python "$root" "/$site/argocd_lifecycle"
(cd "$root" && find "./${VENV#/}" | LC_ALL=C sort) > "$work/after"

mkdir -p "$root/etc/ssl/certs"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nargocd:x:%s:%s:argocd:/tmp:/usr/sbin/nologin\n' \
  "$IMAGE_UID" "$IMAGE_UID" > "$root/etc/passwd"
printf 'root:x:0:\nargocd:x:%s:\n' "$IMAGE_UID" > "$root/etc/group"
chmod 0644 "$root/etc/passwd" "$root/etc/group"
ln -sfn "/$site/certifi/cacert.pem" "$root/etc/ssl/certs/ca-certificates.crt"
[ -f "$root/$site/certifi/cacert.pem" ] || die "certifi's CA bundle is missing from the locked dependencies"
new=$(comm -13 "$work/before" "$work/after")
[ -n "$new" ] || die "installing the wheel added no files"
# shellcheck disable=SC2086
layer_tar "$SOURCE_DATE_EPOCH" "$root" "$tar" ./etc/passwd ./etc/group ./etc/ssl ./etc/ssl/certs \
  ./etc/ssl/certs/ca-certificates.crt $new
