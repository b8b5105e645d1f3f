#!/usr/bin/env bash
# End-to-end test of the demo page on X11 (Xvfb 1024x768 + matchbox, SDL_MOUSE_TOUCH_EVENTS=1):
# the "Original" and "Vivid" toggles and the "Use System Setting" button against the
# preferences file {"appearance": "system"|"light"|"dark"}. Control positions come from the
# binary itself (`darkmode-kiosk replay` on an empty trace prints the layout at the same size
# and scale); nothing is hard-coded. Checks: fresh start light; tap Vivid → "dark", page dark,
# Original's track shows the night sky; tap the button → "system", page light (no system input);
# Tab to the Original toggle + Space → "dark"; a legacy {"isDarkMode": true, "keep": 1} file →
# page dark, file migrated with "keep" kept; labels drawn above both toggles in English and
# zh-Hans; SIGTERM → exit 0. Screenshots are kept in $E2E_SHOTS (default: a temp folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool matchbox-window-manager import convert xprop timeout python3
KIOSK=$(kiosk_binary)
SHOTS=${E2E_SHOTS:-$(mktemp -d /tmp/kiosk-page-shots.XXXXXX)}
mkdir -p "$SHOTS"
PREFS="$E2E_TMP/config/preferences.json"
mkdir -p "$(dirname "$PREFS")"
W=1024 H=768
# Page colours (run --check prints them) and the toggle-art palette's day/night sky.
read -r LIGHT DARK < <("$KIOSK" run --check --size ${W}x${H} --scale 1 --prefs "$PREFS" \
    | sed -n 's/^page colours: light \([0-9,]*\), dark \([0-9,]*\)$/\1 \2/p')
[ -n "${DARK:-}" ] || fail "run --check printed no 'page colours' line"
hex() { IFS=, read -r r g b <<<"$1"; printf '%02X%02X%02X' "$r" "$g" "$b"; }
LIGHT=$(hex "$LIGHT") DARK=$(hex "$DARK")
[ "$LIGHT" = EBF6FF ] && [ "$DARK" = 424242 ] || fail "page colours are #$LIGHT/#$DARK, expected 235,246,255 / 66,66,66"

# --- layout from the binary ----------------------------------------------------------------
: >"$E2E_TMP/empty.jsonl"
"$KIOSK" replay "$E2E_TMP/empty.jsonl" --size ${W}x${H} --scale 1 >"$E2E_TMP/replay.out"
read -r OX OY OW OH VX VY VW VH BX BY BW BH < <(python3 -c '
import json, sys
l = json.loads(open(sys.argv[1]).readline())["layout"]
assert l["size"] == [int(sys.argv[2]), int(sys.argv[3])], l["size"]
print(*[int(round(l[k][f])) for k in ("toggle", "vivid", "button") for f in "xywh"])' "$E2E_TMP/replay.out" $W $H) \
    || fail "replay printed no usable layout line: $(head -c 300 "$E2E_TMP/replay.out")"
echo "info: layout original ${OW}x${OH}+$OX+$OY, vivid ${VW}x${VH}+$VX+$VY, button ${BW}x${BH}+$BX+$BY"

start_xvfb ${W}x${H}

save() { cp "$E2E_TMP/shot.png" "$SHOTS/$1.png"; }

# prefs_value FILE KEY: the JSON value of KEY (compact JSON), or "missing".
prefs_value() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d[sys.argv[2]]) if sys.argv[2] in d else "missing")' "$1" "$2"; }

# wait_appearance VALUE WHAT: the file's "appearance" is VALUE within 2 s.
wait_appearance() {
    local deadline=$((SECONDS + 2)) got
    while :; do
        got=$(prefs_value "$PREFS" appearance 2>/dev/null || echo unreadable)
        [ "$got" = "\"$1\"" ] && return 0
        [ $SECONDS -lt $deadline ] || fail "$2: preferences appearance is $got, expected \"$1\" ($(tr -d '\n' <"$PREFS" 2>/dev/null))"
        sleep 0.1
    done
}

# sky NAME: Original's track, sampled at (x + w/2, y + 0.3 h) (sky, clear of the knob in both
# states), must be within 8 per channel of the palette's daySky 162,209,253 / nightSky 31,37,51.
sky() {
    local px=$(pixel $((OX + OW / 2)) $((OY + OH * 3 / 10))) want
    case $1 in day) want="162 209 253" ;; night) want="31 37 51" ;; esac
    python3 -c '
import sys
got = [int(sys.argv[1][i:i + 2], 16) for i in (0, 2, 4)]
want = [int(v) for v in sys.argv[2].split()]
sys.exit(0 if all(abs(a - b) <= 8 for a, b in zip(got, want)) else 1)' "$px" "$want" \
        || fail "$2: Original track pixel is #$px, expected the $1 sky ($want)"
    echo "info: Original track ($((OX + OW / 2)),$((OY + OH * 3 / 10))) #$px ($1 sky)"
}

# label_ink X Y W PAGEHEX: pixels differing from the page colour in the 44 px band that ends
# 8 px above a toggle at (X, Y) of width W (where the page draws the control's label).
label_ink() {
    convert "$E2E_TMP/shot.png" -crop "${3}x44+$1+$(($2 - 52))" +repage -depth 8 txt:- \
        | tail -n +2 | grep -vc "#$4" || true
}
expect_labels() {
    local o v
    o=$(label_ink $OX $OY $OW "$1"); v=$(label_ink $VX $VY $VW "$1")
    [ "$o" -gt 20 ] || fail "$2: the label above Original has only $o non-page pixels"
    [ "$v" -gt 20 ] || fail "$2: the label above Vivid has only $v non-page pixels"
    pass "$2: labels drawn above both toggles ($o and $v non-page pixels)"
}

