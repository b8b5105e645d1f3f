#!/usr/bin/env bash
# End-to-end test of screen-reader access (AT-SPI2) in the real kiosk under Xvfb (X11): a
# private dbus-daemon as the session bus, at-spi2-core's bus launcher (which starts the
# accessibility bus and the registry on it), and a pyatspi client (Tests/e2e/lib/atspi-client.py,
# Debian's python3-pyatspi, run with /usr/bin/python3) in the role of the screen reader.
#
# Checks: the kiosk is found under the desktop with its tree (application → frame → two toggle
# buttons and a push button: roles, names, states, actions); the controls' extents match the
# page's layout and the pixels on the screen; DoAction on a toggle switches the page and the
# saved preference to dark; Tab moves the focus with focused events (lost, then gained); a tap
# moves the focus to the tapped toggle before its pressed/checked state changes; the button's
# DoAction renames it (accessible-name event); GrabFocus moves the focus; IsEnabled switched
# off and on leaves and joins the registry live; on exit the kiosk leaves the registry; the
# Chinese page has Chinese names; without an accessibility bus the kiosk says nothing about it
# and idles at 0 CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool matchbox-window-manager import convert dbus-daemon dbus-send timeout
PY=/usr/bin/python3
$PY -c 'import pyatspi' 2>/dev/null || fail "python3-pyatspi is missing for /usr/bin/python3 (see scripts/packages.txt)"
source Tests/e2e/lib/atspi.sh
KIOSK=$(kiosk_binary)
CLIENT="$PY Tests/e2e/lib/atspi-client.py"
PREFS="$E2E_TMP/state/preferences.json"
mkdir -p "$(dirname "$PREFS")" "$E2E_TMP/home" "$E2E_TMP/run"
chmod 700 "$E2E_TMP/run"
# A throwaway home: the launcher saves IsEnabled in GSettings (kept in memory here).
export HOME="$E2E_TMP/home" XDG_RUNTIME_DIR="$E2E_TMP/run" GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
unset AT_SPI_BUS_ADDRESS

# The page's layout at 1024x640, scale 1 (OX OY OW OH: the Original toggle), and its colours.
original_toggle 1024x640 1
page_colours --prefs "$PREFS" --scale 1

start_xvfb 1024x640
# --- 1. no accessibility bus: nothing said, nothing running ----------------------------------
start_bus plain
DBUS_SESSION_BUS_ADDRESS=$(head -1 "$E2E_TMP/plain.addr") start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion
sleep 1
t0=$(cpu_ticks "$APP"); sleep 2; t1=$(cpu_ticks "$APP")
[ $((t1 - t0)) -eq 0 ] || fail "without an accessibility bus the idle kiosk used $((t1 - t0)) ticks in 2 s"
grep -qi "accessib" "$E2E_TMP/app.err" && fail "without an accessibility bus the kiosk should say nothing about it: $(grep -i accessib "$E2E_TMP/app.err")"
owner=$(dbus-send --bus="$(head -1 "$E2E_TMP/plain.addr")" --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.a11y.Bus | awk '{print $2}')
[ "$owner" = "false" ] || fail "the kiosk started the accessibility bus launcher on the session bus (it must only use one that runs)"
stop_kiosk
pass "no accessibility bus: no line, no launcher started, idle at 0 ticks over 2 s"

# --- 2. the session bus with the accessibility bus -------------------------------------------
start_bus session
export DBUS_SESSION_BUS_ADDRESS=$(head -1 "$E2E_TMP/session.addr")
start_a11y_launcher
set_enabled true
pass "accessibility bus up (at-spi-bus-launcher, registry), IsEnabled true"

