#!/usr/bin/python3
"""The Debian package booted by systemd in a real kernel (issue 33, item 3; run by
Tests/e2e/deb-boot-vm.sh, which builds the .deb).

One QEMU guest a unit (Tests/vm/vm.py): Debian's kernel, the host's root read-only under a tmpfs
overlay (`dmk.overlay`, Tests/vm/initramfs-init), the .deb installed into it and the unit
enabled in a layer made on the host as an image builder would (Tests/vm/make-boot-layer.sh),
then systemd as PID 1. What a kiosk
owner sees, checked by screendump and by systemd's own records:
  - boot: the page appears with no login and no command; timings: QEMU start and kernel start to
    the page on screen, the unit's start and READY=1 (ActiveEnterTimestampMonotonic, on the
    kernel's clock) and which way the DRM card was opened (the kiosk's log line);
  - watchdog: a tap of QEMU's tablet on the toggle saves dark mode; `kill -STOP` of the kiosk ->
    systemd's watchdog (WatchdogSec=6 from a test drop-in) kills it, the unit restarts, the
    page comes back dark;
  - stop: `systemctl stop` -> the main process exited 0, the VT is back in text mode and the
    screen no longer shows the page;
  - display off at boot (kmsdrm-display-off): the connector disabled on the kernel's command
    line; the unit becomes active (READY=1) with a STATUS that says it waits for a display, and
    60 s later it has neither failed nor restarted; the connector switched on: the page appears
    from the same process;
  - the cage unit with the display off at boot (cage-display-off): cage runs with no output, the
    kiosk waits for one (READY=1, a waiting STATUS, no restart in 60 s); switched on: the page
    from the same processes; then the display lost six times while the page shows: cage 0.1.4 ends
    with its output, the unit restarts it once each time (no start limit), the new kiosk waits,
    the page comes back;
  - bad config: a broken /etc/darkmode-kiosk/kiosk.json -> one start, the unit stays stopped
    (failed by RestartPreventExitStatus=2 when the kiosk is the main process; skipped by
    ExecCondition=run --preflight before cage when cage is, since cage exits 0 whatever its
    client did), with one line naming the file and what is wrong and no stack trace.
The host's enabled services that have no business in a kiosk guest (postgresql, apt's and
other timers; seatd, except for the cage unit, whose seat it is) are masked; getty@tty1 is left enabled, as on a stock Debian system: the units'
Conflicts= must win tty1 from it.

Usage: deb_boot_scenarios.py --deb FILE [--units kmsdrm,cage] [--accel tcg|kvm|auto] [--shots DIR]
(without --units: every unit but the PENDING ones below, each named with its reason).
Environment: KIOSK_BIN (the same build as the .deb: its page colours and layout), DMK_VM_KEEP=1
keeps each guest's work folder (serial log, journal, prepare log).
Exit status 0 when every check passed, 1 otherwise (each failure named).
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm import VM, VMError, HERE, GUEST_STAGE, run_guests  # noqa: E402
from harness import Kiosk, Failure, check, Run  # noqa: E402
from cage_display_scenarios import HOTPLUG_RULE, WAITING  # noqa: E402

# unit name, the display it runs on (cage's wlroots 0.15 needs PRIME import: not on bochs),
# whether the kiosk is the unit's main process, and the host's services it needs (left unmasked).
UNITS = {
    "kmsdrm": ("darkmode-kiosk-kmsdrm.service", "bochs", True, ()),
    "cage": ("darkmode-kiosk.service", "virtio", False, ("seatd.service",)),
    # The KMS/DRM unit with the display off from boot (a TV still off): the kernel's `video=`
    # disables the connector until the test switches it on (issue 41, item 1).
    "kmsdrm-display-off": ("darkmode-kiosk-kmsdrm.service", "bochs", True, ()),
    # The cage unit with the display off from boot, then lost while the page shows (issue 41,
    # item 1's last part): cage 0.1.4 ends when its output goes, the unit must not give up.
    "cage-display-off": ("darkmode-kiosk.service", "virtio", False, ("seatd.service",)),
}
# More kernel command line per unit entry.
APPEND = {"kmsdrm-display-off": "video=Virtual-1:d", "cage-display-off": "video=Virtual-1:d"}
# How long the display stays off after the unit is active.
DISPLAY_OFF_SECONDS = 60
# Units whose boot fails today, with why: run only when named with --units (the e2e script runs
# the others). A unit leaves this map in the commit that makes it pass.
PENDING = {}
MASK = ["postgresql.service", "seatd.service", "e2scrub_reap.service", "systemd-timesyncd.service",
        "apt-daily.timer", "apt-daily-upgrade.timer", "dpkg-db-backup.timer", "e2scrub_all.timer",
        "fstrim.timer", "man-db.timer"]
WATCHDOG_SEC = 6
START_TIMEOUT_SEC = 120
CONFIG = "/etc/darkmode-kiosk/kiosk.json"
PREFS = "/var/lib/darkmode-kiosk/.config/darkmode-kiosk/preferences.json"
# Bounds only matter when something is wrong (TCG on a shared 2-core machine).
BOOT_TIMEOUT = 420
# The agent (dmk-agent.service, in sysinit.target after systemd-udevd) answered 44-86 s after
# the initramfs mounted the root (the most at load average ~12, systemd's whole start 97 s): 180 s
# (vm.py's VM agent_timeout; DMK_VM_AGENT_TIMEOUT=S overrides) ends a boot whose agent is
# missing three minutes after the root's mount, with the console's last lines.
AGENT_TIMEOUT = float(os.environ.get("DMK_VM_AGENT_TIMEOUT") or 180)
PAGE_TIMEOUT = 240
CHANGE_TIMEOUT = 90


class Boot:
    """One booted guest and its unit under test."""

    def __init__(self, vm, kiosk, unit, kiosk_is_main, shots, name):
        self.vm, self.kiosk, self.unit, self.kiosk_is_main = vm, kiosk, unit, kiosk_is_main
        self.shots, self.name = shots, name
        self.timings = {}

    def log(self, message):
        print(message, flush=True)

    def sh(self, cmd, timeout=60):
        out = self.vm.agent.call("sh", cmd=cmd, timeout=timeout, within=timeout + 15)
        return out["rc"], out["out"], out["err"]

    def show(self, *props):
        rc, out, err = self.sh(f"systemctl show -p {','.join(props)} {self.unit}")
        check(rc == 0, f"systemctl show: {err}")
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def journal(self, since=None):
        """systemd's lines about the unit and the kiosk user's session lines (since `since`, the
        guest's clock in whole seconds). Two queries: in the KMS/DRM unit pam_systemd moves the
        unit's processes into the user's session scope, so the journal files the kiosk's stderr
        under session-cN.scope in user-UID.slice, not under the unit (`journalctl -u` alone
        misses it). The cage unit has no session: its lines are the unit's, and the second
        query (the user's slice only) does not count them twice."""
        when = f"--since=@{since}" if since else ""
        unit = self.sh(f"journalctl -b -o cat --no-pager -u {self.unit} {when}")[1]
        own = self.sh(f"uid=$(id -u kiosk); journalctl -b -o cat --no-pager _UID=$uid _SYSTEMD_SLICE=user-$uid.slice {when}")[1]
        return unit + own

    def cursor(self):
        """The guest's clock (whole seconds, rounded down) before an action: journal(since=)."""
        return self.sh("date +%s")[1].strip()

    def shot(self, image, what):
        path = os.path.join(self.shots, f"{self.name}-{what}.png")
        image.write_png(path)
        return path

    def page(self, image, colour=None):
        """The page fills the screen: every corner one page colour (or `colour`)."""
        corners = image.corners()
        wanted = [colour] if colour else [self.kiosk.light, self.kiosk.dark]
        return any(all(c == w for c in corners) for w in wanted)

    def wait_active(self, timeout, not_pid=None):
        """Until the unit is active (after READY=1) with a main PID other than `not_pid`."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.show("ActiveState", "SubState", "MainPID", "NRestarts", "Result")
            if s["ActiveState"] == "active" and s["MainPID"] not in ("0", not_pid):
                return s
            check(time.monotonic() < deadline, f"{self.unit} not active again within {timeout} s: {s}")
            time.sleep(0.5)

    def kiosk_pid(self):
        rc, out, _ = self.sh("pidof darkmode-kiosk")
        check(rc == 0 and out.split(), "no darkmode-kiosk process in the guest")
        return out.split()[0]


def boot_and_page(b, started_host):
    """The page on screen after boot with no command; timings and the READY=1 record."""
    image, _ = b.vm.wait_image(b.page, PAGE_TIMEOUT, f"{b.name}: the page after boot")
    page_host = time.monotonic()
    b.shot(image, "page-after-boot")
    b.vm.connect_agent()      # sought since the root's mount: at most AGENT_TIMEOUT after it
    # The guest's CLOCK_MONOTONIC starts at the kernel's start: one exchange maps it to ours.
    t0 = time.monotonic()
    guest = b.vm.agent.call("monotonic")["monotonic"]
    kernel_host = (t0 + time.monotonic()) / 2 - guest
    s = b.wait_active(60)
    t = b.show("ExecMainStartTimestampMonotonic", "ActiveEnterTimestampMonotonic", "Type")
    check(t["Type"] == "notify", f"{b.unit} is Type={t['Type']}")
    start = int(t["ExecMainStartTimestampMonotonic"]) / 1e6
    ready = int(t["ActiveEnterTimestampMonotonic"]) / 1e6
    b.timings.update({"QEMU start to kernel start": kernel_host - started_host,
                      "kernel start to the unit's start": start,
                      "kernel start to READY=1 (unit active)": ready,
                      "kernel start to page on screen": page_host - kernel_host,
                      "QEMU start to page on screen": page_host - started_host})
    b.log(f"info: {b.name}: kernel start -> unit started {start:.1f} s, READY=1 {ready:.1f} s, page on screen "
          f"{page_host - kernel_host:.1f} s (QEMU start -> page {page_host - started_host:.1f} s)")
    analyze = b.sh("systemd-analyze 2>&1 | head -1")[1].strip()
    if analyze:
        b.log(f"info: {b.name}: systemd-analyze: {analyze}")
    # Nothing else holds tty1: getty@tty1 (enabled) lost to the unit's Conflicts=.
    getty = b.sh("systemctl is-active getty@tty1.service")[1].strip()
    check(getty != "active", "getty@tty1 is active next to the kiosk")
    log = b.journal()
    if b.kiosk_is_main:
        rc, out, err = b.sh("cat /run/darkmode-kiosk/state.json")
        check(rc == 0, f"no state file in the unit's runtime directory: {err}\n{log[-2000:]}")
        state = json.loads(out)
        check(state.get("card") == "logind", f"the kiosk's DRM card did not come from logind: state {state}\n{log[-2000:]}")
        b.log(f"info: {b.name}: state: card {state['card']}, presenter {state['presenter']}, input {state['input']}")
    return s


def vt_switch(b):
    """The KMS/DRM unit's kiosk holds its card from logind, which switches the VT: `chvt 2`
    gives the display to the text console (logind pauses the device: the kiosk stops drawing
    and answers), `chvt 1` brings the page back (resumed: the mode set again and the whole page
    sent) from the same process."""
    pid = b.kiosk_pid()
    rc, _, err = b.sh("/bin/busybox chvt 2", timeout=30)
    check(rc == 0, f"chvt 2: {err}")
    image, _ = b.vm.wait_image(lambda im: not b.page(im), 30, f"{b.name}: the console after chvt 2")
    b.shot(image, "console-after-chvt-2")
    t = time.monotonic()
    rc, _, err = b.sh("/bin/busybox chvt 1", timeout=30)
    check(rc == 0, f"chvt 1: {err}")
    image, _ = b.vm.wait_image(b.page, 30, f"{b.name}: the page after chvt 1")
    b.shot(image, "page-after-chvt-1")
    b.log(f"info: {b.name}: chvt 1 -> page back in {time.monotonic() - t:.1f} s")
    check(b.kiosk_pid() == pid, "the kiosk was restarted across the VT switch")
    log = b.journal()
    for line in ("display: paused by logind (", "display: resumed by logind"):
        check(line in log, f"the kiosk's log has no '{line}' (the switch went past logind's device signals):\n{log[-2000:]}")


def watchdog(b):
    """Tap dark (saved as the kiosk user), kill -STOP the kiosk: the watchdog fires, the unit
    restarts, the page comes back dark."""
    w, h = b.vm.screendump().width, b.vm.screendump().height
    toggle = b.kiosk.layout(w, h)["toggle"]
    x, y = Run.to_units(b.kiosk.centre(toggle), (w, h), (0, 32767), (0, 32767))
    before = b.vm.screendump()
    target = b.kiosk.dark if b.page(before, b.kiosk.light) else b.kiosk.light
    started = time.monotonic()
    b.vm.tablet_tap(x, y)
    b.vm.wait_image(lambda im: b.page(im, target), CHANGE_TIMEOUT, f"{b.name}: the page after a tap on the toggle")
    b.log(f"info: {b.name}: tap on the toggle -> page {'dark' if target == b.kiosk.dark else 'light'} "
          f"{time.monotonic() - started:.1f} s")
    want = "dark" if target == b.kiosk.dark else "light"
    deadline = time.monotonic() + CHANGE_TIMEOUT
    while True:
        rc, out, _ = b.sh(f"cat {PREFS}")
        if rc == 0 and json.loads(out or "{}").get("appearance") == want:
            break
        check(time.monotonic() < deadline, f"{PREFS} does not say {want} after the tap: {out}")
        time.sleep(0.5)
    rc, owner, _ = b.sh(f"stat -c %U {PREFS}")
    check(owner.strip() == "kiosk", f"{PREFS} is owned by {owner.strip()}, not kiosk")
    old = b.show("MainPID", "NRestarts")
    cursor = b.cursor()
    pid = b.kiosk_pid()
    started = time.monotonic()
    rc, _, err = b.sh(f"kill -STOP {pid}")
    check(rc == 0, f"kill -STOP {pid}: {err}")
    deadline = time.monotonic() + WATCHDOG_SEC + CHANGE_TIMEOUT
    while "Watchdog timeout" not in b.journal(cursor):
        check(time.monotonic() < deadline, f"no watchdog timeout in the journal:\n{b.journal(cursor)}")
        time.sleep(0.5)
    fired = time.monotonic() - started
    line = next(l for l in b.journal(cursor).splitlines() if "Watchdog timeout" in l)
    check(f"limit {WATCHDOG_SEC}s" in line, f"the watchdog line is not for {WATCHDOG_SEC} s: {line}")
    s = b.wait_active(PAGE_TIMEOUT, not_pid=old["MainPID"])
    check(int(s["NRestarts"]) == int(old["NRestarts"]) + 1, f"NRestarts {old['NRestarts']} -> {s['NRestarts']}")
    image, _ = b.vm.wait_image(lambda im: b.page(im, target), PAGE_TIMEOUT, f"{b.name}: the page after the restart")
    back = time.monotonic() - started
    b.shot(image, "page-after-watchdog-restart")
    check(b.kiosk_pid() != pid, "the stopped kiosk is still the one running")
    b.timings.update({"kill -STOP to watchdog line": fired, "kill -STOP to page back": back})
    b.log(f"info: {b.name}: kill -STOP -> journal '{line.strip()}' after {fired:.1f} s; restarted "
          f"(NRestarts {s['NRestarts']}), page back {want} {back:.1f} s after the kill")


CONNECTOR_STATUS = "/sys/class/drm/card0-Virtual-1/status"


def waited_with_display_off(b):
    """The unit booted with the connector off: active (READY=1) with a STATUS that says it
    waits for a display, then DISPLAY_OFF_SECONDS with no failure and no restart. Returns (the
    unit's main PID, the kiosk's PID)."""
    b.vm.connect_agent()
    s = b.wait_active(PAGE_TIMEOUT)
    state = b.sh(f"cat {CONNECTOR_STATUS}")[1].strip()
    check(state == "disconnected", f"the connector is {state!r} at boot, not disconnected (video=Virtual-1:d)")
    status = b.show("StatusText")["StatusText"]
    check("waiting for a display" in status, f"the unit's STATUS does not say it waits for a display: {status!r}")
    b.log(f"info: {b.name}: active (READY=1) with the display off; STATUS: {status}")
    pid, kiosk = s["MainPID"], b.kiosk_pid()
    time.sleep(DISPLAY_OFF_SECONDS)
    s = b.show("ActiveState", "MainPID", "NRestarts", "Result")
    check(s["ActiveState"] == "active" and s["MainPID"] == pid and s["NRestarts"] == "0",
          f"{DISPLAY_OFF_SECONDS} s with the display off: {s} (main PID was {pid})\n{b.journal()[-2000:]}")
    return pid, kiosk


def display_off_at_boot(b, started_host):
    """The connector off from boot: READY=1 with a waiting STATUS, no failure and no restart in
    60 s; switched on (and the drm change event, which this driver does not send for a forced
    status): the page, from the same process, the unit never failed."""
    pid, _ = waited_with_display_off(b)
    started = time.monotonic()
    rc, _, err = b.sh(f"echo on > {CONNECTOR_STATUS} && echo change > /sys/class/drm/card0/uevent")
    check(rc == 0, f"switching the connector on: {err}")
    image, _ = b.vm.wait_image(b.page, CHANGE_TIMEOUT, f"{b.name}: the page after the display came on")
    b.shot(image, "page-after-display-on")
    s = b.show("ActiveState", "MainPID", "NRestarts", "Result")
    check(s["ActiveState"] == "active" and s["MainPID"] == pid and s["NRestarts"] == "0" and s["Result"] == "success",
          f"after the display came on: {s} (main PID was {pid})")
    log = b.journal()
    check(log.count("no connected display; waiting for one") == 1, f"not one waiting line:\n{log[-2000:]}")
    check("Start request repeated" not in log, f"the unit hit its start limit:\n{log[-2000:]}")
    b.log(f"info: {b.name}: display on after {DISPLAY_OFF_SECONDS} s off -> page on screen "
          f"{time.monotonic() - started:.1f} s; same process, 0 restarts")


def cage_display_off_at_boot(b, started_host):
    """The cage unit with the connector off from boot: cage runs with no output, the kiosk
    waits for one (READY=1 with a waiting STATUS, one line), no failure and no restart in 60 s;
    the connector on (with the HOTPLUG=1 wlroots needs, see cage_display_scenarios.py): the
    page, from the same processes, the unit never failed."""
    pid, kiosk = waited_with_display_off(b)
    rc, _, err = b.sh("mkdir -p /run/udev/rules.d && echo '" + HOTPLUG_RULE + "' > /run/udev/rules.d/99-dmk-test-hotplug.rules"
                      " && udevadm control --reload")
    check(rc == 0, f"the test's hotplug rule: {err}")
    started = time.monotonic()
    rc, _, err = b.sh(f"echo on > {CONNECTOR_STATUS} && echo change > /sys/class/drm/card0/uevent")
    check(rc == 0, f"switching the connector on: {err}")
    image, _ = b.vm.wait_image(b.page, CHANGE_TIMEOUT, f"{b.name}: the page after the display came on")
    took = time.monotonic() - started
    b.shot(image, "page-after-display-on")
    s = b.show("ActiveState", "MainPID", "NRestarts", "Result")
    check(s["ActiveState"] == "active" and s["MainPID"] == pid and s["NRestarts"] == "0" and s["Result"] == "success",
          f"after the display came on: {s} (main PID was {pid})")
    check(b.kiosk_pid() == kiosk, "the kiosk process changed while the display was off")
    log = b.journal()
    check(len(re.findall(WAITING, log)) == 1, f"not one waiting line:\n{log[-2000:]}")
    check("Start request repeated" not in log, f"the unit hit its start limit:\n{log[-2000:]}")
    b.log(f"info: {b.name}: display on after {DISPLAY_OFF_SECONDS} s off -> page on screen {took:.1f} s; "
          "same processes, 0 restarts")


LOSSES = 6   # more than the five starts in 120 s the unit's start limit allowed before


def cage_output_lost(b):
    """The display lost while the page shows: cage 0.1.4 ends with its last output, the unit
    restarts it (Restart=always, one restart), the new kiosk waits (READY=1, waiting STATUS);
    the display back: the page. Six times in a row, faster than the start limit the unit
    used to have (5 starts in 120 s) allowed: it has none now, and must never give up."""
    connector = "/sys/class/drm/card0-Virtual-1/status"
    # The unit as installed has no start limit (whatever the rounds' pace below shows).
    limit = b.show("StartLimitIntervalUSec", "StartLimitBurst")
    check(limit.get("StartLimitIntervalUSec") == "0", f"the installed unit has a start limit: {limit}")
    starts = []
    for round in range(1, LOSSES + 1):
        before = b.show("MainPID", "NRestarts")
        started = time.monotonic()
        rc, _, err = b.sh(f"echo off > {connector} && echo change > /sys/class/drm/card0/uevent")
        check(rc == 0, f"switching the connector off: {err}")
        s = b.wait_active(PAGE_TIMEOUT, not_pid=before["MainPID"])
        starts.append(time.monotonic())
        restarted = starts[-1] - started
        check(int(s["NRestarts"]) == int(before["NRestarts"]) + 1, f"round {round}: not one restart: {before} -> {s}")
        deadline = time.monotonic() + CHANGE_TIMEOUT
        while "waiting for a display" not in b.show("StatusText")["StatusText"]:
            check(time.monotonic() < deadline, f"round {round}: the restarted unit's STATUS never said it waits: "
                                               f"{b.show('StatusText')}")
            time.sleep(0.5)
        started = time.monotonic()
        rc, _, err = b.sh(f"echo on > {CONNECTOR_STATUS} && echo change > /sys/class/drm/card0/uevent")
        check(rc == 0, f"switching the connector on: {err}")
        image, _ = b.vm.wait_image(b.page, CHANGE_TIMEOUT, f"{b.name}: the page after the display came back")
        if round in (1, LOSSES):
            b.shot(image, f"page-after-loss-{round}")
        s = b.show("ActiveState", "MainPID", "NRestarts", "Result")
        check(s["ActiveState"] == "active", f"round {round}: after the display came back: {s}")
        b.log(f"info: {b.name}: display lost (round {round}): cage ended, the unit active again and waiting "
              f"{restarted:.1f} s later (NRestarts {s['NRestarts']}); display back -> page {time.monotonic() - started:.1f} s")
    # The old limit would have refused a start here: more than five in some 120 s.
    most = max(sum(1 for t in starts if first <= t < first + 120) for first in starts)
    log = b.journal()
    check("Start request repeated" not in log, f"the unit hit a start limit:\n{log[-2000:]}")
    b.log(f"info: {b.name}: {LOSSES} displays lost in {starts[-1] - starts[0]:.0f} s, up to {most} restarts within "
          "120 s (the old limit allowed 5): the page came back every time")
    if most <= 5:
        b.log(f"warning: {b.name}: the rounds were slower than the old limit's window (at most {most} restarts "
              "within 120 s): this run did not go past it, only the unit's setting above says it is gone")


def stop(b):
    """systemctl stop: the main process exits 0, the VT is back in text mode, the page is gone."""
    started = time.monotonic()
    rc, _, err = b.sh(f"systemctl stop {b.unit}", timeout=90)
    check(rc == 0, f"systemctl stop {b.unit}: {err}")
    s = b.show("ActiveState", "Result", "ExecMainCode", "ExecMainStatus")
    # ExecMainCode 1 is CLD_EXITED: an exit, not a signal.
    check(s["ExecMainCode"] == "1" and s["ExecMainStatus"] == "0",
          f"after systemctl stop the main process ended with code {s['ExecMainCode']} status {s['ExecMainStatus']}, "
          f"expected an exit with 0: {s}\n{b.journal()[-2000:]}")
    check(s["Result"] == "success", f"Result={s['Result']} after systemctl stop")
    mode = b.vm.agent.call("kdmode", tty="/dev/tty1")["mode"]
    check(mode == "text", f"after systemctl stop tty1 is in {mode} mode, expected text")
    image, _ = b.vm.wait_image(lambda im: not b.page(im), CHANGE_TIMEOUT, f"{b.name}: the console after stop")
    b.shot(image, "console-after-stop")
    b.log(f"info: {b.name}: systemctl stop -> exit 0, tty1 in text mode, page gone ({time.monotonic() - started:.1f} s)")


def bad_config(b):
    """A broken config: the unit stops and stays stopped after one start, with one clear
    journal line: failed by the kiosk's exit 2 where it is the main process, skipped by the
    kiosk's own check (ExecCondition=) before cage where cage is."""
    rc, _, err = b.sh(f"cp {CONFIG} {CONFIG}.good && printf '{{\"toggle\": {{\"width\": \"wide\"}}}}\\n' >{CONFIG}")
    check(rc == 0, f"cannot write the broken config: {err}")
    cursor = b.cursor()
    main_started = b.show("ExecMainStartTimestampMonotonic")["ExecMainStartTimestampMonotonic"]
    b.sh(f"systemctl reset-failed {b.unit}; systemctl start --no-block {b.unit}")
    deadline = time.monotonic() + 180
    ended = "failed" if b.kiosk_is_main else "exec-condition"
    while True:
        s = b.show("ActiveState", "Result", "NRestarts", "ExecMainStatus", "ExecMainCode")
        if s["ActiveState"] in ("failed", "inactive") and s["Result"] != "success":
            break
        check(time.monotonic() < deadline, f"{b.unit} did not stop with a broken config ({ended} expected): {s}")
        time.sleep(0.5)
    restarts = s["NRestarts"]
    journal = b.journal(cursor)
    errors = [l for l in journal.splitlines() if CONFIG in l]
    check(errors, f"no journal line names {CONFIG}:\n{journal}")
    check(len(set(errors)) == 1, f"more than one kind of line names {CONFIG}: {errors}")
    check("width" in errors[0], f"the line does not say what is wrong (the width): {errors[0]}")
    for trace in ("Stack dump", "Fatal error", "backtrace", "Current stack trace"):
        check(trace not in journal, f"a stack trace in the journal ({trace}):\n{journal}")
    if b.kiosk_is_main:
        # The kiosk's own status 2 stops it at once: RestartPreventExitStatus=2.
        check(s["Result"] == "exit-code" and s["ExecMainStatus"] == "2" and restarts == "0",
              f"expected exit status 2 and no restart: {s}")
        check(len(errors) == 1, f"{len(errors)} starts, expected 1: {errors}")
        stopped_by = "RestartPreventExitStatus=2 (exit status 2, no restart)"
    else:
        # cage exits 0 whatever its client did, and the unit has no start limit (display losses
        # would use it up): `run --preflight` as ExecCondition= finds the broken file before
        # cage starts; its exit 2 skips the unit (inactive, Result=exec-condition), no restart.
        check(s["ActiveState"] == "inactive" and s["Result"] == "exec-condition" and restarts == "0",
              f"expected the start skipped by ExecCondition= (inactive, exec-condition), no restart: {s}")
        check(len(errors) == 1, f"{len(errors)} lines name the config, expected the check's one: {errors}")
        # systemd clears the main process's record as a start begins (0: none started since).
        now = b.show("ExecMainStartTimestampMonotonic")["ExecMainStartTimestampMonotonic"]
        check(now in ("0", main_started), f"the main process (cage) was started with a broken config "
                                          f"(ExecMainStartTimestampMonotonic {main_started} -> {now})")
        stopped_by = "ExecCondition= (run --preflight: exit 2, no cage, no restart)"
    # Still stopped a while later: no flapping.
    time.sleep(3)   # RestartSec=2 plus one: a restart would have begun by now
    again = b.show("ActiveState", "NRestarts")
    check(again["ActiveState"] == s["ActiveState"] and again["NRestarts"] == restarts, f"the unit moved on: {again}")
    check(len([l for l in b.journal(cursor).splitlines() if CONFIG in l]) == 1, "the config was read again after the stop")
    b.log(f"info: {b.name}: broken config -> {s['ActiveState']} ({s['Result']}), stopped by {stopped_by}; "
          f"the journal line: {errors[0].strip()}")
    b.sh(f"mv {CONFIG}.good {CONFIG}")


def one_boot(name, deb, kiosk, shots, accel, work):
    unit, gpu, kiosk_is_main, needs = UNITS[name]
    boot = os.path.join(work, "spec")
    os.makedirs(os.path.join(boot, "debs"))
    shutil.copy(deb, os.path.join(boot, "debs"))
    system = os.path.join(boot, "etc", "systemd", "system")
    os.makedirs(os.path.join(system, f"{unit}.d"))
    with open(os.path.join(system, f"{unit}.d", "vm-test-watchdog.conf"), "w") as f:
        f.write(f"# Tests/vm/deb_boot_scenarios.py: a watchdog short enough for the test.\n"
                f"[Service]\nWatchdogSec={WATCHDOG_SEC}\n"
                f"# Under TCG (no KVM, a shared 2-core machine) the first frame after a cold boot took over\n"
                f"# the unit's 30 s (the kiosk's 30 MB binary and fonts read over 9p, software\n"
                f"# emulated CPU): a start timeout that fits the emulator, not a board.\n"
                f"TimeoutStartSec={START_TIMEOUT_SEC}\n")
    with open(os.path.join(system, "dmk-agent.service"), "w") as f:
        f.write("# The test harness's hands in the guest (Tests/vm/guest-agent.py), as root.\n"
                "[Unit]\nDescription=DarkModeKiosk VM test agent\nDefaultDependencies=no\n"
                "After=systemd-udevd.service\n"
                "# The harness's quit ends the agent, and the guest with it.\n"
                "SuccessAction=poweroff-immediate\n\n[Service]\n"
                "ExecStartPre=-/sbin/modprobe -a virtio_console uinput evdev\n"
                "# The agent from the harness's staging share (Tests/vm/vm.py: the checkout itself may be\n"
                "# under /tmp or /root, which the guest and systemd mount over).\n"
                f"ExecStart=/usr/bin/python3 {GUEST_STAGE}/guest-agent.py\n"
                "Environment=HOME=/root LANG=C.UTF-8\n"
                "# Its errors on the serial console too: the harness shows the console's last lines\n"
                "# when the agent does not answer.\n"
                "StandardError=journal+console\n\n[Install]\nWantedBy=sysinit.target\n")
    with open(os.path.join(boot, "mask"), "w") as f:
        f.write("\n".join(m for m in MASK if m not in needs) + "\n")
    with open(os.path.join(boot, "enable"), "w") as f:
        f.write(f"{unit}\ndmk-agent.service\n")
    layer = os.path.join(work, "layer")
    t = time.monotonic()
    with open(os.path.join(work, "layer.log"), "w") as log:
        made = subprocess.run([os.path.join(HERE, "make-boot-layer.sh"), boot, layer], stdout=log, stderr=subprocess.STDOUT)
    if made.returncode != 0:
        raise VMError(f"make-boot-layer.sh failed: {open(os.path.join(work, 'layer.log')).read()[-2000:]}")
    print(f"info: {name}: the package installed into the boot layer in {time.monotonic() - t:.1f} s", flush=True)
    vm = VM(gpu=gpu, accel=accel, work=work, log=lambda m: print(m, flush=True), boot_timeout=BOOT_TIMEOUT,
            init="/lib/systemd/systemd", append=f"dmk.overlay dmk.layer {APPEND.get(name, '')}".strip(), wait_agent=False, agent_timeout=AGENT_TIMEOUT,
            shares={"bootlayer": layer})
    results = []
    with vm:
        b = Boot(vm, kiosk, unit, kiosk_is_main, shots, name)
        try:
            if name == "cage-display-off":
                steps = (cage_display_off_at_boot, cage_output_lost, stop)
            elif name in APPEND:
                steps = (display_off_at_boot, stop)
            elif kiosk_is_main:
                steps = (boot_and_page, vt_switch, watchdog, stop, bad_config)
            else:
                steps = (boot_and_page, watchdog, stop, bad_config)
            for step in steps:
                t = time.monotonic()
                try:
                    step(b, vm.started) if step in (boot_and_page, display_off_at_boot, cage_display_off_at_boot) else step(b)
                    results.append((name, step.__name__, True, ""))
                    print(f"ok: {name} {step.__name__} ({time.monotonic() - t:.0f} s)", flush=True)
                except (Failure, VMError) as x:
                    results.append((name, step.__name__, False, str(x)))
                    print(f"FAIL: {name} {step.__name__}: {x}", flush=True)
                    if step in (boot_and_page, display_off_at_boot, cage_display_off_at_boot) and not vm.agent:
                        break
        finally:
            if not vm.agent:
                try:
                    vm.connect_agent(time.monotonic() + 60)
                except Exception:
                    pass
            if vm.agent:
                try:   # the whole journal (-o verbose: each line's unit and identifier), for diagnosis
                    vm.agent.call("sh", cmd=f"journalctl -b --no-pager -o verbose >{vm.guest_out('journal.txt')}",
                                  timeout=120, within=150)
                except Exception:
                    pass
        print(f"info: {name} timings ({vm.accel}): " + "; ".join(f"{k} {v:.1f} s" for k, v in b.timings.items()),
              flush=True)
    return results


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deb", required=True)
    p.add_argument("--units", default=None, help="default: all but the pending ones")
    p.add_argument("--accel", default=os.environ.get("DARKMODE_KIOSK_VM_ACCEL", "tcg"))
    p.add_argument("--shots", default=None)
    a = p.parse_args()
    binary = os.environ.get("KIOSK_BIN")
    if not binary or not os.access(binary, os.X_OK):
        print("FAIL: KIOSK_BIN must name the kiosk binary the .deb was built from", file=sys.stderr)
        return 2
    if not os.path.isfile(a.deb):
        print(f"FAIL: no .deb at {a.deb}", file=sys.stderr)
        return 2
    kiosk = Kiosk(binary)
    shots = a.shots or tempfile.mkdtemp(prefix="deb-boot-vm-shots.")
    os.makedirs(shots, exist_ok=True)
    if a.units is None:
        for name, why in PENDING.items():
            print(f"info: pending, not run: {name}: {why}", flush=True)
    names = [n for n in (a.units or ",".join(u for u in UNITS if u not in PENDING)).split(",") if n]
    unknown = [n for n in names if n not in UNITS]
    if unknown:
        print(f"FAIL: unknown units {unknown} (one of {', '.join(UNITS)})", file=sys.stderr)
        return 2
    return run_guests("deb-boot-vm", names, lambda name, work, results: results.extend(
        one_boot(name, a.deb, kiosk, shots, a.accel, work)), shots)

if __name__ == "__main__":
    sys.exit(main())
