#!/usr/bin/python3
"""Displays that come and go (issue 41, items 1 and 4) with the DRM presenter in a real kernel:
scenarios in QEMU guests with the KMS/DRM harness (Tests/vm/vm.py, harness.py).

The connector is switched the way the kernel lets a test do it: `echo off|on >
/sys/class/drm/card0-Virtual-1/status` forces it, `detect` gives it back to the driver. On
Debian 12's kernel neither bochs nor virtio-gpu sends a uevent for a forced status (their
connectors are not polled: `udevadm monitor --kernel` shows nothing), so each switch is followed
by the drm `change` event udev's own tools send (`echo change > /sys/class/drm/card0/uevent`,
as `udevadm trigger` does: SYNTH_UUID instead of HOTPLUG=1), which the kiosk takes as a rescan
trigger the same way. QEMU keeps its own scanout while the connector is off, so a scenario
decides from the kiosk's log and state, and looks at the screen only for what the kiosk draws
after.

- started_without_display: the kiosk started with the connector off keeps running (its log says
  it waits; 0 CPU ticks over 5 s), and shows the page once the connector is on; a tap works.
- off_on_while_running: with the ambient animation running, the connector off: one log line,
  0 CPU ticks over 5 s; a tap while off is still handled and saved; on again: the page comes
  back in the saved mode, and a tap switches it.
- hotplug_burst: 50 synthetic drm change events (`echo change > /sys/class/drm/card0/uevent`)
  in a burst: one rescan, CPU bounded.
- flapping_minute: the connector off and on every second for 60 s: at most 3 lines a cause
  (rescan, lost, found) a minute, then a summary each; the page up at the end.
- first_page_no_modeset: the console already shows the mode the kiosk uses: its first page goes
  up with no modeset (strace of the DRM ioctls: no SETCRTC before the page; the log says so).
- other_mode_after_reconnect (virtio-gpu only: bochs cannot change its mode at run time, and
  its driver ignores debugfs `edid_override`): while off, the display is resized to 800x600
  through QEMU's VNC server (`VM.set_display_size`); on again, the page is laid out for 800x600
  and a tap at the Original's new centre switches it.
- rotated_other_mode (virtio-gpu only, as above): the same with --rotate 90: the page laid out
  portrait for 600x800 and turned; a tap at the rotated Original's new centre switches it.

Numbers are printed as `info:` lines. Usage: display_hotplug_scenarios.py [--gpu bochs,virtio]
[--only NAME,...] [--accel tcg|kvm|auto] [--shots DIR]
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CHANGE_TIMEOUT, check, scenario_main  # noqa: E402

CONNECTOR = "/sys/class/drm/card0-Virtual-1"
IDLE_SECONDS = 5
RESCAN = r"display: (\d+) hot-plug events?, connectors read again"


def sh(run, cmd, timeout=60):
    out = run.vm.agent.call("sh", cmd=cmd, timeout=timeout, within=timeout + 30)
    check(out["rc"] == 0, f"in the guest `{cmd}` failed: {out['err']}{run.kiosk_log()}")
    return out["out"]


def connector(run, state):
    """Forces the connector on or off, then the drm change event (see the module's note)."""
    sh(run, f"echo {state} > {CONNECTOR}/status && echo change > /sys/class/drm/card0/uevent")


def pid_of(run):
    return sh(run, f"pidof {os.path.basename(run.kiosk.binary)}").split()[0]


def cpu_over(run, seconds, during=""):
    """The kiosk's CPU ticks and its threads' voluntary context switches over `seconds` (after
    `during`, a shell command run first, e.g. a burst), and the clock's ticks per second."""
    sample = ("for t in /proc/$pid/task/*; do awk '{print $14+$15}' $t/stat; "
              "awk '/^voluntary_ctxt_switches/ {print $2}' $t/status; done | paste -sd' '")
    out = sh(run, f"pid={pid_of(run)}; getconf CLK_TCK; {sample}; {during} sleep {seconds}; {sample}",
             timeout=seconds + 90).split("\n")
    hz = int(out[0])
    before, after = ([int(v) for v in line.split()] for line in out[1:3])
    check(len(before) == len(after), f"the kiosk's threads changed while measured: {out}")
    return sum(after[0::2]) - sum(before[0::2]), sum(after[1::2]) - sum(before[1::2]), hz


def wait_log(run, pattern, what, timeout=CHANGE_TIMEOUT, count=1):
    """Until the kiosk's log matches `pattern` `count` times; the matches."""
    deadline = time.monotonic() + timeout
    while True:
        found = re.findall(pattern, run.log_text())
        if len(found) >= count:
            return found
        check(run.vm.agent.call("wait", name="kiosk", timeout=0)["rc"] is None,
              f"{what}: the kiosk exited{run.kiosk_log()}")
        check(time.monotonic() < deadline, f"{what}: no log line /{pattern}/ within {timeout} s{run.kiosk_log()}")
        time.sleep(0.1)


def touch(run):
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    return xr, yr


def tap_original(run, size, xr, yr, appearance, colour, what):
    w, h = size
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    return run.wait_change(appearance, colour, what, started)


def start_waiting(run, *args):
    """Starts the kiosk as `Run.start` does, but with no page to wait for: until its state
    says no display is connected."""
    run.launch(*args)
    run.wait_state(lambda s: s.get("display") == "none", "the kiosk started without a display", timeout=180)


def started_without_display(run):
    """Started with the connector off: running and waiting (one line, READY with a waiting
    STATUS, 0 CPU); the connector on: the page in the saved mode, and a tap switches it."""
    xr, yr = touch(run)
    run.save_prefs("dark")
    connector(run, "off")
    start_waiting(run)
    run.wait_devices_opened()
    time.sleep(2)
    ticks, switches, hz = cpu_over(run, IDLE_SECONDS)
    run.log(f"info: {run.vm.gpu} {run.name}: waiting for a display over {IDLE_SECONDS} s: {ticks} CPU ticks, "
            f"{switches} wake-ups")
    check(ticks == 0, f"waiting for a display cost {ticks} CPU ticks in {IDLE_SECONDS} s (expected 0)")
    check(len(re.findall(r"waiting for one", run.log_text())) == 1, f"not one waiting line{run.kiosk_log()}")
    started = time.monotonic()
    connector(run, "on")
    image, _ = run.vm.wait_image(lambda im: all(c == run.kiosk.dark for c in im.corners()), CHANGE_TIMEOUT,
                                 "the saved (dark) page after the connector came on")
    took = time.monotonic() - started
    run.shot(image, "connected")
    run.log(f"info: {run.vm.gpu} {run.name}: connector on to page {took:.1f} s")
    check((image.width, image.height) == run.mode, f"the page is {image.width}x{image.height}, not {run.mode}")
    tap_original(run, run.mode, xr, yr, "light", run.kiosk.light, "tap after connect")
    run.stop()


def off_on_while_running(run):
    """The connector off while the page animates: one line, no frames, 0 CPU ticks over 5 s; a
    tap while off switches the saved mode; on again: the page back (in that mode), a tap works."""
    xr, yr = touch(run)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    connector(run, "off")
    run.wait_state(lambda s: s.get("display") == "none", "the connector off")
    time.sleep(1)
    ticks, switches, hz = cpu_over(run, IDLE_SECONDS)
    run.log(f"info: {run.vm.gpu} {run.name}: display off, ambient animation on, over {IDLE_SECONDS} s: "
            f"{ticks} CPU ticks, {switches} wake-ups")
    check(ticks == 0, f"with the display off the kiosk used {ticks} CPU ticks in {IDLE_SECONDS} s (expected 0)")
    check(len(re.findall(r"the display was disconnected", run.log_text())) == 1, f"not one line for the loss{run.kiosk_log()}")
    w, h = run.mode
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    deadline = time.monotonic() + CHANGE_TIMEOUT
    while run.appearance() != "dark":
        check(time.monotonic() < deadline, f"a tap with the display off was not saved: {run.appearance()}{run.kiosk_log()}")
        time.sleep(0.05)
    started = time.monotonic()
    connector(run, "on")
    image, _ = run.vm.wait_image(lambda im: all(c == run.kiosk.dark for c in im.corners()), CHANGE_TIMEOUT,
                                 "the dark page after the connector came back")
    run.log(f"info: {run.vm.gpu} {run.name}: connector on to page {time.monotonic() - started:.1f} s")
    run.shot(image, "back")
    tap_original(run, run.mode, xr, yr, "light", run.kiosk.light, "tap after reconnect")
    run.stop()


def hotplug_burst(run):
    """50 drm change events in a burst (synthetic, as `udevadm trigger` sends them): the
    connectors are read once, the CPU stays bounded, the page stays."""
    run.save_prefs("light")
    run.start("--reduce-motion", expect=run.kiosk.light)
    burst = "i=0; while [ $i -lt 50 ]; do echo change > /sys/class/drm/card0/uevent; i=$((i+1)); done;"
    ticks, switches, hz = cpu_over(run, 3, during=burst)
    wait_log(run, RESCAN, "the burst's rescan")
    time.sleep(1)
    found = re.findall(RESCAN, run.log_text())
    events = sum(int(n) for n in found)
    run.log(f"info: {run.vm.gpu} {run.name}: 50 change events: {len(found)} rescan(s) ({events} events read), "
            f"{ticks} CPU ticks ({100 * ticks / (hz * 3):.1f} % of a core over 3 s), {switches} wake-ups")
    check(len(found) == 1, f"50 events in a burst gave {len(found)} rescans (expected 1){run.kiosk_log()}")
    check(events == 50, f"the rescan counted {events} events, not 50")
    check(ticks <= hz // 4, f"the burst cost {ticks} CPU ticks (more than a quarter of a second)")
    image, _ = run.vm.wait_image(lambda im: all(c == run.kiosk.light for c in im.corners()), CHANGE_TIMEOUT, "the page")
    run.stop()


def flapping_minute(run):
    """A connector flapping for 60 s (off and on every second, each followed by its change
    event: 120 rescans, 60 losses and 60 returns): the log's display lines stay bounded — at
    most 3 a cause a minute, then one summary each — and the page is up at the end."""
    run.save_prefs("light")
    run.start("--reduce-motion", expect=run.kiosk.light)
    before = len(run.log_text().splitlines())
    change = "echo change > /sys/class/drm/card0/uevent"
    flap = (f"end=$(( $(date +%s) + 60 )); n=0; while [ $(date +%s) -lt $end ]; do echo off > {CONNECTOR}/status; "
            f"{change}; sleep 0.5; echo on > {CONNECTOR}/status; {change}; sleep 0.5; n=$((n+1)); done; echo $n")
    cycles = int(sh(run, flap, timeout=150).split()[-1])
    # The first window's summaries come a minute after its first lines, i.e. about when the flap ends.
    wait_log(run, r"display: hot-plug rescans: \d+ more in the last", "the rescans' summary", timeout=90)
    time.sleep(3)
    lines = [l for l in run.log_text().splitlines()[before:] if "display" in l]
    summary = r"display: (hot-plug rescans|disconnections|connections): \d+ more"
    kinds = {k: [l for l in lines if re.search(p, l) and not re.search(summary, l)] for k, p in (
        ("rescan", RESCAN), ("lost", r"the display was disconnected"), ("found", r"display connected: "))}
    kinds["summary"] = [l for l in lines if re.search(summary, l)]
    counted = sum(int(n) for n in re.findall(r"display: hot-plug rescans: (\d+) more", "\n".join(lines)))
    run.log(f"info: {run.vm.gpu} {run.name}: {cycles} off/on cycles in 60 s: {len(lines)} display lines "
            f"({', '.join(f'{k} {len(v)}' for k, v in kinds.items())}; {counted} rescans only counted)")
    for k in ("rescan", "lost", "found"):
        check(1 <= len(kinds[k]) <= 6, f"{len(kinds[k])} '{k}' lines in a minute's flap and its end (expected 3 a window, "
                                       f"2 windows at most){run.kiosk_log()}")
    check(len(kinds["summary"]) >= 1, f"no summary line after the flap{run.kiosk_log()}")
    check(len(lines) <= 30, f"{len(lines)} display lines for a minute's flap{run.kiosk_log()}")
    check(cycles >= 30, f"only {cycles} off/on cycles in 60 s: the flap did not flap")
    run.vm.wait_image(lambda im: all(c == run.kiosk.light for c in im.corners()), CHANGE_TIMEOUT, "the page after the flap")
    run.stop()


def first_page_no_modeset(run):
    """The console shows the mode the kiosk will use: the first page goes up without a modeset
    — no DRM_IOCTL_MODE_SETCRTC before the page (strace), one no-modeset atomic commit, and the
    log says so."""
    run.save_prefs("light")
    trace = run.vm.guest_out(f"{run.name}.strace")
    argv = ["/usr/bin/strace", "-f", "-qq", "-o", trace, "-e", "trace=ioctl", *run.kiosk_argv("--reduce-motion")]
    run.start(argv=argv, expect=run.kiosk.light)
    wait_log(run, r"first page shown", "the first page's line")
    sh(run, f"kill -TERM {pid_of(run)}")
    rc = run.vm.agent.call("wait", name="kiosk", timeout=60, within=75)["rc"]
    run.app = None
    check(rc == 0, f"the kiosk under strace ended with {rc}{run.kiosk_log()}")
    with open(run.vm.host_out(f"{run.name}.strace"), errors="replace") as f:
        lines = f.read().splitlines()
    first_setcrtc = next((i for i, l in enumerate(lines) if "MODE_SETCRTC" in l), None)
    atomics = [i for i, l in enumerate(lines) if "MODE_ATOMIC" in l]
    log = run.log_text()
    run.log(f"info: {run.vm.gpu} {run.name}: {len(atomics)} atomic commit(s), SETCRTC at line "
            f"{first_setcrtc} of {len(lines)} (the exit puts the console back with one)")
    check("first page shown without a modeset" in log, f"the first page was shown with a modeset{run.kiosk_log()}")
    check(atomics, "no DRM_IOCTL_MODE_ATOMIC in the trace")
    check(first_setcrtc is None or first_setcrtc > atomics[0],
          f"a SETCRTC (line {first_setcrtc}) came before the first page's commit (line {atomics[0]})")


def reconnect_at_800x600(run, what):
    """The connector off, the display made 800x600 (a VNC viewer's SetDesktopSize: virtio-gpu
    gives the guest a new preferred mode with a real HOTPLUG=1), on again: returns the
    screendump once the light page fills the 800x600 output (the state says so too)."""
    connector(run, "off")
    run.wait_state(lambda s: s.get("display") == "none", "the connector off")
    rescans = len(re.findall(RESCAN, run.log_text()))
    run.vm.set_display_size(800, 600)
    # virtio-gpu's own HOTPLUG=1 for the new size (the connector, forced off, lists no modes).
    wait_log(run, RESCAN, "the hot-plug event of the resize", count=rescans + 1)
    started = time.monotonic()
    connector(run, "on")
    run.wait_state(lambda s: s.get("display") == "on" and (s["output"]["width"], s["output"]["height"]) == (800, 600),
                   "the 800x600 mode after the reconnect")
    image, _ = run.vm.wait_image(lambda im: (im.width, im.height) == (800, 600)
                                 and all(c == run.kiosk.light for c in im.corners()), CHANGE_TIMEOUT,
                                 f"the {what} at 800x600")
    run.log(f"info: {run.vm.gpu} {run.name}: connector on (800x600 now) to the {what} {time.monotonic() - started:.1f} s")
    run.shot(image, what.replace(" ", "-") + "-800x600")
    return image


def other_mode_after_reconnect(run):
    """While the connector is off, the display becomes an 800x600 one (a VNC viewer's
    SetDesktopSize: virtio-gpu gives the guest a new preferred mode with a real HOTPLUG=1); on
    again: the page is laid out for 800x600, a tap at the Original's new centre switches it."""
    xr, yr = touch(run)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    reconnect_at_800x600(run, "page")
    tap_original(run, (800, 600), xr, yr, "dark", run.kiosk.dark, "tap at the new centre")
    run.stop()


def rotated_other_mode(run):
    """--rotate 90, then another mode after a reconnect (800x600 through VNC, as
    other_mode_after_reconnect): the page laid out portrait for 600x800 and turned clockwise
    (the rotated Original's toggle drawn where expected), and a tap there switches it."""
    xr, yr = touch(run)
    run.save_prefs("light")
    run.start("--rotate", "90", expect=run.kiosk.light)
    image = reconnect_at_800x600(run, "rotated page")
    w, h = 800, 600
    px, py = run.kiosk.centre(run.kiosk.layout(h, w)["toggle"])     # the portrait page, 600x800
    screen = (w - py, px)                                           # turned clockwise
    check(image.pixel(int(screen[0]), int(screen[1])) != run.kiosk.light,
          f"no toggle drawn at the rotated Original's centre {screen} of the 800x600 screen")
    # The unrotated layout's centre for 800x600 is elsewhere: the page must not be laid out landscape.
    lx, ly = run.kiosk.centre(run.kiosk.layout(w, h)["toggle"])
    check(abs(lx - screen[0]) > 20 or abs(ly - screen[1]) > 20, "the rotated and unrotated centres coincide: no proof")
    ux, uy = run.to_units(screen, (w, h), xr, yr)
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    run.wait_change("dark", run.kiosk.dark, "tap at the rotated Original's new centre", started)
    run.stop()


# What a guest's display cannot do: bochs (QEMU's std VGA) has no UI info, so its mode cannot
# change while it runs, and its driver ignores the DRM debugfs edid_override.
CANNOT = {"bochs": {"other_mode_after_reconnect", "rotated_other_mode"}}


def restore_connector(run):
    """The connector given back to the driver and the display its first size (after every scenario)."""
    if run.vm.vnc_socket is not None:
        run.vm.set_display_size(*run.mode)
    run.vm.agent.call("sh", cmd=f"echo detect > {CONNECTOR}/status; echo change > /sys/class/drm/card0/uevent",
                      timeout=30, within=60)


def scenario(f):
    def run_it(run):
        try:
            f(run)
        finally:
            restore_connector(run)
    run_it.__name__, run_it.__doc__ = f.__name__, f.__doc__
    return run_it


SCENARIOS = {f.__name__: scenario(f) for f in (started_without_display, off_on_while_running, hotplug_burst, flapping_minute,
                                                first_page_no_modeset, other_mode_after_reconnect, rotated_other_mode)}
ORDER = list(SCENARIOS)


def runnable(a, gpu, wanted):
    """The wanted scenarios this GPU's display can do (the others named once)."""
    skipped = [n for n in wanted if n in CANNOT.get(gpu, ())]
    if skipped:
        print(f"info: {gpu}: not run here (the display cannot do it): {', '.join(skipped)}", flush=True)
    return [n for n in wanted if n not in skipped]


def main():
    return scenario_main("display-hotplug-vm", __doc__, ORDER, SCENARIOS, vm_options={"vnc": True}, names=runnable)


if __name__ == "__main__":
    sys.exit(main())
