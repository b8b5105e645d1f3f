#!/usr/bin/env bash
# Wayland smoke test: the kiosk under cage (the Wayland kiosk compositor the systemd unit
# uses), headless with the pixman renderer. Checks that the kiosk starts with the shared-memory
# presenter (no GL renderer), takes the whole output (the real size arrives only with
# SDL_WINDOWEVENT_SIZE_CHANGED on Wayland), shows the saved mode's page colour, exits 0 on
# SIGTERM, and sends READY=1 (through a real NOTIFY_SOCKET) soon after start; then that
# DARKMODE_KIOSK_PRESENT=texture still draws the page through SDL's GL renderer. cage refuses
# to run as root, so the session runs as the unprivileged user nobody (see shared notes:
# kiosk-testing.md).
# Known quirk of this harness: a still page (--reduce-motion) whose buffer covers the whole
# output comes out black in grim's screenshot, every time, although frames were presented
# (with either presenter: shared memory or GL); a window of 1000x600 on the same output, or
# the animated page (the default, tested here), shows. cage 0.1.4 scans a full-screen client's
# buffer out directly; a screenshot taken at a frame cage makes on its own (grim asks for one)
# rather than at one of the kiosk's commits comes out black. While the page animates, the
# kiosk's next commit is usually the frame grim gets, but not always: one CI run (stop 27) had
# a black shot of the animated page. Here: none in 8 runs idle or with 2 CPU hogs; with 4
# hogs, 2 black first shots in 14 runs (one per presenter), each followed by a good one. So
# each presenter is screenshot three times, 0.2 s apart, and the check needs one shot showing
# the page; the black ones before it are printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need cage grim setpriv python3 /usr/bin/python3

KIOSK=$(kiosk_binary)
# Everything the session touches lives in a folder nobody owns.
chmod 0755 "$E2E_TMP"
SESSION="$E2E_TMP/session"; mkdir -m 0700 "$SESSION"
cp "$KIOSK" "$SESSION/darkmode-kiosk"
cp Tests/e2e/lib/notify-listener.py "$SESSION/notify-listener.py"
printf '{\n  "appearance" : "dark"\n}\n' > "$SESSION/prefs.json"
# The page colours the session's configuration gives (run --check, same binary, HOME and folder).
page_colours() {
    (cd "$SESSION" && env -i PATH="$PATH" HOME="$SESSION" XDG_RUNTIME_DIR="$SESSION" ./darkmode-kiosk run --check --prefs prefs.json) \
        | sed -n 's/^page colours: light [0-9]*,[0-9]*,[0-9]*, dark \([0-9]*,[0-9]*,[0-9]*\)$/\1/p'
}
DARK_RGB=$(page_colours)
[ -n "$DARK_RGB" ] || fail "run --check printed no 'page colours' line"
echo "info: dark page colour from run --check: $DARK_RGB"
STARTS=5
cat > "$SESSION/inside.sh" <<INNER
#!/bin/sh
# Runs inside cage. $STARTS starts with the default presenter, each with its own notify
# listener (t0: CLOCK_MONOTONIC just before exec; the kiosk keeps the shell's pid); the last
# one's CPU ticks over 3 s of ambient animation are counted, then it is screenshot. The same
# with DARKMODE_KIOSK_PRESENT=texture. Last, 3 s of a still page (--reduce-motion): idle CPU.
cd "\$(dirname "\$0")"
kargs=""
start() {  # start NAME [ENV...]: the kiosk (arguments: \$kargs) with NOTIFY_SOCKET, stderr to NAME.err, pid in \$app
    name=\$1; shift
    /usr/bin/python3 notify-listener.py "\$PWD/\$name.sock" "\$name.jsonl" & listener=\$!
    i=0; while [ ! -S "\$name.sock" ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
    sh -c '/usr/bin/python3 -S -c "import time; print(time.monotonic())" >"\$0"; exec "\$@"' "\$name.t0" \\
        env NOTIFY_SOCKET="\$PWD/\$name.sock" SDL_VIDEODRIVER=wayland SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR=0 \\
        DARKMODE_KIOSK_TIMING=1 DARKMODE_KIOSK_STATE_FILE="\$PWD/\$name.state.json" "\$@" ./darkmode-kiosk --prefs prefs.json \$kargs 2>"\$name.err" &
    app=\$!
    i=0; while ! grep -q READY "\$name.jsonl" 2>/dev/null && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
}
ticks() { awk '{ print \$14 + \$15 }' /proc/\$app/stat; }
cpu3s() {  # cpu3s NAME: the kiosk's CPU ticks over 3 s to NAME.ticks
    sleep 1; a=\$(ticks); sleep 3; b=\$(ticks); echo \$((b - a)) > "\$1.ticks"
}
shots() {  # shots NAME: three screenshots, NAME-1.png ... NAME-3.png, 0.2 s apart
    for i in 1 2 3; do grim "\$1-\$i.png" 2>>grim.err || echo "grim failed" >>grim.err; [ \$i = 3 ] || sleep 0.2; done
}
stop() {  # stop NAME: SIGTERM, exit status to NAME.status, listener ended
    kill -TERM \$app
    rc=0; wait \$app || rc=\$?
    echo "\$rc" > "\$1.status"
    kill -TERM \$listener; wait \$listener
}
for n in \$(seq $STARTS); do
    start "start\$n"
    if [ \$n = $STARTS ]; then cpu3s ambient; shots shot; else sleep 0.3; fi
    stop "start\$n"
done
start texture DARKMODE_KIOSK_PRESENT=texture
cpu3s ambient-texture
shots shot-texture
stop texture
kargs=--reduce-motion
start still
cpu3s idle
stop still
INNER
chmod 0755 "$SESSION/inside.sh"
chown -R 65534:65534 "$SESSION"

# No session bus here: an unreachable address keeps SDL from autolaunching a dbus-daemon
# (~100 ms of start-up and a stray daemon per run).
env -i PATH="$PATH" HOME="$SESSION" XDG_RUNTIME_DIR="$SESSION" DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
    WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
    timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups \
    cage -- "$SESSION/inside.sh" >"$E2E_TMP/cage.log" 2>&1 || true

[ -f "$SESSION/still.status" ] || { cat "$E2E_TMP/cage.log" >&2; fail "the session did not finish (see cage log above)"; }
state() {  # state NAME KEY: a key of that run's state file (DARKMODE_KIOSK_STATE_FILE)
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$SESSION/$1.state.json" "$2" 2>/dev/null || true
}
for name in $(seq -f "start%g" $STARTS) texture still; do
    cp "$SESSION/$name.err" "$E2E_TMP/app.err" 2>/dev/null || true
    [ "$(cat "$SESSION/$name.status")" = 0 ] || fail "$name: kiosk exited with status $(cat "$SESSION/$name.status") after SIGTERM under cage"
    [ "$(state "$name" videoDriver)" = wayland ] || fail "$name: the kiosk did not use SDL's wayland driver (state: $(state "$name" videoDriver))"
done
pass "$STARTS + 2 starts under cage, SDL's wayland driver, each exited 0 on SIGTERM"
for n in $(seq $STARTS); do
    case "$(state "start$n" presenter)" in "wayland shm"*) ;; *) fail "start$n: not the shared-memory presenter: $(state "start$n" presenter)";; esac
