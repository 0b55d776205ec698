#!/usr/bin/env bash
# Layer 2: the locked Python dependencies in a virtual environment of the image's python3.11 ($VENV),
# installed by pip inside the image's own root, every wheel hash-checked against requirements/image.txt.
# Usage: tools/image/deps.sh BASE.tar WORKDIR OUT.tar WHEEL_CACHE
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
. "$here/versions.env"
. "$here/lib.sh"
base=$1 work=$2 tar=$3 wheels=$4
root="$work/root"
site="${VENV#/}/lib/$PYTHON/site-packages"
mkdir -p "$root" "$wheels"
# Wheels only (nothing is compiled), for the image's interpreter and C library (Debian 12: glibc 2.36).
platform=(--only-binary=:all: --implementation cp --python-version 3.11 --abi cp311 --abi abi3 --abi none)
for minor in $(seq 36 -1 17); do platform+=(--platform "manylinux_2_${minor}_x86_64"); done
platform+=(--platform manylinux2014_x86_64 --platform any)
python3 -m pip download -q --disable-pip-version-check --no-deps --require-hashes "${platform[@]}" \
  -d "$wheels" -r "$repo/requirements/image.txt" -r "$repo/requirements/build.txt"
tar --extract --file "$base" --directory "$root" --same-owner --same-permissions
mkdir -p "$root/tmp/wheels"
cp "$repo/requirements/image.txt" "$root/tmp/wheels/"
pip_wheel=$(awk -F'[= ]+' '/^pip==/{print "pip-" $2 "-py3-none-any.whl"}' "$repo/requirements/build.txt")
# Only the wheels the locks name (the cache folder also holds older ones).
python3 - "$wheels" "$root/tmp/wheels" "$repo/requirements/image.txt" "$pip_wheel" <<'PY'
import re, shutil, sys
from pathlib import Path
src, dst, lock, pip_wheel = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
pins = {re.sub(r"[-_.]+", "_", m[1]).lower(): m[2] for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", lock.read_text(), re.M)}
for wheel in sorted(src.glob("*.whl")):
    name, version = wheel.name.split("-")[:2]
    if pins.get(name.lower()) == version or wheel.name == pip_wheel:
        shutil.copy(wheel, dst / wheel.name)
PY
# A venv keeps Debian's Python untouched (PEP 668); pip runs from its own wheel, so no pip stays behind.
in_root "$root" "/usr/bin/$PYTHON" -m venv --without-pip "$VENV"
in_root "$root" "$VENV/bin/python" "/tmp/wheels/$pip_wheel/pip" install --quiet --no-index --find-links /tmp/wheels \
  --require-hashes --no-deps --no-compile --no-cache-dir --root-user-action=ignore --disable-pip-version-check \
  --no-warn-script-location -r /tmp/wheels/image.txt
rm -rf "$root/tmp/wheels" "$root/root/.cache"
# kubernetes >= 36 also ships an asyncio client (39 MB) that nothing here imports (a test checks):
# it stays out, like documentation. Its RECORD entries are dropped with it, so pip sees no missing files.
rm -rf "$root/$site/kubernetes/aio"
sed -i '\#^kubernetes/aio/#d' "$root/$site"/kubernetes-*.dist-info/RECORD
# No test suites in the image (jsonschema, websocket, referencing ... ship theirs).
find "$root/$site" -mindepth 2 -type d \( -name tests -o -name test \) -prune -exec rm -rf {} +
# Wheels ship their C extensions with symbols (uvloop 13.6 MB, 1.6 MB without): the code stays as is.
find "$root/$site" -name '*.so*' -type f -exec strip --strip-unneeded {} +
# Precompiled for a read-only root, except the kubernetes client (23 MB of pyc for 1,000 generated model
# and API modules): only the long-running generator imports it, once, at start.
compile_python "$root" -x '/kubernetes/' "/$site"
# Identical files (kubernetes-validate ships the same schema for many releases) become one.
python3 "$here/dedupe.py" "$root/$site" >&2
layer_tar "$CACHED_LAYER_EPOCH" "$root" "$tar" "./$(dirname "${VENV#/}")"  # ./opt: nothing else is there
