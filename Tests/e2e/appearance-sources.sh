#!/usr/bin/env bash
# End-to-end test of the live appearance sources in the real kiosk (Xvfb + matchbox, X11):
# a private dbus-daemon as the session bus and a second one standing in for the system bus,
# python3-dbusmock serving the desktop portal's Settings (session) and iio-sensor-proxy
# (system), and the preferences file rewritten by "another program". The kiosk's preference
# is "system" (no file yet), sources portal → light sensor → schedule.
#
# Checks: the page follows color-scheme flips without a restart (screen pixels + window
# title); the button's capsule grows when it names a longer source ("desktop" → "light
# sensor") and stays centred; the portal's contrast switches the page to the high-contrast
# colours and back live, and its reduced-motion stops and restarts the ambient loops live (CPU
# ticks), and a --high-contrast flag wins over the portal; portal "no preference" falls
# through to the light sensor; a light level crossing a threshold flips the page only after
# the hold time, a shorter shadow does not; idle with every source active costs 0 CPU ticks
# over 5 s; an external atomic rewrite of the preferences file changes the page, the kiosk's
# own save is not echoed, a broken file is kept aside as at start; the light sensor appearing
# after start is picked up.
#
# Latency (DARKMODE_KIOSK_TIMING=1): the kiosk prints the CLOCK_MONOTONIC time each runner
# event arrived and the first changed frame was presented; the mock prints its CLOCK_MONOTONIC
# time just before EmitSignal, this script the time just before rename(2). Medians are printed
# (info: lines), not asserted (target: ≤ 50 ms + one frame).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool matchbox-window-manager import convert xprop xdpyinfo timeout dbus-daemon
PY=/usr/bin/python3
$PY -c 'import dbusmock' 2>/dev/null || fail "python3-dbusmock is missing for /usr/bin/python3 (see .ci/run)"
KIOSK=$(kiosk_binary)
MOCK=Tests/AppearanceBusTests/Mocks/mock_server.py
PREFS="$E2E_TMP/state/preferences.json"
mkdir -p "$(dirname "$PREFS")"
HOLD=0.5

# --- buses and mocks ----------------------------------------------------------------------
start_bus() { # NAME: a private dbus-daemon (called directly, not in $(...), so cleanup sees its pid)
    dbus-daemon --session --address="unix:path=$E2E_TMP/$1.sock" --nofork --print-address=1 >"$E2E_TMP/$1.addr" 2>/dev/null &
    E2E_PIDS+=($!)
    for _ in $(seq 100); do [ -s "$E2E_TMP/$1.addr" ] && break; sleep 0.05; done
    [ -s "$E2E_TMP/$1.addr" ] || fail "dbus-daemon ($1) printed no address"
}

# start_mock NAME ADDRESS KIND JSON FD: mock_server.py fed through a FIFO held open on FD.
start_mock() {
    local name=$1
    mkfifo "$E2E_TMP/$name.in"
    : >"$E2E_TMP/$name.out"
    $PY "$MOCK" "$2" "$3" "$4" <"$E2E_TMP/$name.in" >"$E2E_TMP/$name.out" 2>"$E2E_TMP/$name.err" &
    E2E_PIDS+=($!)
    eval "MOCK_PID_$name=$!"
    eval "exec $5>\"$E2E_TMP/$name.in\""
    for _ in $(seq 200); do grep -q READY "$E2E_TMP/$name.out" && return 0; sleep 0.05; done
    fail "$name mock did not start: $(cat "$E2E_TMP/$name.err")"
}

# mock NAME FD COMMAND: sends a command, prints the mock's answer (EMITTED <monotonic>).
mock() {
    local before
    before=$(wc -l <"$E2E_TMP/$1.out")
    echo "$3" >&"$2"
    for _ in $(seq 200); do
        [ "$(wc -l <"$E2E_TMP/$1.out")" -gt "$before" ] && { tail -1 "$E2E_TMP/$1.out" | awk '{print $2}'; return 0; }
        sleep 0.01
    done
    fail "$1 mock did not answer \"$3\""
}

