#!/usr/bin/env bash
# The screen's sleep (config display.sleep) under X11 (Xvfb): after 3 s without input the page
# goes black, STATUS and the log say "asleep" once, and the kiosk draws nothing (0 CPU ticks
# over 10 s, the screen stays black). The preferences file changed by another program while
# asleep is followed, unseen (still black). A click wakes it (the page back, in the file's
# mode) without switching anything; a second click switches. Then a key wakes it and is
# swallowed too.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool xprop import convert matchbox-window-manager /usr/bin/python3

KIOSK=$(kiosk_binary)
start_xvfb 1280x720
original_toggle 1280x720 1   # CX CY: the Original toggle's centre
STATE="$E2E_TMP/state"; mkdir -p "$STATE"
PREFS="$STATE/prefs.json"
CONFIG="$E2E_TMP/kiosk.json"
printf '{"display": {"sleep": {"afterIdleSeconds": 3}}}\n' >"$CONFIG"
CHECKED=$("$KIOSK" run --check --config "$CONFIG") || fail "run --check failed on $CONFIG"
grep -qx "screen sleep: after 3 s without input" <<<"$CHECKED" \
    || fail "run --check does not print the sleep setting: $(grep -i sleep <<<"$CHECKED")"
printf '{"display": {"sleep": {"schedule": "22:00-22:00"}}}\n' >"$E2E_TMP/bad.json"
rc=0; BAD=$("$KIOSK" run --check --config "$E2E_TMP/bad.json" 2>&1) || rc=$?
[ "$rc" = 2 ] || fail "run --check of an empty sleep window exited $rc (expected 2)"
grep -q 'display.sleep.schedule: expected a window of local time "HH:MM-HH:MM"' <<<"$BAD" || fail "run --check's message for a bad window: $BAD"
pass "run --check prints 'screen sleep: after 3 s without input'; an empty window: exit 2, '$(tail -1 <<<"$BAD")'"
page_colours --config "$CONFIG"
# No session or system bus: nothing but the file and the taps move the page.
export DBUS_SESSION_BUS_ADDRESS="unix:path=$E2E_TMP/no-session" DBUS_SYSTEM_BUS_ADDRESS="unix:path=$E2E_TMP/no-system"
printf '{"appearance": "light"}\n' >"$PREFS"

SOCK="$E2E_TMP/notify.sock"; NLOG="$E2E_TMP/notify.jsonl"
/usr/bin/python3 Tests/e2e/lib/notify-listener.py "$SOCK" "$NLOG" &
E2E_PIDS+=($!)
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.05; done
[ -S "$SOCK" ] || fail "notify listener did not bind $SOCK"
export NOTIFY_SOCKET="$SOCK"

xdotool mousemove 5 5
start_kiosk --config "$CONFIG" --prefs "$PREFS" --scale 1 --reduce-motion
wait_corners "$LIGHT" "page shown at start" 5
wait_page false "at start (file: light)"
asleep_lines() { grep -c "screen asleep" "$E2E_TMP/app.err" || true; }
awake_lines() { grep -c "screen awake" "$E2E_TMP/app.err" || true; }
statuses() { /usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    f = json.loads(l)["fields"]
    if "STATUS" in f: print(f["STATUS"])' "$NLOG"; }

# --- 1. asleep after 3 s idle ------------------------------------------------------------------
t0=$SECONDS
wait_corners 000000 "black after 3 s without input" 8
slept=$((SECONDS - t0))
[ "$(asleep_lines)" = 1 ] || fail "expected one 'screen asleep' line, found $(asleep_lines)"
grep -q "screen asleep (no input for 3 s; page black, no frames)" "$E2E_TMP/app.err" || fail "the asleep line does not say why: $(grep asleep "$E2E_TMP/app.err")"
statuses | tail -1 | grep -q "; screen asleep$" || fail "STATUS does not end in 'screen asleep': $(statuses | tail -1)"
xdotool search --onlyvisible --class darkmode-kiosk >/dev/null || fail "the window is gone (the black is not ours)"
pass "black ${slept} s after the page was shown (afterIdleSeconds 3), one log line, STATUS '$(statuses | tail -1)'"

sleep 0.5
a=$(cpu_ticks "$APP"); sleep 10; b=$(cpu_ticks "$APP")
TICKS=$((b - a))
echo "info: $TICKS CPU ticks over 10 s asleep"
[ "$TICKS" -eq 0 ] || fail "asleep the kiosk used $TICKS ticks in 10 s (expected 0: no frames, no polling)"
shot; expect_corners 000000 "still black after 10 s"
pass "asleep: 0 CPU ticks over 10 s, still black"

# --- 2. the file followed while asleep, unseen ---------------------------------------------------
printf '{"appearance": "dark"}\n' >"$STATE/.tool.tmp" && mv -f "$STATE/.tool.tmp" "$PREFS"
wait_title_states "On On Off" "the file's dark followed while asleep" 3
sleep 1
shot; expect_corners 000000 "still black after the appearance changed"
pass "another program's dark followed while asleep; nothing drawn"

# --- 3. a click wakes it without switching ---------------------------------------------------------
xdotool mousemove $CX $CY
sleep 0.5
shot; expect_corners 000000 "a mouse move alone does not wake it"
w0=$(date +%s%N)
xdotool mousedown 1 sleep 0.05 mouseup 1
wait_corners "$DARK" "the page back (dark, from the file) after a click" 3
WAKE_MS=$(( ($(date +%s%N) - w0) / 1000000 ))
sleep 1
[ "$(prefs_mode "$PREFS")" = true ] || fail "the waking click switched the page: preferences say $(prefs_mode "$PREFS")"
[ "$(title_states)" = "On On Off" ] || fail "the waking click changed the page: $(title_states)"
[ "$(awake_lines)" = 1 ] || fail "expected one 'screen awake' line, found $(awake_lines)"
grep -Eq "screen awake \(a touch or click; asleep [0-9]+ s, 0 frames presented meanwhile\)" "$E2E_TMP/app.err" \
    || fail "the awake line does not say why, or frames were presented asleep: $(grep awake "$E2E_TMP/app.err")"
statuses | tail -1 | grep -q "; screen awake$" || fail "STATUS does not end in 'screen awake': $(statuses | tail -1)"
pass "a click woke it in ${WAKE_MS} ms (click to a screenshot of the page) without switching; $(grep -o 'asleep [0-9]* s, 0 frames presented meanwhile' "$E2E_TMP/app.err")"

tap $CX $CY
wait_prefs "$PREFS" false "the second click switches"
wait_page false "the second click switches the page"
pass "the second click switched it (dark → light)"

# --- 4. asleep again; a key wakes it and is swallowed -------------------------------------------------
wait_corners 000000 "black again after 3 s" 8
xdotool key space
wait_corners "$LIGHT" "the page back after a key" 3
sleep 0.5
[ "$(prefs_mode "$PREFS")" = false ] || fail "the waking Space switched the page"
xdotool key space
wait_prefs "$PREFS" true "the second Space switches"
pass "a key woke it without switching; the second switched"
[ "$(asleep_lines)" = 2 ] && [ "$(awake_lines)" = 2 ] || fail "expected 2 asleep and 2 awake lines, found $(asleep_lines) and $(awake_lines)"
stop_kiosk
echo "info: sleep-x11 numbers: asleep ${TICKS} ticks/10 s, wake ${WAKE_MS} ms"
echo "sleep-x11 end-to-end: all checks passed"