start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion
wait_corners $LIGHT "start light"
$CLIENT tree >"$E2E_TMP/tree.json" || fail "the pyatspi client did not find the kiosk"
shot
$PY - "$E2E_TMP/tree.json" "$OX" "$OY" "$OW" "$OH" <<'EOF' || fail "the tree is not as expected (above)"
import json, sys
t = json.load(open(sys.argv[1]))
ox, oy, ow, oh = (int(v) for v in sys.argv[2:6])
def check(cond, what):
    if not cond:
        print(f"tree: {what}\n{json.dumps(t, ensure_ascii=False, indent=1)}", file=sys.stderr)
        sys.exit(1)
check(t["role"] == "application" and t["name"] == "DarkModeKiosk", "application DarkModeKiosk")
check(len(t["children"]) == 1, "one frame")
f = t["children"][0]
check(f["role"] == "frame", "the child is a frame")
check({"active", "showing", "visible", "enabled", "sensitive"} <= set(f["states"]), f"frame states {f['states']}")
check(f["extents"] == [0, 0, 1024, 640], f"frame extents {f['extents']}")
c = f["children"]
check([x["role"] for x in c] == ["toggle button", "toggle button", "push button"], "roles")
# No preferences file yet: the page follows the system (no portal: light).
check([x["name"] for x in c] == ["Dark Mode (Original)", "Dark Mode (Vivid)", "Following System"], "names")
base = {"enabled", "sensitive", "visible", "showing", "focusable"}
check(base | {"focused"} <= set(c[0]["states"]) and "checked" not in c[0]["states"] and "pressed" not in c[0]["states"],
      f"Original: focused, not checked: {c[0]['states']}")
check(base <= set(c[1]["states"]) and "focused" not in c[1]["states"], f"Vivid states {c[1]['states']}")
check(base <= set(c[2]["states"]) and "focused" not in c[2]["states"], f"button states {c[2]['states']}")
check([x["actions"] for x in c] == [["toggle"], ["toggle"], ["click"]], "actions")
e = c[0]["extents"]
check(all(abs(a - b) <= 1 for a, b in zip(e, [ox, oy, ow, oh])), f"Original extents {e}, layout {[ox, oy, ow, oh]}")
for x in c:
    X, Y, W, H = x["extents"]
    check(W > 20 and H > 20 and 0 <= X and X + W <= 1024 and 0 <= Y and Y + H <= 640, f"{x['name']} extents {x['extents']}")
EOF
read -r ORIG VIVID BUTTON < <($PY -c 'import json,sys; c=json.load(open(sys.argv[1]))["children"][0]["children"]; print(*[",".join(map(str,x["extents"])) for x in c])' "$E2E_TMP/tree.json")
# The pixels agree: on each control's middle row, what is drawn (the first and last pixel that
# is not the page colour) ends where its extents end; the button's capsule starts where they
# start, a toggle's soft shadow up to 12 px before.
span() { # Y: "LEFT RIGHT" of what is not the page colour on row Y of the last screenshot
    convert "$E2E_TMP/shot.png" -crop "1024x1+0+$1" +repage -depth 8 txt:- | awk -v bg="#$LIGHT" '
        NR > 1 && $3 != bg { split($1, xy, ","); if (l == "") l = xy[1]; r = xy[1] } END { print l, r }'
}
for ext in $ORIG $VIVID $BUTTON; do
    IFS=, read -r x y w h <<<"$ext"
    read -r l r < <(span $((y + h / 2)))
    [ -n "$l" ] || fail "nothing drawn on the middle row of extents $ext"
    slack=12; [ "$ext" = "$BUTTON" ] && slack=1
    [ $((r - (x + w - 1))) -le 2 ] && [ $(((x + w - 1) - r)) -le 2 ] && [ "$l" -le $((x + 1)) ] && [ "$l" -ge $((x - slack)) ] \
        || fail "extents $ext do not match the pixels: drawn from $l to $r on row $((y + h / 2))"
done
pass "tree: application → frame (active) → 2 toggle buttons + push button; names, states, actions; extents on the pixels ($ORIG, $VIVID, $BUTTON)"