start_bus session; SESSION=$(head -1 "$E2E_TMP/session.addr")
start_bus system; SYSTEM=$(head -1 "$E2E_TMP/system.addr")
export DBUS_SESSION_BUS_ADDRESS=$SESSION DBUS_SYSTEM_BUS_ADDRESS=$SYSTEM
start_mock portal "$SESSION" portal '{"color-scheme": 2, "reduced-motion": 1}' 7
pass "private session bus (portal mock, color-scheme 2 = light, reduced-motion 1) and system bus up"

# A schedule that does not change within the test (dark from +6 h to +8 h local time).
h=$((10#$(date +%H)))
DARKFROM=$(printf '%02d:00' $(((h + 6) % 24))) LIGHTFROM=$(printf '%02d:00' $(((h + 8) % 24)))
CONFIG="$E2E_TMP/kiosk.json"
cat >"$CONFIG" <<EOF
{"appearance": {"systemSources": ["portal", "light-sensor", "schedule"],
                "lightSensor": {"darkBelowLux": 30, "lightAboveLux": 100, "holdSeconds": $HOLD},
                "schedule": {"darkFrom": "$DARKFROM", "lightFrom": "$LIGHTFROM"}}}
EOF
# Captured first: `| grep -q` would close the pipe early and, under pipefail, fail on the
# kiosk's EPIPE rather than on the content.
check_out=$("$KIOSK" run --check --config "$CONFIG" --prefs "$PREFS") || fail "run --check exited with status $? for $CONFIG"
grep -q "^system appearance follows: portal, then light-sensor, then schedule" <<<"$check_out" \
    || fail "run --check does not list the configured sources: $check_out"
grep -q "^light sensor: dark below 30 lux, light above 100 lux, each held $HOLD s$" <<<"$check_out" \
    || fail "run --check does not show the configured light-sensor thresholds: $check_out"
grep -q "^schedule: dark from $DARKFROM to $LIGHTFROM local time$" <<<"$check_out" \
    || fail "run --check does not show the configured schedule: $check_out"
# Page colours for this configuration (LIGHT, DARK), as run --check prints them, and the
# high-contrast pair (HC_LIGHT, HC_DARK).
page_colours --config "$CONFIG" --prefs "$PREFS" --scale 1
hex() { IFS=, read -r r g b <<<"$1"; printf '%02X%02X%02X' "$r" "$g" "$b"; }
read -r hl hd < <(sed -n 's/^high-contrast page colours: light \([0-9]*,[0-9]*,[0-9]*\), dark \([0-9]*,[0-9]*,[0-9]*\)$/\1 \2/p' <<<"$check_out") || true
[ -n "${hd:-}" ] || fail "run --check printed no 'high-contrast page colours: light R,G,B, dark R,G,B' line: $check_out"
HC_LIGHT=$(hex "$hl") HC_DARK=$(hex "$hd")
[ "$HC_LIGHT" != "$LIGHT" ] && [ "$HC_DARK" != "$DARK" ] && [ "$HC_LIGHT" != "$HC_DARK" ] \
    || fail "high-contrast colours #$HC_LIGHT/#$HC_DARK cannot be told from the normal #$LIGHT/#$DARK"
grep -q "^high contrast: off (follows the desktop portal's contrast)$" <<<"$check_out" || fail "run --check does not say high contrast follows the portal: $check_out"
echo "info: page colours light #$LIGHT, dark #$DARK; high contrast light #$HC_LIGHT, dark #$HC_DARK"
# The button's row (its height does not depend on the label): from replay's layout line.
original_toggle 1920x1080 1
BUTTON_Y=$($PY -c 'import json,sys; b=json.loads(open(sys.argv[1]).readline())["layout"]["button"]; print(int(b["y"] + b["h"] / 2))' "$E2E_TMP/replay.out")

start_xvfb 1920x1080
# presented_after STAMP KIND: waits for the kiosk's timing line for the event of KIND that
# arrived after STAMP; prints presented-minus-STAMP in ms.
presented_after() {
    local deadline=$((SECONDS + 5)) got
    while :; do
        got=$(grep -o "timing: $2 arrived at monotonic [0-9.]*; first changed frame presented at monotonic [0-9.]*" "$E2E_TMP/app.err" \
              | awk -v s="$1" '{ a = $(NF - 7) + 0; p = $NF + 0; if (a >= s) { printf "%.2f\n", (p - s) * 1000; exit } }' || true)
        [ -n "$got" ] && { echo "$got"; return 0; }
        [ $SECONDS -lt $deadline ] || fail "no timing line for $2 after monotonic $1"
        sleep 0.02
    done
}
# capsule WHAT: prints "LEFT RIGHT" of the button's capsule on its middle row (the first and last
# pixel that is not the page colour at the screen's left edge) in the last screenshot.
capsule() {
    local edges
    # txt: lines read "X,Y: (R,G,B)  #RRGGBB  srgb(…)"; field 3 is the hex colour.
    edges=$(convert "$E2E_TMP/shot.png" -crop "1920x1+0+$BUTTON_Y" +repage -depth 8 txt:- | awk '
        NR == 2 { bg = $3 }
        NR > 1 && $3 != bg { split($1, xy, ","); if (l == "") l = xy[1]; r = xy[1] }
        END { print l, r }')
    [ -n "${edges// /}" ] || fail "$1: no button capsule on row $BUTTON_Y"
    echo "$edges"
}
# expect_capsule_centred LEFT RIGHT WHAT
expect_capsule_centred() {
    local mid2=$(($1 + $2))
    [ $mid2 -ge 1917 ] && [ $mid2 -le 1921 ] || fail "$3: capsule $1…$2 is not centred on the 1920-pixel screen"
}
median() { $PY -c 'import statistics,sys; v=[float(x) for x in sys.argv[1:]]; print("%.1f ms (n=%d, min %.1f, max %.1f)" % (statistics.median(v), len(v), min(v), max(v)))' "$@"; }

# --- 1. start in "system", following the portal (light), sensor not there yet ----------------
# No --reduce-motion: the portal's reduced-motion 1 keeps the ambient loops still.
start_kiosk --config "$CONFIG" --prefs "$PREFS" --scale 1
wait_corners $LIGHT "system preference, portal light"
wait_title_states "Off Off On" "portal light at start (following the system)" 3
grep -q "light sensor" "$E2E_TMP/app.err" || fail "no log line about the missing light sensor"
pass "starts light from the portal; the missing sensor is logged: $(grep -m1 'light sensor' "$E2E_TMP/app.err")"
read -r DESKTOP_L DESKTOP_R < <(capsule "following the desktop")
expect_capsule_centred $DESKTOP_L $DESKTOP_R "Following System · desktop"

# --- 2. color-scheme flips: the page follows without a restart -------------------------------
portal_ms=()
for i in $(seq 10); do
    if [ $((i % 2)) -eq 1 ]; then v=1 want=$DARK words="On On On"; else v=2 want=$LIGHT words="Off Off On"; fi
    stamp=$(mock portal 7 "set color-scheme $v")
    portal_ms+=("$(presented_after "$stamp" 'appearance portal')")
    wait_corners $want "after color-scheme $v (flip $i)" 3
    wait_title_states "$words" "after color-scheme $v (flip $i)" 3
done
pass "10 color-scheme flips followed live (pixels and title)"
echo "info: portal SettingChanged emit → first changed frame presented: median $(median "${portal_ms[@]}")"

# --- 2b. contrast and reduced-motion follow the portal live ------------------------------------
contrast_ms=()
for i in $(seq 6); do
    stamp=$(mock portal 7 "set contrast 1")
    contrast_ms+=("$(presented_after "$stamp" contrast)")
    wait_corners $HC_LIGHT "contrast 1 (high) with the page light ($i)" 3
    stamp=$(mock portal 7 "set contrast 0")
    contrast_ms+=("$(presented_after "$stamp" contrast)")
    wait_corners $LIGHT "contrast 0 with the page light ($i)" 3
done
mock portal 7 "set color-scheme 1" >/dev/null
wait_corners $DARK "color-scheme 1 before the dark high-contrast check" 3
stamp=$(mock portal 7 "set contrast 1")
contrast_ms+=("$(presented_after "$stamp" contrast)")
wait_corners $HC_DARK "contrast 1 with the page dark" 3
mock portal 7 "set contrast 0" >/dev/null
wait_corners $DARK "contrast 0 with the page dark" 3
mock portal 7 "set color-scheme 2" >/dev/null
wait_corners $LIGHT "back to color-scheme 2" 3
grep -q "high contrast on: the desktop portal's contrast changed" "$E2E_TMP/app.err" || fail "no log line for the contrast change"
pass "contrast followed live: #$LIGHT ↔ #$HC_LIGHT 6 times, #$DARK → #$HC_DARK → #$DARK"
echo "info: portal contrast SettingChanged emit → first changed frame presented: median $(median "${contrast_ms[@]}")"

# reduced-motion 0: the ambient loops run (the kiosk draws frames); 1 again: they stop (the
# idle check below measures 0 ticks with it).
sleep 0.5
stamp=$(mock portal 7 "set reduced-motion 0")
rm_ms=$(presented_after "$stamp" reduced-motion)
sleep 0.5
t0=$(cpu_ticks "$APP"); sleep 2; t1=$(cpu_ticks "$APP")
[ $((t1 - t0)) -gt 0 ] || fail "reduced-motion 0: the ambient loops should animate (CPU ticks), got $((t1 - t0)) in 2 s"
grep -q "reduce motion off: the desktop portal's reduced-motion changed" "$E2E_TMP/app.err" || fail "no log line for reduced-motion 0"
mock portal 7 "set reduced-motion 1" >/dev/null
sleep 0.5
t2=$(cpu_ticks "$APP"); sleep 2; t3=$(cpu_ticks "$APP")
[ $((t3 - t2)) -eq 0 ] || fail "reduced-motion 1 again: the kiosk should idle, used $((t3 - t2)) ticks in 2 s"
pass "reduced-motion followed live: loops running at 0 ($((t1 - t0)) ticks in 2 s, first frame $rm_ms ms after the emit), still at 1 (0 ticks)"

# --- 3. the light sensor appears later and is picked up; portal "no preference" falls through
start_mock sensor "$SYSTEM" sensor '{"lux": 300}' 8
mock portal 7 "set color-scheme 0" >/dev/null
sleep 0.5
shot; expect_corners $LIGHT "portal no preference, sensor 300 lux"
read -r SENSOR_L SENSOR_R < <(capsule "following the light sensor")
expect_capsule_centred $SENSOR_L $SENSOR_R "Following System · light sensor"
[ $((SENSOR_R - SENSOR_L)) -gt $((DESKTOP_R - DESKTOP_L + 20)) ] \
    || fail "the capsule did not grow for the longer source: desktop $DESKTOP_L…$DESKTOP_R, light sensor $SENSOR_L…$SENSOR_R"
pass "button names the source: capsule $((DESKTOP_R - DESKTOP_L + 1)) px wide for \"desktop\", $((SENSOR_R - SENSOR_L + 1)) px for \"light sensor\", centred"
stamp=$(mock sensor 8 "light 5")
sleep 0.25
shot; expect_corners $LIGHT "5 lux for less than the hold time ($HOLD s)"
sensor_ms=$(presented_after "$stamp" 'appearance light-sensor')
wait_corners $DARK "5 lux held for $HOLD s" 3
wait_title_states "On On On" "sensor dark (following the system)" 3
pass "sensor picked up after start; 5 lux → dark only after the hold ($sensor_ms ms after the emit, hold $HOLD s)"
mock sensor 8 "light 500" >/dev/null
sleep 0.2
mock sensor 8 "light 5" >/dev/null
sleep 1.5
shot; expect_corners $DARK "a 0.2 s bright flash must not flip the page"
mock sensor 8 "light 60" >/dev/null
sleep 1.5
shot; expect_corners $DARK "60 lux lies between the thresholds: no change"
stamp=$(mock sensor 8 "light 500")
sensor2_ms=$(presented_after "$stamp" 'appearance light-sensor')
wait_corners $LIGHT "500 lux held" 3
pass "hysteresis: short flash ignored, between thresholds no change, 500 lux → light ($sensor2_ms ms after the emit)"
echo "info: light level emit → first changed frame presented: $sensor_ms ms and $sensor2_ms ms (each includes the $HOLD s hold)"

# --- 4. idle with every source active: no CPU -------------------------------------------------
sleep 1
hz=$(getconf CLK_TCK)
t0=$(cpu_ticks "$APP"); sleep 5; t1=$(cpu_ticks "$APP")
echo "info: idle CPU with portal, light sensor, schedule and file watcher active: $((t1 - t0)) ticks in 5 s at $hz Hz"
[ $((t1 - t0)) -eq 0 ] || fail "idle kiosk with every source active used $((t1 - t0)) CPU ticks in 5 s (expected 0)"
pass "idle with every source active: 0 CPU ticks in 5 s"

# --- 5. fleet changes: atomic rewrites of the preferences file --------------------------------
# rewrite TEXT: writes a temporary file, then renames it over the preferences file; prints the
# CLOCK_MONOTONIC time just before rename(2).
rewrite() {
    $PY - "$PREFS" "$1" <<'PYEOF'
import os, sys, time
path, text = sys.argv[1], sys.argv[2]
tmp = path + ".fleet-tmp"
with open(tmp, "w") as f:
    f.write(text)
    f.flush()
    os.fsync(f.fileno())
stamp = time.monotonic()
os.rename(tmp, path)
print("%.6f" % stamp)
PYEOF
}
changes() { grep -c "changed by another program" "$E2E_TMP/app.err" || true; }
file_ms=()
for i in $(seq 6); do
    if [ $((i % 2)) -eq 1 ]; then p=dark want=$DARK; else p=light want=$LIGHT; fi
    stamp=$(rewrite "{\"appearance\": \"$p\"}")
    file_ms+=("$(presented_after "$stamp" 'preferences file')")
    wait_corners $want "after an external rewrite to \"$p\" ($i)" 3
done
pass "6 external atomic rewrites followed live"
echo "info: preferences file rename → first changed frame presented: median $(median "${file_ms[@]}")"

stamp=$(rewrite '{"appearance": "system"}')
wait_corners $LIGHT "back to system (sensor light)" 3
mock sensor 8 "light 5" >/dev/null
wait_corners $DARK "system again follows the sensor" 3
pass "a rewrite to \"system\" follows the sources again"

# The kiosk's own save (Space on the focused toggle stores light while the sensor says dark)
# is not echoed back.
before=$(changes)
xdotool key space
for _ in $(seq 40); do grep -q '"light"' "$PREFS" 2>/dev/null && break; sleep 0.05; done
grep -q '"appearance": *"light"' "$PREFS" || fail "Space did not save \"light\" (file: $(cat "$PREFS"))"
wait_corners $LIGHT "after Space" 3
sleep 1
[ "$(changes)" -eq "$before" ] || fail "the kiosk's own save was taken for another program's ($(changes) change lines, $before before)"
pass "own save (\"light\") not echoed back as a fleet change"

# A broken file from outside: handled as at start (kept aside, logged, default preference).
rewrite '{"appearance": ' >/dev/null
wait_corners $DARK "a broken file falls back to the default (system → sensor dark)" 3
for _ in $(seq 40); do ls "$PREFS".bad-* >/dev/null 2>&1 && break; sleep 0.05; done
ls "$PREFS".bad-* >/dev/null 2>&1 || fail "the broken preferences file was not kept aside"
grep -q "is not valid JSON" "$E2E_TMP/app.err" || fail "no log line about the broken preferences file"
pass "broken external file kept aside as $(basename "$(ls "$PREFS".bad-* | head -1)"), logged, page follows the default"

stop_kiosk
pass "SIGTERM → exit 0"

# --- 6. a flag forces high contrast: the portal's contrast 0 does not turn it off ---------------
mock portal 7 "set contrast 0" >/dev/null
start_kiosk --config "$CONFIG" --prefs "$PREFS" --scale 1 --high-contrast
wait_corners $HC_DARK "--high-contrast with the portal's contrast 0 (system → sensor dark)" 3
mock portal 7 "set contrast 1" >/dev/null
mock portal 7 "set contrast 0" >/dev/null
sleep 0.5
shot; expect_corners $HC_DARK "--high-contrast after the portal's contrast went 1 → 0"
stop_kiosk
pass "--high-contrast wins over the portal's contrast"
echo "appearance sources end-to-end: all checks passed"
