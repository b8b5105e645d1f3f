#!/usr/bin/env bash
# Input devices that come and go, input without udev, and broken devices, on KMS/DRM in a QEMU
# guest (Tests/vm/input_hotplug_scenarios.py; the guest as in Tests/e2e/kmsdrm-vm.sh): without
# udevd a multitouch panel, QEMU's virtio tablet and a relative mouse each switch a toggle and a
# panel plugged in later is found (the kiosk's own evdev reader); panels with an empty or a
# reversed axis range are refused in one line and a panel spewing 100 000 frames leaves another
# panel's taps working, and a flood with no finger down the loop's thread asleep (evdev reader,
# then libinput); Space on the AT keyboard wakes the idle page beside either reader; a USB
# tablet unplugged mid-press and mid-drag commits nothing; a USB tablet unplugged and plugged
# back 20 times (QMP device_del/device_add) and a uinput panel 200 times, with taps switching the
# toggle along the way and the kiosk's open descriptors and VmRSS after the last cycle against
# the first (both readers).
# About 12 minutes under TCG on the 2-core machine. Needs root (Debian's kernel image).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
vm_setup input-hotplug-vm
/usr/bin/python3 Tests/vm/input_hotplug_scenarios.py --gpu bochs --shots "$SHOTS" || fail "input-hotplug-vm: a scenario failed (above)"
echo "info: screenshots in $SHOTS"
echo "input-hotplug-vm: all scenarios passed"
