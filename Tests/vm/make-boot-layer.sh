#!/usr/bin/env bash
# An image builder's step, for the systemd boot test (Tests/vm/deb_boot_scenarios.py): installs
# the package into this machine's root as a chroot sees it under an overlay, and keeps only what
# changed (the overlay's upper folder) as LAYER. The guest stacks LAYER over the host's root
# (initramfs-init's `dmk.layer`) under its own tmpfs, so it boots a system with the package
# installed and the unit enabled, as from an image, and nothing of the host changes. In SPEC:
#   debs/*.deb   installed with dpkg -i (maintainer scripts as in an image build: no running
#                manager, so the user comes from sysusers and units are linked, not started);
#   etc/         copied over /etc (the harness's additions: the agent's unit, a drop-in);
#   mask, enable units to `systemctl mask` / `systemctl enable` (one a line, offline).
# Done on the host rather than in the guest: dpkg reads its 127 000-file database over 9p in
# about a minute under TCG, here in a second or two. Needs root (mount, chroot).
# Usage: Tests/vm/make-boot-layer.sh SPEC LAYER
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SPEC LAYER" >&2; exit 2; }
spec=$(cd "$1" && pwd) layer=$2
work=$(mktemp -d /tmp/dmk-boot-layer.XXXXXX)
mounts=()
finish() {
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}"; done
    rm -rf "$work/root" "$work/w" "$work/dev"
    rmdir "$work" 2>/dev/null || true
}
trap finish EXIT
mkdir -p "$layer" "$work/w" "$work/root"
mount -t overlay dmk-boot-layer -o "lowerdir=/,upperdir=$layer,workdir=$work/w" "$work/root" && mounts+=("$work/root")
root=$work/root
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount -t tmpfs -o mode=0755 dev "$root/dev" && mounts+=("$root/dev")
mknod -m 666 "$root/dev/null" c 1 3; mknod -m 666 "$root/dev/zero" c 1 5
mknod -m 666 "$root/dev/random" c 1 8; mknod -m 666 "$root/dev/urandom" c 1 9
for d in run tmp; do mount -t tmpfs -o mode=1777 "$d" "$root/$d" && mounts+=("$root/$d"); done
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
mkdir "$root/tmp/debs"
cp "$spec"/debs/*.deb "$root/tmp/debs/"
in_root sh -c 'dpkg -i /tmp/debs/*.deb' </dev/null
if [ -d "$spec/etc" ]; then cp -R "$spec/etc/." "$root/etc/"; fi
if [ -s "$spec/mask" ]; then in_root systemctl mask $(cat "$spec/mask"); fi
if [ -s "$spec/enable" ]; then in_root systemctl enable $(cat "$spec/enable"); fi
