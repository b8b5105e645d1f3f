#!/usr/bin/python3
"""The DRM framebuffer presenter (issue 34) in a real kernel: scenarios run in QEMU guests with
the KMS/DRM harness (Tests/vm/vm.py, the Run helpers of Tests/vm/kmsdrm_scenarios.py).

The kiosk is started as on a bare console (SDL_VIDEODRIVER=kmsdrm): our own presenter must be
the one that runs (its state file says `"presenter": "drm (...)"`), show the page, switch on a
tap, come back in the saved mode after a restart, and with the ambient animation running cost
at most a quarter of the CPU and of the median frame interval of SDL's GL texture presenter
(DARKMODE_KIOSK_PRESENT=texture) in the same boot, with its own frame interval near the
refresh period. Numbers are printed as `info:` lines.

Usage: drm_presenter_scenarios.py [--gpu bochs,virtio] [--only NAME,...] [--accel tcg|kvm|auto]
                                  [--shots DIR] [--seconds N]
Environment: KIOSK_BIN (default: the release build), DARKMODE_KIOSK_VM_ACCEL (default tcg).
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, scenario_main  # noqa: E402
from kmsdrm_scenarios import restart_saved_mode  # noqa: E402

SECONDS = 10


def presenter(run):
    """The presenter the kiosk's state names."""
    return run.wait_state(lambda s: "presenter" in s, "the kiosk's state names its presenter")["presenter"]


def check_ours(run):
    name = presenter(run)
    check(name.startswith("drm ("), f"the presenter is {name!r}, not the DRM framebuffer one{run.kiosk_log()}")
    run.log(f"info: {run.vm.gpu} {run.name}: presenter {name}")


def drm_page_and_tap(run, env=None, method=None):
    """The default presenter on KMS/DRM is ours (not GL): it shows the light page, a touch on
    the Original toggle switches it dark (the scanout shows the dark page), SIGTERM exits 0.
    A display without vblank interrupts (bochs and virtio-gpu have none) is drawn in place."""
    w, h = run.mode
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    run.start(env=env, expect=run.kiosk.light)
    check_ours(run)
    name = presenter(run)
    if method:
        check(method in name, f"DARKMODE_KIOSK_DRM_FLIP={env['DARKMODE_KIOSK_DRM_FLIP']} ran {name!r}, not {method!r}{run.kiosk_log()}")
    elif "(no vblank)" in name:
        check("drawn in place" in name, f"a display without vblank is flipped: {name!r}")
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    started = time.monotonic()
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)
    took = run.wait_change("dark", run.kiosk.dark, "tap on original", started)
    run.log(f"info: {run.vm.gpu} {run.name}: tap to dark page {took:.1f} s")
    run.stop()


def drm_flips(run):
    """The flips, asked for by name (a display with vblank takes them by default): an atomic
    commit with damage clips, then the legacy page flip, each shows the page and a tap."""
    for asked, method in (("atomic", "atomic flip"), ("legacy", "page flip")):
        drm_page_and_tap(run, env={"DARKMODE_KIOSK_DRM_FLIP": asked}, method=method)
        run.cleanup()


def drm_restart(run):
    """With our presenter: a mode saved by a tap is what the next start shows from its first
    frame (the display is handed back at exit and taken again)."""
    restart_saved_mode(run)
    check_ours(run)


def _measure(run, env, seconds):
    """Starts the kiosk (light page, ambient animation on), counts its CPU ticks over `seconds`
    after a 2 s settle, stops it; returns (ticks, ticks per second, median frame interval ms,
    refresh period ms, presenter)."""
    run.save_prefs("light")
    run.start(env=env, expect=run.kiosk.light)
    ticks = "awk '{print $14+$15}' /proc/$pid/stat"
    out = run.vm.agent.call("sh", cmd=f"pid=$(pidof {os.path.basename(run.kiosk.binary)}); getconf CLK_TCK; sleep 2; "
                                      f"{ticks}; sleep {seconds}; {ticks}", timeout=seconds + 60, within=seconds + 90)
    check(out["rc"] == 0, f"counting the kiosk's CPU ticks failed: {out['err']}")
    hz, a, b = (int(v) for v in out["out"].split())
    run.stop()
    log = run.log_text()
    m = re.search(r"median interval between animation frames ([0-9.]+) ms \(refresh period ([0-9.]+) ms", log)
    check(m is not None, f"no timing line at exit{run.kiosk_log()}")
    return b - a, hz, float(m.group(1)), float(m.group(2)), presenter(run)


