#!/usr/bin/env bash
# Touch calibration on the spot (issue 41, item 3) in a real Linux kernel, with the KMS/DRM VM
# harness (Tests/vm): Tests/vm/calibrate_scenarios.py on bochs-drm and virtio-gpu — a
# single-touch panel with swapped, mirrored and skewed axes tapped at `darkmode-kiosk
# calibrate`'s targets (a stray reading and jitter each), the config written with its other key
# kept and the check point's error printed, then the kiosk with that config switching the page
# at a tap on the Original's centre; the same with the evdev reader (no udevd) and with
# --rotate 90; --device refused in one line under a compositor; on virtio-gpu the same panel
# calibrated under cage (`cage -- darkmode-kiosk calibrate`, as the cage unit runs it), then
# `cage -- darkmode-kiosk run` with the matrix. About 6 minutes, TCG by default. Needs
# root (Debian's kernel image is readable by root only). Screenshots go to $E2E_SHOTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
vm_setup calibrate-vm
status=0
/usr/bin/python3 Tests/vm/calibrate_scenarios.py --gpu bochs,virtio --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "calibrate-vm: a scenario failed (above)"
echo "calibrate-vm: all scenarios passed"
