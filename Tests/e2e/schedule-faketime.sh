#!/usr/bin/env bash
# The schedule source through the real binary with libfaketime (Debian: faketime), in
# TZ=Europe/Berlin on the DST day 2026-10-25 (03:00 CEST → 02:00 CET at 01:00 UTC), with the
# rule "dark from 02:30 to 07:00" — 02:30 happens twice that night and counts once (the first).
#
# 1. `run --check` at faked instants prints the schedule's mode now and its next change.
# 2. The kiosk (preference "system", schedule the only source) started LEAD (10) s before a
#    transition shows the mode before it at start and the mode after it once the instant passes,
#    without a restart. libfaketime 0.9.10 wraps timerfd_settime, so the runner's CLOCK_REALTIME timerfd
#    (absolute, cancel-on-set) is armed for the faked instant; FAKETIME_DONT_FAKE_MONOTONIC=1
#    keeps SDL's and sd-bus's monotonic clocks real. What this cannot test: a real clock jump
#    (settimeofday) waking the timer through TFD_TIMER_CANCEL_ON_SET — that is covered by
#    AppearanceBusTests only as far as a test without root can go.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool matchbox-window-manager import convert xprop xdpyinfo timeout
BIN=$(kiosk_binary)
need faketime
CONFIG="$E2E_TMP/kiosk.json"
cat >"$CONFIG" <<'EOF'
{"appearance": {"systemSources": ["schedule"], "schedule": {"darkFrom": "02:30", "lightFrom": "07:00"}}}
EOF
# Page colours as run --check prints them for this configuration (sets LIGHT, DARK).
KIOSK=$BIN page_colours --config "$CONFIG" --prefs "$E2E_TMP/p.json" --scale 1
echo "info: page colours light #$LIGHT, dark #$DARK"
# utc Y-M-D H:M:S → epoch seconds.
utc() { date -u -d "$1" +%s; }
# faked UTC-INSTANT CMD...: runs CMD with the clock starting at that instant (an offset in
# seconds, so no local-time parsing is involved), in Berlin time. Through the faketime tool
# (-m: the thread-safe library): a bare LD_PRELOAD of libfaketime lost the Swift program's
# arguments here.
faked() {
    local at=$1; shift
    TZ=Europe/Berlin FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -m -f "$(($(utc "$at") - $(date +%s)))" "$@"
}

# --- 1. run --check at faked instants -------------------------------------------------------
check() { # UTC-INSTANT EXPECTED-LINE [CONFIG]
    local got
    got=$(faked "$1" "$BIN" run --check --config "${3:-$CONFIG}" --prefs "$E2E_TMP/p.json" | grep '^schedule now:' | sed 's/ at [0-9-]* [0-9:]* [+-][0-9]*;/;/')
    [ "$got" = "$2" ] || fail "run --check at $1 UTC: got \"$got\", expected \"$2\""
    pass "at $1 UTC: $got"
}
# 00:20 UTC = 02:20 CEST: light, dark at the first 02:30 (CEST).
check "2026-10-25 00:20:00" "schedule now: light; next change: dark at 2026-10-25 02:30:00 +0200"
# 01:40 UTC = 02:40 CET (the second 02:30 has passed too): dark since the first, light at 07:00 CET.
check "2026-10-25 01:40:00" "schedule now: dark; next change: light at 2026-10-25 07:00:00 +0100"
# 00:40 UTC = 02:40 CEST: dark; the repeated 02:30 an hour later changes nothing.
check "2026-10-25 00:40:00" "schedule now: dark; next change: light at 2026-10-25 07:00:00 +0100"
# The evening before (CEST) and the evening after (CET).
check "2026-10-24 17:00:00" "schedule now: light; next change: dark at 2026-10-25 02:30:00 +0200"
check "2026-10-25 18:00:00" "schedule now: light; next change: dark at 2026-10-26 02:30:00 +0100"
# Spring forward (2026-03-29, 02:00 CET -> 03:00 CEST): both times of a 02:00-02:59 window fall
# in the skipped hour, so both become 03:00 CEST and light (listed last) wins there: no change
# that night. Round three #14: the check announced "dark at 03:00" when it was light then.
SPRING="$E2E_TMP/spring.json"
echo '{"appearance": {"systemSources": ["schedule"], "schedule": {"darkFrom": "02:00", "lightFrom": "02:59"}}}' >"$SPRING"
check "2026-03-28 23:30:00" "schedule now: light; next change: dark at 2026-03-30 02:00:00 +0200" "$SPRING"