done
case "$(state texture presenter)" in "renderer "*) ;; *) fail "DARKMODE_KIOSK_PRESENT=texture: not SDL's renderer: $(state texture presenter)";; esac
pass "default presenter: $(state start1 presenter); with DARKMODE_KIOSK_PRESENT=texture: $(state texture presenter)"

# READY=1 after start, median of the 5 starts. Not 200 ms: on this project's 2 shared cores
# with other builds running (load average 7-11) the median of 5 starts measured 145-235 ms, and
# single starts up to ~340 ms, so a 200 ms bound would fail on load alone. The kiosk's own work
# up to READY is ~45-55 ms of main-thread CPU (stage lines below; docs/kiosk-operation.md);
# the rest is waiting for a core. 300 ms is the READY target of the notify test and still fails
# the GL renderer path this presenter replaced (medians of 420-540 ms on the same machine).
/usr/bin/python3 - "$SESSION" "$STARTS" <<'PY' || fail "READY check failed (above)"
import json, statistics, sys
session, starts = sys.argv[1], int(sys.argv[2])
def latency(name):
    t0 = float(open(f"{session}/{name}.t0").read())
    ready = [json.loads(l) for l in open(f"{session}/{name}.jsonl") if '"READY"' in l]
    assert len(ready) == 1, f"{name}: exactly one READY=1, got {len(ready)}"
    return (ready[0]["t"] - t0) * 1000
shm = [latency(f"start{n}") for n in range(1, starts + 1)]
texture = latency("texture")
med = statistics.median(shm)
print("info: READY=1 after start (ms), shared memory: " + " ".join("%.0f" % v for v in shm)
      + "; median %.0f; texture renderer (one start): %.0f" % (med, texture))
assert med < 300, "median READY=1 latency %.0f ms is not under 300 ms" % med
PY
pass "median READY=1 under 300 ms of start"
for n in $(seq $STARTS); do sed -n 's/.*timing: start-up stages/info: start'"$n"' stages/p' "$SESSION/start$n.err"; done
sed -n 's/.*timing: start-up stages/info: texture stages/p' "$SESSION/texture.err"

# The screenshots: the page covers the output in the saved dark mode, the Original toggle drawn
# at its layout frame (from the page size and scale the kiosk reported).
read -r PW PH PS < <(sed -n 's/.*page \([0-9]*\)x\([0-9]*\) px, scale \([0-9.]*\).*/\1 \2 \3/p' "$SESSION/start$STARTS.err" | head -1) || true
[ -n "${PS:-}" ] || fail "the kiosk's timing line names no page size and scale"
original_toggle "${PW}x${PH}" "$PS"
echo "info: Original toggle ${OW}x${OH}+$OX+$OY on the ${PW}x${PH} page at scale $PS"
check_shot() {  # check_shot NAME WHAT: of NAME-1.png ... NAME-3.png, one shows the page (see the header)
    local shots=("$1"-[123].png)
    [ -s "${shots[0]}" ] || fail "$2: no screenshot from grim: $(cat "$SESSION/grim.err" 2>/dev/null)"
    python3 - "$DARK_RGB" "$CX" "$CY" "${shots[@]}" <<'PY' || fail "$2: screenshot check failed"
import os, struct, sys, zlib
def read_png(path):
    # Minimal PNG reader (8-bit RGB/RGBA, no interlace): enough for grim's output.
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
        if kind == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT": idat += body
    raw = zlib.decompress(idat); bpp = 4 if ctype == 6 else 3; stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])
