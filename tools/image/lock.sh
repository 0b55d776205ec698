#!/usr/bin/env bash
# Re-resolves the image's locked inputs. Run it after changing the dependencies in pyproject.toml, the
# Debian package roots (tools/image/debian-packages.txt), or when the Debian archive has moved on.
#   requirements/image.txt  runtime Python dependencies with every wheel's hash (pip-compile)
#   requirements/build.txt  what builds and installs: pip, and setuptools + wheel for our wheel (pip-compile)
#   tools/image/debian.lock every Debian package of the root file system: name, version, sha256
# Usage: tools/image/lock.sh [python|debian]   (default: both)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/argocd-lifecycle/image"
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL  # the locks depend on nothing but the registry
log() { printf '[image-lock %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

lock_python() {
  # pip-compile evaluates markers (python_full_version < "3.11.3" ...) with the interpreter it runs on:
  # that must be the image's, Debian's python3.11 of the locked version, not whatever python3 is first.
  local python="/usr/bin/$PYTHON" want have
  want=$(awk -v p="$PYTHON-minimal" '$1 == p {sub(/-.*/, "", $2); print $2}' "$here/debian.lock")
  have=$("$python" -c 'import platform; print(platform.python_version())' 2>/dev/null) || have="missing"
  [ "$have" = "$want" ] || die "the lock is resolved with the image's Python $want ($python, Debian's" \
    "$PYTHON and $PYTHON-venv packages of $DEBIAN_SUITE); $python is $have"
  local venv="$cache/pip-tools-$PIP_TOOLS_VERSION-py$want"
  if [ ! -x "$venv/bin/pip-compile" ]; then
    rm -rf "$venv"; "$python" -m venv "$venv" && "$venv/bin/pip" install -q "pip-tools==$PIP_TOOLS_VERSION"
  fi
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  export CUSTOM_COMPILE_COMMAND="tools/image/lock.sh python"  # the header says how to refresh
  # pip-compile reads the project's metadata from pyproject.toml; the lock names the file it came from
  cp "$repo/pyproject.toml" "$repo/README.md" "$work/"
  log "resolving pyproject.toml's dependencies"
  (cd "$work" && "$venv/bin/pip-compile" -q --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
    --output-file "$repo/requirements/image.txt" pyproject.toml)
  log "resolving the build tools"
  # the build backend pyproject.toml names, and pip (run inside the image's root to install the lock)
  printf '%s\n' pip "$(python3 -c 'import tomllib; print(*tomllib.load(open("'"$repo"'/pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")')" > "$work/build.in"
  (cd "$work" && "$venv/bin/pip-compile" -q --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
    --output-file "$repo/requirements/build.txt" build.in)
  sed -i 's#^    \# via -r build.in$#    \# via the image build (tools/image/build.sh)#' "$repo/requirements/build.txt"
}

lock_debian() {
  local work; work=$(mktemp -d); trap 'rm -rf "$work"' RETURN
  local roots; roots=$(grep -v '^\s*#' "$here/debian-packages.txt" | awk 'NF{print $1}' | paste -sd, -)
  python3 "$here/apt_sources.py" "$DEBIAN_SUITE" > "$work/sources"
  log "resolving $roots in $DEBIAN_SUITE"
  mmdebstrap --quiet --variant=extract --include="$roots" --skip=cleanup/apt/cache \
    "$DEBIAN_SUITE" "$work/root" "$work/sources"
  {
    echo "# Every Debian package of the image's root file system ($DEBIAN_SUITE), resolved from the roots"
    echo "# in tools/image/debian-packages.txt by tools/image/lock.sh debian. name version sha256"
    for deb in "$work"/root/var/cache/apt/archives/*.deb; do
      printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" \
        "$(sha256sum "$deb" | cut -d' ' -f1)"
    done | sort
  } > "$here/debian.lock"
}

case "${1:-all}" in
  python) lock_python ;;
  debian) lock_debian ;;
  all) lock_python; lock_debian ;;
  *) echo "usage: tools/image/lock.sh [python|debian]" >&2; exit 2 ;;
esac
