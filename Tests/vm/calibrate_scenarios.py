#!/usr/bin/python3
"""Touch calibration on the spot (`darkmode-kiosk calibrate`, issue 41 item 3) in a QEMU guest on
KMS/DRM (Tests/vm/vm.py through Tests/vm/harness.py).

The panel is a single-touch resistive one (BTN_TOUCH + ABS_X/Y/PRESSURE, ranges 200..3900 and
150..3950, made with uinput in the guest) mounted badly: its axes are swapped, one is mirrored and
both are skewed (`PANEL`: the true map from the device's normalised position to the output's).
The scenario is the person at the screen: it reads each target from the command's output, sees
its crosshair in a screendump of the scanout at that place, and presses there through the panel's
true map, each press a stray reading (a spike far off) among jittered ones.
  calibrate          a first round tapped at one spot (a finger that never moved) is refused and
                     restarts; the second round is tapped right: the command exits 0, prints the
                     check point's error (at most 1.5 px) and the udev rule, and the config file
                     holds the matrix (within 0.01 of the panel's) with its other keys kept; then
                     the kiosk started with that config switches the page at a tap on the
                     Original toggle's centre (or, where the same touch without the matrix would
                     land on a control too, the nearest point of the toggle where it would not)
  calibrate_evdev    the same before udevd runs in the guest: calibrate reads the panel with the
                     kiosk's own evdev reader (the kiosk after it starts udevd: libinput)
  calibrate_rotated  the same with --rotate 90 (the targets shown turned, the kiosk run turned)
  under_cage         under cage (as the shipped unit runs it: user nobody, seatd, pixman, SDL's
                     wayland driver; virtio-gpu only: cage's wlroots needs PRIME, which bochs-drm
                     lacks): `cage -- darkmode-kiosk calibrate` shows the targets full screen and
                     reads the touch cage delivers; exit 0, the check point's error (at most 1.5 px)
                     and no udev rule printed (the matrix is measured after cage's own), the matrix
                     within 0.01 of the panel's in a config nobody can write; then `cage --
                     darkmode-kiosk run` with it switches the page at a tap on the Original
  under_cage_rotated the same with --rotate 90 (targets shown turned; the kiosk under cage turned)
  compositor_device  with WAYLAND_DISPLAY set, --device NAME is refused in one line (a compositor
                     gives its touch screens without their names), exit status 1, config untouched

Usage: calibrate_scenarios.py [--gpu bochs,virtio] [--only NAME,...] [--shots DIR] [--list]
Environment: KIOSK_BIN, DARKMODE_KIOSK_VM_ACCEL (as kmsdrm_scenarios.py). Exit status 0 when all passed.
"""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CHANGE_TIMEOUT, cage_argv, check, scenario_main, settle, start_seatd, start_udevd, stop_cage, stop_seatd  # noqa: E402

XR, YR = (200, 3900), (150, 3950)
# Device-normalised (x, y) -> output-normalised: x' = a·x + b·y + c, y' = d·x + e·y + f. The
# output's x follows the device's y, mirrored (b < 0), the output's y the device's x; the small
# cross terms are the skew.
PANEL = (0.06, -1.04, 1.0, 0.97, 0.05, -0.01)
LABEL = "dmk-calibrate"
BACKGROUND = (20, 20, 24)           # CalibrationPicture.background
TARGET_LINE = re.compile(r"calibrate: touch (target \d of 4|the check point) at \(([\d.]+), ([\d.]+)\) px")


def device_normalised(out):
    """The panel's normalised position that its true map sends to output-normalised `out`."""
    a, b, c, d, e, f = PANEL
    u, v = out[0] - c, out[1] - f
    det = a * e - b * d
    return ((e * u - b * v) / det, (a * v - d * u) / det)


def raw(n, rng):
    """A normalised position as the device's raw value (the kernel's and libinput's rule)."""
    return rng[0] + int(n * (rng[1] - rng[0] + 1))


def device_point(out):
    x, y = device_normalised(out)
    check(0 <= x < 1 and 0 <= y < 1, f"output position {out} is off the panel ({x:.3f}, {y:.3f})")
    return raw(x, XR), raw(y, YR)


