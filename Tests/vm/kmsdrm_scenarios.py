#!/usr/bin/python3
"""The kiosk on KMS/DRM in a real kernel: scenarios run in QEMU guests (Tests/vm/vm.py,
through the harness in Tests/vm/harness.py).

Each scenario is a small function taking a `Run` (the guest, the kiosk binary's facts, where
screenshots go) that starts the kiosk in the guest with SDL's kmsdrm backend, acts on it (touch
devices made with uinput in the guest, QEMU's virtio tablet through QMP, signals) and checks
what a person would see and what is saved: screendumps of the scanout polled until the page
shows (never a fixed sleep), and the preferences file read as JSON. Positions come from the
binary itself (`darkmode-kiosk replay` on an empty trace prints the layout for a size) and the
page colours from `run --check`: nothing is hard-coded.

Usage: kmsdrm_scenarios.py [--gpu bochs,virtio] [--only NAME,...] [--all] [--accel tcg|kvm|auto]
                           [--shots DIR] [--list]
Environment: KIOSK_BIN (default: the release build), DARKMODE_KIOSK_VM_ACCEL (default tcg).
Exit status 0 when every scenario run passed, 1 otherwise (each failure named).
"""
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CHANGE_TIMEOUT, REPO, STOP_TIMEOUT, cage_argv, check, scenario_main, settle, start_seatd, start_udevd, stop_cage, stop_seatd  # noqa: E402


# --- scenarios -------------------------------------------------------------------------------
def page_at_mode(run):
    """The page fills the output at its mode, in the saved mode; the Original toggle is drawn
    where the layout for that size puts it; SIGTERM → exit 0."""
    w, h = run.mode
    run.save_prefs("dark")
    image, _ = run.start(expect=run.kiosk.dark)
    check((image.width, image.height) == (w, h),
          f"the screendump is {image.width}x{image.height}, the output's mode {w}x{h}")
    x, y, tw, th = (int(round(v)) for v in run.kiosk.layout(w, h)["toggle"])
    ink = image.count_unlike(x, y, tw, th, run.kiosk.dark)
    check(ink > tw * th // 2, f"the Original toggle's frame {tw}x{th}+{x}+{y} is mostly page colour ({ink} px differ)")
    run.stop()
    check(run.appearance() == "dark", f"the saved mode changed to {run.appearance()} without input")


def _taps(run, kind):
    """A tap on each control with one device kind: Original → dark, Vivid → light, the
    "Use System Setting" button → system (light page: no system source in the guest)."""
    w, h = run.mode
    if kind == "tablet":
        xr = yr = (0, 32767)           # QEMU's virtio tablet's own units
    elif kind == "single":
        xr = yr = (0, 4095)            # a resistive panel's ADC range
        run.device("touch", "single", xr, yr)
    else:
        xr, yr = (0, 4095), (0, 4095)  # a capacitive panel's own units (not pixels)
        run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    layout = run.kiosk.layout(w, h)
    for control, appearance, colour in (("toggle", "dark", run.kiosk.dark), ("vivid", "light", run.kiosk.light),
                                        ("button", "system", run.kiosk.light)):
        ux, uy = run.to_units(run.kiosk.centre(layout[control]), (w, h), xr, yr)
        started = time.monotonic()
        if kind == "tablet":
            run.vm.tablet_tap(ux, uy)
        else:
            run.vm.agent.call("tap", device="touch", x=ux, y=uy)
        took = run.wait_change(appearance, colour, f"{kind} tap on {control}", started)
        run.log(f"info: {run.name}: tap on {control} at device ({ux}, {uy}) -> {appearance} in {took:.1f} s")
    run.stop()


def taps_multitouch(run):
    """A multitouch panel (ABS_MT_*, 0..4095): a tap on each control switches the page and the preferences."""
    _taps(run, "multitouch")


def taps_single_touch(run):
    """A single-touch resistive panel (BTN_TOUCH + ABS_X/Y/PRESSURE, 0..4095): a tap on each control switches the page and the preferences."""
    _taps(run, "single")


def taps_tablet(run):
    """QEMU's virtio tablet in its own units (0..32767): a tap on each control switches the page and the preferences."""
    _taps(run, "tablet")


def drag_vivid(run):
    """A drag of the Vivid toggle's knob from its off end to its on end turns dark mode on."""
    w, h = run.mode
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    x, y, tw, th = run.kiosk.layout(w, h)["vivid"]
    cy = y + th / 2
    points = [run.to_units((x + th / 2 + (tw - th) * i / 10, cy), (w, h), xr, yr) for i in range(11)]
    started = time.monotonic()
    run.vm.agent.call("drag", device="touch", points=points, interval=0.05)
    run.wait_change("dark", run.kiosk.dark, "drag on vivid", started)
    run.stop()


def rotate_90(run):
    """--rotate 90: the page is laid out portrait and turned clockwise; a tap at where the
    Original toggle appears on the screen switches it."""
    w, h = run.mode
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    image, _ = run.start("--rotate", "90", expect=run.kiosk.light)
    px, py = run.kiosk.centre(run.kiosk.layout(h, w)["toggle"])     # portrait page
    screen = (w - py, px)                                           # turned clockwise
    check(image.pixel(int(screen[0]), int(screen[1])) != run.kiosk.light,
          f"no toggle drawn at the rotated position {screen}")
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=run.to_units(screen, (w, h), xr, yr)[0],
                      y=run.to_units(screen, (w, h), xr, yr)[1])
    run.wait_change("dark", run.kiosk.dark, "rotated tap on original", started)
    run.stop()


