#!/usr/bin/env bash
# A choice made while the disk is read-only or full is never lost (issue 39, item 3), in the
# real kiosk on Xvfb + matchbox (X11), Space as the tap, no appearance sources but the file.
#
# 1. Preferences folder mode 0555 (the kiosk as `nobody` when this runs as root, since root
#    ignores permission bits): Space → dark on the page, one "could not save … Permission
#    denied … trying again" line, systemd's STATUS (a notify-listener as NOTIFY_SOCKET) says
#    "not saved"; the folder made writable (chmod: inotify) → the file says dark within 2 s,
#    no restart, one "saved after N tries" line, STATUS without the note. Folder 0555 again,
#    Space → light, SIGTERM → exit 0 and one line "the choice light was not saved: …";
#    restart → the page shows the saved mode (dark).
# 2. (root) A read-only bind mount over the folder, remounted read-write after the failure
#    (no inotify event: the backoff, 1 s doubling, is the floor) → saved within 20 s.
# 3. (root) A full 64 KiB tmpfs: Space fails (No space left on device); a filler file outside
#    the folder removed (no event in the folder) → saved within 20 s; full again, Space → light,
#    SIGTERM → the one line; restart → dark.
# Cases 2 and 3 need mount(2): they are skipped with a printed reason when not root.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
need Xvfb xdotool matchbox-window-manager xprop xdpyinfo timeout python3
KIOSK_SRC=$(kiosk_binary)
ROOT=$([ "$(id -u)" = 0 ] && echo yes || echo no)
MOUNTS=()
finish() {
    for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null || true; done
    cleanup
}
trap finish EXIT
chmod 0755 "$E2E_TMP"
# The kiosk as nobody (root only) needs a binary nobody can run.
KIOSK="$E2E_TMP/darkmode-kiosk"
cp "$KIOSK_SRC" "$KIOSK"
chmod 0755 "$KIOSK"
AS=()
if [ "$ROOT" = yes ]; then
    command -v setpriv >/dev/null || fail "setpriv missing (util-linux)"
    AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
export DBUS_SESSION_BUS_ADDRESS="unix:path=$E2E_TMP/no-session" DBUS_SYSTEM_BUS_ADDRESS="unix:path=$E2E_TMP/no-system"
SOCK="$E2E_TMP/notify.sock" NLOG="$E2E_TMP/notify.log"
/usr/bin/python3 Tests/e2e/lib/notify-listener.py "$SOCK" "$NLOG" &
E2E_PIDS+=($!)
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.05; done

# page_mode and wait_page: lib/common.sh.
# wait_file FILE MODE WHAT SECONDS: the file says MODE within SECONDS; prints how long it took.
wait_file() {
    local start=$SECONDS
    while [ "$(prefs_mode "$1")" != "$2" ]; do
        [ $((SECONDS - start)) -lt "$4" ] || fail "$3: the file says $(prefs_mode "$1") after $4 s, expected $2"
        sleep 0.1
    done
    echo "info: $3: saved after $((SECONDS - start)) s"
}
# count TEXT: lines of the kiosk's stderr containing TEXT.
count() { grep -cF -- "$1" "$E2E_TMP/app.err" || true; }
# last_status: the kiosk's last STATUS= (after READY).
last_status() {
    /usr/bin/python3 -c 'import json,sys
s=[json.loads(l)["fields"].get("STATUS") for l in open(sys.argv[1]) if l.strip()]
s=[x for x in s if x]
print(s[-1] if s else "")' "$NLOG"
}
wait_status() { # CONTAINS|LACKS TEXT WHAT
    local deadline=$((SECONDS + 3)) st
    while :; do
        st=$(last_status)
        if [ "$1" = contains ]; then case "$st" in *"$2"*) return 0 ;; esac
        else case "$st" in *"$2"*) ;; *) return 0 ;; esac; fi
        [ $SECONDS -lt $deadline ] || fail "$3: the last STATUS is '$st'"
        sleep 0.1
    done
}
start() { # PREFS
    : >"$E2E_TMP/app.err"
    : >"$NLOG"
    NOTIFY_SOCKET="$SOCK" SDL_VIDEODRIVER=x11 HOME="$E2E_TMP" "${AS[@]}" "$KIOSK" --prefs "$1" --size 800x600 2>>"$E2E_TMP/app.err" &
    APP=$!
    E2E_PIDS+=($APP)
    WIN=$(timeout 10 xdotool search --sync --onlyvisible --class darkmode-kiosk 2>/dev/null | head -1) || true
    [ -n "$WIN" ] || fail "no visible kiosk window within 10 s"
}
term() {
    kill -TERM "$APP"
    local t=0 rc=0
    while kill -0 "$APP" 2>/dev/null && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
    kill -0 "$APP" 2>/dev/null && fail "the kiosk still runs 5 s after SIGTERM"
    wait "$APP" || rc=$?
    [ "$rc" = 0 ] || fail "the kiosk exited with status $rc after SIGTERM"
}
owner() { [ "$ROOT" = yes ] && chown -R 65534:65534 "$@" || true; }

start_xvfb 800x600

