#!/usr/bin/env bash
# The kiosk under weston, a compositor that offers wp_presentation (cage 0.1.4, the unit's, does
# not): the shared-memory presenter asks, for every commit, when the compositor showed it, and the
# latency of a tap becomes "received→compositor" — from SDL's receipt of the click to the moment
# weston says the frame reached its output. weston runs with its X11 backend in an Xvfb (its
# headless backend has no seat, and SDL 2.26's Wayland video init crashes on it: a plain
# SDL_Init(SDL_INIT_VIDEO) does), so xdotool's clicks on weston's window reach the kiosk as
# pointer presses through weston's seat. Checks: the presenter names the feedback; every click
# switched the page (the preferences file); every tap's latency is stamped by the compositor (a
# tap whose frame weston discarded takes the time of the commit that replaced it); no commit left
# unanswered; exit 0 on SIGTERM. The times are printed, not asserted (a shared machine, and
# weston's own pipeline: it shows a commit at its next repaint's vblank).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need weston Xvfb xdotool xwininfo setpriv python3

KIOSK=$(kiosk_binary)
W=1200 H=700 CLICKS=9
chmod 0755 "$E2E_TMP"
SESSION="$E2E_TMP/session"; mkdir -m 0700 "$SESSION"
cp "$KIOSK" "$SESSION/darkmode-kiosk"
printf '{"appearance": "light"}\n' > "$SESSION/prefs.json"
chown -R 65534:65534 "$SESSION"

# The Original toggle's centre on a WxH page at scale 1 (what the kiosk picks for that output).
original_toggle "${W}x${H}" 1

# An X server anyone local may use (weston runs as nobody), then weston in it, then the kiosk.
Xvfb -displayfd 5 -screen 0 1280x800x24 -ac -nolisten tcp 5>"$E2E_TMP/display" 2>"$E2E_TMP/xvfb.err" &
E2E_PIDS+=($!)
for _ in $(seq 100); do [ -s "$E2E_TMP/display" ] && break; sleep 0.1; done
[ -s "$E2E_TMP/display" ] || fail "Xvfb did not start: $(cat "$E2E_TMP/xvfb.err")"
export DISPLAY=":$(head -1 "$E2E_TMP/display")"
# Each program started in the background as nobody, through exec all the way (env, setpriv, the
# program: one process), so that $! is the program itself and cleanup's signals reach it.
NOBODY=(env -i PATH="$PATH" HOME="$SESSION" XDG_RUNTIME_DIR="$SESSION" DISPLAY="$DISPLAY"
        DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent setpriv --reuid=65534 --regid=65534 --clear-groups)
"${NOBODY[@]}" weston --backend=x11-backend.so --socket=wayland-dmk --width=$W --height=$H --idle-time=0 \
    --shell=kiosk-shell.so >"$E2E_TMP/weston.log" 2>&1 &
E2E_PIDS+=($!)
for _ in $(seq 100); do [ -S "$SESSION/wayland-dmk" ] && break; sleep 0.1; done
[ -S "$SESSION/wayland-dmk" ] || fail "weston did not start: $(tail -5 "$E2E_TMP/weston.log")"
WESTON_WIN=$(xwininfo -root -children | awk '/"Weston Compositor/ { print $1; exit }')
[ -n "$WESTON_WIN" ] || fail "no weston window in the X server"

"${NOBODY[@]}" env WAYLAND_DISPLAY=wayland-dmk SDL_VIDEODRIVER=wayland SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR=0 \
    DARKMODE_KIOSK_TIMING=1 DARKMODE_KIOSK_STATE_FILE="$SESSION/state.json" \
    sh -c 'cd "$1" && exec ./darkmode-kiosk --prefs prefs.json' sh "$SESSION" >/dev/null 2>"$E2E_TMP/app.err" &
APP=$!
E2E_PIDS+=($APP)
for _ in $(seq 100); do grep -q '"framesPresented"' "$SESSION/state.json" 2>/dev/null && break; sleep 0.1; done
state() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$SESSION/state.json" "$1" 2>/dev/null || true; }
case "$(state presenter)" in
    "wayland shm"*", presentation feedback") ;;
    *) fail "under weston the presenter should use the compositor's feedback; state says: '$(state presenter)'";;
esac
pass "presenter under weston: $(state presenter)"

# Clicks at the Original's centre, each after the page settled, each switching the appearance.
appearance() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["appearance"])' "$SESSION/prefs.json" 2>/dev/null || true; }
want=light
for i in $(seq $CLICKS); do
    [ "$want" = light ] && want=dark || want=light
    xdotool mousemove --window "$WESTON_WIN" "$CX" "$CY" click 1
    for _ in $(seq 50); do [ "$(appearance)" = "$want" ] && break; sleep 0.1; done
    [ "$(appearance)" = "$want" ] || fail "click $i at ($CX, $CY) did not switch the page to $want (prefs: $(cat "$SESSION/prefs.json"))"
    sleep 0.5
done
pass "$CLICKS clicks through weston, each switched the page (now $want)"

kill -TERM "$APP"
rc=0; wait "$APP" || rc=$?
[ "$rc" = 0 ] || fail "the kiosk exited $rc after SIGTERM under weston"
grep -q "timing: latency: tap received→compositor: n $CLICKS," "$E2E_TMP/app.err" \
    || fail "expected $CLICKS taps stamped by the compositor; the kiosk said: $(grep 'timing: latency' "$E2E_TMP/app.err" || echo nothing)"
! grep -q "timing: latency: tap received→presented" "$E2E_TMP/app.err" \
    || fail "some taps kept the commit's return as their screen time: $(grep 'timing: latency' "$E2E_TMP/app.err")"
feedback=$(sed -n 's/.*timing: compositor feedback (wp_presentation): //p' "$E2E_TMP/app.err")
[ -n "$feedback" ] || fail "no compositor feedback line at exit"
shown=$(echo "$feedback" | sed -n 's/^\([0-9]*\) commits shown.*/\1/p')
[ "${shown:-0}" -gt 0 ] || fail "the compositor showed no commit: $feedback"
echo "$feedback" | grep -q ", 0 never answered" || fail "commits left unanswered: $feedback"
echo "info: $(sed -n 's/.*timing: latency: //p' "$E2E_TMP/app.err")"
echo "info: compositor feedback: $feedback"
pass "every tap stamped by weston's presentation feedback, every commit answered, exit 0"
