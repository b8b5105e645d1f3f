#!/usr/bin/env bash
# The Debian package's life (issue 33). Builds the .deb with the standard tools
# (dpkg-buildpackage, from the release build scripts/test already made: only the version and
# the link differ, no Swift module is compiled again), checks it with lintian (no error, no
# warning left unexplained), then lives through it in a chroot that is this machine's own root
# under a throw-away overlay (a tmpfs upper: the machine itself is not changed, and no network
# is needed, since scripts/packages.txt installed the package's dependencies):
#   install -> not enabled by itself; `systemctl enable` works; systemd-analyze verify and
#   security on the installed units -> the kiosk user writes its preferences, the owner edits
#   the config -> upgrade to a newer build of the same tree (a temporary changelog entry): both
#   kept, the unit still enabled, the new version running -> remove: both kept -> purge: nothing
#   left but dpkg's records, the users' database and the user "kiosk" itself (owning nothing).
# Needs root (mount, chroot). Prints the time of each step.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
source Tests/e2e/lib/deb.sh
[ "$(id -u)" -eq 0 ] || fail "needs root: it mounts an overlay of / and chroots into it (CI runs as root)"
need dpkg-buildpackage dpkg-parsechangelog lintian chroot mount umount findmnt systemd-analyze python3

START=$SECONDS
step() { echo "info: $1 ($((SECONDS - START)) s)"; }

# ---- Clean-up: unmount before anything is deleted; put the changelog back. --------------
MOUNTS=()
CHANGELOG_ORIG="$E2E_TMP/changelog.orig"
finish() {
    local i
    [ -f "$CHANGELOG_ORIG" ] && cp "$CHANGELOG_ORIG" debian/changelog
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" 2>/dev/null || true
    done
    # (grep reads to the end: -q would stop early and pipefail would then hide a match.)
    if findmnt -rn -o TARGET | grep "^$E2E_TMP" >/dev/null; then
        echo "deb-lifecycle: $E2E_TMP still has mounts; left in place (not deleted)" >&2
        E2E_TMP=/nonexistent-kept
    fi
    cleanup
}
trap finish EXIT

# ---- Build: the tree's version, and a newer one from a temporary changelog entry. --------
ARCH=$(dpkg --print-architecture)
OLD=$(dpkg-parsechangelog -S Version)
NEW="$OLD+lifecycle1"
cp debian/changelog "$CHANGELOG_ORIG"
{
    printf 'darkmode-kiosk (%s) unstable; urgency=medium\n\n' "$NEW"
    printf '  * A newer build of the same tree (Tests/e2e/deb-lifecycle.sh; never committed).\n\n'
    printf ' -- Lifecycle Test <lifecycle@localhost>  %s\n\n' "$(date -R)"
    cat "$CHANGELOG_ORIG"
} >debian/changelog
build_deb "$NEW" "$E2E_TMP/debs"
cp "$CHANGELOG_ORIG" debian/changelog
# The tree's own version last, so the release build is left as the tree says.
build_deb "$OLD" "$E2E_TMP/debs"
OLD_DEB="$E2E_TMP/debs/darkmode-kiosk_${OLD}_$ARCH.deb" NEW_DEB="$E2E_TMP/debs/darkmode-kiosk_${NEW}_$ARCH.deb"
step "built $(basename "$OLD_DEB") ($(du -k "$OLD_DEB" | cut -f1) KiB) and $(basename "$NEW_DEB")"

# ---- lintian: no error, and every warning overridden with a reason in debian/. ---------
lintian --fail-on error,warning --display-level '>=warning' "$OLD_DEB" >"$E2E_TMP/lintian.out" 2>&1 \
    || fail "lintian: $(cat "$E2E_TMP/lintian.out")"
# (As root lintian adds that it would rather not be; that line is not about the package.)
grep -v '^running with root privileges is not recommended!$' "$E2E_TMP/lintian.out" >"$E2E_TMP/lintian.tags" || true
[ ! -s "$E2E_TMP/lintian.tags" ] || fail "lintian reports: $(cat "$E2E_TMP/lintian.tags")"
pass "lintian: no errors or warnings on $(basename "$OLD_DEB")"
step "lintian"

