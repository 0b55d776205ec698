# Shared helpers of the image build scripts (sourced).
# shellcheck shell=bash
log() { printf '[image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# layer_tar EPOCH DIR TAR [PATH...]: a deterministic tar of PATHs (default: all) under DIR
# (tools/image/layer.py: names sorted, owners numeric, every time EPOCH, ustar headers where they fit).
layer_tar() {
  python3 "$(dirname "${BASH_SOURCE[0]}")/layer.py" "$@"
}

# in_root ROOT ARGV...: run a program of the image's root as root, with a clean environment, in a
# mount namespace of its own: /proc, and /dev with null, zero and the random devices.
in_root() {
  local root=$1; shift
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 PYTHONHASHSEED=0 SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-0}" \
    unshare --mount --fork /bin/sh -euc '
      root=$1; shift
      mount -t proc proc "$root/proc"
      mount -t tmpfs -o mode=0755 dev "$root/dev"
      for node in null zero urandom random; do touch "$root/dev/$node"; mount --bind "/dev/$node" "$root/dev/$node"; done
      exec /usr/sbin/chroot "$root" "$@"' in_root "$root" "$@"
}

# compile_python ROOT DIR...: byte-compile for a read-only root (nothing can be cached at run time);
# unchecked-hash pycs hold no timestamps, so the bytes depend on the sources only. One process, files
# in compileall's sorted order: marshal flags objects by their reference counts, which depend on what
# the process compiled before, so parallel workers could write different bytes for the same source.
# -f: Debian's packages leave timestamp pycs behind, which compileall would keep and the layers' fixed
# mtimes make stale: Python would compile the standard library from source on every start.
compile_python() {
  local root=$1; shift
  in_root "$root" "/usr/bin/$PYTHON" -m compileall -f -q -j 1 --invalidation-mode unchecked-hash "$@" >/dev/null
}
