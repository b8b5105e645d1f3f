#!/usr/bin/python3
"""The screen's sleep (config display.sleep, issue 41 item 2) on KMS/DRM in a real kernel:
scenarios run in QEMU guests with the KMS/DRM harness (Tests/vm/vm.py, harness.py), the kiosk
on our DRM presenter.

- sleep_after_idle: afterIdleSeconds 20. The output is switched off the kernel's way, read back
  from the kernel (the connector's /sys/class/drm/card*-*/dpms "Off", or the CRTC's
  "active=0" in debugfs' dri/0/state); 10 s asleep cost no CPU tick beyond noise and present
  no frame (the kiosk's wake line counts them); a tap wakes it (the output on, the page back,
  the preferences unchanged); a second tap switches it; asleep again, SIGTERM ends it (exit 0).
- sleep_schedule: schedule "22:00-06:30" with libfaketime (the kiosk's wall clock set to
  06:28:20 UTC): asleep for the schedule a minute after its last input, the output off; at
  06:30 the schedule ends and the page comes back by itself; a tap then switches at once.

Numbers are printed as `info:` lines (ticks asleep, wake latency).

Usage: display_sleep_scenarios.py [--gpu bochs,virtio] [--only NAME,...] [--accel tcg|kvm|auto]
                                  [--shots DIR]
Environment: KIOSK_BIN (default: the release build), DARKMODE_KIOSK_VM_ACCEL (default tcg).
"""
import calendar
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import CHANGE_TIMEOUT, check, scenario_main  # noqa: E402

# The connected connector's DPMS and the first CRTC's active flag (debugfs mounted once).
OUTPUT_STATE = ("for c in /sys/class/drm/card*-*; do [ \"$(cat $c/status)\" = connected ] && echo dpms=$(cat $c/dpms); done; "
                "grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug 2>/dev/null; "
                "grep -m1 -o 'active=[01]' /sys/kernel/debug/dri/0/state 2>/dev/null || echo active=unknown")


def output_state(run):
    """(dpms, active): the connector's DPMS ("On"/"Off") and the CRTC's ACTIVE ("1"/"0"/"unknown")."""
    out = run.vm.agent.call("sh", cmd=OUTPUT_STATE, timeout=30, within=45)
    fields = dict(line.split("=", 1) for line in out["out"].split() if "=" in line)
    return fields.get("dpms", "?"), fields.get("active", "?")


def is_off(state):
    dpms, active = state
    return dpms == "Off" or active == "0"


def is_on(state):
    dpms, active = state
    return dpms == "On" and active in ("1", "unknown")