# ---- The chroot: / read-only under a tmpfs upper. ---------------------------------------
UP="$E2E_TMP/upper" ROOT="$E2E_TMP/root"
mkdir -p "$UP" "$ROOT"
mount -t tmpfs -o size=1G,mode=0755 deb-lifecycle "$UP" && MOUNTS+=("$UP")
mkdir "$UP/u" "$UP/w"
mount -t overlay deb-lifecycle -o "lowerdir=/,upperdir=$UP/u,workdir=$UP/w" "$ROOT" && MOUNTS+=("$ROOT")
mount -t proc proc "$ROOT/proc" && MOUNTS+=("$ROOT/proc")
# A /dev of its own (not the machine's, bound): the few nodes the tools open.
mount -t tmpfs -o mode=0755 dev "$ROOT/dev" && MOUNTS+=("$ROOT/dev")
mknod -m 666 "$ROOT/dev/null" c 1 3; mknod -m 666 "$ROOT/dev/zero" c 1 5
mknod -m 666 "$ROOT/dev/random" c 1 8; mknod -m 666 "$ROOT/dev/urandom" c 1 9
# No /run/systemd/system in there: the maintainer scripts act as on a machine being built
# (links and users written, no running manager asked), as in an image builder.
for d in run tmp; do mount -t tmpfs -o mode=1777 "$d" "$ROOT/$d" && MOUNTS+=("$ROOT/$d"); done
cp "$OLD_DEB" "$NEW_DEB" Tests/KioskTests/Traces/tap.jsonl "$ROOT/tmp/"
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
as_kiosk() { chroot --userspec="$KUID:$KGID" "$ROOT" env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME=/var/lib/darkmode-kiosk "$@"; }
sha() { sha256sum "$ROOT$1" | cut -d' ' -f1; }
step "overlay chroot ready"

UNITS=(darkmode-kiosk.service darkmode-kiosk-kmsdrm.service)
STATE=/var/lib/darkmode-kiosk/.config/darkmode-kiosk
PREFS=$STATE/preferences.json
CONF=/etc/darkmode-kiosk/kiosk.json

# ---- Install. ---------------------------------------------------------------------------
in_root dpkg -i "/tmp/$(basename "$OLD_DEB")" </dev/null >"$E2E_TMP/install.log" 2>&1 \
    || fail "dpkg -i $OLD failed: $(tail -20 "$E2E_TMP/install.log")"
[ "$(in_root dpkg-query -W -f='${Status} ${Version}' darkmode-kiosk)" = "install ok installed $OLD" ] \
    || fail "after install: $(in_root dpkg-query -W -f='${Status} ${Version}' darkmode-kiosk)"
got=$(in_root darkmode-kiosk --version | sed -n 1p)
[ "$got" = "darkmode-kiosk ${OLD%%-*}" ] || fail "installed --version says '$got', the package is $OLD"
IFS=: read -r _ _ KUID KGID _ home shell < <(in_root getent passwd kiosk) || fail "no user kiosk after install"
[ "$home" = /var/lib/darkmode-kiosk ] && [ "$shell" = /usr/sbin/nologin ] || fail "user kiosk: home $home, shell $shell"
groups=" $(in_root id -nG kiosk) "
for g in video input render; do [[ $groups == *" $g "* ]] || fail "user kiosk is not in group $g (groups:$groups)"; done
conffiles=$(in_root dpkg-query -W -f='${Conffiles}' darkmode-kiosk)
for f in $CONF /etc/pam.d/darkmode-kiosk; do grep -q "^ $f " <<<"$conffiles" || fail "$f is not a conffile: $conffiles"; done
in_root man -w darkmode-kiosk >/dev/null 2>&1 || fail "no man page darkmode-kiosk(1) installed"
in_root darkmode-kiosk --config "$CONF" --check >"$E2E_TMP/check.out" 2>&1 || fail "the shipped config fails --check: $(cat "$E2E_TMP/check.out")"
grep -qxF "preferences: $PREFS" "$E2E_TMP/check.out" || fail "the shipped config's preferences are not $PREFS: $(grep preferences "$E2E_TMP/check.out")"
[ -f "$ROOT/usr/share/darkmode-kiosk/colors.json" ] || fail "no colour-sets example /usr/share/darkmode-kiosk/colors.json"
# The fleet's network drop-in (docs/fleet.md) as an example; the unit with it copied in place
# verifies clean; `run --check` with a fleet config names the installed example.
EXAMPLE=/usr/share/doc/darkmode-kiosk/examples/mqtt-broker.conf
cmp -s "$ROOT$EXAMPLE" config/darkmode-kiosk.service.d/mqtt-broker.conf || fail "no drop-in example $EXAMPLE (or not config/'s)"
install -D -m 0644 "$ROOT$EXAMPLE" "$ROOT/etc/systemd/system/darkmode-kiosk.service.d/mqtt-broker.conf"
in_root systemd-analyze verify darkmode-kiosk.service >"$E2E_TMP/verify-dropin.out" 2>&1 \
    || fail "systemd-analyze verify with the drop-in: $(cat "$E2E_TMP/verify-dropin.out")"
