#!/usr/bin/python3
"""Displays that come and go under cage (issue 41, item 1's last part): scenarios in a QEMU
guest on virtio-gpu (cage 0.1.4's wlroots 0.15 needs PRIME import, which bochs-drm lacks).

cage runs as the shipped unit runs it (`cage -- darkmode-kiosk run …`, an unprivileged user,
its seat from seatd, WLR_RENDERER=pixman, SDL's wayland driver, udevd in the guest for
wlroots' device monitor). The connector is forced from sysfs and followed by a drm change event
(see display_hotplug_scenarios.py's note); the mode changes through QEMU's VNC server
(`VM.set_display_size`: a real HOTPLUG=1 from virtio-gpu).

Usage: cage_display_scenarios.py [--gpu virtio] [--only NAME,...] [--accel tcg|kvm|auto] [--shots DIR]
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CHANGE_TIMEOUT, cage_argv, check, scenario_main, settle, start_seatd, start_udevd, stop_cage, stop_seatd  # noqa: E402
from display_hotplug_scenarios import CONNECTOR, IDLE_SECONDS, cpu_over, scenario, sh, wait_log  # noqa: E402

WAITING = r"the compositor has no output \(no display connected\); waiting for one"


# wlroots 0.15 rescans the connectors only for a drm change event with HOTPLUG=1 (what a
# driver that polls or gets an interrupt sends); the synthetic one that follows a status forced
# through sysfs carries SYNTH_UUID instead. This rule, in the guest's /run, gives the synthetic
# event the property udevd passes on to libudev's listeners (wlroots), as real hardware would.
HOTPLUG_RULE = 'ACTION=="change", SUBSYSTEM=="drm", KERNEL=="card0", ENV{HOTPLUG}="1"'


def connector(run, state):
    sh(run, f"echo {state} > {CONNECTOR}/status && echo change > /sys/class/drm/card0/uevent")


def hotplug_rule(run):
    sh(run, "mkdir -p /run/udev/rules.d && echo '" + HOTPLUG_RULE + "' > /run/udev/rules.d/99-dmk-test-hotplug.rules "
            "&& udevadm control --reload")


def prepare(run, saved):
    """udevd (with the hotplug rule), a touch panel, seatd, the saved appearance (writable by nobody)."""
    start_udevd(run)
    hotplug_rule(run)
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr, label="dmk-cage-touch")
    settle(run)
    start_seatd(run)
    run.save_prefs(saved)
    os.chmod(run.prefs_host(), 0o666)
    return xr, yr


def start_cage(run, *args):
    """cage and the kiosk in it, not waiting for anything."""
    log = run.vm.guest_out(f"{run.name}.kiosk.log")
    run.vm.agent.call("start", name="kiosk", args=cage_argv(run.kiosk_argv(*args), "DARKMODE_KIOSK_TIMING=1"), log=log)
    run.app = True


def cage_running(run):
    return run.vm.agent.call("wait", name="kiosk", timeout=0)["rc"] is None


def page(run, colour, size, what, timeout=CHANGE_TIMEOUT):
    """Until the screen is `size` with every corner `colour`; (image, seconds)."""
    return run.vm.wait_image(lambda im: (im.width, im.height) == size and all(c == colour for c in im.corners()),
                             timeout, what)


def tap_original(run, size, xr, yr, appearance, colour, what):
    w, h = size
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    return run.wait_change(appearance, colour, what, started)


def write_prefs(run, appearance):
    """Another program's choice (as a fleet tool's), written in the guest (a write from the host
    side of the 9p share raises no inotify event there): the kiosk follows its preferences file."""
    path = run.prefs_guest()
    sh(run, f"printf '{{\"appearance\": \"{appearance}\"}}\\n' > {path}.tmp && chmod 666 {path}.tmp && mv {path}.tmp {path}")


def off_at_start(run):
    """cage started with the connector off (wlroots makes no output): the kiosk waits (one
    line, 0 CPU over 5 s, cage still running); the connector on: the saved (dark) page full
    screen, and a tap at the Original's centre switches it."""
    try:
        xr, yr = prepare(run, "dark")
        connector(run, "off")
        start_cage(run)
        wait_log(run, WAITING, "the kiosk under cage without an output", timeout=180)
        time.sleep(2)
        ticks, switches, hz = cpu_over(run, IDLE_SECONDS)
        cage_ticks = cpu_of(run, "cage", IDLE_SECONDS)
        run.log(f"info: {run.name}: no output, over {IDLE_SECONDS} s: kiosk {ticks} CPU ticks ({switches} wake-ups), "
                f"cage {cage_ticks} ticks")
        check(ticks == 0, f"waiting for an output cost the kiosk {ticks} CPU ticks in {IDLE_SECONDS} s (expected 0)")
        check(cage_running(run), f"cage ended while it had no output{run.kiosk_log()}")
        started = time.monotonic()
        connector(run, "on")
        image, _ = page(run, run.kiosk.dark, run.mode, "the saved (dark) page after the connector came on")
        took = time.monotonic() - started
        run.shot(image, "connected")
        run.log(f"info: {run.name}: connector on to the page under cage {took:.1f} s")
        check(len(re.findall(r"waiting for one", run.log_text())) == 1, f"not one waiting line{run.kiosk_log()}")
        tap_original(run, run.mode, xr, yr, "light", run.kiosk.light, "tap after connect")
        stop_cage(run)
    finally:
        stop_seatd(run)


