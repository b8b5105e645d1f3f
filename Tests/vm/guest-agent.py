#!/usr/bin/python3
"""The harness's hands inside the guest (started by Tests/vm/guest-init.sh).

Reads one JSON request a line from the virtio-serial port named `dmk.agent` and answers each
with one JSON line: {"ok": true, ...} or {"ok": false, "error": "..."}. It starts and stops
programs (the kiosk), runs shell commands, makes uinput touch devices with python3-evdev and
touches them, and reads the console's KD mode. Coordinates sent for a device are in that
device's own units: the harness does the mapping, so a wrong mapping in the app shows.
Standard library and python3-evdev only (the host's, seen through the 9p root).
"""
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import time

import evdev
from evdev import AbsInfo, UInput, ecodes as e

KDGETMODE = 0x4B3B
MODES = {0: "text", 1: "graphics"}


def port_path(name):
    """The /dev node of the virtio-serial port called NAME (no udev: found through sysfs)."""
    base = "/sys/class/virtio-ports"
    for _ in range(100):
        for port in os.listdir(base) if os.path.isdir(base) else []:
            try:
                with open(f"{base}/{port}/name") as f:
                    if f.read().strip() == name:
                        return f"/dev/{port}"
            except OSError:
                pass
        time.sleep(0.1)
    sys.exit(f"guest-agent: no virtio-serial port named {name}")


