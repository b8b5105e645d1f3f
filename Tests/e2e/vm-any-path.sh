#!/usr/bin/env bash
# The QEMU harness from a checkout the guest cannot see (issue 39, item 1). The guest mounts
# fresh tmpfs over /tmp, /var/tmp, /root and /run, so a checkout there (CI's, most people's) is
# hidden from it: the harness stages what the guest needs (Tests/vm/vm.py: /mnt/dmk in the
# guest). This copies this working tree (git ls-files: uncommitted changes too) and the release
# binary into a folder under /tmp whose name has a space, and from there, with / as the working
# folder:
#   1. runs one KMS/DRM scenario (page_at_mode on bochs): it must pass;
#   2. with the copy's guest agent replaced by one that never answers: the run must fail within
#      the agent's bound (DMK_VM_AGENT_TIMEOUT=20 here, to keep it short: the default is
#      vm.AGENT_TIMEOUT) with a message that says so and the guest console's last lines (the
#      broken agent's own line among them), and no Python traceback;
#   3. with an agent that exits at once (the guest powers off): the run must fail as soon as
#      QEMU is gone, saying so, with the console's lines.
# TCG (DARKMODE_KIOSK_VM_ACCEL=auto probes /dev/kvm). Needs root (Debian's kernel image).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/vm.sh
[ "$(id -u)" -eq 0 ] || fail "needs root: Debian's kernel image is readable by root only (CI runs as root)"
need git tar
vm_setup vm-any-path
git rev-parse --git-dir >/dev/null 2>&1 || fail "not a git checkout: this test copies the working tree with git ls-files"

clone="$E2E_TMP/dmk clone"
mkdir -p "$clone/.build/release"
# The working tree as it is: tracked files (deleted ones skipped) and new ones git does not ignore.
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
done | tar --null -T - -cf - | tar -xf - -C "$clone"
[ -x "$clone/Tests/vm/kmsdrm_scenarios.py" ] || [ -f "$clone/Tests/vm/kmsdrm_scenarios.py" ] \
    || fail "the copy has no Tests/vm/kmsdrm_scenarios.py"
cp "$KIOSK_BIN" "$clone/.build/release/darkmode-kiosk"
export KIOSK_BIN="$clone/.build/release/darkmode-kiosk"
echo "info: the checkout copied to '$clone' ($(du -sh "$clone" | cut -f1))"

# run NAME [VAR=VALUE...]: the scenario from the copy, from /, with those variables; its output
# in $E2E_TMP/NAME.out, the seconds it took in $took, its exit status in $rc.
run() {
    local name=$1 started=$SECONDS
    shift
    rc=0
    (cd / && env "$@" /usr/bin/python3 "$clone/Tests/vm/kmsdrm_scenarios.py" --gpu bochs --only page_at_mode \
        --shots "$SHOTS") >"$E2E_TMP/$name.out" 2>&1 || rc=$?
    took=$((SECONDS - started))
    sed "s/^/  $name| /" "$E2E_TMP/$name.out"
}
# The work folder a failed run keeps (run_guests names it): the failures here are expected.
drop_kept() {
    local kept
    kept=$(sed -n "s/.*the guest's serial log and files are kept in //p" "$E2E_TMP/$1.out")
    if [ -n "$kept" ] && [ -d "$kept" ]; then rm -rf "$kept"; fi
}
no_traceback() {
    ! grep -q "Traceback (most recent call last)" "$E2E_TMP/$1.out" || fail "$1: a Python traceback in the output"
}

run good
[ "$rc" -eq 0 ] && grep -q "kmsdrm-vm: 1 of 1 passed" "$E2E_TMP/good.out" \
    || fail "page_at_mode from a copy under '$clone' failed (status $rc)"
pass "page_at_mode from '$clone' passed in $took s"

cat >"$clone/Tests/vm/guest-agent.py" <<'AGENT'
#!/usr/bin/python3
import sys, time
print("vm-any-path: a broken agent that never answers", file=sys.stderr, flush=True)
time.sleep(100000)
AGENT
run hang DMK_VM_AGENT_TIMEOUT=20
drop_kept hang
[ "$rc" -eq 1 ] || fail "hang: status $rc, expected 1"
no_traceback hang
line=$(grep -o "no answer from the guest agent within 20 s of the root's mount (root mounted [0-9.]* s after QEMU started, given up at [0-9.]* s" "$E2E_TMP/hang.out") \
    || fail "hang: no message saying the agent did not answer within its bound"
root=$(echo "$line" | sed 's/.*root mounted \([0-9.]*\) s.*/\1/')
gave=$(echo "$line" | sed 's/.*given up at \([0-9.]*\) s.*/\1/')
awk -v r="$root" -v g="$gave" 'BEGIN { exit !(g - r >= 20 && g - r <= 30) }' \
    || fail "hang: given up $gave s after QEMU's start, the root mounted at $root s: not within the 20 s bound (+10)"
grep -q "the guest's console, last lines:" "$E2E_TMP/hang.out" && grep -q "vm-any-path: a broken agent that never answers" "$E2E_TMP/hang.out" \
    || fail "hang: the console's last lines (with the broken agent's line) are not in the failure"
pass "an agent that never answers: failed $(awk -v r="$root" -v g="$gave" 'BEGIN { printf "%.1f", g - r }') s after the root's mount (bound 20 s), with the console's lines; $took s in all"

cat >"$clone/Tests/vm/guest-agent.py" <<'AGENT'
#!/usr/bin/python3
import sys
print("vm-any-path: a broken agent that exits", file=sys.stderr, flush=True)
sys.exit(3)
AGENT
run exits
drop_kept exits
[ "$rc" -eq 1 ] || fail "exits: status $rc, expected 1"
no_traceback exits
grep -q "QEMU exited (status [0-9-]*; seen [0-9.]* s after it started)" "$E2E_TMP/exits.out" \
    || fail "exits: no message saying QEMU exited"
grep -q "guest-init: the agent ended (3); powering off" "$E2E_TMP/exits.out" \
    || fail "exits: the console's last lines (guest-init's 'the agent ended (3)') are not in the failure"
pass "an agent that exits: failed when QEMU exited, with the console's lines; $took s in all"
echo "vm-any-path: all checks passed"
