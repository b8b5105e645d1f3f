#!/usr/bin/env bash
# The screen's sleep on KMS/DRM in a real kernel (issue 41, item 2), with the VM harness
# (Tests/vm): Tests/vm/display_sleep_scenarios.py on bochs-drm and virtio-gpu (DMK_SLEEP_GPUS to choose) — the output switched off after
# idle (read back from the connector's DPMS / the CRTC's ACTIVE), no frames and no CPU asleep,
# a tap wakes it without switching and a second tap switches; the nightly schedule with
# libfaketime. TCG by default; root. Screenshots go to $E2E_SHOTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
vm_setup display-sleep-vm
need faketime
status=0
/usr/bin/python3 Tests/vm/display_sleep_scenarios.py --gpu "${DMK_SLEEP_GPUS:-bochs,virtio}" --shots "$SHOTS" || status=1
echo "info: screenshots in $SHOTS"
[ $status -eq 0 ] || fail "display-sleep-vm: a scenario failed (above)"
echo "display-sleep-vm: all scenarios passed"
