"""The VM test harness: what every scenario script (Tests/vm/*_scenarios.py) shares.

- `Kiosk`: the binary's own facts, read on the host (page colours from `run --check`, the
  layout from `replay`); `kiosk_binary()` finds the binary ($KIOSK_BIN or the release build).
- `Run`: one booted guest (Tests/vm/vm.py's `VM`) and the kiosk in it: start and stop it, touch
  devices, the preferences file, screenshots, its state file (`state`, `wait_state`: the
  presenter, who has the card, the input reader and its devices, the display, frames) and its
  log (`log_text`, `kiosk_log`). Scenarios decide on the state file, the preferences file and
  screenshots; on log lines only where the line itself is what is tested ("one line names
  the refused device", "no more than five lines while a device spews").
- `Failure`/`check`: how a scenario fails; `run_scenarios` runs them one by one, a result line each.
- `scenario_parser`, `chosen_scenarios`, `kiosk_and_shots`, `guest_run`: a script's main (the
  options, --list/--only, the binary and the screenshot folder, the guest with its `Run`).

A scenario is a function taking a `Run`; the scripts hold only scenarios and their main.
"""
import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vm import VM, VMError, run_guests  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Generous bounds: under TCG on a busy 2-core machine the first frame (EGL + llvmpipe set-up)
# took up to ~60 s; the bounds only matter when something is wrong.
FIRST_FRAME_TIMEOUT = 180
CHANGE_TIMEOUT = 60
STOP_TIMEOUT = 60


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# --- the kiosk's own facts (host side, same binary) -------------------------------------------
class Kiosk:
    def __init__(self, binary):
        self.binary = binary
        out = subprocess.run([binary, "run", "--check", "--scale", "1", "--prefs", "/nonexistent/prefs.json"],
                             capture_output=True, text=True)
        line = next((l for l in out.stdout.splitlines() if l.startswith("page colours: light ")), None)
        check(line is not None, f"run --check printed no 'page colours' line: {out.stdout} {out.stderr}")
        light, dark = line[len("page colours: light "):].split(", dark ")
        self.light = tuple(int(v) for v in light.split(","))
        self.dark = tuple(int(v) for v in dark.split(","))
        check(self.light != self.dark, "light and dark page colours are the same")
        self.layouts = {}

    def layout(self, width, height):
        """{"toggle"|"vivid"|"button": (x, y, w, h)} in page pixels at scale 1."""
        key = (width, height)
        if key not in self.layouts:
            with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as empty:
                out = subprocess.run([self.binary, "replay", empty.name, "--size", f"{width}x{height}", "--scale", "1"],
                                     capture_output=True, text=True, check=True)
            layout = json.loads(out.stdout.splitlines()[0])["layout"]
            check(layout["size"] == [width, height], f"replay's layout is for {layout['size']}, not {width}x{height}")
            self.layouts[key] = {k: tuple(layout[k][f] for f in "xywh") for k in ("toggle", "vivid", "button")}
        return self.layouts[key]

    @staticmethod
    def centre(rect):
        x, y, w, h = rect
        return (x + w / 2, y + h / 2)