def signals(run):
    """Stray signals on KMS/DRM (our presenter, the VT held in VT_PROCESS mode, where the
    kernel's switch requests are SIGUSR1/SIGUSR2): SIGUSR1, SIGUSR2 and SIGALRM sent with kill
    change nothing — the next tap still changes the page (a kill -USR1 used to drop DRM master
    and freeze the page). Then SIGHUP 0.2 s after a tap, saves slowed to 600 ms per fsync: exit
    0, one line, the file holds the tap (the exit flush ran)."""
    w, h = run.mode
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light, env={"DARKMODE_KIOSK_TEST_FSYNC_DELAY_MS": "600"})
    layout = run.kiosk.layout(w, h)
    for sig in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        run.vm.agent.call("signal", name="kiosk", signal=int(sig))
    time.sleep(1)
    check(run.vm.agent.call("wait", name="kiosk", timeout=0)["rc"] is None,
          f"SIGUSR1/SIGUSR2/SIGALRM ended the kiosk{run.kiosk_log()}")
    ux, uy = run.to_units(run.kiosk.centre(layout["toggle"]), (w, h), xr, yr)
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    run.wait_change("dark", run.kiosk.dark, "tap after SIGUSR1, SIGUSR2 and SIGALRM", started)
    ux, uy = run.to_units(run.kiosk.centre(layout["vivid"]), (w, h), xr, yr)
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    time.sleep(0.2)
    run.vm.agent.call("signal", name="kiosk", signal=int(signal.SIGHUP))
    rc = run.vm.agent.call("wait", name="kiosk", timeout=STOP_TIMEOUT, within=STOP_TIMEOUT + 15)["rc"]
    run.app = None
    check(rc == 0, f"after SIGHUP the kiosk's exit status is {rc}, expected 0{run.kiosk_log()}")
    check("SIGHUP received: stopping as for SIGTERM" in run.kiosk_log(), f"no line names the SIGHUP{run.kiosk_log()}")
    check(run.appearance() == "light", f"SIGHUP 0.2 s after a tap to light: the file says {run.appearance()} (no flush)")


def restart_saved_mode(run):
    """A mode saved by a tap is what the next start shows from its first frame: no screendump
    between the start and the dark page shows the light page."""
    w, h = run.mode
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    run.wait_change("dark", run.kiosk.dark, "tap before restart", started)
    run.stop()
    _, seen = run.start(expect=run.kiosk.dark)
    check(run.kiosk.light not in seen, f"the light page showed before the saved dark one: corners seen {seen}")
    run.stop()


