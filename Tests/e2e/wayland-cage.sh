#!/usr/bin/env bash
# Wayland smoke test: the kiosk under cage (the Wayland kiosk compositor the systemd unit
# uses), headless with the pixman renderer. Checks that the kiosk starts, takes the whole
# output (the real size arrives only with SDL_WINDOWEVENT_SIZE_CHANGED on Wayland), shows the
# saved mode's page colour, and exits 0 on SIGTERM. cage refuses to run as root, so the
# session runs as the unprivileged user nobody (see shared notes: kiosk-testing.md).
# Known quirk of this harness: a still page (--reduce-motion) whose buffer covers the whole
# output comes out black in grim's screenshot, although frames were presented; a window of
# 1000x600 on the same output, or the animated page (the default, tested here), shows. It
# looks like wlroots' direct scan-out of a full-output surface on the headless backend, not
# the kiosk; to be confirmed on a real cage screen.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need cage grim setpriv python3

KIOSK=$(kiosk_binary)
# Everything the session touches lives in a folder nobody owns.
chmod 0755 "$E2E_TMP"
SESSION="$E2E_TMP/session"; mkdir -m 0700 "$SESSION"
cp "$KIOSK" "$SESSION/darkmode-kiosk"
printf '{\n  "appearance" : "dark"\n}\n' > "$SESSION/prefs.json"
# The page colours the session's configuration gives (run --check, same binary, HOME and folder).
page_colours() {
    (cd "$SESSION" && env -i PATH="$PATH" HOME="$SESSION" XDG_RUNTIME_DIR="$SESSION" ./darkmode-kiosk run --check --prefs prefs.json) \
        | sed -n 's/^page colours: light [0-9]*,[0-9]*,[0-9]*, dark \([0-9]*,[0-9]*,[0-9]*\)$/\1/p'
}
DARK_RGB=$(page_colours)
[ -n "$DARK_RGB" ] || fail "run --check printed no 'page colours' line"
echo "info: dark page colour from run --check: $DARK_RGB"
cat > "$SESSION/inside.sh" <<'INNER'
#!/bin/sh
# Runs inside cage: start the kiosk, wait for its first frames, take a screenshot, stop it.
cd "$(dirname "$0")"
SDL_VIDEODRIVER=wayland SDL_VIDEO_WAYLAND_ALLOW_LIBDECOR=0 DARKMODE_KIOSK_TIMING=1 \
    ./darkmode-kiosk --prefs prefs.json 2>app.err &
app=$!
sleep 3
grim shot.png 2>grim.err || echo "grim failed" >>app.err
kill -TERM $app
rc=0; wait $app || rc=$?
echo "$rc" > app.status
INNER
chmod 0755 "$SESSION/inside.sh"
chown -R 65534:65534 "$SESSION"

# No session bus here: an unreachable address keeps SDL from autolaunching a dbus-daemon
# (~100 ms of start-up and a stray daemon per run).
env -i PATH="$PATH" HOME="$SESSION" XDG_RUNTIME_DIR="$SESSION" DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
    WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
    timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
    cage -- "$SESSION/inside.sh" >"$E2E_TMP/cage.log" 2>&1 || true

[ -f "$SESSION/app.status" ] || { cat "$E2E_TMP/cage.log" >&2; fail "the session did not finish (see cage log above)"; }
cp "$SESSION/app.err" "$E2E_TMP/app.err" 2>/dev/null || true
[ "$(cat "$SESSION/app.status")" = 0 ] || fail "kiosk exited with status $(cat "$SESSION/app.status") after SIGTERM under cage"
pass "kiosk ran under cage and exited 0 on SIGTERM"
grep -q "video driver wayland" "$SESSION/app.err" || fail "the kiosk did not use SDL's wayland driver"
pass "SDL used the wayland video driver"

[ -s "$SESSION/shot.png" ] || fail "no screenshot from grim: $(cat "$SESSION/grim.err" 2>/dev/null)"
# The Original toggle's frame at the page size and scale the kiosk reported (replay layout line).
read -r PW PH PS < <(sed -n 's/.*page \([0-9]*\)x\([0-9]*\) px, scale \([0-9.]*\).*/\1 \2 \3/p' "$SESSION/app.err" | head -1) || true
[ -n "${PS:-}" ] || fail "the kiosk's timing line names no page size and scale"
original_toggle "${PW}x${PH}" "$PS"
echo "info: Original toggle ${OW}x${OH}+$OX+$OY on the ${PW}x${PH} page at scale $PS"
python3 - "$SESSION/shot.png" "$DARK_RGB" "$CX" "$CY" <<'PY' || fail "screenshot check failed"
import struct, sys, zlib
# Minimal PNG reader (8-bit RGB/RGBA, no interlace): enough for grim's output.
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
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
def px(x, y): return tuple(rows[y][x * bpp:x * bpp + 3])
dark = tuple(int(v) for v in sys.argv[2].split(","))
corners = [px(2, 2), px(w - 3, 2), px(2, h - 3), px(w - 3, h - 3)]
print(f"info: cage output {w}x{h}, corners {corners}")
assert all(c == dark for c in corners), f"expected the saved dark page {dark} in every corner"
centre = px(int(sys.argv[3]), int(sys.argv[4]))
assert centre != dark, f"the Original toggle should be drawn at its layout centre ({sys.argv[3]}, {sys.argv[4]})"
PY
pass "the page covers the whole output in the saved dark mode, Original toggle drawn at its layout frame"
grep -o "first frame presented [0-9]* ms" "$SESSION/app.err" | sed 's/^/info: /' || true

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