# --- 3. DoAction switches the page and the preference; the button is renamed ------------------
$CLIENT events 1.5 $CLIENT action 'Dark Mode (Original)' >"$E2E_TMP/action.events"
grep -q "object:property-change:accessible-name Use System Setting" "$E2E_TMP/action.events" \
    || fail "DoAction: no accessible-name change of the button to 'Use System Setting': $(cat "$E2E_TMP/action.events")"
grep -q "pressed 1 Dark Mode (Original)" "$E2E_TMP/action.events" && grep -q "checked 1 Dark Mode (Vivid)" "$E2E_TMP/action.events" \
    || fail "DoAction: no pressed/checked events: $(cat "$E2E_TMP/action.events")"
grep -q "focused" "$E2E_TMP/action.events" && fail "DoAction on the focused Original: no focus event expected: $(cat "$E2E_TMP/action.events")"
wait_corners $DARK "after DoAction on the Original toggle" 3
wait_prefs "$PREFS" true "after DoAction on the Original toggle"
wait_title_states "On On Off" "after DoAction"
$CLIENT tree | $PY -c 'import json,sys; c=json.load(sys.stdin)["children"][0]["children"]; s=c[0]["states"]; sys.exit(0 if "checked" in s and "pressed" in s and "checked" in c[1]["states"] else 1)' \
    || fail "after DoAction the toggles are not checked and pressed"
pass "DoAction(toggle) on the Original: page dark, preferences dark, both toggles checked + pressed (events), button renamed 'Use System Setting' (event)"

# --- 4. Tab moves the focus, with events --------------------------------------------------------
$CLIENT events 1.5 xdotool key Tab >"$E2E_TMP/tab.events"
grep -q "focused 0 Dark Mode (Original)" "$E2E_TMP/tab.events" && grep -q "focused 1 Dark Mode (Vivid)" "$E2E_TMP/tab.events" \
    || fail "Tab: expected focus to leave the Original and reach the Vivid; events: $(cat "$E2E_TMP/tab.events")"
[ "$(grep -c "focused 1" "$E2E_TMP/tab.events")" -eq 1 ] || fail "Tab: focus announced more than once: $(cat "$E2E_TMP/tab.events")"
pass "Tab: focused 0 on the Original, then focused 1 on the Vivid (once)"

# --- 5. a tap moves the focus before the state changes -----------------------------------------
$CLIENT events 2 xdotool mousemove $((OX + OW / 2)) $((OY + OH / 2)) mousedown 1 sleep 0.05 mouseup 1 >"$E2E_TMP/tap.events"
wait_corners $LIGHT "after the tap on the Original" 3
f=$(grep -n "focused 1 Dark Mode (Original)" "$E2E_TMP/tap.events" | head -1 | cut -d: -f1)
p=$(grep -n "pressed 0 Dark Mode (Original)" "$E2E_TMP/tap.events" | head -1 | cut -d: -f1)
[ -n "$f" ] && [ -n "$p" ] && [ "$f" -lt "$p" ] || fail "tap: expected 'focused 1' before 'pressed 0' on the Original; events: $(cat "$E2E_TMP/tap.events")"
grep -q "checked 0 Dark Mode (Original)" "$E2E_TMP/tap.events" || fail "tap: no 'checked 0' on the Original: $(cat "$E2E_TMP/tap.events")"
wait_prefs "$PREFS" false "after the tap"
pass "tap on the Original: focused 1, then pressed 0 / checked 0; page and preference light"

# --- 6. the button: DoAction renames it; GrabFocus moves the focus --------------------------
$CLIENT events 1.5 $CLIENT action 'Use System Setting' >"$E2E_TMP/button.events"
grep -q "object:property-change:accessible-name Following System" "$E2E_TMP/button.events" \
    || fail "button DoAction: no accessible-name change to 'Following System': $(cat "$E2E_TMP/button.events")"