def drm_cost_against_texture(run, seconds=None):
    """With the ambient animation running, in the same boot: our presenter costs at most a
    quarter of the GL texture presenter's CPU and a quarter of its median frame interval, and
    its own median interval is within twice the refresh period."""
    seconds = seconds or SECONDS
    base = run.name
    run.name = base + "-drm"
    ours = _measure(run, {}, seconds)
    check(ours[4].startswith("drm ("), f"the default presenter is {ours[4]!r}")
    run.name = base + "-texture"
    gl = _measure(run, {"DARKMODE_KIOSK_PRESENT": "texture"}, seconds)
    run.name = base
    check(not gl[4].startswith("drm"), f"DARKMODE_KIOSK_PRESENT=texture ran {gl[4]!r}")
    (t_ours, hz, i_ours, period, _), (t_gl, _, i_gl, _, _) = ours, gl
    core = hz * seconds
    run.log(f"info: {run.vm.gpu} {run.name}: over {seconds} s of ambient animation: drm {t_ours} ticks "
            f"({100 * t_ours / core:.0f} % of a core), median frame interval {i_ours:.1f} ms; texture ({gl[4]}) "
            f"{t_gl} ticks ({100 * t_gl / core:.0f} %), {i_gl:.1f} ms; refresh period {period:.1f} ms")
    check(t_ours * 4 <= t_gl, f"drm used {t_ours} CPU ticks, more than a quarter of the texture presenter's {t_gl}")
    check(i_ours * 4 <= i_gl, f"drm's median frame interval {i_ours} ms is more than a quarter of texture's {i_gl} ms")
    check(i_ours <= 2 * period, f"drm's median frame interval {i_ours} ms is over twice the refresh period {period} ms")


def _ambient_ticks(run, guest_binary, seconds):
    """The kiosk `guest_binary` (a staged copy) on the light page with the ambient animation:
    its CPU ticks over `seconds` after a 2 s settle, and the clock's ticks per second."""
    run.save_prefs("light")
    run.start(env={}, expect=run.kiosk.light,
              argv=[guest_binary, "run", "--scale", "1", "--prefs", run.prefs_guest()])
    check_ours(run)
    ticks = "awk '{print $14+$15}' /proc/$pid/stat"
    out = run.vm.agent.call("sh", cmd=f"pid=$(pidof {os.path.basename(guest_binary)}); getconf CLK_TCK; sleep 2; "
                                      f"{ticks}; sleep {seconds}; {ticks}", timeout=seconds + 60, within=seconds + 90)
    check(out["rc"] == 0, f"counting the kiosk's CPU ticks failed: {out['err']}")
    hz, a, b = (int(v) for v in out["out"].split())
    run.stop()
    return b - a, hz


def drm_ambient_against_before(run, seconds=None):
    """The ambient animation's cost on our presenter against another build in the same boot
    ($KIOSK_BEFORE_BIN, e.g. main's): three rounds each, alternating, ticks over `seconds`;
    the ratio of the medians is printed, never asserted (under TCG the guest's time is the
    host's load)."""
    before = os.environ.get("KIOSK_BEFORE_BIN")
    check(before is not None and os.access(before, os.X_OK), "KIOSK_BEFORE_BIN names no executable to compare with")
    seconds = seconds or SECONDS
    old = run.vm.stage_file(before, "darkmode-kiosk-before")
    base = run.name
    new_ticks, old_ticks = [], []
    for r in range(3):
        run.name = f"{base}-new{r}"
        t, hz = _ambient_ticks(run, run.guest_binary, seconds)
        new_ticks.append(t)
        run.name = f"{base}-before{r}"
        t, hz = _ambient_ticks(run, old, seconds)
        old_ticks.append(t)
    run.name = base
    med_new, med_old = sorted(new_ticks)[1], sorted(old_ticks)[1]
    run.log(f"info: {run.vm.gpu} {run.name}: ambient over {seconds} s, ticks ({hz} a second): this build {new_ticks} "
            f"(median {med_new}), before {old_ticks} (median {med_old}); ratio {med_new / max(1, med_old):.2f}")