def output_normalised(page, page_size, rotate):
    """A page pixel position (as the viewer sees the page) as output-normalised coordinates."""
    u, v = page[0] / page_size[0], page[1] / page_size[1]
    return {0: (u, v), 90: (1 - v, u), 180: (1 - u, 1 - v), 270: (v, 1 - u)}[rotate]


def press(run, point):
    """A press at device `point`: down, a stray reading 700 units off (towards the panel's middle,
    so it stays in range), jitter of a few units, up."""
    x, y = point
    sx = 700 if x < (XR[0] + XR[1]) / 2 else -700
    sy = 650 if y < (YR[0] + YR[1]) / 2 else -650
    jitter = [(0, 0), (sx, sy), (3, -2), (-2, 3), (2, 1), (-3, -1), (1, -3), (0, 2)]
    run.vm.agent.call("drag", device="touch", points=[[x + dx, y + dy] for dx, dy in jitter], interval=0.03)


def targets_seen(run):
    return TARGET_LINE.findall(run.calibrate_log())


def wait_target(run, n, page_size, rotate, timeout=CHANGE_TIMEOUT):
    """Waits for the n-th target line (counting from 1 over the whole run) and its crosshair on
    the scanout; returns its output-normalised position."""
    deadline = time.monotonic() + timeout
    while len(targets_seen(run)) < n:
        check(run.vm.agent.call("wait", name="calibrate", timeout=0)["rc"] is None,
              f"calibrate exited before target {n}:{run.calibrate_tail()}")
        check(time.monotonic() < deadline, f"calibrate never asked for target {n}:{run.calibrate_tail()}")
        time.sleep(0.1)
    kind, px, py = targets_seen(run)[n - 1]
    out = output_normalised((float(px), float(py)), page_size, rotate)
    w, h = run.mode
    ox, oy = int(out[0] * w), int(out[1] * h)
    run.vm.wait_image(lambda im: im.pixel(ox, oy) != BACKGROUND and im.pixel(ox + 40, oy + 40) == BACKGROUND,
                      CHANGE_TIMEOUT, f"{run.name}: the crosshair of {kind} at output ({ox}, {oy})")
    return out


def _calibrate(run, rotate, udev=True):
    w, h = run.mode
    page_size = (h, w) if rotate in (90, 270) else (w, h)
    config_host = run.vm.host_out(f"{run.name}.kiosk.json")
    config_guest = run.vm.guest_out(f"{run.name}.kiosk.json")
    with open(config_host, "w") as f:
        json.dump({"reduceMotion": True, "language": "en"}, f)
    if udev:
        start_udevd(run)
    else:
        check(not run.udevd, "udevd runs already: this scenario must come before the ones that start it")
    run.device("touch", "single", XR, YR, label=LABEL)
    log = run.vm.guest_out(f"{run.name}.calibrate.log")
    run.calibrate_log = lambda: open(run.vm.host_out(f"{run.name}.calibrate.log"), errors="replace").read() \
        if os.path.exists(run.vm.host_out(f"{run.name}.calibrate.log")) else ""
    run.calibrate_tail = lambda: "\n--- calibrate output:\n" + run.calibrate_log()[-3000:]
    args = [run.guest_binary, "calibrate", "--config", config_guest, "--print", "--device", LABEL]
    if rotate:
        args += ["--rotate", str(rotate)]
    run.vm.agent.call("start", name="calibrate", args=args, env={}, log=log)
    run.calibrating = True
    # Round 1: every target touched at the same spot (a finger that never moved): refused.
    spot = device_point((0.5, 0.5))
    for n in range(1, 5):
        wait_target(run, n, page_size, rotate)
        press(run, spot)
    deadline = time.monotonic() + CHANGE_TIMEOUT
    while "round refused" not in run.calibrate_log():
        check(time.monotonic() < deadline, f"four touches at one spot were not refused:{run.calibrate_tail()}")
        time.sleep(0.1)
    # Round 2: each target touched through the panel's true map.
    for n in range(5, 10):
        out = wait_target(run, n, page_size, rotate)
        if n == 5:
            run.shot(run.vm.screendump(), "first-target")
        press(run, device_point(out))
    rc = run.vm.agent.call("wait", name="calibrate", timeout=CHANGE_TIMEOUT, within=CHANGE_TIMEOUT + 15)["rc"]
    run.calibrating = False
    text = run.calibrate_log()
    check(rc == 0, f"calibrate's exit status is {rc}, expected 0:{run.calibrate_tail()}")
    m = re.search(r"check point off by ([\d.]+) px \(after 1 refused round\)", text)
    check(m is not None, f"no check point error (after 1 refused round) in the output:{run.calibrate_tail()}")
    error = float(m.group(1))
    check(error <= 1.5, f"the check point is off by {error} px, expected at most 1.5:{run.calibrate_tail()}")
    check(f'ATTRS{{name}}=="{LABEL}", ENV{{LIBINPUT_CALIBRATION_MATRIX}}="' in text,
          f"--print gave no udev rule line for {LABEL}:{run.calibrate_tail()}")
    # The reader: the evdev one says "read directly (no udev)" on the device's line, libinput does not.
    check(f'"{LABEL}"' in text, f"calibrate did not name {LABEL}:{run.calibrate_tail()}")
    check(("read directly (no udev)" in text) == (not udev),
          f"calibrate read the panel {'with' if udev else 'without'} the evdev reader:{run.calibrate_tail()}")
    with open(config_host) as f:
        check_written(run, json.load(f), error)
    # The kiosk with that config: a tap at the Original toggle's centre switches the page.
    run.save_prefs("light")
    kiosk_args = ["--config", config_guest] + (["--rotate", str(rotate)] if rotate else [])
    run.start(*kiosk_args, expect=run.kiosk.light)
    layout = run.kiosk.layout(*page_size)
    ux, uy, where = tap_point(layout, page_size, rotate)
    run.log(f"info: {run.name}: the kiosk's tap on the Original at page ({where[0]:.0f}, {where[1]:.0f}), device ({ux}, {uy})")
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    run.wait_change("dark", run.kiosk.dark, "calibrated tap on original", started)
    run.stop()