wait_prefs "$PREFS" system "after the button's DoAction"
$CLIENT events 1.5 $CLIENT focus 'Dark Mode (Vivid)' >"$E2E_TMP/grab.events"
grep -q "focused 1 Dark Mode (Vivid)" "$E2E_TMP/grab.events" || fail "GrabFocus: no focus event on the Vivid: $(cat "$E2E_TMP/grab.events")"
pass "button DoAction: renamed 'Following System' (event), preference system; GrabFocus moves the focus"

# --- 7. IsEnabled off and on: leaves and joins live ------------------------------------------
set_enabled false
for _ in $(seq 30); do grep -q "left the AT-SPI registry" "$E2E_TMP/app.err" && break; sleep 0.1; done
grep -q "left the AT-SPI registry" "$E2E_TMP/app.err" || fail "IsEnabled false: the kiosk did not leave the registry"
timeout 3 $CLIENT tree >/dev/null 2>&1 && fail "IsEnabled false: the kiosk is still under the desktop"
set_enabled true
$CLIENT tree >/dev/null || fail "IsEnabled true again: the kiosk did not come back under the desktop"
pass "IsEnabled false → left the registry; true → back under the desktop"

# --- 8. exit leaves the registry ------------------------------------------------------------
stop_kiosk
[ "$(grep -c "left the AT-SPI registry" "$E2E_TMP/app.err")" -ge 2 ] || fail "exit: no 'left the AT-SPI registry' line"
timeout 3 $CLIENT tree >/dev/null 2>&1 && fail "after exit the kiosk is still under the desktop"
pass "exit: left the registry, gone from the desktop"

# --- 9. Chinese names ---------------------------------------------------------------------------
start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion --lang zh-Hans
$CLIENT tree >"$E2E_TMP/tree-zh.json" || fail "the pyatspi client did not find the Chinese kiosk"
names=$($PY -c 'import json,sys; print("|".join(x["name"] for x in json.load(open(sys.argv[1]))["children"][0]["children"]))' "$E2E_TMP/tree-zh.json")
[ "$names" = "深色模式 (原版)|深色模式 (鲜明)|跟随系统" ] || fail "zh-Hans names: $names"
t0=$(cpu_ticks "$APP"); sleep 2; t1=$(cpu_ticks "$APP")
[ $((t1 - t0)) -eq 0 ] || fail "with a screen reader's bus the idle kiosk used $((t1 - t0)) ticks in 2 s"
stop_kiosk
pass "zh-Hans: $names; idle at 0 ticks with the accessibility bus"

# --- 10. the desktop's accessibility settings from the GNOME keys ------------------------------
# A portal as Debian 12 ships it (Read only; color-scheme, no contrast, no reduced-motion) with
# the GNOME keys: high-contrast true, enable-animations false.
check_out=$("$KIOSK" run --check --prefs "$PREFS" --scale 1) || fail "run --check failed"
read -r hl hd < <(sed -n 's/^high-contrast page colours: light \([0-9]*,[0-9]*,[0-9]*\), dark \([0-9]*,[0-9]*,[0-9]*\)$/\1 \2/p' <<<"$check_out") || true
[ -n "${hl:-}" ] || fail "run --check printed no high-contrast page colours: $check_out"
HC_LIGHT=$(IFS=, read -r r g b <<<"$hl"; printf '%02X%02X%02X' "$r" "$g" "$b")
grep -q "^text size: follows the desktop's text-scaling-factor" <<<"$check_out" || fail "run --check does not report the text size: $check_out"
[ "$HC_LIGHT" != "$LIGHT" ] || fail "the high-contrast light page colour cannot be told from the normal one"
mkfifo "$E2E_TMP/gnome.in"
$PY Tests/e2e/lib/gnome-portal-mock.py "$DBUS_SESSION_BUS_ADDRESS" 2 true false <"$E2E_TMP/gnome.in" >"$E2E_TMP/gnome.out" 2>"$E2E_TMP/gnome.err" &
E2E_PIDS+=($!)
exec 7>"$E2E_TMP/gnome.in"
for _ in $(seq 200); do grep -q READY "$E2E_TMP/gnome.out" && break; sleep 0.05; done
grep -q READY "$E2E_TMP/gnome.out" || fail "the GNOME-keys portal mock did not start: $(cat "$E2E_TMP/gnome.err")"
gnome() { # KEY true|false: sets a GNOME key (SettingChanged) and waits for the mock's answer
    local before
    before=$(grep -c EMITTED "$E2E_TMP/gnome.out" || true)
    echo "$1 $2" >&7
    for _ in $(seq 100); do [ "$(grep -c EMITTED "$E2E_TMP/gnome.out" || true)" -gt "$before" ] && return 0; sleep 0.02; done
    fail "the portal mock did not emit $1 $2"
}
idle_ticks() { sleep 0.7; local a b; a=$(cpu_ticks "$APP"); sleep 2; b=$(cpu_ticks "$APP"); echo $((b - a)); }