# --- 2. the real kiosk across a transition --------------------------------------------------
WRAP="$E2E_TMP/kiosk-faked"
start_xvfb 1280x800
# How long before the transition the faked clock starts. Start-up must show the first frame and
# the title well within it: once (3 s then) a start-up that spent 2.8 s in its text stage on a
# busy machine showed the mode after the transition at its first frame.
LEAD=10
# at_transition UTC-TRANSITION BEFORE-HEX AFTER-HEX WHAT
at_transition() {
    cat >"$WRAP" <<EOF
#!/bin/sh
TZ=Europe/Berlin FAKETIME_DONT_FAKE_MONOTONIC=1 exec faketime -m -f "$(($(utc "$1") - LEAD - $(date +%s)))" "$BIN" "\$@"
EOF
    chmod +x "$WRAP"
    KIOSK=$WRAP
    rm -f "$E2E_TMP/prefs.json"
    local t_start
    t_start=$(date +%s.%N)
    start_kiosk --config "$CONFIG" --prefs "$E2E_TMP/prefs.json" --scale 1 --reduce-motion
    # faketime forks the program and waits for it: the kiosk is its child.
    local kpid
    kpid=$(pgrep -P "$APP" | head -1)
    [ -n "$kpid" ] || fail "$4: no kiosk process under faketime ($APP)"
    # The title first (reading it is instant; the screenshot takes a while on a loaded machine,
    # and the transition is only seconds away): both toggles show the mode, the button says
    # the page follows the system.
    wait_title_states "$( [ "$2" = $DARK ] && echo "On On On" || echo "Off Off On")" "$4: title at start" 1
    shot; expect_corners "$2" "$4: at start ($LEAD s before the transition)"
    pass "$4: $( [ "$2" = $DARK ] && echo dark || echo light) at start"
    wait_corners "$3" "$4: after the transition" $((LEAD + 5))
    wait_title_states "$( [ "$3" = $DARK ] && echo "On On On" || echo "Off Off On")" "$4: title after the transition"
    # The change came from the schedule's timer at the faked instant: about LEAD s after the
    # start, not at once (a timerfd armed for an instant the real clock has passed would fire
    # at once).
    local elapsed
    elapsed=$(echo "$(date +%s.%N) $t_start" | awk '{ printf "%.2f", $1 - $2 }')
    awk -v e="$elapsed" -v lead=$LEAD 'BEGIN { exit !(e >= lead - 1 && e <= lead + 4) }' \
        || fail "$4: the page changed $elapsed s after the start, expected about $LEAD s"
    grep -q "timing: appearance schedule arrived" "$E2E_TMP/app.err" || fail "$4: no timing line naming the schedule as the source of the change"
    pass "$4: $( [ "$3" = $DARK ] && echo dark || echo light) after the transition ($elapsed s after the start), driven by the schedule, no restart"
    local hz t0 t1
    hz=$(getconf CLK_TCK)
    sleep 0.5
    t0=$(cpu_ticks "$kpid"); sleep 2; t1=$(cpu_ticks "$kpid")
    [ $((t1 - t0)) -le 1 ] || fail "$4: $((t1 - t0)) CPU ticks in 2 s after the transition (the timer must not spin)"
    pass "$4: idle after the transition ($((t1 - t0)) ticks in 2 s)"
    kill -TERM "$kpid"
    local rc=0
    timeout 3 tail --pid="$APP" -f /dev/null || fail "$4: kiosk still running 3 s after SIGTERM"
    wait "$APP" || rc=$?
    [ "$rc" -eq 0 ] || fail "$4: kiosk (through faketime) exited with status $rc after SIGTERM"
}
# First 02:30 (CEST, 00:30 UTC): light → dark.
at_transition "2026-10-25 00:30:00" $LIGHT $DARK "DST night, first 02:30 CEST"
# 07:00 CET (06:00 UTC), after the clocks went back: dark → light.
at_transition "2026-10-25 06:00:00" $DARK $LIGHT "07:00 CET after the change"

echo "schedule with faketime: all checks passed"