def check_written(run, config, error):
    """The config calibrate wrote: its other keys kept, `input.calibration` the panel's matrix
    (within 0.01); the check point's error and the matrix said and kept for the timings."""
    check(config.get("reduceMotion") is True and config.get("language") == "en",
          f"the config's other keys were not kept: {config}")
    matrix = config.get("input", {}).get("calibration")
    check(isinstance(matrix, list) and len(matrix) == 6, f"input.calibration is {matrix!r}")
    worst = max(abs(got - want) for got, want in zip(matrix, PANEL))
    check(worst <= 0.01, f"input.calibration {matrix} is not the panel's {list(PANEL)} (worst {worst:.4f})")
    run.log(f"info: {run.name}: check point off by {error} px; matrix {matrix} (panel {list(PANEL)}, worst {worst:.4f})")
    run.timings.setdefault("check point error px", []).append(error)


def tap_point(layout, page_size, rotate):
    """Where to tap the Original toggle (its centre, else the nearest point of its inner 60 %)
    so that the same touch without the matrix lands on no control: else the tap proves
    nothing. A control's hit area is its frame exactly (ToggleInteraction: `metrics.bounds`;
    the button's frame), so 8 px around it covers the rounding of device units. Returns
    (device x, device y, page position)."""
    x, y, w, h = layout["toggle"]
    candidates = [(x + w / 2, y + h / 2)] + sorted(
        ((x + w * (0.2 + 0.1 * i), y + h * (0.2 + 0.1 * j)) for i in range(7) for j in range(7)),
        key=lambda p: (p[0] - x - w / 2) ** 2 + (p[1] - y - h / 2) ** 2)
    for page in candidates:
        ux, uy = device_point(output_normalised(page, page_size, rotate))
        plain = ((ux - XR[0]) / (XR[1] - XR[0] + 1), (uy - YR[0]) / (YR[1] - YR[0] + 1))
        u, v = {0: (plain[0], plain[1]), 90: (plain[1], 1 - plain[0])}[rotate]
        px, py = u * page_size[0], v * page_size[1]
        if not any(cx - 8 <= px <= cx + cw + 8 and cy - 8 <= py <= cy + ch + 8 for cx, cy, cw, ch in layout.values()):
            return ux, uy, page
    check(False, "every point of the Original toggle lands on a control without the matrix: the scenario could not tell")


