#!/usr/bin/env bash
# The Debian package booted by systemd in a real kernel (issue 33): builds the .deb as
# deb-lifecycle.sh does (lib/deb.sh), then Tests/vm/deb_boot_scenarios.py boots QEMU once a
# unit — Debian's kernel, this machine's root read-only under a tmpfs overlay, the .deb
# installed and the unit enabled before systemd starts as PID 1 — and checks what a kiosk owner
# would see: the page with no login and no command (timings: kernel start -> page, READY=1), a
# watchdog kill of a stopped kiosk and the page back in the saved mode, `systemctl stop` (exit
# 0, the console back), a broken config (one start, no flapping, one clear journal line).
# darkmode-kiosk-kmsdrm.service on bochs-drm, darkmode-kiosk.service (cage, its seat from
# seatd) on virtio-gpu; and darkmode-kiosk-kmsdrm.service again with the display off from boot
# (`video=Virtual-1:d`): READY=1 with a waiting STATUS, no failure or restart in 60 s, then the
# display on and the page from the same process (issue 41); the cage unit the same way on
# virtio-gpu (cage-display-off), then the display lost six times while running, more often than
# a start limit of 5 in 120 s would allow: cage ends with its output, one restart each (the unit
# has no start limit), the kiosk waits and the page comes back.
# TCG by default (DARKMODE_KIOSK_VM_ACCEL=auto probes /dev/kvm). Needs root (the kernel image,
# dpkg-buildpackage's fakeroot is not enough for it). Screenshots go to $E2E_SHOTS (default: a
# temp folder); docs/run-as-kiosk.md ("Booting the package in a VM") says how to run it by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/deb.sh
source Tests/e2e/lib/vm.sh
[ "$(id -u)" -eq 0 ] || fail "needs root: Debian's kernel image is readable by root only (CI runs as root)"
need dpkg-buildpackage dpkg-parsechangelog
vm_setup deb-boot-vm
VERSION=$(dpkg-parsechangelog -S Version)
build_deb "$VERSION" "$E2E_TMP/debs"
DEB="$E2E_TMP/debs/darkmode-kiosk_${VERSION}_$(dpkg --print-architecture).deb"
status=0
/usr/bin/python3 Tests/vm/deb_boot_scenarios.py --deb "$DEB" --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "deb-boot-vm: a check failed (above)"
echo "deb-boot-vm: all checks passed"