start_kiosk --prefs "$PREFS" --scale 1
wait_corners $HC_LIGHT "GNOME high-contrast true (the portal has no contrast key)" 3
[ "$(idle_ticks)" -eq 0 ] || fail "GNOME enable-animations false: the kiosk should reduce motion and idle"
gnome enable-animations true
[ "$(idle_ticks)" -gt 0 ] || fail "GNOME enable-animations true: the ambient loops should run (CPU ticks)"
gnome enable-animations false
[ "$(idle_ticks)" -eq 0 ] || fail "GNOME enable-animations false again: the kiosk should idle"
gnome high-contrast false
wait_corners $LIGHT "GNOME high-contrast false" 3
grep -q "high contrast off" "$E2E_TMP/app.err" || fail "no log line for the high-contrast change"
# text-scaling-factor: the button (seen through its extents) grows with its label and stays centred.
button_extents() { $CLIENT tree | $PY -c 'import json,sys; print(*json.load(sys.stdin)["children"][0]["children"][2]["extents"])'; }
read -r bx by bw bh < <(button_extents)
gnome text-scaling-factor 1.5
for _ in $(seq 30); do grep -q "text size ×1.50" "$E2E_TMP/app.err" && break; sleep 0.1; done
grep -q "text size ×1.50: the desktop's text-scaling-factor changed" "$E2E_TMP/app.err" || fail "no log line for text-scaling-factor 1.5"
sleep 0.3
read -r cx cy cw ch < <(button_extents)
[ "$cw" -gt $((bw + 30)) ] && [ "$ch" -gt "$bh" ] || fail "text-scaling-factor 1.5: the button should grow, extents $bx,$by,${bw}x$bh → $cx,$cy,${cw}x$ch"
[ $(((cx + cw / 2) - (bx + bw / 2))) -le 1 ] && [ $(((bx + bw / 2) - (cx + cw / 2))) -le 1 ] || fail "text-scaling-factor 1.5: the button is no longer centred"
shot
read -r l r < <(span $((cy + ch / 2)))
[ "$l" -ge $((cx - 1)) ] && [ "$r" -le $((cx + cw)) ] || fail "text-scaling-factor 1.5: drawn capsule $l…$r does not match the extents $cx,${cw}"
gnome text-scaling-factor 1
stop_kiosk
pass "GNOME keys (Debian 12 portal): high-contrast true → high-contrast page, false → normal, live; enable-animations false → idle, true → ambient loops, live; text-scaling-factor 1.5 → button ${bw}x$bh → ${cw}x$ch (extents and pixels)"

# Flags still win: --high-contrast with the key false, --reduce-motion with animations on.
gnome enable-animations true
start_kiosk --prefs "$PREFS" --scale 1 --high-contrast --reduce-motion
wait_corners $HC_LIGHT "--high-contrast over GNOME high-contrast false" 3
[ "$(idle_ticks)" -eq 0 ] || fail "--reduce-motion over GNOME enable-animations true: the kiosk should idle"
stop_kiosk
pass "flags win over the GNOME keys (--high-contrast, --reduce-motion)"

