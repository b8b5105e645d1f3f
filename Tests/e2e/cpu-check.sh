#!/usr/bin/env bash
# The start-up check of the CPU the binary was built for (Sources/BuildCPU): on x86-64 the build
# is for x86-64-v2 by default (and for the building machine's CPU with DARKMODE_KIOSK_CPU=native),
# and a binary copied to a machine without one of those
# extensions must say so in one line and exit 1, not die of SIGILL. A private mount namespace
# (`unshare -r -m`: a user namespace too, so no root is needed) shows the binary a
# /proc/cpuinfo whose flags lack the extensions `--version` names; the real file bind-mounted
# the same way must change nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/e2e/lib/common.sh
trap cleanup EXIT
need unshare mount grep sed
BIN=$(kiosk_binary)
grep -q '^flags' /proc/cpuinfo || fail "no flags line in /proc/cpuinfo: this check is for x86 Linux"
# Runs the binary with FILE bind-mounted over /proc/cpuinfo: with-cpuinfo FILE ARGS...
with_cpuinfo() {
    local file=$1; shift
    unshare -r -m sh -c 'mount --bind "$1" /proc/cpuinfo && shift && exec "$@"' sh "$file" "$BIN" "$@"
}
line=$("$BIN" --version | sed -n 2p)
echo "info: $line"
case $line in "instruction-set extensions: "*) ;; *) fail "--version's second line: '$line'" ;; esac
# The default build (scripts/test's, CI's: no DARKMODE_KIOSK_CPU) is the portable one: x86-64-v2.
if [ -z "${DARKMODE_KIOSK_CPU:-}" ] && [ -z "${KIOSK_BIN:-}" ] && [ "$(uname -m)" = x86_64 ]; then
    [ "$line" = "instruction-set extensions: ssse3 sse4_1 sse4_2 popcnt" ] \
        || fail "the default build is not x86-64-v2: '$line' (Package.swift, cpuSettings)"
    pass "the default build needs x86-64-v2 and nothing more"
fi
cp /proc/cpuinfo "$E2E_TMP/real"
with_cpuinfo "$E2E_TMP/real" --version >"$E2E_TMP/out" 2>"$E2E_TMP/err" || fail "with the real cpuinfo bind-mounted: exit $? ($(cat "$E2E_TMP/err"))"
[ ! -s "$E2E_TMP/err" ] || fail "with the real cpuinfo: stderr '$(cat "$E2E_TMP/err")'"
pass "the machine's own /proc/cpuinfo, bind-mounted: runs"
case $line in
*"none beyond"*)
    pass "a build for the baseline names no extension: nothing else to take away"
    ;;
*)
    names=${line#instruction-set extensions: }
    # The first processor's flags without every extension the build names.
    cp /proc/cpuinfo "$E2E_TMP/lacking"
    for n in $names; do sed -i "s/^\(flags.*\) $n\( \|$\)/\1\2/" "$E2E_TMP/lacking"; done
    status=0
    with_cpuinfo "$E2E_TMP/lacking" --version >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
    [ "$status" -eq 1 ] || fail "without $names: exit $status, want 1"
    [ ! -s "$E2E_TMP/out" ] || fail "without $names: the program went on ('$(cat "$E2E_TMP/out")')"
    [ "$(wc -l <"$E2E_TMP/err")" -eq 1 ] || fail "without $names: stderr is not one line: $(cat "$E2E_TMP/err")"
    want="darkmode-kiosk: this binary was built for a CPU with $(echo $names | sed 's/ /, /g'), which this machine lacks"
    grep -qF "$want" "$E2E_TMP/err" || fail "without $names: '$(cat "$E2E_TMP/err")', want it to start '$want'"
    grep -q "DARKMODE_KIOSK_CPU=x86-64" "$E2E_TMP/err" || fail "the line does not say how to build for any x86-64"
    pass "without the build's extensions ($names): one line naming them, exit 1"
    # One extension missing: only it is named.
    last=${names##* }
    cp /proc/cpuinfo "$E2E_TMP/one"
    sed -i "s/^\(flags.*\) $last\( \|$\)/\1\2/" "$E2E_TMP/one"
    status=0
    with_cpuinfo "$E2E_TMP/one" run --check >"$E2E_TMP/out" 2>"$E2E_TMP/err" || status=$?
    [ "$status" -eq 1 ] && grep -qF "built for a CPU with $last, which" "$E2E_TMP/err" \
        || fail "without $last: exit $status, '$(cat "$E2E_TMP/err")'"
    [ ! -s "$E2E_TMP/out" ] || fail "without $last: run --check printed '$(cat "$E2E_TMP/out")'"
    pass "without $last alone: named alone, before any other work (run --check never started)"
    ;;
esac
echo "cpu check end-to-end: all checks passed"
