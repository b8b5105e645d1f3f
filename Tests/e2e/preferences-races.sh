#!/usr/bin/env bash
# End-to-end test of the preferences file against another program writing it while the kiosk
# runs (issue #32, items 3 and 4), in the real kiosk on Xvfb + matchbox (X11), with Space as
# the tap (it commits like a tap) and no appearance sources (no buses).
#
# 3. A fleet tool restoring the kiosk's own earlier bytes is followed: the kiosk saves dark, the
#    tool writes light (followed), then puts the kiosk's saved file back (a copy, then the very
#    file renamed back): the page turns dark each time.
# 4. Page and file agree after a race: with the test hook that delays each save's fsyncs
#    (DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS=100), Space and then, 30 ms later, a tool's rewrite
#    with the old mode and a key of its own. After each of 6 trials the page's mode (window
#    title) is the file's mode, and the tool's key is in the file.
# 10. The folder swapped for a link while running (`mv state state.old; ln -s victim state`),
#    then Space: nothing in the link's target is read, moved or written; one line says why.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need Xvfb xdotool matchbox-window-manager xprop xdpyinfo timeout python3
KIOSK=$(kiosk_binary)
STATE="$E2E_TMP/state"
PREFS="$STATE/preferences.json"
mkdir -p "$STATE"
printf '{"appearance": "light"}\n' >"$PREFS"
# No session or system bus: "system" has no source, and nothing but the file moves the page.
export DBUS_SESSION_BUS_ADDRESS="unix:path=$E2E_TMP/no-session" DBUS_SYSTEM_BUS_ADDRESS="unix:path=$E2E_TMP/no-system"
export DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS=100

# tool TEXT: another program's atomic rewrite (a temporary file renamed over the file).
tool() { printf '%s\n' "$1" >"$STATE/.tool.tmp" && mv -f "$STATE/.tool.tmp" "$PREFS"; }
# page_mode and wait_page: lib/common.sh.

start_xvfb 1280x800
start_kiosk --prefs "$PREFS" --size 1280x800
wait_page false "at start (file: light)"

# --- 3. the kiosk's own earlier bytes, restored, are followed ---------------------------------
xdotool key space
wait_prefs "$PREFS" true "Space (the kiosk's own save)"
wait_page true "after Space"
cp "$PREFS" "$E2E_TMP/kiosk-saved.json"
ln "$PREFS" "$E2E_TMP/kiosk-own-file.json"   # the kiosk's very file, kept by a tool
sleep 0.5
tool '{"appearance": "light"}'
wait_page false "the tool's light"
cp "$E2E_TMP/kiosk-saved.json" "$STATE/.restore.tmp" && mv -f "$STATE/.restore.tmp" "$PREFS"
wait_page true "the kiosk's earlier bytes restored by a tool (a copy)"
tool '{"appearance": "light"}'
wait_page false "the tool's light again"
mv -f "$E2E_TMP/kiosk-own-file.json" "$PREFS"
wait_page true "the kiosk's own earlier file renamed back by a tool"
pass "a tool restoring the kiosk's earlier bytes (a copy, or the very file) is followed"

# --- 4. page and file agree after a race --------------------------------------------------------
for i in $(seq 6); do
    before=$(prefs_mode "$PREFS")
    [ "$(page_mode)" = "$before" ] || fail "trial $i: page $(page_mode) and file $before disagree before the race"
    old=$([ "$before" = true ] && echo dark || echo light)
    xdotool key space
    sleep 0.03
    tool "{\"appearance\": \"$old\", \"fleet\": $i}"
    sleep 1.5
    file=$(prefs_mode "$PREFS") page=$(page_mode)
    [ "$file" = "$page" ] || fail "trial $i: after Space and a tool's \"$old\" 30 ms later, the page is $page (title: $(window_title)) and the file $file ($(tr -d '\n' <"$PREFS"))"
    grep -q "\"fleet\": *$i" "$PREFS" || fail "trial $i: the tool's key was lost: $(tr -d '\n' <"$PREFS")"
    echo "info: trial $i: file and page $file"
done
grep -q "after the kiosk's save (another program wrote it while the save was pending); following it" "$E2E_TMP/app.err" \
    || fail "no log line for a page that followed the file after its own save"
pass "page and file agree after 6 races of Space and a tool's rewrite 30 ms later (fsync delayed 100 ms)"

# --- 10. the folder swapped for a link: Space writes nothing through it -------------------------
VICTIM="$E2E_TMP/victim"
mkdir -p "$VICTIM"
printf '{"appearance": "light", "owner": "victim"}\n' >"$VICTIM/preferences.json"
mv "$STATE" "$STATE.old"
ln -s "$VICTIM" "$STATE"
xdotool key space
sleep 1.5
[ "$(ls -A "$VICTIM")" = "preferences.json" ] || fail "the link's target folder changed: $(ls -A "$VICTIM")"
grep -q '"owner": "victim"' "$VICTIM/preferences.json" && grep -q '"light"' "$VICTIM/preferences.json" \
    || fail "the link's target was rewritten: $(tr -d '\n' <"$VICTIM/preferences.json")"
grep -q "was replaced by a symbolic link to $VICTIM while the kiosk ran" "$E2E_TMP/app.err" \
    || fail "no log line for the folder swapped for a link"
pass "Space after the folder was swapped for a link: nothing written through the link, one line"
stop_kiosk
