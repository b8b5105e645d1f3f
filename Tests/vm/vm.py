"""A QEMU guest running the host's own Debian kernel and root file system, for end-to-end tests
of the kiosk on KMS/DRM (Tests/e2e/kmsdrm-vm.sh; docs/run-as-kiosk.md says how to run it by
hand).

The guest boots Debian's linux-image-amd64 (the host's /boot/vmlinuz-*) with a busybox
initramfs (Tests/vm/make-initramfs.sh) that mounts the host's `/` read-only over 9p, so the
guest has the same SDL, Mesa, fonts and kiosk binary with no image to build. A second, writable
9p share (`out`) carries files out. The harness drives the guest three ways:
  - QMP (the QEMU machine protocol, JSON over a unix socket): `screendump` for pixels and
    `input-send-event` for the virtio tablet (an absolute pointer, axes 0..32767);
  - the guest agent (Tests/vm/guest-agent.py) over a virtio-serial port: programs, shell,
    uinput touch devices, the console's KD mode;
  - the serial console (ttyS0) to a log file, for timings and for diagnosis when it fails.
Standard library only. Every wait polls for a condition with a deadline; nothing sleeps a fixed
time and hopes.
"""
import glob
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


class VMError(Exception):
    """A failure of the harness or the guest (not of the kiosk): the message says which."""


def kernel_version():
    """The newest kernel installed under /boot whose modules are installed too."""
    found = []
    for path in glob.glob("/boot/vmlinuz-*"):
        version = path[len("/boot/vmlinuz-"):]
        if os.path.isdir(f"/lib/modules/{version}"):
            found.append(version)
    if not found:
        raise VMError("no /boot/vmlinuz-* with matching /lib/modules (install linux-image-amd64)")
    return sorted(found, key=lambda v: [int(x) if x.isdigit() else x for x in v.replace("-", ".").split(".")])[-1]


def make_initramfs(version, out):
    subprocess.run([os.path.join(HERE, "make-initramfs.sh"), version, out], check=True)


# --- images ---------------------------------------------------------------------------------
class Image:
    """An RGB image (from a PPM screendump): width, height, 3 bytes a pixel."""

    def __init__(self, width, height, data):
        self.width, self.height, self.data = width, height, data

    @staticmethod
    def read_ppm(path):
        with open(path, "rb") as f:
            raw = f.read()
        fields, pos = [], 0
        while len(fields) < 4:                  # magic, width, height, maxval
            while raw[pos:pos + 1].isspace():
                pos += 1
            if raw[pos:pos + 1] == b"#":
                pos = raw.index(b"\n", pos) + 1
                continue
            end = pos
            while not raw[end:end + 1].isspace():
                end += 1
            fields.append(raw[pos:end])
            pos = end
        if fields[0] != b"P6" or fields[3] != b"255":
            raise VMError(f"{path}: not an 8-bit PPM (P6) screendump")
        w, h = int(fields[1]), int(fields[2])
        return Image(w, h, raw[pos + 1:pos + 1 + w * h * 3])

    def pixel(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.data[i:i + 3])

    def corners(self, inset=5):
        w, h = self.width, self.height
        return [self.pixel(x, y) for x, y in ((inset, inset), (w - 1 - inset, inset),
                                              (inset, h - 1 - inset), (w - 1 - inset, h - 1 - inset))]

    def count_unlike(self, x, y, w, h, colour, tolerance=0):
        """Pixels of the rectangle (clipped to the image) further than `tolerance` per channel
        from `colour`. Rows that are all `colour` are skipped whole."""
        x0, x1 = max(0, x), min(self.width, x + w)
        y0, y1 = max(0, y), min(self.height, y + h)
        if x0 >= x1 or y0 >= y1:
            return 0
        plain = bytes(colour) * (x1 - x0)
        n = 0
        for yy in range(y0, y1):
            start = (yy * self.width + x0) * 3
            row = self.data[start:start + (x1 - x0) * 3]
            if row == plain:
                continue
            for i in range(0, len(row), 3):
                if any(abs(row[i + c] - colour[c]) > tolerance for c in range(3)):
                    n += 1
        return n

    def count_unlike_outside(self, rects, colour):
        """Pixels off `colour` anywhere but inside the (possibly overlapping) rectangles
        (x, y, w, h): each pixel counted once."""
        n = 0
        for y in range(self.height):
            spans = sorted((max(0, rx), min(self.width, rx + rw)) for rx, ry, rw, rh in rects if ry <= y < ry + rh)
            x = 0
            for a, b in spans + [(self.width, self.width)]:
                if a > x:
                    n += self.count_unlike(x, y, a - x, 1, colour)
                x = max(x, b)
        return n

    def write_png(self, path):
        """The image as an 8-bit RGB PNG (zlib only)."""
        stride = self.width * 3
        rows = b"".join(b"\x00" + self.data[y * stride:(y + 1) * stride] for y in range(self.height))

        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
               + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
        with open(path + ".tmp", "wb") as f:
            f.write(png)
        os.replace(path + ".tmp", path)


