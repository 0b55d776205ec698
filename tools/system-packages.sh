#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (listed in tools/apt-packages.txt), when missing.
# Runs as root on CI and on developer machines of this project; elsewhere it says what to install.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t wanted < <(grep -v '^\s*#' "$here/apt-packages.txt" | awk 'NF{print $1}')
[ ${#wanted[@]} -gt 0 ] || exit 0
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "missing Debian packages: ${missing[*]} (run: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "[system] installing ${missing[*]}" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
