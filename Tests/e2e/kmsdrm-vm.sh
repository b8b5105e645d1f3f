#!/usr/bin/env bash
# The kiosk straight on KMS/DRM in a real Linux kernel: QEMU boots Debian's linux-image-amd64
# with a busybox initramfs that mounts this machine's root read-only over 9p (so the guest runs
# this build with this machine's SDL and Mesa), and the scenarios of Tests/vm/kmsdrm_scenarios.py
# run there: the page at the output's mode, taps with each kind of touch device and with QEMU's
# tablet, a drag, --rotate 90, a calibration matrix, SIGTERM and the console, a restart in the
# saved mode, a hot-plugged touch screen. All of them on bochs-drm (-vga std), a few on
# virtio-gpu. TCG by default (DARKMODE_KIOSK_VM_ACCEL=auto probes /dev/kvm with a timeout and
# falls back). Needs root (Debian's kernel image is readable by root only). Screenshots go to
# $E2E_SHOTS (default: a temp folder); docs/run-as-kiosk.md says how to run one scenario by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
DMK_VM_PIDFILE="$E2E_TMP/qemu.pids"
export DMK_VM_PIDFILE PYTHONDONTWRITEBYTECODE=1
# QEMU started by the harness is killed here too, however the harness ended.
vm_cleanup() {
    local pid
    if [ -f "$DMK_VM_PIDFILE" ]; then
        while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$DMK_VM_PIDFILE"
    fi
    cleanup
}
trap vm_cleanup EXIT
trap 'exit 143' TERM INT
need qemu-system-x86_64 cpio modprobe /usr/bin/python3 /bin/busybox
ls /boot/vmlinuz-* >/dev/null 2>&1 || fail "no kernel in /boot (install linux-image-amd64)"
/usr/bin/python3 -c 'import evdev' 2>/dev/null || fail "python3-evdev is not installed (the guest's touch devices)"
KIOSK_BIN=$(kiosk_binary)
export KIOSK_BIN
SHOTS=${E2E_SHOTS:-$(mktemp -d /tmp/kmsdrm-vm-shots.XXXXXX)}
status=0
/usr/bin/python3 Tests/vm/kmsdrm_scenarios.py --gpu bochs --shots "$SHOTS" || status=1
/usr/bin/python3 Tests/vm/kmsdrm_scenarios.py --gpu virtio --only page_at_mode,taps_multitouch --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "kmsdrm-vm: a scenario failed (above)"
echo "kmsdrm-vm: all scenarios passed"
