#!/usr/bin/env bash
# scripts/install-packages (what scripts/test and scripts/setup-and-run run first): installs
# exactly the missing packages of scripts/packages.txt — apt-get as root, sudo otherwise, a
# clear message and status 1 without either. dpkg, apt-get, sudo and id are stubs here: the
# test changes nothing on the machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
mkdir "$T/bin" "$T/tools"
for tool in bash env dirname cat; do ln -s "$(command -v $tool)" "$T/tools/$tool"; done
cat > "$T/bin/dpkg" <<'S'
#!/bin/sh
# "installed" unless listed in $MISSING
for m in $MISSING; do [ "$2" = "$m" ] && exit 1; done; exit 0
S
cat > "$T/bin/apt-get" <<'S'
#!/bin/sh
echo "apt-get $*" >> "$LOG"
S
cat > "$T/bin/id" <<'S'
#!/bin/sh
echo "$FAKE_UID"
S
cat > "$T/sudo" <<'S'
#!/bin/sh
echo "sudo $*" >> "$LOG"; exec "$@"
S
chmod +x "$T/bin/"* "$T/sudo"
run() { PATH="$T/bin:$T/tools$EXTRA" LOG="$T/log" bash scripts/install-packages "$@"; }

# Nothing missing: no apt-get at all.
: > "$T/log"; MISSING="" FAKE_UID=0 EXTRA="" run test >/dev/null
[ ! -s "$T/log" ] || fail "nothing missing but ran: $(cat "$T/log")"
pass "nothing missing, nothing installed"

# Root, two test packages missing: update, then install exactly those.
: > "$T/log"; export MISSING="xdotool cage" FAKE_UID=0 EXTRA=""
run test >/dev/null
grep -qx "apt-get update" "$T/log" || fail "no apt-get update: $(cat "$T/log")"
grep -q "apt-get install -y --no-install-recommends xdotool cage$" "$T/log" || fail "wrong install: $(cat "$T/log")"
pass "root: apt-get update + install of the missing ones"

# `build` ignores missing test-only packages.
: > "$T/log"; MISSING="xdotool" FAKE_UID=0 EXTRA="" run build >/dev/null
[ ! -s "$T/log" ] || fail "build installed a test package: $(cat "$T/log")"
pass "build: test-only packages left alone"

# Not root, sudo available: through sudo.
mkdir "$T/sudodir"; cp "$T/sudo" "$T/sudodir/sudo"
: > "$T/log"; MISSING="libsdl2-dev" FAKE_UID=1000 EXTRA=":$T/sudodir" run build >/dev/null
grep -q "^sudo apt-get update" "$T/log" && grep -q "^sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libsdl2-dev" "$T/log" \
    || fail "not through sudo: $(cat "$T/log")"
pass "not root: sudo apt-get"

# Not root, no sudo: status 1, the message names the packages, nothing run.
: > "$T/log"
if MISSING="libsdl2-dev xvfb" FAKE_UID=1000 EXTRA="" run test 2> "$T/err" >/dev/null; then fail "exit 0 without root or sudo"; fi
grep -q "libsdl2-dev xvfb" "$T/err" && grep -q "not root and no sudo" "$T/err" || fail "unclear message: $(cat "$T/err")"
[ ! -s "$T/log" ] || fail "ran apt-get without privileges: $(cat "$T/log")"
pass "no root, no sudo: clear message, status 1"

# The three entry points share the one list.
grep -q "scripts/install-packages test" scripts/test || fail "scripts/test does not install what it needs"
grep -q "scripts/install-packages build" scripts/setup-and-run || fail "setup-and-run has its own list"
grep -q "scripts/packages.txt" .ci/run && grep -q "^apt-get update" .ci/run && grep -q "apt-get install -y" .ci/run || fail ".ci/run must read scripts/packages.txt with apt-get update + install -y"
pass "one package list for .ci/run, scripts/test and scripts/setup-and-run"
