#!/usr/bin/env bash
# The kiosk straight on KMS/DRM in a real Linux kernel: QEMU boots Debian's linux-image-amd64
# with a busybox initramfs that mounts this machine's root read-only over 9p (so the guest runs
# this build with this machine's SDL and Mesa), and the scenarios of Tests/vm/kmsdrm_scenarios.py
# run there: the page at the output's mode, taps with each kind of touch device and with QEMU's
# tablet, a drag, --rotate 90, a calibration matrix, SIGTERM and the console, a restart in the
# saved mode, a hot-plugged touch screen, a relative mouse's drawn cursor and click (pending
# ones, if any, are skipped: `kmsdrm_scenarios.py --list`), on bochs-drm (-vga std) and on
# virtio-gpu (cage with seatd on virtio only: cage's wlroots needs PRIME, which bochs lacks):
# about 4 minutes a GPU under TCG on an idle 2-core machine (virtio: 234 s with a second guest
# running beside it). TCG by default (DARKMODE_KIOSK_VM_ACCEL=auto probes /dev/kvm with a
# timeout and falls back). Needs root (Debian's kernel image is readable by root only). Screenshots go to $E2E_SHOTS (default:
# a temp folder); docs/kiosk-operation.md ("The real-kernel test") says how to run one by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
vm_setup kmsdrm-vm
status=0
/usr/bin/python3 Tests/vm/kmsdrm_scenarios.py --gpu bochs --shots "$SHOTS" || status=1
/usr/bin/python3 Tests/vm/kmsdrm_scenarios.py --gpu virtio --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "kmsdrm-vm: a scenario failed (above)"
echo "kmsdrm-vm: all scenarios passed"
