#!/usr/bin/env bash
# Runs one command of the image the way a pod's container runs it, without a container runtime:
# the unpacked root file system (tools/image/unpack.sh) read-only, an emptyDir on /tmp, the volumes
# given, new mount and pid namespaces, optionally a network namespace of its own with only loopback
# (like a pod: it may listen on 0.0.0.0), as uid/gid 999. Runs as root.
# Usage: tools/image/run.sh ROOTFS [--net] [--workdir DIR] [--scratch DIR] [--mount SRC:DEST[:rw]]...
#                           [--env NAME=VALUE]... -- ARGV...
#   ARGV[0] is looked up on the image's PATH; the environment is the image's plus --env. DIR (default:
#   a new folder under /tmp) holds the overlay's upper layer. This process becomes unshare(1), which
#   ignores SIGTERM: SIGKILL it to stop the command. Its child, pid 1 of the new pid namespace, is a
#   root shell that runs the command and dies with unshare (a parent-death signal, which the command
#   itself would lose when it changes to uid 999), and with pid 1 the kernel kills every process of
#   the namespace: nothing outlives run.sh. SIGTERM and SIGINT sent to pid 1 reach the command.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/versions.env"
. "$here/lib.sh"
[ $# -ge 1 ] || die "usage: tools/image/run.sh ROOTFS [--net] [--mount SRC:DEST[:rw]]... [--env K=V]... -- ARGV..."
rootfs=$(realpath "$1"); shift
[ -x "$rootfs/usr/bin/$PYTHON" ] || die "$rootfs is not an unpacked argocd-lifecycle image"
net=() mounts=() envs=() scratch="" workdir=/tmp
while [ $# -gt 0 ]; do
  case "$1" in
    --net) net=(--net); shift ;;
    --mount) mounts+=("$2"); shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --workdir) workdir=$2; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option $1" ;;
  esac
done
[ $# -gt 0 ] || die "no command given after --"
image_env=()
while read -r line; do [ -n "$line" ] && image_env+=("$line"); done < "$here/image.env"

# The root is an overlay of the unpacked image (never changed) so that volume mount points can be
# made, like a runtime does; it is remounted read-only before the command starts.
[ -n "$scratch" ] || scratch=$(mktemp -d /tmp/argocd-lifecycle-run.XXXXXX)
mkdir -p "$scratch"/{upper,work,root}
printf '%s\n' "${mounts[@]+"${mounts[@]}"}" > "$scratch/mounts"

exec unshare --mount --pid --fork --kill-child=SIGKILL "${net[@]+"${net[@]}"}" /bin/bash -euc '
  scratch=$1 lower=$2 uid=$3; shift 3
  root=$scratch/root
  mount --make-rprivate /
  mount -t overlay overlay -o "lowerdir=$lower,upperdir=$scratch/upper,workdir=$scratch/work" "$root"
  mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
  mount -t tmpfs -o nosuid,mode=0755,size=1m dev "$root/dev"
  for node in null zero full random urandom tty; do
    touch "$root/dev/$node"; mount --bind "/dev/$node" "$root/dev/$node"
  done
  mkdir "$root/dev/shm" && mount -t tmpfs -o nosuid,nodev,mode=1777,size=64m shm "$root/dev/shm"
  mount -t tmpfs -o nosuid,nodev,mode=1777,size=512m tmp "$root/tmp"  # the emptyDir
  while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    IFS=: read -r src dest mode <<< "$spec"
    if [ -d "$src" ]; then mkdir -p "$root$dest"; else mkdir -p "$root$(dirname "$dest")"; touch "$root$dest"; fi
    mount --bind "$src" "$root$dest"
    [ "$mode" = rw ] || mount -o remount,bind,ro "$root$dest"
  done < "$scratch/mounts"
  mount -o remount,ro "$root"
  if [ -e /proc/self/ns/net ] && ip link show lo >/dev/null 2>&1; then ip link set lo up 2>/dev/null || true; fi
  set +e
  env -i "$@" <&0 &
  child=$!
  trap "kill -TERM \$child 2>/dev/null" TERM
  trap "kill -INT \$child 2>/dev/null" INT
  wait "$child"; status=$?
  while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done  # a trap ended the first wait
  exit "$status"
' run "$scratch" "$rootfs" "$IMAGE_UID" "${image_env[@]}" "${envs[@]+"${envs[@]}"}" \
  "$(command -v nsenter)" --root="$scratch/root" --wd="$scratch/root$workdir" --setuid="$IMAGE_UID" --setgid="$IMAGE_UID" "$@"
