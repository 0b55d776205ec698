#!/usr/bin/env bash
# Layer 1: the Debian root file system, exactly the packages of tools/image/debian.lock.
# mmdebstrap only unpacks them (variant extract: no maintainer scripts, no dpkg database, no apt);
# each downloaded package is checked against the lock's sha256 before anything is kept.
# Usage: tools/image/base.sh WORKDIR OUT.tar
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/versions.env"
. "$here/lib.sh"
work=$1 tar=$2
root="$work/root"
mkdir -p "$work"
python3 "$here/apt_sources.py" "$DEBIAN_SUITE" > "$work/sources"
pins=$(grep -v '^#' "$here/debian.lock" | awk 'NF{printf "%s%s=%s", sep, $1, $2; sep=","}')
mmdebstrap --quiet --variant=extract --include="$pins" --skip=cleanup/apt/cache \
  "$DEBIAN_SUITE" "$root" "$work/sources" || die "mmdebstrap could not install tools/image/debian.lock:" \
  "when the archive no longer has a locked version, run tools/image/lock.sh debian"

# The archive is signed and apt checked it; this also proves the packages are the locked ones.
want=$(grep -v '^#' "$here/debian.lock" | awk 'NF{print $1, $2, $3}' | sort)
got=$(for deb in "$root"/var/cache/apt/archives/*.deb; do
  printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" "$(sha256sum < "$deb" | cut -d' ' -f1)"
done | sort)
[ "$want" = "$got" ] || die "the Debian packages differ from tools/image/debian.lock:"$'\n'"$(diff <(echo "$want") <(echo "$got") || true)"

# A dpkg status file lists what is installed, so that vulnerability scanners see the packages.
status=$(for deb in "$root"/var/cache/apt/archives/*.deb; do
  dpkg-deb -f "$deb" | awk '{print} /^Package:/{print "Status: install ok installed"}'; echo
done)
# No package manager, caches, logs or device nodes: the image is never changed in place.
rm -rf "$root"/var/cache/apt "$root"/var/lib/apt "$root"/var/lib/dpkg "$root"/var/log/* "$root"/dev/* \
  "$root"/etc/apt "$root"/etc/dpkg "$root"/etc/ld.so.cache
# Manuals, translations and glibc's iconv modules serve no one here (Python has its own codecs);
# the packages' copyright files stay.
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
rm -rf "$root"/usr/share/{man,info,locale,lintian} "$root"/usr/lib/x86_64-linux-gnu/gconv
rm -rf "$root/usr/lib/$PYTHON/test"  # regrtest and test.support: no test suites in the image
mkdir -p "$root/var/lib/dpkg"
printf '%s\n' "$status" > "$root/var/lib/dpkg/status"
mkdir -p "$root/proc" "$root/sys" "$root/dev"  # mount points of every container runtime
chmod 1777 "$root/tmp"
# The libraries' cache (libc-bin, which has ldconfig, is not in the image). Its aux-cache keeps the
# inode numbers and ctimes of this machine's files: it would make every build's layer differ.
ldconfig -r "$root"
rm -rf "$root/var/cache/ldconfig"
compile_python "$root" "/usr/lib/$PYTHON"
layer_tar "$CACHED_LAYER_EPOCH" "$root" "$tar"