def calibrate(run):
    """Swapped, mirrored, skewed panel: a refused round, then the matrix written (other keys kept), the check error printed, a tap on the Original switches the page."""
    _calibrate(run, 0)


def calibrate_evdev(run):
    """The same without udevd (the kiosk's own evdev reader: Buildroot, busybox); the kiosk after it runs with udevd."""
    _calibrate(run, 0, udev=False)


def calibrate_rotated(run):
    """The same with --rotate 90 for calibrate and for the kiosk."""
    _calibrate(run, 90)


def compositor_device(run):
    """With WAYLAND_DISPLAY set, --device NAME is refused in one line, exit status 1, the config untouched."""
    config_host = run.vm.host_out(f"{run.name}.kiosk.json")
    with open(config_host, "w") as f:
        f.write('{"language": "en"}\n')
    log = run.vm.guest_out(f"{run.name}.calibrate.log")
    run.vm.agent.call("start", name="calibrate", args=[run.guest_binary, "calibrate", "--device", LABEL, "--config",
                                                       run.vm.guest_out(f"{run.name}.kiosk.json")],
                      env={"WAYLAND_DISPLAY": "wayland-1"}, log=log)
    rc = run.vm.agent.call("wait", name="calibrate", timeout=CHANGE_TIMEOUT, within=CHANGE_TIMEOUT + 15)["rc"]
    with open(run.vm.host_out(f"{run.name}.calibrate.log"), errors="replace") as f:
        text = f.read()
    check(rc == 1, f"calibrate --device under a compositor exited {rc}, expected 1: {text}")
    lines = [l for l in text.splitlines() if l.strip()]
    check(len(lines) == 1 and f'--device "{LABEL}" cannot be honoured under a compositor' in lines[0],
          f"expected one line saying why: {text!r}")
    with open(config_host) as f:
        check(f.read() == '{"language": "en"}\n', "the config file changed")


NOBODY = 65534
# The config in nobody's runtime folder (made by start_seatd): calibrate and the kiosk run as
# nobody under cage, and calibrate replaces the file atomically (a new file beside it).
CAGE_CONFIG = f"/run/user/{NOBODY}/kiosk.json"


def guest_sh(run, cmd, what):
    out = run.vm.agent.call("sh", cmd=cmd, timeout=60, within=90)
    check(out["rc"] == 0, f"{what}: {out['err']}")
    return out["out"]


def under_cage(run):
    """cage -- calibrate: the targets full screen, touch as cage delivers it; the matrix (no udev rule) in nobody's config; cage -- run with it: a tap on the Original switches the page."""
    _under_cage(run, 0)


def under_cage_rotated(run):
    """The same with --rotate 90 for calibrate and for the kiosk under cage."""
    _under_cage(run, 90)