# --- one guest, its kiosk runs -------------------------------------------------------------
class Run:
    """What a scenario works with: the guest (`vm`), the kiosk's facts (`kiosk`), the output's
    mode, and helpers to start and stop the kiosk, touch, and look."""

    def __init__(self, vm, kiosk, shots, log):
        self.vm, self.kiosk, self.shots, self.log = vm, kiosk, shots, log
        self.timings = {}
        self.name = "scenario"
        modes = vm.agent.call("sh", cmd="for c in /sys/class/drm/card*-*; do [ \"$(cat $c/status)\" = connected ] "
                                        "&& head -1 $c/modes; done")["out"].split()
        check(modes, f"no connected DRM output in the guest: {vm.agent.call('sh', cmd='ls /sys/class/drm')['out']}")
        self.mode = tuple(int(v) for v in modes[0].split("x"))
        # The kiosk as the guest runs it: a copy in the staging share (vm.py), never the
        # checkout's own path, which the guest may not see (a checkout under /tmp or /root).
        self.guest_binary = vm.stage_file(kiosk.binary)
        self.app = None
        self.devices = []
        self.labels = []                # the devices' names, as the kiosk's log names them
        self.udevd = False
        self.seatd = False   # start_seatd / stop_seatd

    # Files of the results share, by scenario.
    def prefs_guest(self):
        return self.vm.guest_out(f"{self.name}.prefs.json")

    def prefs_host(self):
        return self.vm.host_out(f"{self.name}.prefs.json")

    def save_prefs(self, appearance):
        with open(self.prefs_host(), "w") as f:
            json.dump({"appearance": appearance}, f)

    def appearance(self):
        try:
            with open(self.prefs_host()) as f:
                return json.load(f).get("appearance", "missing")
        except FileNotFoundError:
            return "no file"
        except (OSError, ValueError) as x:
            return f"unreadable ({x})"

    def shot(self, image, what):
        path = os.path.join(self.shots, f"{self.vm.gpu}-{self.name}-{what}.png")
        image.write_png(path)
        return path

    # --- the kiosk ---------------------------------------------------------------------------
    def kiosk_argv(self, *args):
        return [self.guest_binary, "run", "--scale", "1", "--prefs", self.prefs_guest(), *args]

    def launch(self, *args, env=None, argv=None):
        """Starts the kiosk (kmsdrm, --scale 1, this scenario's preferences file, its state
        file; or `argv`, e.g. a compositor running it) and returns at once."""
        log = self.vm.guest_out(f"{self.name}.kiosk.log")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.vm.host_out(f"{self.name}.state.json"))
        # On kmsdrm the kiosk reads input with libinput, which classifies devices from udev's
        # database: a kiosk's system always runs udevd, and so does the guest from here on.
        start_udevd(self)
        environment = {"SDL_VIDEODRIVER": "kmsdrm", "DARKMODE_KIOSK_TIMING": "1",
                       "DARKMODE_KIOSK_STATE_FILE": self.vm.guest_out(f"{self.name}.state.json")}
        environment.update(env or {})
        self.vm.agent.call("start", name="kiosk", args=argv or self.kiosk_argv(*args), env=environment, log=log)
        self.app = True

    def start(self, *args, env=None, expect=None, argv=None):
        """`launch`, then waits for the kiosk's first page: every corner `expect` (a page
        colour). Returns (that screendump, the top-left corners seen before it)."""
        self.launch(*args, env=env, argv=argv)
        started = time.monotonic()
        seen = []

        def first_page(image):
            corners = image.corners()
            seen.append(corners[0])
            if self.vm.agent.call("wait", name="kiosk", timeout=0)["rc"] is not None:
                raise Failure(f"the kiosk exited before its first frame: {self.kiosk_log()}")
            return all(c == expect for c in corners)
        image, _ = self.vm.wait_image(first_page, FIRST_FRAME_TIMEOUT, f"{self.name}: the first page ({expect})")
        first = time.monotonic() - started
        self.timings.setdefault("app start to first frame", []).append(first)
        self.log(f"info: {self.name}: first page {first:.1f} s after start")
        self.shot(image, "first")
        if argv is None:
            self.wait_devices_opened()
        return image, seen

    def wait_devices_opened(self):
        """Until the kiosk's state lists each device made for this scenario as open: a device
        udev had not finished when the kiosk started arrives through libinput's hot-plug path,
        maybe after the first page (a touch before that is not the kiosk's to see)."""
        for label in self.labels:
            self.wait_state(lambda s: self.device_count(s, label, "open") > 0, f"the kiosk opened input device {label}")

    def state(self):
        """The kiosk's state file (`DARKMODE_KIOSK_STATE_FILE`, replaced atomically by the
        kiosk) as a dict; {} before the kiosk has written one."""
        try:
            with open(self.vm.host_out(f"{self.name}.state.json")) as f:
                return json.load(f)
        except FileNotFoundError:
            return {}

    def wait_state(self, condition, what, timeout=CHANGE_TIMEOUT):
        """Until `condition(state)` holds; returns that state. Fails naming `what` and the last state."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.state()
            if condition(s):
                return s
            check(time.monotonic() < deadline, f"{what}: not so after {timeout} s; state {s}{self.kiosk_log()}")
            time.sleep(0.05)

    @staticmethod
    def device_count(state, name, count, contains=False):
        """The state's `count` ("opened": since the start, "open": now) of input devices named
        `name` (or whose name contains it)."""
        return sum(d[count] for d in state.get("inputDevices", [])
                   if (name in d["name"] if contains else d["name"] == name))

    def log_text(self):
        """The whole log of this scenario's kiosk ("" before it has one)."""
        try:
            with open(self.vm.host_out(f"{self.name}.kiosk.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def thread_sample(self):
        """(the guest's uptime in s, {thread id: (name, state, CPU ticks of 10 ms, wait channel)})
        of the kiosk's threads, read in one go from /proc."""
        name = os.path.basename(self.guest_binary)
        out = self.vm.agent.call("sh", timeout=20, within=40, cmd=(
            f"cut -d' ' -f1 /proc/uptime; for t in /proc/$(pidof {name} | cut -d' ' -f1)/task/*; do "
            "echo \"$(basename $t) $(tr ' ' _ < $t/comm) $(sed 's/.*) //' $t/stat | cut -d' ' -f1,12,13) $(cat $t/wchan)\"; done"))["out"]
        lines = out.split("\n")
        threads = {}
        for line in lines[1:]:
            f = line.split()
            if len(f) >= 5:
                threads[f[0]] = (f[1], f[2], int(f[3]) + int(f[4]), f[5] if len(f) > 5 else "?")
        return float(lines[0]), threads

    @staticmethod
    def ticks_used(before, after):
        """{thread id: CPU ticks used} between two `thread_sample`s (a thread started since
        `before` counts all of its ticks)."""
        return {tid: ticks - before[1].get(tid, (None, None, 0, None))[2] for tid, (_, _, ticks, _) in after[1].items()}

    @staticmethod
    def ticks_by_name(before, after):
        """CPU ticks each thread name used between two `thread_sample`s (threads of one name summed)."""
        used = {}
        for tid, ticks in Run.ticks_used(before, after).items():
            name = after[1][tid][0]
            used[name] = used.get(name, 0) + ticks
        return used

    def kiosk_threads(self):
        """Each of the kiosk's threads: its name, state, wait channel and the CPU ticks it used
        over about a second (for a failure's message: a hang and a busy loop look different)."""
        try:
            rc = self.vm.agent.call("wait", name="kiosk", timeout=0)["rc"]
            if rc is not None:
                return f"\n--- the kiosk is not running: it ended with {'signal ' + str(-rc) if rc < 0 else 'status ' + str(rc)}"
            before = self.thread_sample()
            time.sleep(1)
            after = self.thread_sample()
        except (VMError, ValueError, IndexError) as e:
            return f"\n--- kiosk threads: not read ({e})"
        used = self.ticks_used(before, after)
        rows = [f"{tid} {name}: state {state}, {used[tid]} ticks, waits in {wchan}"
                for tid, (name, state, _, wchan) in after[1].items()]
        return (f"\n--- kiosk threads (CPU ticks of 10 ms over {after[0] - before[0]:.1f} s of the guest's time):\n"
                + "\n".join(rows))

    def kiosk_log(self):
        """The end of the kiosk's log, to put after a failure's message."""
        text = self.log_text()
        return "\n--- kiosk log:\n" + text[-3000:] if text else "(no kiosk log)"

    def stop(self):
        """SIGTERM: the kiosk must exit with status 0 (within STOP_TIMEOUT: under TCG on a busy
        machine one frame took up to 13 s, and SIGTERM is seen between frames)."""
        self.vm.agent.call("signal", name="kiosk", signal=15)
        rc = self.vm.agent.call("wait", name="kiosk", timeout=STOP_TIMEOUT, within=STOP_TIMEOUT + 15)["rc"]
        self.app = None
        check(rc == 0, f"after SIGTERM the kiosk's exit status is {rc}, expected 0{self.kiosk_log()}")
        self.log_latency()

    def log_latency(self):
        """The kiosk's latency report at exit (DARKMODE_KIOSK_TIMING=1: input → screen per kind and
        path) as an info line, so that a run's log carries the guest's figures (under TCG:
        emulation's, not a board's)."""
        marker = "timing: latency: "
        report = [line.split(marker, 1)[1] for line in self.log_text().splitlines() if marker in line]
        if report:
            self.log(f"info: {self.name}: latency at exit: " + "; ".join(report))

    def cleanup(self):
        if self.app:
            try:
                self.vm.agent.call("kill", name="kiosk")
            except Exception:
                pass
            self.app = None
        for name in self.devices:
            try:
                self.vm.agent.call("close_device", name=name)
            except Exception:
                pass
        self.devices = []
        self.labels = []

    # --- input -------------------------------------------------------------------------------
    def device(self, name, kind, x, y, **extra):
        """A uinput touch device in the guest with axes x = [min, max], y likewise."""
        self.vm.agent.call("device", name=name, kind=kind, x=list(x), y=list(y), **extra)
        self.devices.append(name)
        self.labels.append(extra.get("label") or ("dmk-mouse" if kind == "mouse" else f"dmk-{kind}"))
        if self.udevd:
            settle(self)
        return (kind, tuple(x), tuple(y))

    @staticmethod
    def to_units(point, size, x_range, y_range):
        """Screen pixel position -> device units, for a device whose axes span the screen."""
        (px, py), (w, h) = point, size
        ux = x_range[0] + (px + 0.5) / w * (x_range[1] - x_range[0] + 1)
        uy = y_range[0] + (py + 0.5) / h * (y_range[1] - y_range[0] + 1)
        return (min(x_range[1], int(ux)), min(y_range[1], int(uy)))

    def kiosk_report(self):
        """What the kiosk is doing, for a failure's message: its threads (a loop asleep in a poll
        with input waiting, a busy loop), its state file and the end of its log."""
        return f"{self.kiosk_threads()}\n--- state: {self.state()}{self.kiosk_log()}"

    def wait_image(self, check_image, timeout, what):
        """`VM.wait_image`; on a timeout the failure says what the kiosk was doing (`kiosk_report`)."""
        try:
            return self.vm.wait_image(check_image, timeout, what)
        except VMError as e:
            raise Failure(f"{e}{self.kiosk_report()}") from None

    def wait_change(self, appearance, colour, what, started):
        """The preferences say `appearance` and the page's corners show `colour`; returns the
        seconds from `started` until both."""
        deadline = time.monotonic() + CHANGE_TIMEOUT
        while self.appearance() != appearance:
            check(time.monotonic() < deadline, f"{what}: preferences appearance is {self.appearance()}, "
                                               f"expected {appearance}{self.kiosk_log()}")
            time.sleep(0.05)
        try:
            image, _ = self.vm.wait_image(lambda im: all(c == colour for c in im.corners()), CHANGE_TIMEOUT,
                                          f"{what}: the page colour {colour}")
        except VMError as e:
            # The choice was saved and the page not drawn: the preferences now (a second change?),
            # the kiosk's threads (blocked in a wait, or busy) and its state say more.
            try:
                now = self.appearance()
            except VMError as x:
                now = f"not read ({x})"
            raise Failure(f"{e} (the preferences said {appearance}, now {now}){self.kiosk_report()}") from None
        took = time.monotonic() - started
        self.timings.setdefault("tap to page changed", []).append(took)
        self.shot(image, what.replace(" ", "-"))
        return took


def start_udevd(run):
    """udevd in the guest, once: devices made before it are announced by one trigger, later
    ones by udevd itself."""
    if run.udevd:
        return
    out = run.vm.agent.call("sh", cmd="pidof systemd-udevd >/dev/null || { /lib/systemd/systemd-udevd --daemon && "
                                      "udevadm trigger --action=add; }; udevadm settle -t 60", timeout=120, within=150)
    check(out["rc"] == 0, f"udevd in the guest: {out['err']}")
    run.udevd = True


SEATD_SOCKET = "/run/seatd.sock"


def start_seatd(run):
    """seatd for user nobody (cage runs as nobody: it refuses root), its socket there, and
    nobody's runtime folder. A socket left by an earlier seatd is removed first, so the wait
    below sees this one's (seatd removes a leftover itself, but only once it runs: a wait that
    saw the old file went on too early).

    CI once waited 30 s for the socket in vain (seatd still running, nothing else to go on).
    seatd is the test's fixture, not what is tested, so a seatd whose socket does not come in
    30 s is started once more; the first attempt's state (running or not, where it waits in
    the kernel, its log, the processes) is printed as an info line either way, and a second
    miss fails with the same."""
    for attempt in (1, 2):
        stop_seatd(run)   # one a failed scenario or attempt left
        run.vm.agent.call("sh", cmd=f"rm -f {SEATD_SOCKET}")
        log = f"{run.name}.seatd{'' if attempt == 1 else '-2'}.log"
        run.seatd = True
        run.vm.agent.call("start", name="seatd", args=["seatd", "-u", "nobody", "-l", "info"],
                          log=run.vm.guest_out(log))
        out = run.vm.agent.call("sh", cmd=f"i=0; while [ ! -S {SEATD_SOCKET} ] && [ $i -lt 300 ]; do sleep 0.1; "
                                          f"i=$((i+1)); done; test -S {SEATD_SOCKET}", timeout=60, within=90)
        if out["rc"] == 0:
            break
        missed = f"seatd's socket did not appear in 30 s (attempt {attempt}); {seatd_state(run, log)}"
        check(attempt == 1, missed)
        run.log(f"info: {run.name}: {missed}; starting seatd again")
    out = run.vm.agent.call("sh", cmd="mkdir -p -m 0700 /run/user/65534 && chown 65534:65534 /run/user/65534")
    check(out["rc"] == 0, f"nobody's runtime folder: {out['err']}")


def seatd_state(run, log):
    """What is known of a seatd whose socket did not come: running or not, its kernel wait
    channel and stack, its log, the related processes."""
    rc = run.vm.agent.call("wait", name="seatd", timeout=0)["rc"]
    state = "seatd still runs" if rc is None else f"seatd ended with status {rc}"
    kernel = run.vm.agent.call("sh", cmd="for p in $(pidof seatd); do echo \"$p wchan=$(cat /proc/$p/wchan)\"; "
                                         "cat /proc/$p/stack 2>/dev/null | head -8; done")["out"]
    processes = run.vm.agent.call("sh", cmd="ps -eo pid,stat,etimes,args | grep -E 'seatd|cage|darkmode' | grep -v grep")["out"]
    return f"{state}; in the kernel: {kernel!r}; its log: {read_host(run, log)!r}; processes: {processes!r}"


def stop_seatd(run):
    """SIGTERM (seatd removes its socket and puts the VT back), SIGKILL after 10 s; nothing
    when it was never started (a scenario that failed before)."""
    if not run.seatd:
        return
    run.seatd = False
    run.vm.agent.call("signal", name="seatd", signal=15)
    if run.vm.agent.call("wait", name="seatd", timeout=10, within=25)["rc"] is None:
        run.vm.agent.call("kill", name="seatd")


def cage_argv(argv, *env):
    """`cage -- argv` as the shipped unit runs it: as user nobody (cage refuses root) with its
    seat from seatd (`start_seatd`), WLR_RENDERER=pixman, SDL's wayland driver; `env`: more
    NAME=value words for the environment."""
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            "env", "HOME=/run/user/65534", "XDG_RUNTIME_DIR=/run/user/65534", "LIBSEAT_BACKEND=seatd",
            "WLR_RENDERER=pixman", "SDL_VIDEODRIVER=wayland", *env, "cage", "--", *argv]


def stop_cage(run):
    """SIGTERM to the kiosk under cage (started as the agent's program "kiosk"): cage ends with
    its client, status 0. (SIGTERM to cage 0.1.4 itself aborted it: "wl_display_terminate:
    Assertion `ret >= 0 || errno == EAGAIN' failed", status -6.)"""
    out = run.vm.agent.call("sh", cmd=f"kill -TERM $(pidof {os.path.basename(run.guest_binary)})")
    check(out["rc"] == 0, f"no kiosk process under cage to stop: {out['err']}")
    rc = run.vm.agent.call("wait", name="kiosk", timeout=STOP_TIMEOUT, within=STOP_TIMEOUT + 15)["rc"]
    run.app = None
    check(rc == 0, f"cage's exit status after the kiosk's SIGTERM is {rc}, expected 0{run.kiosk_log()}")
    run.log_latency()


def read_host(run, name):
    try:
        with open(run.vm.host_out(name), errors="replace") as f:
            return f.read()[-2000:]
    except OSError as error:
        return f"(unreadable: {error})"


def settle(run):
    run.vm.agent.call("sh", cmd="udevadm settle -t 60", timeout=90, within=120)


def kiosk_binary():
    """$KIOSK_BIN, else the release build's binary; None (with a FAIL line) when it cannot run."""
    binary = os.environ.get("KIOSK_BIN") or os.path.join(
        subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO, capture_output=True,
                       text=True, check=True).stdout.strip(), "darkmode-kiosk")
    if not os.access(binary, os.X_OK):
        print(f"FAIL: no kiosk binary at {binary}", file=sys.stderr)
        return None
    return binary