# --- 1. a folder without write permission ------------------------------------------------------
STATE="$E2E_TMP/ro"
PREFS="$STATE/preferences.json"
mkdir -p "$STATE"
printf '{"appearance": "light"}\n' >"$PREFS"
owner "$STATE"
chmod 0555 "$STATE"
start "$PREFS"
wait_page false "at start"
xdotool key space
wait_page true "Space in a read-only folder"
sleep 3
[ "$(prefs_mode "$PREFS")" = false ] || fail "the file changed in a read-only folder: $(cat "$PREFS")"
[ "$(count "could not save preferences")" = 1 ] || fail "expected one 'could not save' line in 3 s of retries, got $(count "could not save preferences")"
grep -q "Permission denied; the mode is kept in memory; trying again after 1 s, doubling up to every 60 s, and when the folder changes" "$E2E_TMP/app.err" \
    || fail "the failure line does not say it will try again"
wait_status contains "the choice dark is not saved (trying again)" "while the choice is not saved"
chmod 0755 "$STATE"
wait_file "$PREFS" true "the folder made writable (chmod: inotify)" 2
wait_status lacks "not saved" "after the save"
[ "$(count "the choice dark was saved to $PREFS after")" = 1 ] || fail "no one line saying the choice was saved after N tries"
pass "0555 folder: the tap's dark kept in memory, one line, STATUS 'not saved'; chmod → saved without a restart"
chmod 0555 "$STATE"
sleep 0.3
xdotool key space
wait_page false "Space (light) in the read-only folder again"
sleep 0.5
term
[ "$(count "the choice light was not saved: could not save preferences to $PREFS")" = 1 ] \
    || fail "SIGTERM while unsaved: no one line naming the lost choice"
grep "was not saved" "$E2E_TMP/app.err" | sed 's/^/info: exit: /'
[ "$(prefs_mode "$PREFS")" = true ] || fail "the file changed: $(cat "$PREFS")"
chmod 0755 "$STATE"
start "$PREFS"
wait_page true "restart after the unsaved light: the saved dark"
term
pass "SIGTERM while unsaved: exit 0 and one line naming the lost choice; the restart shows the saved mode"

if [ "$ROOT" != yes ]; then
    echo "skip: cases 2 (read-only bind mount) and 3 (full 64 KiB tmpfs) need root for mount(2); this runs as uid $(id -u)"
    exit 0
fi

# --- 2. a read-only bind mount, remounted read-write -------------------------------------------
STATE="$E2E_TMP/bind"
PREFS="$STATE/preferences.json"
mkdir -p "$STATE"
printf '{"appearance": "light"}\n' >"$PREFS"
owner "$STATE"
mount --bind "$STATE" "$STATE" && MOUNTS+=("$STATE")
mount -o remount,bind,ro "$STATE"
start "$PREFS"
wait_page false "at start (bind mount)"
xdotool key space
wait_page true "Space on a read-only mount"
sleep 2
[ "$(prefs_mode "$PREFS")" = false ] || fail "the file changed on a read-only mount"
grep -q "Read-only file system" "$E2E_TMP/app.err" || fail "no line says the file system is read-only"
mount -o remount,bind,rw "$STATE"
wait_file "$PREFS" true "remounted read-write (no inotify event: the backoff)" 20
[ "$(count "the choice dark was saved to $PREFS after")" = 1 ] || fail "no 'saved after N tries' line"
term
pass "read-only bind mount: saved on the backoff after the remount, no restart"

# --- 3. a full 64 KiB tmpfs ---------------------------------------------------------------------
FS="$E2E_TMP/tmpfs"
mkdir -p "$FS"
mount -t tmpfs -o size=64k,mode=0755 tmpfs "$FS" && MOUNTS+=("$FS")
STATE="$FS/state"
PREFS="$STATE/preferences.json"
mkdir -p "$STATE"
printf '{"appearance": "light"}\n' >"$PREFS"
owner "$STATE"
fill() { dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null || true; }
fill
start "$PREFS"
wait_page false "at start (full tmpfs)"
xdotool key space
wait_page true "Space on a full disk"
sleep 2
[ "$(prefs_mode "$PREFS")" = false ] || fail "the file changed on a full disk: $(cat "$PREFS")"
grep -q "No space left on device" "$E2E_TMP/app.err" || fail "no line says the disk is full"
rm -f "$FS/filler"
wait_file "$PREFS" true "space freed outside the folder (no event there: the backoff)" 20
[ "$(count "the choice dark was saved to $PREFS after")" = 1 ] || fail "no 'saved after N tries' line"
fill
xdotool key space
wait_page false "Space (light) on the full disk again"
sleep 0.5
term
[ "$(count "the choice light was not saved: could not save preferences to $PREFS")" = 1 ] \
    || fail "SIGTERM while unsaved on a full disk: no one line naming the lost choice"
grep -q "the choice light was not saved: .*No space left on device" "$E2E_TMP/app.err" || fail "the exit line does not say why"
rm -f "$FS/filler"
start "$PREFS"
wait_page true "restart: the saved dark"
term
pass "full 64 KiB tmpfs: saved on the backoff once space was freed; SIGTERM while unsaved names the lost choice; the restart shows the saved mode"