def cage_ends(run, what):
    """Until cage has ended (its output gone); its exit status and the seconds it took."""
    started = time.monotonic()
    rc = run.vm.agent.call("wait", name="kiosk", timeout=CHANGE_TIMEOUT, within=CHANGE_TIMEOUT + 15)["rc"]
    took = time.monotonic() - started
    check(rc is not None, f"{what}: cage still runs {CHANGE_TIMEOUT} s after its only output went away{run.kiosk_log()}")
    run.app = None
    return rc, took


def restart_cage(run, *args):
    """cage started again (what the unit's Restart=always does) with the connector still off:
    the kiosk waits for an output again."""
    # The agent starts each program with a new log: keep the first run's beside it.
    with open(run.vm.host_out(f"{run.name}.kiosk.first-run.log"), "w") as f:
        f.write(run.log_text())
    start_cage(run, *args)
    wait_log(run, WAITING, "the restarted kiosk without an output", timeout=180)


def output_lost(run):
    """The connector off while cage shows the page: cage 0.1.4 ends (wlroots destroys the
    output, cage quits with its last output; status 0) and the kiosk with it. Started again
    (as the unit's Restart=always does) with the connector still off: the kiosk waits; the
    saved mode is changed meanwhile (the preferences file rewritten); the connector on: the
    page in the new mode (drawn after the return), and a tap switches it."""
    try:
        xr, yr = prepare(run, "light")
        start_cage(run)
        page(run, run.kiosk.light, run.mode, "the first page under cage", timeout=240)
        connector(run, "off")
        rc, took = cage_ends(run, "the connector off")
        run.log(f"info: {run.name}: the connector off: cage ended {took:.1f} s later, exit status {rc}")
        check(rc == 0, f"cage's exit status after its output went away is {rc}{run.kiosk_log()}")
        restart_cage(run)
        write_prefs(run, "dark")
        time.sleep(3)
        started = time.monotonic()
        connector(run, "on")
        image, _ = page(run, run.kiosk.dark, run.mode, "the dark page after the connector came back")
        run.log(f"info: {run.name}: connector on to the page under the restarted cage {time.monotonic() - started:.1f} s")
        run.shot(image, "back")
        tap_original(run, run.mode, xr, yr, "light", run.kiosk.light, "tap after reconnect")
        stop_cage(run)
    finally:
        stop_seatd(run)


def other_mode(run):
    """An 800x600 display (VNC SetDesktopSize: virtio-gpu's HOTPLUG=1 with a new preferred
    mode) while cage runs: cage 0.1.4 keeps the mode it set (the screen stays 1280x800, the
    page on it). Reconnected (the output off: cage ends; started again: it takes the new
    preferred mode): the page laid out for 800x600, a tap at the Original's new centre switches it."""
    try:
        xr, yr = prepare(run, "light")
        start_cage(run)
        page(run, run.kiosk.light, run.mode, "the first page under cage", timeout=240)
        run.vm.set_display_size(800, 600)
        time.sleep(10)
        image = run.vm.screendump()
        run.log(f"info: {run.name}: 10 s after the resize the screen is {image.width}x{image.height}")
        check((image.width, image.height) == run.mode and all(c == run.kiosk.light for c in image.corners()),
              f"after the resize the screen is {image.width}x{image.height} with corners {image.corners()}: "
              f"cage changed its mode (this note and docs/run-as-kiosk.md say it keeps it)")
        connector(run, "off")
        cage_ends(run, "the connector off")
        restart_cage(run)
        started = time.monotonic()
        connector(run, "on")
        image, _ = page(run, run.kiosk.light, (800, 600), "the page at 800x600")
        run.log(f"info: {run.name}: connector on (800x600 now) to the 800x600 page {time.monotonic() - started:.1f} s")
        run.shot(image, "800x600")
        tap_original(run, (800, 600), xr, yr, "dark", run.kiosk.dark, "tap at the new centre")
        stop_cage(run)
    finally:
        stop_seatd(run)


def cpu_of(run, name, seconds):
    out = sh(run, f"pid=$(pidof {name} | cut -d' ' -f1); awk '{{print $14+$15}}' /proc/$pid/stat; sleep {seconds}; "
                  "awk '{print $14+$15}' /proc/$pid/stat", timeout=seconds + 60).split()
    return int(out[1]) - int(out[0])


SCENARIOS = {f.__name__: scenario(f) for f in (off_at_start, output_lost, other_mode)}
ORDER = list(SCENARIOS)


def main():
    return scenario_main("cage-display-vm", __doc__, ORDER, SCENARIOS, default_gpu="virtio", vm_options={"vnc": True})


if __name__ == "__main__":
    sys.exit(main())
