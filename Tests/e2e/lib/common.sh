# Shared helpers for the end-to-end scripts (sourced). Each helper fails the test with a
# message naming what it checked; the caller's EXIT trap cleans up.

E2E_TMP=$(mktemp -d /tmp/kiosk-e2e.XXXXXX)
E2E_PIDS=()

fail() { echo "FAIL: $*" >&2; if [ -s "$E2E_TMP/app.err" ]; then echo "--- kiosk stderr:" >&2; tail -20 "$E2E_TMP/app.err" >&2; fi; exit 1; }
pass() { echo "ok: $*"; }

need() {
    local missing=()
    for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
    [ ${#missing[@]} -eq 0 ] || fail "missing tools: ${missing[*]} (install the packages listed in .ci/run)"
}

cleanup() {
    local pid
    for ((i = ${#E2E_PIDS[@]} - 1; i >= 0; i--)); do
        pid=${E2E_PIDS[i]}
        kill -TERM "$pid" 2>/dev/null || true
    done
    sleep 0.2
    for pid in "${E2E_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$E2E_TMP"
}

# The release binary (built by scripts/test), or $KIOSK_BIN.
kiosk_binary() {
    local bin=${KIOSK_BIN:-"$(swift build -c release --show-bin-path 2>/dev/null)/darkmode-kiosk"}
    [ -x "$bin" ] || fail "kiosk binary not found at $bin (run: swift build -c release --product darkmode-kiosk)"
    echo "$bin"
}

# start_xvfb WxH: a black-rooted Xvfb and matchbox (without a window manager Xvfb ignores
# full-screen); exports DISPLAY.
start_xvfb() {
    Xvfb -displayfd 5 -screen 0 "${1}x24" -br -nolisten tcp 5>"$E2E_TMP/display" 2>"$E2E_TMP/xvfb.err" &
    E2E_PIDS+=($!)
    for _ in $(seq 100); do [ -s "$E2E_TMP/display" ] && break; sleep 0.1; done
    [ -s "$E2E_TMP/display" ] || fail "Xvfb did not start: $(cat "$E2E_TMP/xvfb.err")"
    export DISPLAY=":$(head -1 "$E2E_TMP/display")"
    matchbox-window-manager -use_titlebar no >/dev/null 2>&1 &
    E2E_PIDS+=($!)
    sleep 0.3
}

# start_kiosk ARGS...: starts the kiosk (X11, mouse-as-touch) and waits for its window;
# sets APP (pid) and WIN (window id).
start_kiosk() {
    : >"$E2E_TMP/app.err"
    SDL_VIDEODRIVER=x11 SDL_MOUSE_TOUCH_EVENTS=1 DARKMODE_KIOSK_TIMING=1 "$KIOSK" "$@" 2>>"$E2E_TMP/app.err" &
    APP=$!
    E2E_PIDS+=($APP)
    WIN=$(timeout 10 xdotool search --sync --onlyvisible --class darkmode-kiosk 2>/dev/null | head -1) || true
    [ -n "$WIN" ] || fail "no visible kiosk window within 10 s (args: $*)"
}

# stop_kiosk: SIGTERM, expects exit status 0 within a second.
# The kiosk flushes a pending preferences save before it exits, waiting at most 2 s for the
# writer (`PreferencesSaver.close(timeout: 2)`); so the bound is that wait plus 1 s to exit.
stop_kiosk() {
    kill -TERM "$APP"
    local t=0
    while kill -0 "$APP" 2>/dev/null && [ $t -lt 30 ]; do sleep 0.1; t=$((t + 1)); done
    kill -0 "$APP" 2>/dev/null && fail "kiosk still running 3 s after SIGTERM (2 s flush bound + 1 s)"
    local rc=0
    wait "$APP" || rc=$?
    [ "$rc" -eq 0 ] || fail "kiosk exited with status $rc after SIGTERM (expected 0)"
}

shot() { import -window root "$E2E_TMP/shot.png" 2>/dev/null || fail "screenshot failed"; }

# pixel X Y: the screenshot's pixel as RRGGBB hex.
pixel() {
    convert "$E2E_TMP/shot.png" -crop "1x1+$1+$2" +repage -depth 8 txt:- | tail -1 | grep -o '#[0-9A-Fa-f]\{6\}' | head -1 | tr -d '#' | tr a-f A-F
}

# expect_corners HEX WHAT: all four screen corners (5 px in) show HEX.
expect_corners() {
    local w h got
    read -r w h < <(xdpyinfo 2>/dev/null | awk '/dimensions:/ { split($2, d, "x"); print d[1], d[2] }')
    for xy in "5 5" "$((w - 6)) 5" "5 $((h - 6))" "$((w - 6)) $((h - 6))"; do
        got=$(pixel $xy)
        [ "$got" = "$1" ] || fail "$2: pixel ($xy) is #$got, expected #$1"
    done
}

# wait_corners HEX WHAT [SECONDS]: polls screenshots until the corners show HEX.
wait_corners() {
    local deadline=$((SECONDS + ${3:-3}))
    while :; do
        shot
        if [ "$(pixel 5 5)" = "$1" ]; then expect_corners "$1" "$2"; return 0; fi
        [ $SECONDS -lt $deadline ] || fail "$2: corner is #$(pixel 5 5) after ${3:-3} s, expected #$1"
        sleep 0.1
    done
}

# prefs_mode FILE: prints true (dark)/false (light)/system/missing from the preferences JSON
# (`appearance`, or the legacy `isDarkMode`).
prefs_mode() {
    [ -f "$1" ] || { echo missing; return; }
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=d.get("appearance"); v=d.get("isDarkMode"); print({"dark": "true", "light": "false", "system": "system"}.get(a, "invalid") if a is not None else "true" if v is True else "false" if v is False else "invalid")' "$1" 2>/dev/null || echo invalid
    elif grep -Eq '"appearance"[[:space:]]*:[[:space:]]*"dark"' "$1"; then echo true
    elif grep -Eq '"appearance"[[:space:]]*:[[:space:]]*"light"' "$1"; then echo false
    elif grep -Eq '"isDarkMode"[[:space:]]*:[[:space:]]*true' "$1"; then echo true
    elif grep -Eq '"isDarkMode"[[:space:]]*:[[:space:]]*false' "$1"; then echo false
    else echo invalid; fi
}

# wait_prefs FILE true|false WHAT: the preferences file says so within 2 s.
wait_prefs() {
    local deadline=$((SECONDS + 2)) got
    while :; do
        got=$(prefs_mode "$1")
        [ "$got" = "$2" ] && return 0
        [ $SECONDS -lt $deadline ] || fail "$3: preferences appearance is $got (true = dark, false = light), expected $2"
        sleep 0.1
    done
}

# cpu_ticks PID: user+system clock ticks so far.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# drag X1 Y1 X2 Y2 [STEPS]: press, move in steps (~16 ms apart), release.
drag() {
    local steps=${5:-12} cmd=(mousemove "$1" "$2" mousedown 1)
    for ((i = 1; i <= steps; i++)); do
        cmd+=(sleep 0.016 mousemove $(($1 + ($3 - $1) * i / steps)) $(($2 + ($4 - $2) * i / steps)))
    done
    cmd+=(sleep 0.05 mouseup 1)
    xdotool "${cmd[@]}"
}

tap() { xdotool mousemove "$1" "$2" mousedown 1 sleep 0.05 mouseup 1; }

# page_colours [run ARGS...]: sets LIGHT and DARK (RRGGBB hex) from the page colours that
# `darkmode-kiosk run --check` prints for the real configuration.
page_colours() {
    local l d
    read -r l d < <("$KIOSK" run --check "$@" | sed -n 's/^page colours: light \([0-9]*,[0-9]*,[0-9]*\), dark \([0-9]*,[0-9]*,[0-9]*\)$/\1 \2/p') || true
    [ -n "${d:-}" ] || fail "run --check $* printed no 'page colours: light R,G,B, dark R,G,B' line"
    LIGHT=$(IFS=, read -r r g b <<<"$l"; printf '%02X%02X%02X' "$r" "$g" "$b")
    DARK=$(IFS=, read -r r g b <<<"$d"; printf '%02X%02X%02X' "$r" "$g" "$b")
    LIGHT_RGB=$l DARK_RGB=$d
    [ "$LIGHT" != "$DARK" ] || fail "run --check gives the same light and dark page colour #$LIGHT: the checks could not tell the modes apart"
}

# original_toggle WxH SCALE: sets OX OY OW OH (the Original toggle's frame in pixels) and CX CY
# (its centre) from the layout line `darkmode-kiosk replay` prints for an empty trace.
original_toggle() {
    command -v python3 >/dev/null 2>&1 || fail "python3 is needed to read the replay layout line"
    : >"$E2E_TMP/empty.jsonl"
    "$KIOSK" replay "$E2E_TMP/empty.jsonl" --size "$1" --scale "$2" >"$E2E_TMP/replay.out" \
        || fail "replay --size $1 --scale $2 failed"
    read -r OX OY OW OH < <(python3 -c '
import json, sys
l = json.loads(open(sys.argv[1]).readline())["layout"]
w, h = (int(v) for v in sys.argv[2].split("x"))
assert l["size"] == [w, h], l["size"]
print(*[int(round(l["toggle"][f])) for f in "xywh"])' "$E2E_TMP/replay.out" "$1") || true
    [ -n "${OH:-}" ] || fail "replay printed no usable layout line: $(head -c 300 "$E2E_TMP/replay.out")"
    CX=$((OX + OW / 2)) CY=$((OY + OH / 2))
}

# window_title: the kiosk window's title ($WIN), without xprop's decoration.
window_title() { xprop -id "$WIN" _NET_WM_NAME 2>/dev/null | sed 's/^[^"]*"//; s/"$//'; }

# title_states: the title's three accessibility values in focus order, e.g. "On On Off" for
# "DarkModeKiosk — Dark Mode (Original): On · Dark Mode (Vivid): On · Follow System
# Appearance: Off" (Original, Vivid: dark mode on/off; the button: following the system);
# "unknown" when the title has another shape.
title_states() {
    local s
    s=$(window_title | sed -nE 's/^DarkModeKiosk — .*: (On|Off) · .*: (On|Off) · .*: (On|Off)$/\1 \2 \3/p')
    echo "${s:-unknown}"
}

# wait_title_states "ORIGINAL VIVID FOLLOW" WHAT [SECONDS]: the title shows these values
# within SECONDS (default 2).
wait_title_states() {
    local deadline=$((SECONDS + ${3:-2})) got
    while :; do
        got=$(title_states)
        [ "$got" = "$1" ] && return 0
        [ $SECONDS -lt $deadline ] || fail "$2: the window title's states (Original Vivid Follow-System) are '$got', expected '$1'; title: $(window_title)"
        sleep 0.1
    done
}

# page_mode: true (dark) / false (light) when both toggles agree and the page does not follow
# the system ("On On Off" / "Off Off Off" in the window title); "unknown" else.
page_mode() {
    case "$(title_states)" in
        "On On Off") echo true ;;
        "Off Off Off") echo false ;;
        *) echo "unknown" ;;
    esac
}

# wait_page true|false WHAT [SECONDS]: the page shows that mode within SECONDS (default 3).
wait_page() {
    local deadline=$((SECONDS + ${3:-3}))
    while [ "$(page_mode)" != "$1" ]; do
        [ $SECONDS -lt $deadline ] || fail "$2: the page's mode is $(page_mode) (title: $(window_title)), expected $1"
        sleep 0.05
    done
}