# --- 1. fresh preferences: light page, Original shows the day sky, English labels ----------
rm -f "$PREFS"
start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion
wait_corners $LIGHT "fresh start"
sleep 0.5; shot; save en-light
sky day "fresh start"
expect_labels $LIGHT "English, light"
wait_title_states "Off Off On" "fresh start (following the system, light)"
pass "fresh start: light page #$LIGHT; title: $(window_title)"

# --- 2. tap Vivid → "dark"; the Original toggle follows --------------------------------------
tap $((VX + VW / 2)) $((VY + VH / 2))
wait_appearance dark "tap on the Vivid toggle"
wait_corners $DARK "after the Vivid tap" 3
sleep 1; shot; save en-dark
sky night "after the Vivid tap"
expect_labels $DARK "English, dark"
wait_title_states "On On Off" "title after the Vivid tap (both toggles dark, a fixed choice)"
pass "tap Vivid → appearance dark, page #$DARK, Original shows the night sky; title: $(window_title)"

# --- 3. tap the button → "system"; no system input → light -----------------------------------
tap $((BX + BW / 2)) $((BY + BH / 2))
wait_appearance system "tap on the Use System Setting button"
wait_corners $LIGHT "following the system without any system input" 3
sleep 1; shot; save en-system
sky day "following the system"
wait_title_states "Off Off On" "title after the button (following the system, light)"
pass "button → appearance system, page light; title: $(window_title)"

# --- 4. keyboard: Tab to Original, Space → "dark" ---------------------------------------------
# Focus order (KioskApp.handleKey): original → vivid → button → original. A tap on the button
# moves the focus to it (KioskApp.handleButton), so exactly one Tab reaches Original.
tabs=1
xdotool key Tab
sleep 0.2
xdotool key space
wait_appearance dark "Tab ×$tabs then Space"
wait_corners $DARK "after Space" 3
sleep 1; shot; save en-keyboard
sky night "after Space on the focused toggle"
pass "Tab ×$tabs + Space → appearance dark"
stop_kiosk
pass "SIGTERM → exit status 0 within 3 s (2 s flush bound + 1 s)"

# --- 5. legacy file → dark, migrated, unknown key kept ---------------------------------------
printf '{"isDarkMode": true, "keep": 1}\n' >"$PREFS"
start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion
wait_corners $DARK "legacy {\"isDarkMode\": true} file"
wait_appearance dark "legacy file migration"
[ "$(prefs_value "$PREFS" keep)" = 1 ] || fail "migration dropped \"keep\": $(tr -d '\n' <"$PREFS")"
[ "$(prefs_value "$PREFS" isDarkMode)" = missing ] || echo "info: migrated file still carries isDarkMode: $(tr -d '\n' <"$PREFS")"
sleep 0.5; shot; save legacy-dark
sky night "legacy file"
# The same fixed preference as after the Vivid tap in step 2: the button strip (its label says
# "Use System Setting" in both) must be pixel-identical.
strip="${W}x$((BH + 40))+0+$((BY - 20))"
convert "$SHOTS/en-dark.png" -crop "$strip" +repage "$E2E_TMP/strip-a.png"
convert "$SHOTS/legacy-dark.png" -crop "$strip" +repage "$E2E_TMP/strip-b.png"
diff=$(compare -metric AE "$E2E_TMP/strip-a.png" "$E2E_TMP/strip-b.png" null: 2>&1 || true)
[ "${diff%% *}" = 0 ] || fail "the button strip after the Vivid tap differs from a fresh start in the dark preference in $diff pixels (stale button label?)"
pass "button after the Vivid tap matches a fresh start in the fixed dark preference"
pass "legacy file → page dark, file $(tr -d '\n ' <"$PREFS")"
stop_kiosk
pass "SIGTERM → exit status 0 within 3 s (2 s flush bound + 1 s)"

# --- 6. zh-Hans labels (LANG and --lang) ----------------------------------------------------
printf '{"appearance": "light"}\n' >"$PREFS"
LANG=zh_CN.UTF-8 LC_ALL= LC_MESSAGES= start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion
wait_corners $LIGHT "zh_CN locale, light"
sleep 0.5; shot; save zh-lang-light
expect_labels $LIGHT "LANG=zh_CN.UTF-8"
[ "$(label_ink $OX $OY $OW $LIGHT)" != "$(convert "$SHOTS/en-light.png" -crop "${OW}x44+$OX+$((OY - 52))" +repage -depth 8 txt:- | tail -n +2 | grep -vc "#$LIGHT" || true)" ] \
    || fail "the Original label under LANG=zh_CN.UTF-8 has exactly the English label's ink: not translated?"
stop_kiosk
start_kiosk --prefs "$PREFS" --scale 1 --reduce-motion --lang zh-Hans
wait_corners $LIGHT "--lang zh-Hans"
tap $((VX + VW / 2)) $((VY + VH / 2))
wait_appearance dark "--lang zh-Hans: tap on Vivid"
wait_corners $DARK "--lang zh-Hans after the tap" 3
sleep 1; shot; save zh-flag-dark
expect_labels $DARK "--lang zh-Hans, dark"
stop_kiosk
pass "SIGTERM → exit status 0 within 3 s (2 s flush bound + 1 s)"

echo "info: screenshots in $SHOTS"
echo "page x11 end-to-end: all checks passed"