# --- line protocols over unix sockets -------------------------------------------------------
class LineSocket:
    def __init__(self, path, deadline):
        self.sock = None
        last = None
        while time.monotonic() < deadline:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                self.sock = s
                break
            except OSError as x:
                last = x
                s.close()
                time.sleep(0.05)
        if self.sock is None:
            raise VMError(f"cannot connect to {path}: {last}")
        self.buffer = b""

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def receive(self, deadline):
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError from None
            if not chunk:
                raise VMError("connection closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        self.sock.close()


class QMP:
    """QEMU's machine protocol: one command at a time, asynchronous events skipped."""

    def __init__(self, path, deadline):
        self.line = LineSocket(path, deadline)
        self.line.receive(deadline)                      # the greeting
        self.command("qmp_capabilities")

    def command(self, name, timeout=30, **arguments):
        self.line.send({"execute": name, "arguments": arguments} if arguments else {"execute": name})
        deadline = time.monotonic() + timeout
        while True:
            try:
                answer = self.line.receive(deadline)
            except TimeoutError:
                raise VMError(f"QMP {name}: no answer within {timeout} s") from None
            if "return" in answer:
                return answer["return"]
            if "error" in answer:
                raise VMError(f"QMP {name}: {answer['error'].get('desc', answer['error'])}")


class Agent:
    """The guest agent (guest-agent.py) over the virtio-serial port's host socket."""

    def __init__(self, path, deadline):
        self.line = LineSocket(path, deadline)
        self.next_id = 0
        # The guest may not be listening yet: ping until it answers.
        while True:
            try:
                self.call("ping", within=min(2, max(0.1, deadline - time.monotonic())))
                return
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise VMError("the guest agent did not answer") from None

    def call(self, op, within=60, **request):
        """One request; `within` bounds the wait for its answer (s). The request's own fields
        (e.g. a guest-side `timeout`) go in **request."""
        self.next_id += 1
        my = self.next_id
        self.line.send(dict(op=op, id=my, **request))
        deadline = time.monotonic() + within
        while True:
            answer = self.line.receive(deadline)
            if answer.get("id") != my:
                continue                                 # a late answer to an earlier ping
            if not answer.get("ok"):
                raise VMError(f"guest agent {op}: {answer.get('error')}")
            return answer


# --- acceleration ---------------------------------------------------------------------------
def probe_kvm(kernel, initrd, timeout=15):
    """Whether KVM boots this kernel to the initramfs's root mount within `timeout` s. A nested
    /dev/kvm may open and then abort ("failed to set MSR") or hang in the decompressor, so a
    real boot is the only test; None when /dev/kvm is not there or not usable."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    work = os_tmpdir("dmk-kvm-probe")
    try:
        serial = os.path.join(work, "serial.log")
        args = ["qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-m", "512", "-smp", "1",
                "-display", "none", "-vga", "none", "-no-reboot", "-nodefaults",
                "-kernel", kernel, "-initrd", initrd, "-append", "console=ttyS0 loglevel=3 dmk.probe panic=-1",
                "-serial", f"file:{serial}",
                "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"]
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        ok = False
        while time.monotonic() < deadline:
            if os.path.exists(serial) and b"dmk-probe-ok" in open(serial, "rb").read():
                ok = True
                break
            if p.poll() is not None:
                break
            time.sleep(0.1)
        p.kill()
        p.wait()
        return ok
    finally:
        shutil.rmtree(work, ignore_errors=True)


def os_tmpdir(prefix):
    import tempfile
    return tempfile.mkdtemp(prefix=prefix + ".")


# --- the machine ----------------------------------------------------------------------------
class VM:
    """One guest: `with VM(gpu="bochs") as vm: ...` boots it, and on leaving (any exception
    included) powers it off and kills QEMU if it lingers."""

    GPUS = {
        # -vga std: QEMU's Bochs VBE adapter, Linux's bochs DRM driver (no render node).
        "bochs": (["-vga", "std"], "bochs"),
        # virtio-gpu in 2D mode (no virgl): a scanout per output, the virtio-gpu DRM driver.
        "virtio": (["-vga", "none", "-device", "virtio-gpu-pci"], "virtio_gpu"),
    }

    def __init__(self, gpu="bochs", accel="tcg", memory=1024, cpus=2, work=None, log=print, tablet=True,
                 boot_timeout=180, init=None, append="", wait_agent=True, shares=None):
        # init: the program the initramfs hands over to (default Tests/vm/guest-init.sh);
        # append: more kernel command line (e.g. "dmk.overlay" for a writable root).
        self.init = init or os.path.join(HERE, "guest-init.sh")
        self.append = append
        # wait_agent=False: boot() returns once the root is mounted (the caller watches the
        # screen meanwhile) and connect_agent() waits for the agent later.
        self.wait_agent = wait_agent
        # shares: more read-only 9p shares, {tag: host folder} (e.g. initramfs-init's bootlayer).
        self.shares = shares or {}
        if gpu not in self.GPUS:
            raise VMError(f"unknown gpu {gpu} (one of {', '.join(self.GPUS)})")
        self.gpu, self.accel, self.memory, self.cpus = gpu, accel, memory, cpus
        self.log = log
        self.tablet = tablet
        self.boot_timeout = boot_timeout
        self.work = work or os_tmpdir(f"dmk-vm-{gpu}")
        self.out = os.path.join(self.work, "out")     # the guest's /run/vmout
        os.makedirs(self.out, exist_ok=True)
        os.chmod(self.out, 0o777)
        self.qemu = None
        self.qmp = None
        self.agent = None
        self.timings = {}
        self.shots = 0

    # Paths inside the guest of a file in the results share.
    def guest_out(self, name):
        return "/run/vmout/" + name

    def host_out(self, name):
        return os.path.join(self.out, name)

    def __enter__(self):
        try:
            self.boot()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def boot(self):
        version = kernel_version()
        kernel = f"/boot/vmlinuz-{version}"
        initrd = os.path.join(self.work, "initrd.gz")
        make_initramfs(version, initrd)
        if not os.access(kernel, os.R_OK):
            raise VMError(f"cannot read {kernel} (Debian installs it 0600: run as root)")
        if self.accel == "auto":
            t = time.monotonic()
            self.accel = "kvm" if probe_kvm(kernel, initrd) else "tcg"
            self.log(f"info: /dev/kvm probe: {self.accel} ({time.monotonic() - t:.1f} s)")
        cpu = ["-accel", "kvm", "-cpu", "host"] if self.accel == "kvm" else ["-accel", "tcg,thread=multi", "-cpu", "max"]
        gpu_args, driver = self.GPUS[self.gpu]
        self.serial = os.path.join(self.work, "serial.log")
        qmp = os.path.join(self.work, "qmp.sock")
        agent = os.path.join(self.work, "agent.sock")
        append = (f"console=tty0 console=ttyS0 loglevel=4 panic=-1 dmk.init={self.init} dmk.gpu={driver} {self.append}").strip()
        args = ["qemu-system-x86_64", *cpu, "-m", str(self.memory), "-smp", str(self.cpus),
                "-display", "none", *gpu_args, "-no-reboot", "-nic", "none",
                "-kernel", kernel, "-initrd", initrd, "-append", append,
                "-serial", f"file:{self.serial}", "-monitor", "none",
                "-qmp", f"unix:{qmp},server=on,wait=off",
                "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
                "-virtfs", f"local,path={self.out},mount_tag=vmout,security_model=none,multidevs=remap",
                "-device", "virtio-serial-pci",
                "-chardev", f"socket,id=agent,path={agent},server=on,wait=off",
                "-device", "virtserialport,chardev=agent,name=dmk.agent"]
        for tag, path in self.shares.items():
            args += ["-virtfs", f"local,path={path},mount_tag={tag},security_model=none,readonly=on,multidevs=remap"]
        if self.tablet:
            args += ["-device", "virtio-tablet-pci"]
        started = time.monotonic()
        self.qemu = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.work, "qemu.log"), "wb"),
                                     stderr=subprocess.STDOUT)
        # For a caller's trap that must not leave QEMU behind whatever happens to this process.
        if os.environ.get("DMK_VM_PIDFILE"):
            with open(os.environ["DMK_VM_PIDFILE"], "a") as f:
                f.write(f"{self.qemu.pid}\n")
        deadline = started + self.boot_timeout
        self.started = started
        self.qmp = QMP(qmp, started + 30)
        root = self.wait_serial(b"initramfs: root mounted", deadline)
        self.timings["qemu start to root mounted"] = root - started
        self.agent_path = agent
        if self.wait_agent:
            self.connect_agent(deadline)
        else:
            self.log(f"info: {self.gpu} guest ({self.accel}): root mounted {root - started:.1f} s after QEMU started")

    def connect_agent(self, deadline):
        self.agent = Agent(self.agent_path, deadline)
        self.timings["qemu start to agent"] = time.monotonic() - self.started
        self.log(f"info: {self.gpu} guest ({self.accel}): root mounted {self.timings['qemu start to root mounted']:.1f} s "
                 f"after QEMU started, agent answering at {self.timings['qemu start to agent']:.1f} s")

    def serial_text(self):
        try:
            with open(self.serial, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def wait_serial(self, marker, deadline):
        while True:
            try:
                with open(self.serial, "rb") as f:
                    if marker in f.read():
                        return time.monotonic()
            except OSError:
                pass
            if self.qemu.poll() is not None:
                raise VMError(f"QEMU exited ({self.qemu.returncode}) before the guest printed {marker.decode()}:\n"
                              + self.tail())
            if time.monotonic() > deadline:
                raise VMError(f"the guest did not print {marker.decode()} in time:\n" + self.tail())
            time.sleep(0.1)

    def tail(self, lines=30):
        text = self.serial_text().splitlines()[-lines:]
        qemu = ""
        try:
            qemu = open(os.path.join(self.work, "qemu.log")).read().strip()
        except OSError:
            pass
        return "--- serial:\n" + "\n".join(text) + (f"\n--- qemu:\n{qemu}" if qemu else "")

    def close(self):
        if self.agent:
            try:
                self.agent.call("quit", within=5)
            except Exception:
                pass
        if self.qemu and self.qemu.poll() is None:
            try:
                self.qemu.wait(timeout=10)          # the guest powers off after the agent quits
            except subprocess.TimeoutExpired:
                pass
        if self.qemu and self.qemu.poll() is None:
            try:
                self.qmp and self.qmp.command("quit", timeout=5)
            except Exception:
                pass
            try:
                self.qemu.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.qemu.kill()
                self.qemu.wait()

    # --- seeing -----------------------------------------------------------------------------
    def screendump(self):
        path = os.path.join(self.work, "dump.ppm")
        self.qmp.command("screendump", filename=path)
        return Image.read_ppm(path)

    def wait_image(self, check, timeout, what):
        """Screendumps until check(image) is true: (image, seconds waited). On timeout a
        VMError naming `what`, with the last image saved as what-timeout.png in the work folder."""
        started = time.monotonic()
        while True:
            image = self.screendump()
            if check(image):
                return image, time.monotonic() - started
            if time.monotonic() - started > timeout:
                path = os.path.join(self.work, "timeout.png")
                image.write_png(path)
                raise VMError(f"{what}: not seen within {timeout} s (last screendump {image.width}x{image.height}, "
                              f"corners {image.corners()}; saved {path})")
            time.sleep(0.05)

    # --- the tablet -------------------------------------------------------------------------
    def tablet_tap(self, x, y, hold=0.08):
        """A tap of QEMU's virtio tablet at (x, y) in its own units (0..32767 on both axes)."""
        move = [{"type": "abs", "data": {"axis": "x", "value": int(x)}},
                {"type": "abs", "data": {"axis": "y", "value": int(y)}}]
        self.qmp.command("input-send-event", events=move)
        self.qmp.command("input-send-event", events=[{"type": "btn", "data": {"down": True, "button": "left"}}])
        time.sleep(hold)                        # the press's length, not a wait for a result
        self.qmp.command("input-send-event", events=[{"type": "btn", "data": {"down": False, "button": "left"}}])


# --- many guests ----------------------------------------------------------------------------
def run_guests(label, guests, one, shots):
    """Runs `one(guest, work, results)` for each guest name (a GPU, a unit) in a fresh work
    folder; `one` appends (guest, step, passed, message) to `results`. A guest that does not
    boot, or a harness error, is one failed step. The work folder (serial log, the guest's
    files) is kept when something of that guest failed, or with DMK_VM_KEEP set. Prints the
    summary line "LABEL: N of M passed"; returns the exit status (1 when anything failed)."""
    results = []
    for guest in guests:
        t0 = time.monotonic()
        before = len([r for r in results if not r[2]])
        work = tempfile.mkdtemp(prefix=f"dmk-vm-{guest}.")
        try:
            one(guest, work, results)
        except VMError as x:
            results.append((guest, "boot", False, str(x)))
            print(f"FAIL: {guest} guest: {x}", flush=True)
        except Exception:
            results.append((guest, "harness", False, traceback.format_exc()))
            print(f"FAIL: {guest} harness error:\n{traceback.format_exc()}", flush=True)
        print(f"info: {guest}: {time.monotonic() - t0:.0f} s in all; screenshots in {shots}", flush=True)
        if len([r for r in results if not r[2]]) > before or os.environ.get("DMK_VM_KEEP"):
            print(f"info: {guest}: the guest's serial log and files are kept in {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    failed = [r for r in results if not r[2]]
    print(f"{label}: {len(results) - len(failed)} of {len(results)} passed" +
          ("" if not failed else "; failed: " + ", ".join(f"{g} {n}" for g, n, _, _ in failed)), flush=True)
    return 1 if failed else 0