def _under_cage(run, rotate):
    w, h = run.mode
    page_size = (h, w) if rotate in (90, 270) else (w, h)
    turn = ["--rotate", str(rotate)] if rotate else []
    try:
        start_udevd(run)
        run.device("touch", "single", XR, YR, label=LABEL)
        settle(run)
        start_seatd(run)
        guest_sh(run, f"printf '{{\"reduceMotion\": true, \"language\": \"en\"}}\\n' > {CAGE_CONFIG} "
                      f"&& chown {NOBODY}:{NOBODY} {CAGE_CONFIG}", "the config in nobody's runtime folder")
        run.save_prefs("light")
        os.chmod(run.prefs_host(), 0o666)
        log = run.vm.guest_out(f"{run.name}.calibrate.log")
        run.calibrate_log = lambda: open(run.vm.host_out(f"{run.name}.calibrate.log"), errors="replace").read() \
            if os.path.exists(run.vm.host_out(f"{run.name}.calibrate.log")) else ""
        run.calibrate_tail = lambda: "\n--- calibrate output (cage's log):\n" + run.calibrate_log()[-3000:]
        started = time.monotonic()
        run.vm.agent.call("start", name="calibrate", log=log,
                          args=cage_argv([run.guest_binary, "calibrate", "--config", CAGE_CONFIG, "--print", *turn]))
        run.calibrating = True
        for n in range(1, 6):
            # cage's start (pixman, TCG) can take minutes before the first target.
            out = wait_target(run, n, page_size, rotate, timeout=240 if n == 1 else CHANGE_TIMEOUT)
            if n == 1:
                run.log(f"info: {run.name}: cage -- calibrate to the first target {time.monotonic() - started:.1f} s")
                run.shot(run.vm.screendump(), "first-target")
            press(run, device_point(out))
        rc = run.vm.agent.call("wait", name="calibrate", timeout=CHANGE_TIMEOUT, within=CHANGE_TIMEOUT + 15)["rc"]
        run.calibrating = False
        text = run.calibrate_log()
        check(rc == 0, f"cage -- calibrate's exit status is {rc}, expected 0:{run.calibrate_tail()}")
        m = re.search(r"calibration of the compositor's touch \(SDL's \"[^\"]*\"\): .*check point off by ([\d.]+) px", text)
        check(m is not None, f"no summary for the compositor's touch with the check point's error:{run.calibrate_tail()}")
        error = float(m.group(1))
        check(error <= 1.5, f"the check point is off by {error} px, expected at most 1.5:{run.calibrate_tail()}")
        check("ENV{LIBINPUT_CALIBRATION_MATRIX}" not in text and "so it is no udev rule" in text,
              f"--print under cage must give no udev rule and say why:{run.calibrate_tail()}")
        check_written(run, json.loads(guest_sh(run, f"cat {CAGE_CONFIG}", "the config after calibrate")), error)
        # cage -- run with that config: a tap at the Original's centre switches the page.
        run.vm.agent.call("start", name="kiosk", log=run.vm.guest_out(f"{run.name}.kiosk.log"),
                          args=cage_argv(run.kiosk_argv("--config", CAGE_CONFIG, *turn)))
        run.app = True
        run.vm.wait_image(lambda im: all(c == run.kiosk.light for c in im.corners()), 240,
                          f"{run.name}: the light page under cage")
        layout = run.kiosk.layout(*page_size)
        ux, uy, where = tap_point(layout, page_size, rotate)
        run.log(f"info: {run.name}: the kiosk's tap on the Original at page ({where[0]:.0f}, {where[1]:.0f}), device ({ux}, {uy})")
        tapped = time.monotonic()
        run.vm.agent.call("tap", device="touch", x=ux, y=uy)
        run.wait_change("dark", run.kiosk.dark, "calibrated tap under cage", tapped)
        check("applied to SDL's touch, before the turn (on top of the compositor's own calibration)" in run.log_text(),
              f"the kiosk under cage did not say it applies input.calibration to SDL's touch{run.kiosk_log()}")
        stop_cage(run)
    finally:
        stop_seatd(run)


SCENARIOS = {f.__name__: f for f in (calibrate, calibrate_evdev, calibrate_rotated, under_cage, under_cage_rotated,
                                      compositor_device)}
ORDER = ["compositor_device", "calibrate_evdev", "calibrate", "calibrate_rotated", "under_cage", "under_cage_rotated"]
# cage 0.1.4's wlroots needs PRIME import, which bochs-drm lacks.
CANNOT = {"bochs": ("under_cage", "under_cage_rotated")}


def runnable(a, gpu, wanted):
    """The wanted scenarios this GPU can run (the others named once)."""
    skipped = [n for n in wanted if n in CANNOT.get(gpu, ())]
    if skipped:
        print(f"info: {gpu}: not run here (cage needs PRIME): {', '.join(skipped)}", flush=True)
    return [n for n in wanted if n not in skipped]


def stop_calibrate_at_cleanup(run, a):
    """A scenario that failed mid-round leaves `calibrate` running: the cleanup kills it first."""
    original_cleanup = run.cleanup

    def cleanup():
        if getattr(run, "calibrating", False):
            try:
                run.vm.agent.call("kill", name="calibrate")
            except Exception:
                pass
            run.calibrating = False
        original_cleanup()
    run.cleanup = cleanup


def print_timings(run, a):
    print(f"info: {run.vm.gpu} timings ({run.vm.accel}): " + "; ".join(
        f"{k} " + ", ".join(f"{x:.1f}" for x in v) for k, v in run.timings.items() if isinstance(v, list)),
        flush=True)


def main():
    return scenario_main("calibrate-vm", __doc__, ORDER, SCENARIOS, before=stop_calibrate_at_cleanup, after=print_timings,
                         names=runnable)


if __name__ == "__main__":
    sys.exit(main())