def scenario_parser(doc, default_gpu):
    """The options every scenario script takes: --gpu, --only, --accel, --shots, --list."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--gpu", default=default_gpu)
    p.add_argument("--only", default=None, help="scenarios to run (default: all but the pending ones)")
    p.add_argument("--accel", default=os.environ.get("DARKMODE_KIOSK_VM_ACCEL", "tcg"))
    p.add_argument("--shots", default=None)
    p.add_argument("--list", action="store_true")
    return p


def chosen_scenarios(a, order, scenarios, pending=(), run_pending=False):
    """The scenarios to run, in `order`: those named by --only, else all but the pending ones
    (all with `run_pending`). An int instead is the exit status: 0 after --list printed them,
    2 for an unknown name."""
    if a.list:
        for name in order:
            print(f"{name}{' (pending)' if name in pending else ''}: {' '.join((scenarios[name].__doc__ or '').split())}")
        return 0
    wanted = [n for n in (a.only.split(",") if a.only else order) if n]
    if not a.only and not run_pending:
        wanted = [n for n in wanted if n not in pending]
    unknown = [n for n in wanted if n not in scenarios]
    if unknown:
        print(f"FAIL: unknown scenarios {unknown}; --list names them", file=sys.stderr)
        return 2
    return [n for n in order if n in wanted]


def kiosk_and_shots(a, prefix):
    """The kiosk binary to run and the screenshot folder; None (with a FAIL line) without a binary."""
    binary = kiosk_binary()
    if not binary:
        return None
    shots = a.shots or tempfile.mkdtemp(prefix=prefix)
    os.makedirs(shots, exist_ok=True)
    return Kiosk(binary), shots


def scenario_main(label, doc, order, scenarios, default_gpu="bochs,virtio", pending=(), options=None,
                  run_pending=None, run_class=None, vm_options=None, names=None, before=None, after=None):
    """What every scenario script's main does: the common options (plus `options(parser)`'s),
    the scenarios chosen (`pending` ones only by name, or all when `run_pending(args)`), the
    kiosk binary and the screenshot folder, then each GPU's guest booted with a `Run` (or
    `run_class`; `vm_options` to `VM`) on which `before(run, args)`, the scenarios
    (`names(args, gpu, wanted)` when some cannot run on a GPU) and `after(run, args)` run.
    SIGTERM (a CI timeout, the e2e script's trap) unwinds like an exception, so every VM's
    `with` powers it off and QEMU is not left behind. Returns the exit status."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = scenario_parser(doc, default_gpu)
    if options:
        options(p)
    a = p.parse_args()
    wanted = chosen_scenarios(a, order, scenarios, pending, run_pending=bool(run_pending and run_pending(a)))
    if isinstance(wanted, int):
        return wanted
    started = kiosk_and_shots(a, f"{label}-shots.")
    if not started:
        return 1
    kiosk, shots = started

    def one(gpu, work, results):
        with guest_run(a, gpu, work, kiosk, shots, run_class, **(vm_options or {})) as run:
            if before:
                before(run, a)
            run_scenarios(run, names(a, gpu, wanted) if names else wanted, scenarios, results)
            if after:
                after(run, a)
    return run_guests(label, [g for g in a.gpu.split(",") if g], one, shots)


@contextlib.contextmanager
def guest_run(a, gpu, work, kiosk, shots, run_class=None, **vm_options):
    """The guest on `gpu` booted and a `Run` (or `run_class`) on it, its output mode said;
    `vm_options` go to `VM` (e.g. vnc=True)."""
    with VM(gpu=gpu, accel=a.accel, work=work, log=lambda m: print(m, flush=True), **vm_options) as vm:
        run = (run_class or Run)(vm, kiosk, shots, lambda m: print(m, flush=True))
        print(f"info: {gpu}: output mode {run.mode[0]}x{run.mode[1]}", flush=True)
        yield run


def run_scenarios(run, names, scenarios, results):
    """Each named scenario in turn on `run`'s guest, a result line each; the kiosk and the
    devices a scenario left are cleaned up after it, whatever happened."""
    gpu = run.vm.gpu
    for name in names:
        run.name = name
        started = time.monotonic()
        try:
            scenarios[name](run)
            results.append((gpu, name, True, ""))
            print(f"ok: {gpu} {name} ({time.monotonic() - started:.0f} s)", flush=True)
        except (Failure, VMError) as x:
            results.append((gpu, name, False, str(x)))
            print(f"FAIL: {gpu} {name}: {x}", flush=True)
        finally:
            run.cleanup()
