#!/usr/bin/env bash
# Displays that come and go with the DRM presenter (issue 41, items 1 and 4) in a real Linux
# kernel, with the KMS/DRM VM harness (Tests/vm): Tests/vm/display_hotplug_scenarios.py on
# bochs-drm and virtio-gpu — started with the connector off, then on; off and on while running
# (0 CPU ticks while off, a tap saved while off, the page back, a tap after); a burst of 50
# hot-plug events read as one rescan; the first page without a modeset (strace of the DRM
# ioctls); another mode (an 800x600 EDID) after a reconnect. TCG by default. Needs root.
# Screenshots go to $E2E_SHOTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
vm_setup display-hotplug-vm
need strace
status=0
/usr/bin/python3 Tests/vm/display_hotplug_scenarios.py --gpu bochs,virtio --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "display-hotplug-vm: a scenario failed (above)"
echo "display-hotplug-vm: all scenarios passed"
