#!/usr/bin/env bash
# Displays that come and go under cage (issue 41, item 1's last part) in a real Linux kernel,
# with the KMS/DRM VM harness (Tests/vm): Tests/vm/cage_display_scenarios.py on virtio-gpu
# (cage 0.1.4's wlroots 0.15 needs PRIME import, which bochs-drm lacks) — cage started with the
# connector off (the kiosk waits for an output: one line, 0 CPU; the page once it is on, a tap
# works); the output lost while the page shows (cage ends, status 0; started again, as the
# unit's Restart=always does, the kiosk waits; the page back in a mode changed meanwhile);
# another mode (a VNC resize: cage keeps its mode until the output is re-created, then the
# page at 800x600 and a tap at the Original's new centre). TCG by default. Needs root.
# Screenshots go to $E2E_SHOTS. The shipped unit with the display off at boot and lost while
# running: Tests/e2e/deb-boot-vm.sh (cage-display-off).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
vm_setup cage-display-vm
need cage seatd setpriv
status=0
/usr/bin/python3 Tests/vm/cage_display_scenarios.py --gpu virtio --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "cage-display-vm: a scenario failed (above)"
echo "cage-display-vm: all scenarios passed"