[ ! -s "$E2E_TMP/verify-dropin.out" ] || fail "systemd-analyze verify with the drop-in warns: $(cat "$E2E_TMP/verify-dropin.out")"
rm -r "$ROOT/etc/systemd/system/darkmode-kiosk.service.d"
printf '{"fleet": {"mqtt": {"broker": "mqtt://192.0.2.10:1883", "clientId": "k1"}}}\n' >"$ROOT/tmp/fleet.json"
in_root darkmode-kiosk run --check --config /tmp/fleet.json --prefs /tmp/p.json >"$E2E_TMP/check-fleet.out" 2>&1 \
    || fail "run --check with a fleet config: $(cat "$E2E_TMP/check-fleet.out")"
grep -q "fleet network: .*copy $EXAMPLE" "$E2E_TMP/check-fleet.out" || fail "run --check does not name $EXAMPLE: $(grep fleet "$E2E_TMP/check-fleet.out")"
for u in "${UNITS[@]}"; do
    state=$(in_root systemctl is-enabled "$u" 2>&1 || true)
    [ "$state" = disabled ] || fail "$u is '$state' right after install (the owner enables one)"
    # The unit's --prefs is the config's path, in the unit's state directory.
    grep -q -- "--prefs $PREFS\$" "$ROOT/lib/systemd/system/$u" || fail "$u does not pass --prefs $PREFS"
    grep -qxF "StateDirectory=${STATE#/var/lib/}" "$ROOT/lib/systemd/system/$u" || fail "$u's state directory is not $STATE"
done
pass "installed $OLD: binary says its version, user kiosk (video input render), conffiles, man page, config checks, units not enabled, the fleet's drop-in example (verifies in place; run --check names it)"
step "install"

# ---- systemctl enable; the installed units verified. ------------------------------------
in_root systemctl enable darkmode-kiosk.service >"$E2E_TMP/enable.log" 2>&1 || fail "systemctl enable failed: $(cat "$E2E_TMP/enable.log")"
[ "$(in_root systemctl is-enabled darkmode-kiosk.service)" = enabled ] || fail "not enabled after systemctl enable"
[ -L "$ROOT/etc/systemd/system/graphical.target.wants/darkmode-kiosk.service" ] || fail "no graphical.target.wants link after enable"
for u in "${UNITS[@]}"; do
    in_root systemd-analyze verify "$u" >"$E2E_TMP/verify.out" 2>&1 || fail "systemd-analyze verify $u: $(cat "$E2E_TMP/verify.out")"
    [ ! -s "$E2E_TMP/verify.out" ] || fail "systemd-analyze verify $u warns: $(cat "$E2E_TMP/verify.out")"
    in_root systemd-analyze security --offline=yes "/lib/systemd/system/$u" >"$E2E_TMP/security.out" 2>&1 || true
    score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$E2E_TMP/security.out")
    [ -n "$score" ] || fail "no exposure score for $u: $(tail -5 "$E2E_TMP/security.out")"
    awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || fail "$u: exposure $score is above 2.0"
    echo "info: installed $u: verify clean (its man page found), exposure $score"
done
pass "systemctl enable works; both installed units verify clean with exposure <= 2.0"
step "enable, verify, security"

# ---- The kiosk's preferences and a local edit of the config. ---------------------------
# The state folder as the unit's StateDirectory= makes it before each start (no systemd here).
install -d -m 0755 "$ROOT/var/lib/darkmode-kiosk" "$ROOT/var/lib/darkmode-kiosk/.config"
install -d -m 0700 -o "$KUID" -g "$KGID" "$ROOT$STATE"
# The real code writes them: a tap on the toggle, replayed as the user kiosk.
as_kiosk /usr/bin/darkmode-kiosk replay /tmp/tap.jsonl --prefs "$PREFS" >/dev/null 2>"$E2E_TMP/replay.err" \
    || fail "replay as kiosk failed: $(cat "$E2E_TMP/replay.err")"
[ "$(prefs_mode "$ROOT$PREFS")" = true ] || fail "the tap did not leave dark mode in $PREFS"
sed -i 's/"width": 260/"width": 300/' "$ROOT$CONF"
in_root darkmode-kiosk --config "$CONF" --check >"$E2E_TMP/check.out" 2>&1 || fail "the edited config fails --check: $(cat "$E2E_TMP/check.out")"
grep -qxE "toggle width: 300(\.0)? pt" "$E2E_TMP/check.out" || fail "the edited config does not read back width 300: $(grep width "$E2E_TMP/check.out")"
PREFS_SHA=$(sha "$PREFS") CONF_SHA=$(sha "$CONF")
step "preferences written as kiosk, config edited"