def drm_idle(run):
    """A still page (--reduce-motion) with our presenter sleeps: over 5 s its threads wake at
    most twice a second in all (`IdleWait` looks at SDL's queue once a second for hot-plug, plus
    at most one wake-up of its event watch each time) — where SDL's evdev driver alone polls
    every millisecond. Its CPU ticks are printed (under TCG on a busy host they are noisy: a
    tick lands on whatever runs when the guest's late timer fires)."""
    run.save_prefs("light")
    run.start("--reduce-motion", expect=run.kiosk.light)
    check_ours(run)
    seconds = 5
    sample = ("for t in /proc/$pid/task/*; do awk '{print $14+$15}' $t/stat; "
              "awk '/^voluntary_ctxt_switches/ {print $2}' $t/status; done | paste -sd' '")
    out = run.vm.agent.call("sh", cmd=f"pid=$(pidof {os.path.basename(run.kiosk.binary)}); getconf CLK_TCK; sleep 2; {sample}; "
                                      f"sleep {seconds}; {sample}", timeout=seconds + 60, within=seconds + 90)
    check(out["rc"] == 0, f"sampling the kiosk failed: {out['err']}")
    lines = out["out"].split("\n")
    hz = int(lines[0])
    before, after = ([int(v) for v in line.split()] for line in lines[1:3])
    check(len(before) == len(after), f"the kiosk's threads changed while idle: {lines}")
    ticks = sum(after[0::2]) - sum(before[0::2])
    wakeups = sum(after[1::2]) - sum(before[1::2])
    run.stop()
    run.log(f"info: {run.vm.gpu} {run.name}: still page over {seconds} s: {wakeups} wake-ups of its threads, "
            f"{ticks} CPU ticks ({100 * ticks / (hz * seconds):.1f} % of a core)")
    check(wakeups <= 2 * seconds, f"a still page woke its threads {wakeups} times in {seconds} s (limit {2 * seconds})")


def drm_vt_switch(run):
    """A VT switch hands the display over and back (card opened directly: VT_PROCESS mode):
    `chvt 2` completes and the scanout no longer shows the page (the console's own mode is
    back); `chvt 1` brings the page back, sent whole."""
    run.save_prefs("light")
    run.start("--reduce-motion", expect=run.kiosk.light)
    check_ours(run)
    out = run.vm.agent.call("sh", cmd="/bin/busybox chvt 2", timeout=30, within=45)
    check(out["rc"] == 0, f"chvt 2 failed or hung: {out}{run.kiosk_log()}")
    image, _ = run.vm.wait_image(lambda im: im.corners()[0] != run.kiosk.light, 30, "the console after chvt 2")
    run.shot(image, "vt2")
    out = run.vm.agent.call("sh", cmd="/bin/busybox chvt 1", timeout=30, within=45)
    check(out["rc"] == 0, f"chvt 1 failed or hung: {out}{run.kiosk_log()}")
    image, _ = run.vm.wait_image(lambda im: all(c == run.kiosk.light for c in im.corners()), 30, "the page after chvt 1")
    run.shot(image, "vt1")
    run.stop()


SCENARIOS = {f.__name__: f for f in (drm_page_and_tap, drm_flips, drm_restart, drm_idle, drm_vt_switch, drm_cost_against_texture,
                                      drm_ambient_against_before)}
ORDER = list(SCENARIOS)
# Run only when named with --only. drm_cost_against_texture: it passes on an idle host (drawn in
# place on these displays without vblank: 0.18 of the texture presenter's CPU on bochs, 0.16 on
# virtio, one run each at load ~2) but its ratio is not the kiosk's alone: under TCG our frames
# at the full 75 Hz cost guest time in proportion to how slowly the host runs the guest, while
# the texture presenter is capped by the guest's two vCPUs (about 200 %) at ~1 frame a second.
# On a slower or busier host ours rises toward the limit (0.31 seen with two other guests
# running, flipping), so it is not a CI check; docs/kiosk-operation.md gives the numbers.
# drm_ambient_against_before: needs KIOSK_BEFORE_BIN and prints a ratio only (issue 42, item 4).
PENDING = {"drm_cost_against_texture", "drm_ambient_against_before"}


def main():
    def seconds(run, a):
        global SECONDS
        SECONDS = a.seconds
    return scenario_main("drm-presenter-vm", __doc__, ORDER, SCENARIOS, pending=PENDING,
                         options=lambda p: p.add_argument("--seconds", type=int, default=SECONDS), before=seconds)


if __name__ == "__main__":
    sys.exit(main())
