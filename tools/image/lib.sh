# Shared helpers of the image build scripts (sourced).
# shellcheck shell=bash
log() { printf '[image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# layer_tar EPOCH DIR TAR [PATH...]: a deterministic tar of PATHs (default: all) under DIR. Names
# sorted, owners numeric, every time EPOCH, no atime/ctime: the same files give the same bytes.
layer_tar() {
  local epoch=$1 dir=$2 tar=$3; shift 3
  (cd "$dir" && find "${@:-.}" | sed -e 's|^\./||' -e '/^\.\?$/d' | LC_ALL=C sort -u) > "$tar.list"
  tar --create --file "$tar" --directory "$dir" --format=posix --numeric-owner --mtime="@$epoch" \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime --no-recursion --files-from "$tar.list"
  rm -f "$tar.list"
}

# in_root ROOT ARGV...: run a program of the image's root as root, with a clean environment, in a
# mount namespace of its own: /proc, and /dev with null, urandom and shm (compileall's workers).
in_root() {
  local root=$1; shift
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 PYTHONHASHSEED=0 SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-0}" \
    unshare --mount --fork /bin/sh -euc '
      root=$1; shift
      mount -t proc proc "$root/proc"
      mount -t tmpfs -o mode=0755 dev "$root/dev"
      for node in null zero urandom random; do touch "$root/dev/$node"; mount --bind "/dev/$node" "$root/dev/$node"; done
      mkdir "$root/dev/shm" && mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
      exec /usr/sbin/chroot "$root" "$@"' in_root "$root" "$@"
}

# compile_python ROOT DIR...: byte-compile for a read-only root (nothing can be cached at run time);
# unchecked-hash pycs hold no timestamps, so the bytes depend on the sources only.
compile_python() {
  local root=$1; shift
  in_root "$root" "/usr/bin/$PYTHON" -m compileall -q -j 0 --invalidation-mode unchecked-hash "$@" >/dev/null
}
