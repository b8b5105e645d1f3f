#!/usr/bin/env bash
# systemd integration of the real kiosk under Xvfb, with Tests/e2e/lib/notify-listener.py as
# NOTIFY_SOCKET: READY=1 within 300 ms of start, WATCHDOG=1 every WATCHDOG_USEC/2 while idle,
# STATUS= on a change, STOPPING=1 on SIGTERM (all from the kiosk's pid). Then the preference
# writer: with 200 ms injected per fsync, taps cost no frame the save's time and SIGTERM right
# after the last tap still leaves the file at the last committed mode. Last, the X server is
# killed under the kiosk: exit status 1, one log line, the last commit on disk.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool xprop matchbox-window-manager /usr/bin/python3

KIOSK=$(kiosk_binary)
start_xvfb 1280x720
original_toggle 1280x720 1   # CX CY: the Original toggle's centre, from the replay layout
PREFS="$E2E_TMP/prefs.json"
SOCK="$E2E_TMP/notify.sock"; NLOG="$E2E_TMP/notify.jsonl"
/usr/bin/python3 Tests/e2e/lib/notify-listener.py "$SOCK" "$NLOG" &
LISTENER=$!
E2E_PIDS+=($LISTENER)
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.05; done
[ -S "$SOCK" ] || fail "notify listener did not bind $SOCK"

# The committed fixed mode the title shows (both toggles agree, not following the system):
# true (dark) or false; unknown otherwise.
title_mode() { case "$(title_states)" in "On On Off") echo true ;; "Off Off Off") echo false ;; *) echo unknown ;; esac; }

# --- 1. notify protocol ---------------------------------------------------------------------
: >"$E2E_TMP/app.err"
# t0: CLOCK_MONOTONIC (the listener's clock) just before exec; the kiosk keeps this shell's pid.
sh -c '/usr/bin/python3 -S -c "import time; print(time.monotonic())" >"$0"; exec "$@"' "$E2E_TMP/t0" \
    env NOTIFY_SOCKET="$SOCK" WATCHDOG_USEC=1000000 SDL_VIDEODRIVER=x11 SDL_MOUSE_TOUCH_EVENTS=1 DARKMODE_KIOSK_TIMING=1 \
    "$KIOSK" --prefs "$PREFS" --scale 1 --reduce-motion 2>>"$E2E_TMP/app.err" &
APP=$!
E2E_PIDS+=($APP)
WIN=$(timeout 10 xdotool search --sync --onlyvisible --class darkmode-kiosk 2>/dev/null | head -1) || true
[ -n "$WIN" ] || fail "no visible kiosk window within 10 s"
sleep 3                                   # idle: only the watchdog wakes the loop
tap $CX $CY
wait_prefs "$PREFS" true "tap with NOTIFY_SOCKET set"
sleep 0.5
stop_kiosk
sleep 0.3
/usr/bin/python3 - "$NLOG" "$E2E_TMP/t0" "$APP" <<'PY' || fail "notify protocol check failed (log above)"
import json, statistics, sys
log = [json.loads(l) for l in open(sys.argv[1])]
t0 = float(open(sys.argv[2]).read()); pid = int(sys.argv[3])
for m in log: print("info: notify +%.3f s pid %s %s" % (m["t"] - t0, m["pid"], m["fields"]))
mine = [m for m in log if m["pid"] == pid]
assert len(mine) == len(log), "every message comes from the kiosk's pid"
ready = [m for m in mine if m["fields"].get("READY") == "1"]
assert len(ready) == 1, "exactly one READY=1"
latency = ready[0]["t"] - t0
print("info: READY=1 %.0f ms after start, status %r" % (latency * 1000, ready[0]["fields"].get("STATUS")))
assert latency <= 0.300, "READY=1 within 300 ms of start"
assert ready[0]["fields"].get("STATUS", "").startswith("Dark Mode: Off"), "READY carries the status"
pings = [m["t"] for m in mine if m["fields"].get("WATCHDOG") == "1"]
gaps = [b - a for a, b in zip(pings, pings[1:])]
print("info: %d watchdog pings; gaps (s): %s" % (len(pings), " ".join("%.3f" % g for g in gaps)))
assert len(pings) >= 6, "pings at WATCHDOG_USEC/2 = 0.5 s over ~4 s"
med = statistics.median(gaps)
print("info: median ping interval %.3f s (requested 0.500 s), longest %.3f s" % (med, max(gaps)))
assert 0.45 <= med <= 0.6, "median ping interval near WATCHDOG_USEC/2"
assert max(gaps) < 1.0, "never a gap as long as WATCHDOG_USEC"
statuses = [m["fields"]["STATUS"] for m in mine if "STATUS" in m["fields"] and "READY" not in m["fields"] and "STOPPING" not in m["fields"]]
assert any(s.startswith("Dark Mode: On") for s in statuses), "STATUS= after the tap: %r" % statuses
stopping = [m for m in mine if m["fields"].get("STOPPING") == "1"]
assert len(stopping) == 1 and stopping[0]["t"] > pings[-1] - 0.001, "STOPPING=1 once, at the end"
PY
pass "READY=1 once, watchdog every 0.5 s, STATUS on change, STOPPING=1 on SIGTERM, all from the kiosk"
grep -q "^<" "$E2E_TMP/app.err" && fail "stderr is not the journal here: no <N> priority prefixes expected"