dark = tuple(int(v) for v in sys.argv[1].split(","))
cx, cy = int(sys.argv[2]), int(sys.argv[3])
black = []
for path in sys.argv[4:]:
    if not os.path.getsize(path): continue
    w, h, px = read_png(path)
    corners = [px(2, 2), px(w - 3, 2), px(2, h - 3), px(w - 3, h - 3)]
    name = os.path.basename(path)
    print(f"info: {name}: cage output {w}x{h}, corners {corners}")
    if all(c == (0, 0, 0) for c in corners + [px(cx, cy)]):
        black.append(name)  # the harness's black frame (header); the next shot is taken
        continue
    assert all(c == dark for c in corners), f"{name}: expected the saved dark page {dark} in every corner"
    assert px(cx, cy) != dark, f"{name}: the Original toggle should be drawn at its layout centre ({cx}, {cy})"
    if black: print(f"info: black before it (cage's own frame, see the header): {' '.join(black)}")
    sys.exit(0)
sys.exit(f"every screenshot black: {' '.join(black)}")
PY
}
# CPU as x11.sh bounds it (shared memory; the texture renderer measured for comparison).
hz=$(getconf CLK_TCK)
ambient=$(cat "$SESSION/ambient.ticks") texture_ticks=$(cat "$SESSION/ambient-texture.ticks") idle=$(cat "$SESSION/idle.ticks")
echo "info: CPU over 3 s at $hz Hz: ambient animation $ambient ticks ($((ambient * 100 / (hz * 3))) % of a core; texture renderer $texture_ticks ticks, $((texture_ticks * 100 / (hz * 3))) %), still page $idle ticks"
[ "$idle" -le $((hz * 3 / 50)) ] || fail "idle kiosk (--reduce-motion) used $idle CPU ticks in 3 s (limit $((hz * 3 / 50)), 2 % of a core)"
[ "$ambient" -le $((hz * 3 / 10)) ] || fail "ambient animation used $ambient CPU ticks in 3 s (limit $((hz * 3 / 10)), 10 % of a core)"
pass "CPU: still page $idle ticks, ambient animation $ambient ticks in 3 s"
check_shot "$SESSION/shot" "shared-memory presenter"
check_shot "$SESSION/shot-texture" "DARKMODE_KIOSK_PRESENT=texture"
pass "both presenters: the page covers the whole output in the saved dark mode, Original toggle drawn at its layout frame"

# The compositor goes away under the running kiosk: it must exit 1 with one clear line (SDL
# reports the lost Wayland connection as SDL_QUIT; no signal came, so the host calls it a lost
# display), not hang and not exit 0 (cage 0.1.4 exits 0 anyway; the unit restarts on that).
cat > "$SESSION/inside2.sh" <<'INNER'
#!/bin/sh
cd "$(dirname "$0")"
SDL_VIDEODRIVER=wayland ./darkmode-kiosk --prefs prefs.json 2>app2.err &
app=$!
echo $app > app2.pid
rc=0; wait $app || rc=$?
echo "$rc" > app2.status
INNER
chmod 0755 "$SESSION/inside2.sh"; chown 65534:65534 "$SESSION/inside2.sh"
env -i PATH="$PATH" HOME="$SESSION" XDG_RUNTIME_DIR="$SESSION" DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
    WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    cage -- "$SESSION/inside2.sh" >"$E2E_TMP/cage2.log" 2>&1 &
CAGE=$!
E2E_PIDS+=($CAGE)
for _ in $(seq 100); do [ -s "$SESSION/app2.pid" ] && break; sleep 0.05; done
sleep 1.5
kill -KILL "$CAGE"
for _ in $(seq 50); do [ -s "$SESSION/app2.status" ] && break; sleep 0.1; done
[ -s "$SESSION/app2.status" ] || { kill -KILL "$(cat "$SESSION/app2.pid")" 2>/dev/null; fail "the kiosk still ran 5 s after cage was killed"; }
[ "$(cat "$SESSION/app2.status")" = 1 ] || fail "kiosk exited $(cat "$SESSION/app2.status") after the compositor died (expected 1); stderr: $(cat "$SESSION/app2.err")"
[ "$(grep -c "display connection ended" "$SESSION/app2.err")" = 1 ] || fail "expected one display-loss line, got: $(cat "$SESSION/app2.err")"
pass "cage killed under the kiosk: exit 1 and one line: $(grep "display connection ended" "$SESSION/app2.err")"
echo "wayland-cage end-to-end: all checks passed"