# --- 11. Orca reads the page -------------------------------------------------------------------
# Orca headless: speech-dispatcher's generic module appends what it would say to a file
# (libao's null driver instead of a sound card), in this test's throwaway home.
need orca speech-dispatcher
[ -x /usr/lib/speech-dispatcher-modules/sd_generic ] || fail "speech-dispatcher's sd_generic module is missing"
SPOKEN="$E2E_TMP/spoken.txt"
: >"$SPOKEN"
mkdir -p "$HOME/.config/speech-dispatcher/modules"
cat >"$HOME/.config/speech-dispatcher/speechd.conf" <<EOF
AudioOutputMethod "libao"
AddModule "file" "sd_generic" "file.conf"
DefaultModule "file"
LanguageDefaultModule "en" "file"
LanguageDefaultModule "zh" "file"
Timeout 3
EOF
cat >"$HOME/.config/speech-dispatcher/modules/file.conf" <<EOF
GenericExecuteSynth "printf '%s\\\\n' \'\$DATA\' >> $SPOKEN"
AddVoice "en" "MALE1" "en"
AddVoice "zh" "MALE1" "zh"
DefaultVoice "en"
GenericLanguage "en" "en" "utf-8"
GenericLanguage "zh" "zh" "utf-8"
EOF
echo "default_driver=null" >"$HOME/.libao"
# said TEXT WHAT [SECONDS]: Orca said exactly TEXT (one utterance) after the last `said` matched.
SAID_FROM=0
said() {
    local deadline=$((SECONDS + ${3:-20})) n
    while :; do
        n=$(tail -n +$((SAID_FROM + 1)) "$SPOKEN" | grep -nxF -- "$1" | head -1 | cut -d: -f1 || true)
        if [ -n "$n" ]; then SAID_FROM=$((SAID_FROM + n)); return 0; fi
        [ $SECONDS -lt $deadline ] || fail "$2: Orca did not say \"$1\" within ${3:-20} s; it said: $(tail -n +$((SAID_FROM + 1)) "$SPOKEN" | tr '\n' '|')"
        sleep 0.2
    done
}

# Orca started after the kiosk.
start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion
$CLIENT tree >/dev/null || fail "the kiosk is not under the desktop before Orca starts"
orca --replace --debug-file="$E2E_TMP/orca.debug" >"$E2E_TMP/orca.out" 2>&1 &
ORCA=$!
E2E_PIDS+=($ORCA)
said "Screen reader on." "Orca start" 30
said "DarkModeKiosk frame." "Orca started after the kiosk: the active frame"
xdotool key Tab
said "Dark Mode (Vivid) toggle button not pressed." "Tab to the Vivid toggle"
xdotool key space
said "pressed" "Space on the Vivid toggle"
wait_corners $DARK "Space with Orca running" 3
xdotool key space
said "not pressed" "Space again"
wait_corners $LIGHT "Space again with Orca running" 3
stop_kiosk
pass "Orca (started after the kiosk): 'DarkModeKiosk frame.', 'Dark Mode (Vivid) toggle button not pressed.', 'pressed', 'not pressed'"

# The kiosk started while Orca runs, in Chinese.
start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion --lang zh-Hans
said "DarkModeKiosk frame." "kiosk started after Orca" 30
xdotool key Tab
said "深色模式 (鲜明) toggle button not pressed." "Tab to the Vivid toggle (zh-Hans)"
xdotool key space
said "pressed" "Space on the Vivid toggle (zh-Hans)"
stop_kiosk
kill -TERM $ORCA 2>/dev/null || true
# speech-dispatcher (started by Orca) ends by itself 3 s after its last client (Timeout 3).
pass "Orca (kiosk started after it, zh-Hans): 'DarkModeKiosk frame.', '深色模式 (鲜明) toggle button not pressed.', 'pressed'"
