#!/usr/bin/env bash
# Builds the guest's initramfs: the static busybox, the modules that reach the root file system
# (virtio-pci and 9p over virtio, overlayfs for `dmk.overlay`, in `modprobe --show-depends` order) and Tests/vm/initramfs-init
# as /init. Nothing else: after the root is mounted (the host's own `/`, read-only, over 9p) the
# guest uses the host's programs, libraries and /lib/modules (the same kernel: Debian's
# linux-image-amd64 installed on the host).
# Usage: Tests/vm/make-initramfs.sh KERNEL-VERSION OUT.cpio.gz
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 KERNEL-VERSION OUT.cpio.gz" >&2; exit 2; }
version=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
busybox=/bin/busybox
[ -x "$busybox" ] || { echo "make-initramfs: no $busybox (install busybox-static)" >&2; exit 1; }
# ldd fails on a static executable ("not a dynamic executable").
! ldd "$busybox" >/dev/null 2>&1 || { echo "make-initramfs: $busybox is not static (install busybox-static)" >&2; exit 1; }
[ -d "/lib/modules/$version" ] || { echo "make-initramfs: no /lib/modules/$version (install linux-image-amd64)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,newroot,modules}
cp "$busybox" "$root/bin/busybox"
cp "$here/initramfs-init" "$root/init"
chmod 0755 "$root/init"
# Each module once, dependencies first.
: >"$root/modules/order"
for m in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe -S "$version" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r path; do
    name=$(basename "$path")
    case $name in
    *.ko) cp "$path" "$root/modules/$name" ;;
    *.ko.xz) xz -dc "$path" >"$root/modules/${name%.xz}"; name=${name%.xz} ;;
    *.ko.zst) zstd -qdc "$path" >"$root/modules/${name%.zst}"; name=${name%.zst} ;;
    *) echo "make-initramfs: unexpected module file $path" >&2; exit 1 ;;
    esac
    echo "$name" >>"$root/modules/order"
done
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc --owner 0:0 | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