# --- 2. slow writes off the frame path --------------------------------------------------------
: >"$E2E_TMP/app.err"
DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS=200 start_kiosk --prefs "$PREFS" --scale 1
for _ in 1 2 3; do tap $CX $CY; sleep 0.7; done
last=$(title_mode)
tap $CX $CY; sleep 0.15
last=$(title_mode)
[ "$last" != unknown ] || fail "cannot read the committed mode from the title: $(window_title)"
kill -TERM "$APP"
t=0; while kill -0 "$APP" 2>/dev/null && [ $t -lt 40 ]; do sleep 0.1; t=$((t + 1)); done
rc=0; wait "$APP" || rc=$?
[ "$rc" = 0 ] || fail "exit status $rc after SIGTERM with a slow save pending"
[ "$(prefs_mode "$PREFS")" = "$last" ] || fail "preferences say $(prefs_mode "$PREFS") after SIGTERM, last commit was $last"
pass "SIGTERM 150 ms after the 4th tap: the file holds the last commit ($last) after the flush ($((t * 100)) ms to exit)"
line=$(grep "frames over" "$E2E_TMP/app.err" || true)
echo "info: ${line#darkmode-kiosk: timing: }"
longest=$(echo "$line" | sed -n 's/.*longest \([0-9.]*\) ms.*/\1/p')
[ -n "$longest" ] || fail "no timing summary"
/usr/bin/python3 -c "import sys; sys.exit(0 if float('$longest') < 400 else 1)" \
    || fail "a loop pass took $longest ms: a 2 x 200 ms save ran on the frame path"
pass "no loop pass held a save (longest $longest ms; a save takes 400 ms)"

# --- 3. the X server goes away -------------------------------------------------------------
: >"$E2E_TMP/app.err"
DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS=300 start_kiosk --prefs "$PREFS" --scale 1
tap $CX $CY; sleep 0.1
last=$(title_mode)
kill -KILL "${E2E_PIDS[0]}"   # Xvfb (start_xvfb)
t=0; while kill -0 "$APP" 2>/dev/null && [ $t -lt 40 ]; do sleep 0.1; t=$((t + 1)); done
kill -0 "$APP" 2>/dev/null && fail "kiosk still running 4 s after the X server died"
rc=0; wait "$APP" || rc=$?
[ "$rc" = 1 ] || fail "exit status $rc after the X server died (expected 1)"
grep -q "display connection ended" "$E2E_TMP/app.err" || fail "no log line naming the lost display"
[ "$(grep -c "display connection ended" "$E2E_TMP/app.err")" = 1 ] || fail "more than one display-loss line"
[ "$(prefs_mode "$PREFS")" = "$last" ] || fail "preferences say $(prefs_mode "$PREFS") after the X server died, last commit was $last"
pass "X server killed: exit 1 in $((t * 100)) ms, one log line, last commit ($last) on disk"
echo "notify-x11 end-to-end: all checks passed"