def calibration_matrix(run):
    """LIBINPUT_CALIBRATION_MATRIX (the udev property libinput and cage honour), here the axes
    swapped ("0 1 0 1 0 0": a panel mounted turned): a touch at the swapped position lands on
    the Original toggle; without the matrix it would land on empty page. Needs udevd in the
    guest (the property comes from a rule)."""
    w, h = run.mode
    xr = yr = (0, 4095)
    rule = 'ACTION=="add|change", KERNEL=="event*", ATTRS{name}=="dmk-calibrated", ' \
           'ENV{LIBINPUT_CALIBRATION_MATRIX}="0 1 0 1 0 0"\n'
    run.vm.agent.call("sh", cmd=f"mkdir -p /run/udev/rules.d && printf '%s' '{rule}' > /run/udev/rules.d/90-dmk.rules")
    start_udevd(run)
    run.vm.agent.call("sh", cmd="udevadm control --reload", timeout=30, within=60)
    run.device("touch", "multitouch", xr, yr, label="dmk-calibrated")
    settle(run)
    prop = run.vm.agent.call("sh", cmd="for e in /dev/input/event*; do udevadm info -q property $e; done "
                                       "| grep LIBINPUT_CALIBRATION_MATRIX")["out"]
    check("0 1 0 1 0 0" in prop, f"udev did not give the device the matrix: {prop!r}")
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    cx, cy = run.kiosk.centre(run.kiosk.layout(w, h)["toggle"])
    # The device's normalised (x, y) is the screen's (y, x).
    ux = xr[0] + int(cy / h * (xr[1] - xr[0] + 1))
    uy = yr[0] + int(cx / w * (yr[1] - yr[0] + 1))
    uncalibrated = ((ux + 0.5) / (xr[1] + 1) * w, (uy + 0.5) / (yr[1] + 1) * h)
    layout = run.kiosk.layout(w, h)
    check(not any(x - 24 <= uncalibrated[0] <= x + cw + 24 and y - 60 <= uncalibrated[1] <= y + ch + 24
                  for x, y, cw, ch in layout.values()),
          f"the uncalibrated position {uncalibrated} is on a control: the scenario could not tell")
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    run.wait_change("dark", run.kiosk.dark, "calibrated tap on original", started)
    run.stop()


def calibration_config(run):
    """The config's input.calibration, a mirror of the y axis here ([1,0,0, 0,-1,1]): a touch
    at the device's mirrored y lands on the Original toggle, and the kiosk names the device and
    its calibration."""
    w, h = run.mode
    xr = yr = (0, 4095)
    with open(run.vm.host_out(f"{run.name}.kiosk.json"), "w") as f:
        json.dump({"input": {"calibration": [1, 0, 0, 0, -1, 1]}}, f)
    run.device("touch", "single", xr, yr, label="dmk-config-calibrated")
    run.save_prefs("light")
    run.start("--config", run.vm.guest_out(f"{run.name}.kiosk.json"), expect=run.kiosk.light)
    cx, cy = run.kiosk.centre(run.kiosk.layout(w, h)["toggle"])
    ux, uy = run.to_units((cx, h - 1 - cy), (w, h), xr, yr)        # the mirrored position
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    run.wait_change("dark", run.kiosk.dark, "config-calibrated tap on original", started)
    run.stop()
    log = run.kiosk_log()
    check('touch screen "dmk-config-calibrated"' in log and "calibration from the config" in log,
          f"the kiosk did not name the device and its calibration{log}")