# ---- Upgrade. ---------------------------------------------------------------------------
in_root dpkg -i "/tmp/$(basename "$NEW_DEB")" </dev/null >"$E2E_TMP/upgrade.log" 2>&1 \
    || fail "upgrade to $NEW failed: $(tail -20 "$E2E_TMP/upgrade.log")"
[ "$(in_root dpkg-query -W -f='${Status} ${Version}' darkmode-kiosk)" = "install ok installed $NEW" ] || fail "not $NEW after the upgrade"
[ "$(in_root darkmode-kiosk --version | sed -n 1p)" = "darkmode-kiosk $NEW" ] || fail "after the upgrade --version says $(in_root darkmode-kiosk --version | sed -n 1p)"
[ "$(sha "$CONF")" = "$CONF_SHA" ] || fail "the upgrade changed the edited $CONF"
ls "$ROOT$CONF".dpkg-* >/dev/null 2>&1 && fail "the upgrade left $(ls "$ROOT$CONF".dpkg-*)"
[ "$(sha "$PREFS")" = "$PREFS_SHA" ] || fail "the upgrade changed $PREFS"
[ "$(in_root systemctl is-enabled darkmode-kiosk.service)" = enabled ] || fail "the upgrade disabled the unit"
pass "upgrade $OLD -> $NEW: new binary, edited config and preferences kept byte for byte, unit still enabled"
step "upgrade"

# ---- Remove. ----------------------------------------------------------------------------
in_root dpkg -r darkmode-kiosk >"$E2E_TMP/remove.log" 2>&1 || fail "dpkg -r failed: $(tail -20 "$E2E_TMP/remove.log")"
[ "$(in_root dpkg-query -W -f='${Status}' darkmode-kiosk)" = "deinstall ok config-files" ] || fail "after remove: $(in_root dpkg-query -W -f='${Status}' darkmode-kiosk)"
for f in /usr/bin/darkmode-kiosk "/lib/systemd/system/${UNITS[0]}" "/lib/systemd/system/${UNITS[1]}"; do
    [ ! -e "$ROOT$f" ] || fail "remove left $f"
done
[ "$(sha "$CONF")" = "$CONF_SHA" ] && [ "$(sha "$PREFS")" = "$PREFS_SHA" ] || fail "remove did not keep the config and preferences"
pass "remove: program and units gone, edited config and preferences kept"
step "remove"

# ---- Purge. -----------------------------------------------------------------------------
in_root dpkg -P darkmode-kiosk >"$E2E_TMP/purge.log" 2>&1 || fail "dpkg -P failed: $(tail -20 "$E2E_TMP/purge.log")"
in_root dpkg-query -W darkmode-kiosk >/dev/null 2>&1 && fail "dpkg still knows darkmode-kiosk after purge"
# Everything the package's life changed is in the overlay's upper folder. Allowed to stay:
# dpkg's and man-db's records, the users' database (Debian keeps the system users it made)
# and the folders the copy-up made for them. Anything else is left behind.
(cd "$UP/u" && find . -mindepth 1 \( -type f -o -type l -o -type c \) -printf '%P\n') | sort >"$E2E_TMP/upper.txt"
grep -vE '^(var/lib/dpkg/|var/log/(dpkg|alternatives|apt/)|var/cache/(man|debconf|ldconfig)/|etc/(passwd|group|shadow|gshadow)-?$|etc/\.pwd\.lock$|var/lib/systemd/deb-systemd-helper-(enabled|masked)/?$)' \
    "$E2E_TMP/upper.txt" >"$E2E_TMP/left.txt" || true
[ ! -s "$E2E_TMP/left.txt" ] || fail "purge left behind: $(tr '\n' ' ' <"$E2E_TMP/left.txt")"
owned=$(find "$UP/u" -uid "$KUID" -printf '/%P ' 2>/dev/null)
[ -z "$owned" ] || fail "files of the user kiosk (uid $KUID) after purge: $owned"
in_root getent passwd kiosk >/dev/null || fail "the user kiosk is gone (expected: kept, as Debian keeps system users)"
pass "purge: nothing left ($(wc -l <"$E2E_TMP/upper.txt") changed files, all dpkg/man-db records or the users' database); the user kiosk owns nothing"
step "purge"

echo "deb lifecycle: all checks passed in $((SECONDS - START)) s"