def wait_output(run, want_off, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        state = output_state(run)
        if (is_off if want_off else is_on)(state):
            return state
        check(time.monotonic() < deadline, f"{what}: the output is dpms={state[0]} active={state[1]} after {timeout} s{run.kiosk_log()}")
        time.sleep(0.5)


def write_config(run, settings):
    with open(run.vm.host_out(f"{run.name}.config.json"), "w") as f:
        json.dump({"display": {"sleep": settings}}, f)
    return run.vm.guest_out(f"{run.name}.config.json")


def kiosk_pid(run):
    out = run.vm.agent.call("sh", cmd=f"pidof {os.path.basename(run.guest_binary)}", timeout=10, within=20)
    check(out["rc"] == 0 and out["out"].split(), f"no kiosk process in the guest{run.kiosk_log()}")
    return out["out"].split()[0]


def ticks_over(run, pid, seconds):
    """The kiosk's CPU ticks (all threads) over `seconds`, the clock's ticks per second, and
    the ticks by thread name."""
    sample = f"for t in /proc/{pid}/task/*; do echo \"$(cat $t/comm | tr ' ' _) $(awk '{{print $14+$15}}' $t/stat)\"; done | paste -sd' '"
    out = run.vm.agent.call("sh", cmd=f"getconf CLK_TCK; {sample}; sleep {seconds}; {sample}", timeout=seconds + 60, within=seconds + 90)
    check(out["rc"] == 0, f"counting the kiosk's ticks failed: {out['err']}")
    lines = out["out"].split("\n")
    hz = int(lines[0])

    def by_thread(line):
        v = line.split()
        totals = {}
        for name, ticks in zip(v[0::2], v[1::2]):
            totals[name] = totals.get(name, 0) + int(ticks)
        return totals
    before, after = by_thread(lines[1]), by_thread(lines[2])
    spent = {n: after.get(n, 0) - before.get(n, 0) for n in after if after.get(n, 0) != before.get(n, 0)}
    return sum(spent.values()), hz, spent


def count(run, text):
    return run.log_text().count(text)


def tap_original(run, xr, yr):
    w, h = run.mode
    ux, uy = run.to_units(run.kiosk.centre(run.kiosk.layout(w, h)["toggle"]), (w, h), xr, yr)
    run.vm.agent.call("tap", device="touch", x=ux, y=uy)


def sleep_after_idle(run):
    """afterIdleSeconds 20 (time to see it on first under TCG): the output off (DPMS/ACTIVE read
    back), 10 s asleep at ~0 ticks and no frame, a tap wakes it without switching, a second tap
    switches; asleep again, SIGTERM stops it with exit status 0."""
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    config = write_config(run, {"afterIdleSeconds": 20})
    run.start("--config", config, "--reduce-motion", expect=run.kiosk.light)
    presenter = run.wait_state(lambda s: "presenter" in s, "the kiosk's state")["presenter"]
    check(presenter.startswith("drm ("), f"not our DRM presenter: {presenter}{run.kiosk_log()}")
    check(is_on(output_state(run)), f"the output is not on at start: {output_state(run)}")
    state = wait_output(run, True, 90, "asleep after 20 s without input")
    check(count(run, "screen asleep (no input for 20 s; display switched off)") == 1,
          f"expected one 'screen asleep (... display switched off)' line{run.kiosk_log()}")
    run.log(f"info: {run.vm.gpu} {run.name}: asleep, output dpms={state[0]} active={state[1]}")
    image = run.vm.screendump()
    run.shot(image, "asleep")
    pid = kiosk_pid(run)
    time.sleep(1)
    ticks, hz, threads = ticks_over(run, pid, 10)
    run.log(f"info: {run.vm.gpu} {run.name}: {ticks} CPU ticks over 10 s asleep (of {hz * 10} a core); by thread {threads}")
    # Under TCG a tick lands on whatever runs when the guest's late timer fires: the idle
    # wait's once-a-second look at SDL's queue may take one now and then; a frame costs many.
    check(ticks <= 2, f"asleep the kiosk used {ticks} ticks in 10 s{run.kiosk_log()}")
    check(is_off(output_state(run)), "the output came back on by itself")
    started = time.monotonic()
    tap_original(run, xr, yr)
    state = wait_output(run, False, CHANGE_TIMEOUT, "awake after a tap")
    image, _ = run.vm.wait_image(lambda im: all(c == run.kiosk.light for c in im.corners()), CHANGE_TIMEOUT,
                                 "the light page back after the waking tap")
    took = time.monotonic() - started
    run.shot(image, "woken")
    run.log(f"info: {run.vm.gpu} {run.name}: a tap to the page back {took:.1f} s (output dpms={state[0]} active={state[1]})")
    time.sleep(2)
    check(run.appearance() == "light", f"the waking tap switched the page: preferences say {run.appearance()}")
    check(all(c == run.kiosk.light for c in run.vm.screendump().corners()), "the page changed after the waking tap")
    m = re.search(r"screen awake \(a touch or click; asleep (\d+) s, (\d+) frames presented meanwhile\)", run.log_text())
    check(m is not None, f"no 'screen awake (a touch or click; ...)' line{run.kiosk_log()}")
    check(m.group(2) == "0", f"{m.group(2)} frames were presented while asleep")
    run.log(f"info: {run.vm.gpu} {run.name}: asleep {m.group(1)} s, {m.group(2)} frames presented meanwhile")
    started = time.monotonic()
    tap_original(run, xr, yr)
    took = run.wait_change("dark", run.kiosk.dark, "second tap", started)
    run.log(f"info: {run.vm.gpu} {run.name}: the second tap switched it in {took:.1f} s")
    # Asleep again, SIGTERM stops it at once (the signal interrupts the wait; exit status 0).
    wait_output(run, True, 90, "asleep again")
    check(count(run, "screen asleep (no input for 20 s; display switched off)") == 2, f"no second asleep line{run.kiosk_log()}")
    started = time.monotonic()
    run.stop()
    run.log(f"info: {run.vm.gpu} {run.name}: SIGTERM while asleep: exit 0 after {time.monotonic() - started:.1f} s")


def sleep_schedule(run):
    """schedule "22:00-06:30", the wall clock faked to 06:28:20 UTC: asleep for the schedule a
    minute after the start (the output off), awake by itself at 06:30 (output on, the page
    back), and a tap then switches at once."""
    xr = yr = (0, 4095)
    run.device("touch", "multitouch", xr, yr)
    run.save_prefs("light")
    config = write_config(run, {"schedule": "22:00-06:30"})
    at = calendar.timegm((2026, 6, 2, 6, 28, 20))
    guest_now = float(run.vm.agent.call("sh", cmd="date +%s.%N", timeout=10, within=20)["out"])
    offset = int(at - guest_now)
    argv = ["/usr/bin/faketime", "-m", "-f", f"{offset:+d}", *run.kiosk_argv("--config", config, "--reduce-motion")]
    run.start(env={"TZ": "UTC", "FAKETIME_DONT_FAKE_MONOTONIC": "1"}, expect=run.kiosk.light, argv=argv)
    run.wait_devices_opened()
    state = wait_output(run, True, 150, "asleep inside the schedule")
    check(count(run, "screen asleep (the schedule 22:00-06:30; display switched off)") == 1,
          f"expected one 'screen asleep (the schedule ...)' line{run.kiosk_log()}")
    run.log(f"info: {run.vm.gpu} {run.name}: asleep for the schedule, output dpms={state[0]} active={state[1]}")
    state = wait_output(run, False, 150, "awake at the schedule's end")
    run.vm.wait_image(lambda im: all(c == run.kiosk.light for c in im.corners()), CHANGE_TIMEOUT,
                      "the page back at 06:30")
    check(count(run, "screen awake (the schedule 22:00-06:30 ended") == 1,
          f"expected one 'screen awake (the schedule ... ended' line{run.kiosk_log()}")
    m = re.search(r"the schedule 22:00-06:30 ended; asleep (\d+) s, (\d+) frames presented meanwhile", run.log_text())
    check(m is not None and m.group(2) == "0", f"frames presented while asleep{run.kiosk_log()}")
    run.log(f"info: {run.vm.gpu} {run.name}: awake at the schedule's end, asleep {m.group(1)} s, 0 frames")
    started = time.monotonic()
    tap_original(run, xr, yr)
    run.wait_change("dark", run.kiosk.dark, "a tap after the schedule", started)
    # faketime forks the kiosk and waits for it: SIGTERM goes to the kiosk itself.
    pid = kiosk_pid(run)
    run.vm.agent.call("sh", cmd=f"kill -TERM {pid}", timeout=10, within=20)
    rc = run.vm.agent.call("wait", name="kiosk", timeout=60, within=75)["rc"]
    run.app = None
    check(rc == 0, f"after SIGTERM faketime's kiosk exited with {rc}{run.kiosk_log()}")


SCENARIOS = {f.__name__: f for f in (sleep_after_idle, sleep_schedule)}
ORDER = list(SCENARIOS)


def main():
    return scenario_main("display-sleep-vm", __doc__, ORDER, SCENARIOS)


if __name__ == "__main__":
    sys.exit(main())