class Agent:
    def __init__(self):
        self.programs = {}   # name -> Popen
        self.devices = {}    # name -> (UInput, kind)
        self.tracking = 0

    # --- programs ---------------------------------------------------------------------------
    def op_start(self, r):
        """Starts r["args"] with r["env"] added to this environment; stdout and stderr go to
        r["log"] (a path, e.g. in the results share)."""
        name = r["name"]
        if name in self.programs and self.programs[name].poll() is None:
            raise RuntimeError(f"{name} is already running")
        env = dict(os.environ, **r.get("env", {}))
        log = open(r["log"], "wb") if r.get("log") else subprocess.DEVNULL
        started = time.monotonic()
        p = subprocess.Popen(r["args"], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             cwd=r.get("cwd", "/"), start_new_session=r.get("session", False))
        self.programs[name] = p
        return {"pid": p.pid, "monotonic": started}

    def op_signal(self, r):
        p = self.programs[r["name"]]
        if p.poll() is None:
            p.send_signal(r.get("signal", signal.SIGTERM))
        return {}

    def op_wait(self, r):
        """Waits up to r["timeout"] s for the program to end: {"rc": status or -signal}, or
        {"rc": None} when it still runs."""
        p = self.programs[r["name"]]
        try:
            rc = p.wait(timeout=r.get("timeout", 0))
        except subprocess.TimeoutExpired:
            rc = None
        return {"rc": rc}

    def op_kill(self, r):
        p = self.programs.get(r["name"])
        if p and p.poll() is None:
            p.kill()
            p.wait()
        return {}

    def op_sh(self, r):
        out = subprocess.run(["/bin/sh", "-c", r["cmd"]], capture_output=True, text=True,
                             timeout=r.get("timeout", 60))
        return {"rc": out.returncode, "out": out.stdout, "err": out.stderr}

    def op_ping(self, r):
        return {"monotonic": time.monotonic()}

    def op_monotonic(self, r):
        return {"monotonic": time.monotonic()}

    # --- the console ------------------------------------------------------------------------
    def op_kdmode(self, r):
        """KDGETMODE of a virtual terminal (default /dev/tty1): "text" or "graphics"."""
        fd = os.open(r.get("tty", "/dev/tty1"), os.O_RDONLY | os.O_NOCTTY)
        try:
            buf = fcntl.ioctl(fd, KDGETMODE, struct.pack("i", 0))
        finally:
            os.close(fd)
        mode = struct.unpack("i", buf)[0]
        return {"mode": MODES.get(mode, str(mode))}

    # --- touch devices ----------------------------------------------------------------------
    def op_device(self, r):
        """Makes a uinput device. kind "multitouch": ABS_MT_* slots with INPUT_PROP_DIRECT
        (a capacitive panel); "single": BTN_TOUCH + ABS_X/Y/PRESSURE, no MT axes (an ads7846
        resistive panel). Axis ranges r["x"] = [min, max], r["y"] likewise."""
        name, kind = r["name"], r["kind"]
        if kind == "mouse":
            # A relative USB mouse: REL_X/Y and three buttons.
            caps = {e.EV_KEY: [e.BTN_LEFT, e.BTN_RIGHT, e.BTN_MIDDLE], e.EV_REL: [e.REL_X, e.REL_Y, e.REL_WHEEL]}
            dev = UInput(caps, name=r.get("label", "dmk-mouse"), vendor=0x1209, product=0x0002, version=1, bustype=e.BUS_USB)
            self.devices[name] = (dev, kind)
            return {"node": dev.device.path if dev.device else None}
        (x0, x1), (y0, y1) = r["x"], r["y"]
        ax = AbsInfo(value=0, min=x0, max=x1, fuzz=0, flat=0, resolution=r.get("resolution", 0))
        ay = AbsInfo(value=0, min=y0, max=y1, fuzz=0, flat=0, resolution=r.get("resolution", 0))
        if kind == "multitouch":
            caps = {e.EV_KEY: [e.BTN_TOUCH],
                    e.EV_ABS: [(e.ABS_X, ax), (e.ABS_Y, ay),
                               (e.ABS_MT_SLOT, AbsInfo(0, 0, 9, 0, 0, 0)),
                               (e.ABS_MT_TRACKING_ID, AbsInfo(0, 0, 65535, 0, 0, 0)),
                               (e.ABS_MT_POSITION_X, ax), (e.ABS_MT_POSITION_Y, ay)]}
            props = [e.INPUT_PROP_DIRECT]
        elif kind == "single":
            caps = {e.EV_KEY: [e.BTN_TOUCH],
                    e.EV_ABS: [(e.ABS_X, ax), (e.ABS_Y, ay), (e.ABS_PRESSURE, AbsInfo(0, 0, 255, 0, 0, 0))]}
            props = [e.INPUT_PROP_DIRECT] if r.get("direct") else []
        else:
            raise ValueError(f"unknown device kind {kind}")
        dev = UInput(caps, name=r.get("label", f"dmk-{kind}"), vendor=0x1209, product=0x0001,
                     version=1, bustype=e.BUS_USB, input_props=props)
        self.devices[name] = (dev, kind)
        return {"node": dev.device.path if dev.device else None}

    def op_close_device(self, r):
        dev, _ = self.devices.pop(r["name"])
        dev.close()
        return {}

    def _down(self, dev, kind, x, y):
        if kind == "multitouch":
            self.tracking = (self.tracking + 1) % 65536
            dev.write(e.EV_ABS, e.ABS_MT_SLOT, 0)
            dev.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, self.tracking)
            dev.write(e.EV_ABS, e.ABS_MT_POSITION_X, x)
            dev.write(e.EV_ABS, e.ABS_MT_POSITION_Y, y)
        else:
            dev.write(e.EV_ABS, e.ABS_PRESSURE, 200)
        dev.write(e.EV_ABS, e.ABS_X, x)
        dev.write(e.EV_ABS, e.ABS_Y, y)
        dev.write(e.EV_KEY, e.BTN_TOUCH, 1)
        dev.syn()

    def _move(self, dev, kind, x, y):
        if kind == "multitouch":
            dev.write(e.EV_ABS, e.ABS_MT_POSITION_X, x)
            dev.write(e.EV_ABS, e.ABS_MT_POSITION_Y, y)
        dev.write(e.EV_ABS, e.ABS_X, x)
        dev.write(e.EV_ABS, e.ABS_Y, y)
        dev.syn()

    def _up(self, dev, kind):
        if kind == "multitouch":
            dev.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, -1)
        else:
            dev.write(e.EV_ABS, e.ABS_PRESSURE, 0)
        dev.write(e.EV_KEY, e.BTN_TOUCH, 0)
        dev.syn()

    def op_tap(self, r):
        """Touch down at (x, y) in device units, hold r["hold"] s (default 0.08), lift."""
        dev, kind = self.devices[r["device"]]
        self._down(dev, kind, r["x"], r["y"])
        time.sleep(r.get("hold", 0.08))
        self._up(dev, kind)
        return {"monotonic": time.monotonic()}

    def op_mouse_move(self, r):
        """Moves a mouse by (dx, dy) counts in steps of at most r["step"] (default 4) counts,
        r["interval"] s apart (default 0.01): a hand's slow, steady move."""
        dev, _ = self.devices[r["device"]]
        dx, dy, step = int(r["dx"]), int(r["dy"]), max(1, int(r.get("step", 4)))
        n = max(1, -(-max(abs(dx), abs(dy)) // step))
        sent_x = sent_y = 0
        for i in range(1, n + 1):
            x, y = dx * i // n, dy * i // n
            if x != sent_x:
                dev.write(e.EV_REL, e.REL_X, x - sent_x)
            if y != sent_y:
                dev.write(e.EV_REL, e.REL_Y, y - sent_y)
            sent_x, sent_y = x, y
            dev.syn()
            time.sleep(r.get("interval", 0.01))
        return {}

    def op_mouse_button(self, r):
        """Presses (r["down"] true) or releases the left button."""
        dev, _ = self.devices[r["device"]]
        dev.write(e.EV_KEY, e.BTN_LEFT, 1 if r["down"] else 0)
        dev.syn()
        return {}

    def op_drag(self, r):
        """Touch down at the first point, move through the rest r["interval"] s apart, lift."""
        dev, kind = self.devices[r["device"]]
        points = r["points"]
        self._down(dev, kind, *points[0])
        for x, y in points[1:]:
            time.sleep(r.get("interval", 0.03))
            self._move(dev, kind, x, y)
        time.sleep(r.get("interval", 0.03))
        self._up(dev, kind)
        return {"monotonic": time.monotonic()}

    # --- broken and busy devices (Tests/vm/input_hotplug_scenarios.py) ----------------------
    def op_set_absinfo(self, r):
        """Sets an axis's range on a made device's evdev node (EVIOCSABS, as a broken driver
        would report it; uinput itself refuses a reversed range): r["code"], r["min"], r["max"]."""
        dev, _ = self.devices[r["device"]]
        node = evdev.InputDevice(dev.device.path)
        try:
            node.set_absinfo(int(r["code"]), min=int(r["min"]), max=int(r["max"]))
            info = node.absinfo(int(r["code"]))
        finally:
            node.close()
        return {"min": info.min, "max": info.max}

    def op_spew(self, r):
        """Starts writing r["frames"] position frames (each a move and a SYN_REPORT, positions
        sweeping the axis) into a made device as fast as it can, on a thread: a device gone
        wild; a multitouch device with a finger down, or with r["touching"] false none (positions
        only, as a panel reporting a hover). op_spew_wait waits for it."""
        import threading
        dev, kind = self.devices[r["device"]]
        frames = int(r["frames"])
        lo, hi = r.get("range", [0, 4095])
        touching = kind == "multitouch" and r.get("touching", True)

        def run():
            started = time.monotonic()
            if touching:
                self._down(dev, kind, lo, lo)
            for i in range(frames):
                v = lo + i % (hi - lo + 1)
                if kind == "mouse":
                    dev.write(e.EV_REL, e.REL_X, 1 if i % 2 else -1)
                else:
                    self._move(dev, kind, v, v)
                    continue                          # _move ends its frame itself
                dev.syn()
            if touching:
                self._up(dev, kind)
            self.spewed = {"frames": frames, "seconds": time.monotonic() - started}
        self.spewed = None
        self.spewer = threading.Thread(target=run, daemon=True)
        self.spewer.start()
        return {}

    def op_cycle_device(self, r):
        """Makes and closes a uinput multitouch panel r["n"] times, each time waiting (up to 30 s)
        until process r["pid"] has its node open, and after closing until it has not: a panel
        plugged and unplugged n times with no round trip to the harness. Returns the seconds."""
        started = time.monotonic()
        ax = AbsInfo(value=0, min=0, max=4095, fuzz=0, flat=0, resolution=0)
        caps = {e.EV_KEY: [e.BTN_TOUCH],
                e.EV_ABS: [(e.ABS_X, ax), (e.ABS_Y, ax), (e.ABS_MT_SLOT, AbsInfo(0, 0, 9, 0, 0, 0)),
                           (e.ABS_MT_TRACKING_ID, AbsInfo(0, 0, 65535, 0, 0, 0)),
                           (e.ABS_MT_POSITION_X, ax), (e.ABS_MT_POSITION_Y, ax)]}
        fd_dir = f"/proc/{int(r['pid'])}/fd"

        def held(node):
            n = 0
            for fd in os.listdir(fd_dir):
                try:
                    n += os.readlink(f"{fd_dir}/{fd}") == node
                except OSError:
                    pass
            return n

        def wait(node, opened):
            deadline = time.monotonic() + 30
            while (held(node) > 0) != opened:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{node} {'never opened' if opened else 'still open'} in {r['pid']}")
                time.sleep(0.01)
        for _ in range(int(r["n"])):
            dev = UInput(caps, name=r.get("label", "dmk-cycled-panel"), vendor=0x1209, product=0x0003,
                         version=1, bustype=e.BUS_USB, input_props=[e.INPUT_PROP_DIRECT])
            node = dev.device.path
            wait(node, True)
            dev.close()
            wait(node, False)
        return {"seconds": time.monotonic() - started}

    def op_spew_wait(self, r):
        self.spewer.join(r.get("timeout", 120))
        return {"done": not self.spewer.is_alive(), "result": self.spewed}


def main():
    path = port_path("dmk.agent")
    fd = os.open(path, os.O_RDWR)
    reader = os.fdopen(fd, "rb", buffering=0)
    agent = Agent()
    print(f"guest-agent: listening on {path}", flush=True)
    pending = b""
    while True:
        chunk = reader.read(65536)
        if not chunk:
            time.sleep(0.05)    # the host side not connected yet (or reconnecting)
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if not line.strip():
                continue
            r = None
            try:
                r = json.loads(line)
                if r.get("op") == "quit":
                    os.write(fd, (json.dumps({"ok": True, "id": r.get("id")}) + "\n").encode())
                    return
                answer = dict(ok=True, id=r.get("id"), **getattr(agent, "op_" + r["op"])(r))
            except Exception as x:  # every failure goes back to the harness as one line
                answer = {"ok": False, "id": r.get("id") if isinstance(r, dict) else None,
                          "error": f"{type(x).__name__}: {x}"}
            os.write(fd, (json.dumps(answer) + "\n").encode())


if __name__ == "__main__":
    main()