# The arrow the kiosk draws for a mouse (Sources/KioskHost/Presenters/CursorSprite.swift): its left edge is
# 17 black pixels down from the hot spot, with white inside from the third row on.
def black_pixels(image):
    """Every pure black pixel (x, y) of the image, in reading order."""
    black, data, w = b"\x00\x00\x00", image.data, image.width
    found = []
    i = data.find(black)
    while i >= 0:
        if i % 3 == 0:
            found.append(((i // 3) % w, (i // 3) // w))
        i = data.find(black, i + 1)
    return found


def find_cursors(image):
    """The hot spots of every drawn cursor."""
    w, h = image.width, image.height
    return [(x, y) for x, y in black_pixels(image)
            if x + 1 < w and y + 17 <= h and
            all(image.pixel(x, y + k) == (0, 0, 0) for k in range(17)) and
            all(image.pixel(x + 1, y + k) == (255, 255, 255) for k in range(3, 11))]


def find_cursor(image):
    """The hot spot of the (first) drawn cursor, or None."""
    found = find_cursors(image)
    return found[0] if found else None


def cursor_size():
    """The arrow's (width, height) at scale 1, from its sprite's rows."""
    with open(os.path.join(REPO, "Sources/KioskHost/Presenters/CursorSprite.swift")) as f:
        rows = [l.strip().strip('",') for l in f if l.strip().startswith('"') and set(l.strip().strip('",')) <= set("#o.")]
    return (len(rows[0]), len(rows))


def cursor_trail(image, hot):
    """Black pixels outside the arrow drawn at `hot` (on a page with no black of its own, what
    an arrow left behind by a move would show)."""
    (x, y), (cw, ch) = hot, cursor_size()
    return [(px, py) for px, py in black_pixels(image) if not (x <= px < x + cw and y <= py < y + ch)]


def mouse_click(run):
    """A relative mouse: the kiosk draws its cursor (one arrow, nothing left where it was: the
    light page has no black of its own); moved onto the Original toggle (libinput accelerates
    the moves, so the harness looks where the cursor went, as a person does) a click switches
    the page; a touch then hides the cursor."""
    w, h = run.mode
    run.device("mouse", "mouse", (0, 1), (0, 1))
    run.device("touch", "multitouch", (0, 4095), (0, 4095))
    run.save_prefs("light")
    first, _ = run.start(expect=run.kiosk.light)
    check(not black_pixels(first), "the light page has black pixels of its own: a left-behind arrow could not be told")
    tx, ty = run.kiosk.centre(run.kiosk.layout(w, h)["toggle"])
    run.vm.agent.call("mouse_move", device="mouse", dx=1, dy=0)
    found = []

    def cursor_settled(image):
        found.append(find_cursors(image))
        return len(found[-1]) >= 1 and len(found) >= 2 and found[-1] == found[-2]

    def settled(what):
        image, _ = run.vm.wait_image(cursor_settled, CHANGE_TIMEOUT, what)
        trail = cursor_trail(image, found[-1][0])
        if trail:
            run.shot(image, "trail")
        check(not trail, f"{what}: {len(trail)} black pixels outside the arrow at {found[-1][0]}, e.g. {trail[:3]}")
        return image, found[-1][0]
    image, (x, y) = settled("the mouse cursor")
    run.shot(image, "cursor")
    for _ in range(10):
        dx, dy = tx - x, ty - y
        if abs(dx) <= 4 and abs(dy) <= 4:
            break
        run.vm.agent.call("mouse_move", device="mouse", dx=int(dx * 0.8), dy=int(dy * 0.8), within=120)
        found.clear()
        _, (x, y) = settled("the moved mouse cursor")
    check(abs(tx - x) <= 4 and abs(ty - y) <= 4, f"the cursor stopped at ({x}, {y}), not on the toggle at ({tx:.0f}, {ty:.0f})")
    started = time.monotonic()
    run.vm.agent.call("mouse_button", device="mouse", down=True)
    run.vm.agent.call("mouse_button", device="mouse", down=False)
    run.wait_change("dark", run.kiosk.dark, "mouse click on original", started)
    # A touch on the page's empty top-left corner hides the cursor: the page comes back under
    # it (no black left in the arrow's box).
    run.vm.agent.call("tap", device="touch", x=40, y=40)
    (cw, ch) = cursor_size()
    run.vm.wait_image(lambda im: find_cursor(im) is None and
                      not [p for p in black_pixels(im) if x <= p[0] < x + cw and y <= p[1] < y + ch],
                      CHANGE_TIMEOUT, "the cursor hidden after a touch")
    check(run.appearance() == "dark", f"the corner tap changed the mode to {run.appearance()}")
    run.stop()


def hotplug(run):
    """A touch screen plugged in while the kiosk runs (udevd in the guest) works."""
    w, h = run.mode
    start_udevd(run)
    run.save_prefs("light")
    run.start(expect=run.kiosk.light)
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr, label="dmk-hotplugged")
    settle(run)
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    deadline = time.monotonic() + CHANGE_TIMEOUT
    # The device is announced to the app asynchronously: tap again until it lands (or the bound).
    while run.appearance() != "dark" and time.monotonic() < deadline:
        started = time.monotonic()
        run.vm.agent.call("tap", device="touch", x=ux, y=uy)
        t = time.monotonic() + 5
        while run.appearance() == "light" and time.monotonic() < t:
            time.sleep(0.1)
    run.wait_change("dark", run.kiosk.dark, "tap on hot-plugged touch screen", started)
    run.stop()


def console_mode(run):
    """While the kiosk owns the display the VT is in graphics mode: a kernel message (KERN_CRIT,
    printed on every console) and text written to tty1 leave the page as it was; after SIGTERM
    the VT is back in text mode and the console shows again; after a crash (SIGSEGV) too."""
    w, h = run.mode
    run.save_prefs("dark")
    run.start(expect=run.kiosk.dark)
    mode = run.vm.agent.call("kdmode", tty="/dev/tty1")["mode"]
    check(mode == "graphics", f"the VT is in {mode} mode while the kiosk runs, expected graphics")
    controls = [tuple(int(round(v)) for v in r) for r in run.kiosk.layout(w, h).values()]

    def stray(image):
        # Pixels off the page colour but for the controls (with their shadows, margin 24 px)
        # and the labels above the toggles (the 60 px above).
        return image.count_unlike_outside([(x - 24, y - 60, cw + 48, ch + 84) for x, y, cw, ch in controls],
                                          run.kiosk.dark)
    # The page first settles: once (under TCG, a busy machine) the whole screen was black for a
    # while after the first page, before any console output (cause not pinned down: the console
    # output alone, in a separate run, changed nothing). The info line below reports it.
    settled, unsettled = 0, []
    deadline = time.monotonic() + CHANGE_TIMEOUT
    while settled < 3:
        image = run.vm.screendump()
        n = stray(image)
        settled = settled + 1 if n == 0 else 0
        if n:
            unsettled.append(image.corners()[0])
        check(time.monotonic() < deadline, f"the page did not settle before the console output: {n} stray pixels")
    if unsettled:
        run.log(f"info: {run.name}: before settling, screendumps with top-left corners {unsettled[:5]}")
    run.vm.agent.call("sh", cmd="echo '<2>dmk-vm: a kernel message while the kiosk runs' >/dev/kmsg; "
                                "printf 'text written to tty1 while the kiosk runs\\n' >/dev/tty1")
    clean_in_a_row = 0
    deadline = time.monotonic() + CHANGE_TIMEOUT
    while clean_in_a_row < 5:
        image = run.vm.screendump()
        n = stray(image)
        check(n == 0, f"{n} pixels off the page colour outside the controls after console output "
                          f"(saved {run.shot(image, 'console-output')})")
        clean_in_a_row += 1
        check(time.monotonic() < deadline, "screendumps too slow")
    run.shot(image, "after-console-output")
    run.stop()
    mode = run.vm.agent.call("kdmode", tty="/dev/tty1")["mode"]
    check(mode == "text", f"after SIGTERM the VT is in {mode} mode, expected text")
    image, _ = run.vm.wait_image(lambda im: im.corners()[0] != run.kiosk.dark, CHANGE_TIMEOUT,
                                 "the text console back after SIGTERM")
    run.shot(image, "console-after-sigterm")
    # A crash: the kernel's SIGSEGV, sent here; the handler restores, then the signal goes on.
    run.start(expect=run.kiosk.dark)
    check(run.vm.agent.call("kdmode", tty="/dev/tty1")["mode"] == "graphics", "the VT is not in graphics mode")
    run.vm.agent.call("signal", name="kiosk", signal=11)
    rc = run.vm.agent.call("wait", name="kiosk", timeout=30, within=45)["rc"]
    run.app = None
    check(rc is not None and rc != 0, f"after SIGSEGV the kiosk's status is {rc}")
    mode = run.vm.agent.call("kdmode", tty="/dev/tty1")["mode"]
    check(mode == "text", f"after a crash (SIGSEGV, status {rc}) the VT is in {mode} mode, expected text")


def cage_seatd(run):
    """The shipped unit's command line (`cage -- darkmode-kiosk run …`) on the same DRM device:
    cage as an unprivileged user (it refuses root) with its seat from seatd, touch through
    libinput (udevd in the guest): the page appears and a tap switches it."""
    w, h = run.mode
    # cage 0.1.4's wlroots 0.15 refuses a DRM device without PRIME import ("PRIME import not
    # supported"), which bochs-drm (VRAM helpers) lacks; virtio-gpu has it.
    check(run.vm.gpu != "bochs", "cage (wlroots 0.15) needs PRIME import, which bochs-drm lacks: run it on virtio")
    start_udevd(run)
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr, label="dmk-cage-touch")
    settle(run)
    start_seatd(run)
    run.save_prefs("light")
    os.chmod(run.prefs_host(), 0o666)
    try:
        # The staged binary (run.guest_binary: mode 0755 in a 0755 share), which nobody can run.
        run.start(argv=cage_argv(run.kiosk_argv()), expect=run.kiosk.light)
        ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
        started = time.monotonic()
        run.vm.agent.call("tap", device="touch", x=ux, y=uy)
        run.wait_change("dark", run.kiosk.dark, "tap under cage", started)
        stop_cage(run)   # SIGTERM to the kiosk, as when it is stopped on its own
    finally:
        stop_seatd(run)


SCENARIOS = {f.__name__: f for f in (page_at_mode, console_mode, taps_multitouch, taps_single_touch, taps_tablet,
                                     drag_vivid, rotate_90, signals, restart_saved_mode, calibration_matrix, calibration_config,
                                     mouse_click, hotplug, cage_seatd)}
# udevd runs in the guest from the first kiosk start on (libinput needs it), as on a real kiosk.
ORDER = list(SCENARIOS)
# Written and failing: run only when named with --only (or with --all). A scenario leaves this
# set in the commit that makes it pass. (mouse_click left it with the DRM presenter drawing the
# cursor; the VGA text console it once showed after the first move, in the GL texture
# presenter's time, has not come back.)
PENDING = set()
# Scenarios for one display driver only (cage_seatd: see its note); not run elsewhere by default.
ONLY_ON = {"cage_seatd": "virtio"}


def print_timings(run, a):
    """The guest's and the scenarios' timings, one line."""
    timings = dict(run.vm.timings)
    timings.update(run.timings)
    print(f"info: {run.vm.gpu} timings ({run.vm.accel}): " + "; ".join(
        f"{k} {v:.1f} s" if isinstance(v, float) else f"{k} " + ", ".join(f"{x:.1f}" for x in v) + " s"
        for k, v in timings.items()), flush=True)


def main():
    return scenario_main("kmsdrm-vm", __doc__, ORDER, SCENARIOS, pending=PENDING,
                         options=lambda p: p.add_argument("--all", action="store_true", help="the pending scenarios too"),
                         run_pending=lambda a: a.all,
                         names=lambda a, gpu, wanted: [n for n in wanted if a.only or ONLY_ON.get(n, gpu) == gpu],
                         after=print_timings)


if __name__ == "__main__":
    sys.exit(main())
