"""A QEMU guest running the host's own Debian kernel and root file system, for end-to-end tests
of the kiosk on KMS/DRM (Tests/e2e/kmsdrm-vm.sh; docs/run-as-kiosk.md says how to run it by
hand).

The guest boots Debian's linux-image-amd64 (the host's /boot/vmlinuz-*) with a busybox
initramfs (Tests/vm/make-initramfs.sh) that mounts the host's `/` read-only over 9p, so the
guest has the same SDL, Mesa and fonts with no image to build. A second, writable 9p share
(`vmout`, the guest's /run/vmout) carries files out.

What the guest needs from the checkout (guest-init.sh, guest-agent.py, the kiosk binary, any
file a scenario passes in) is NOT read through the host's root: the checkout may live under
/tmp or /root (CI's and most people's), which the guest hides under its own tmpfs (initramfs-init
mounts fresh ones on /tmp, /var/tmp, /root and /run; systemd, in the boot test, its own on /run
and /tmp). The harness copies those files into a staging folder of its work folder (`stage/`,
made per guest), shared read-only over a third 9p tag (`dmkstage`), which the initramfs mounts
at the fixed GUEST_STAGE (/mnt/dmk, on a tmpfs over /mnt: outside everything the guest or
systemd mounts). The kernel command line names only fixed guest paths (`dmk.init=/mnt/dmk/
guest-init.sh`), so the checkout's path, spaces and all, never reaches it. `VM.stage_file()`
adds a file; `Run` (kmsdrm_scenarios.py) stages the kiosk binary that way.

A guest that goes wrong says so at once: QEMU exiting (the initramfs powers off on any failure)
ends every wait with the console's last lines, and an agent that does not answer within
AGENT_TIMEOUT s of the root's mount ends the boot the same way (see there for the numbers).
The harness drives the guest three ways:
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
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the guest sees the staged files (initramfs-init mounts the 9p tag STAGE_TAG there).
GUEST_STAGE = "/mnt/dmk"
STAGE_TAG = "dmkstage"
# The guest's own files from this folder, staged for every guest.
GUEST_FILES = ("guest-init.sh", "guest-agent.py")
# How long the agent may take to answer after the initramfs printed "root mounted" (the moment
# it hands over to guest-init.sh), by default. Measured under TCG on the shared 2-core machine:
# root mounted -> agent answering 9-23 s (load average 8-13); 60 s leaves a margin of 2.5 and
# a guest whose agent is missing or hangs fails a minute after its root is mounted, not half an
# hour later. systemd as PID 1 (deb_boot_scenarios.py) takes longer and sets its own bound.
# DMK_VM_AGENT_TIMEOUT=S sets another default (a slower machine; Tests/e2e/vm-any-path.sh's
# broken guests, which need not wait the whole bound to show that it ends the run).
AGENT_TIMEOUT = float(os.environ.get("DMK_VM_AGENT_TIMEOUT") or 60)


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
                raise ConnectionError("the connection was closed")
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
            except OSError as x:                         # QEMU gone
                raise VMError(f"QMP {name}: the connection to QEMU failed ({x})") from None
            if "return" in answer:
                return answer["return"]
            if "error" in answer:
                raise VMError(f"QMP {name}: {answer['error'].get('desc', answer['error'])}")


class Agent:
    """The guest agent (guest-agent.py) over the virtio-serial port's host socket. `lost`, when
    given, is called when the agent cannot be reached or stops answering: it returns the
    diagnosis to add (the VM's: whether QEMU still runs, the console's last lines)."""

    def __init__(self, path, deadline, lost=None):
        self.lost = lost or (lambda: "")
        try:
            self.line = LineSocket(path, deadline)
        except VMError as x:
            raise VMError(f"the guest agent's socket: {x}" + self.lost()) from None
        self.next_id = 0
        # The guest may not be listening yet: ping until it answers.
        while True:
            try:
                self._call("ping", within=min(2, max(0.1, deadline - time.monotonic())))
                return
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise VMError("the guest agent did not answer" + self.lost()) from None
            except OSError as x:                  # QEMU gone: the socket reset or closed
                raise VMError(f"the guest agent's connection failed ({x})" + self.lost()) from None

    def call(self, op, within=60, **request):
        """One request; `within` bounds the wait for its answer (s). The request's own fields
        (e.g. a guest-side `timeout`) go in **request. A VMError when it fails, with why."""
        try:
            return self._call(op, within, **request)
        except TimeoutError:
            raise VMError(f"guest agent {op}: no answer within {within} s" + self.lost()) from None
        except OSError as x:
            raise VMError(f"guest agent {op}: the connection failed ({x})" + self.lost()) from None

    def _call(self, op, within, **request):
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
                 boot_timeout=180, init=None, append="", wait_agent=True, shares=None, agent_timeout=AGENT_TIMEOUT,
                 vnc=False):
        # init: the program the initramfs hands over to, a path in the guest (default the staged
        # Tests/vm/guest-init.sh); append: more kernel command line (e.g. "dmk.overlay" for a
        # writable root). Both fixed guest words: the initramfs splits the command line at spaces.
        self.init = init or f"{GUEST_STAGE}/guest-init.sh"
        self.append = append
        if not self.init.startswith("/") or any(c.isspace() for c in self.init):
            raise VMError(f"init {self.init!r}: not an absolute guest path without spaces (stage the file: "
                          f"VM.stage_file)")
        if self.init.startswith(HERE + "/"):
            raise VMError(f"init {self.init!r} is a path in the checkout, which the guest may not see: "
                          f"use {GUEST_STAGE}/{os.path.basename(self.init)} (staged) instead")
        # agent_timeout: the bound on the agent's first answer, counted from the root's mount.
        self.agent_timeout = agent_timeout
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
        # vnc: a VNC server on a socket in the work folder, for `set_display_size` (the size a
        # VNC client asks for reaches virtio-gpu's guest as a new preferred mode and a hot-plug).
        self.vnc = vnc
        self.vnc_socket = None
        self.boot_timeout = boot_timeout
        self.work = work or os_tmpdir(f"dmk-vm-{gpu}")
        self.out = os.path.join(self.work, "out")     # the guest's /run/vmout
        os.makedirs(self.out, exist_ok=True)
        os.chmod(self.out, 0o777)
        # The staging share: the guest's GUEST_STAGE (read-only in the guest). 0755 all the way,
        # so an unprivileged user in the guest (cage_seatd's nobody) can run what is staged.
        self.stage = os.path.join(self.work, "stage")
        os.makedirs(self.stage, exist_ok=True)
        os.chmod(self.stage, 0o755)
        self.staged = {}
        for name in GUEST_FILES:
            self.stage_file(os.path.join(HERE, name))
        self.qemu = None
        self.qmp = None
        self.agent = None
        self.agent_thread = None
        self.agent_error = None
        self.root_mounted = None
        self.timings = {}
        self.shots = 0

    def stage_file(self, path, name=None):
        """Copies the host file `path` into the staging share (as `name`, default its own name;
        mode kept) and returns its path in the guest. Before boot() or after it (a name the
        guest has not looked up yet is read from the share). The same file twice: one copy."""
        name = name or os.path.basename(path)
        if "/" in name or any(c.isspace() for c in name):
            raise VMError(f"stage_file: {name!r} is not a plain file name without spaces")
        if self.staged.get(name) not in (None, os.path.realpath(path)):
            raise VMError(f"stage_file: {name} is already staged from {self.staged[name]}, not {path}")
        if name not in self.staged:
            if not os.path.isfile(path):
                raise VMError(f"stage_file: no file at {path}")
            target = os.path.join(self.stage, name)
            shutil.copy2(path, target + ".tmp")
            os.chmod(target + ".tmp", os.stat(path).st_mode & 0o755 | 0o444)
            os.replace(target + ".tmp", target)
            self.staged[name] = os.path.realpath(path)
        return f"{GUEST_STAGE}/{name}"

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
                "-virtfs", f"local,path={self.stage},mount_tag={STAGE_TAG},security_model=none,readonly=on,multidevs=remap",
                "-device", "virtio-serial-pci",
                "-chardev", f"socket,id=agent,path={agent},server=on,wait=off",
                "-device", "virtserialport,chardev=agent,name=dmk.agent"]
        for tag, path in self.shares.items():
            args += ["-virtfs", f"local,path={path},mount_tag={tag},security_model=none,readonly=on,multidevs=remap"]
        if self.tablet:
            args += ["-device", "virtio-tablet-pci"]
        if self.vnc:
            args += ["-vnc", f"unix:{os.path.join(self.work, 'vnc.sock')}"]
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
        self.root_mounted = root
        self.timings["qemu start to root mounted"] = root - started
        self.agent_path = agent
        if self.wait_agent:
            self.connect_agent(deadline)
        else:
            self.log(f"info: {self.gpu} guest ({self.accel}): root mounted {root - started:.1f} s after QEMU started")
            # The agent is sought meanwhile: a guest whose agent never answers fails every wait
            # (wait_image, connect_agent) once the bound is past, not when a page timeout ends.
            self.agent_thread = threading.Thread(target=self._find_agent, daemon=True)
            self.agent_thread.start()

    def agent_deadline(self):
        return self.root_mounted + self.agent_timeout

    def _find_agent(self):
        try:
            self.agent_found = Agent(self.agent_path, self.agent_deadline(), lost=self.lost)
            self.agent_found_at = time.monotonic()
        except VMError as x:
            self.agent_error = x
        except Exception as x:                      # the harness's own fault: say which
            self.agent_error = VMError(f"seeking the guest agent: {traceback.format_exc()}{x}")

    def connect_agent(self, deadline=None):
        """Until the agent answers: at most until the root's mount + agent_timeout (or
        `deadline`, if earlier). Fails with a VMError saying why, with the console's last lines;
        once failed, it fails again at once (a second wait would find nothing new)."""
        if self.agent:
            return
        if self.agent_error:
            raise self.agent_error
        if self.agent_thread:
            self.agent_thread.join()
            self.agent_thread = None
            if self.agent_error:
                raise self.agent_error
            self.agent, answered = self.agent_found, self.agent_found_at
        else:
            bound = self.agent_deadline() if deadline is None else min(deadline, self.agent_deadline())
            try:
                self.agent = Agent(self.agent_path, bound, lost=self.lost)
            except VMError as x:
                self.agent_error = x
                raise
            answered = time.monotonic()
        self.timings["qemu start to agent"] = answered - self.started
        self.log(f"info: {self.gpu} guest ({self.accel}): root mounted {self.timings['qemu start to root mounted']:.1f} s "
                 f"after QEMU started, agent answering at {self.timings['qemu start to agent']:.1f} s")

    def lost(self):
        """Why the guest cannot be reached, for a failure's message: QEMU's exit or the bound
        passed, then the console's last lines."""
        if self.qemu:
            try:        # a closed connection comes a moment before QEMU's exit: let it be seen
                self.qemu.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        if self.qemu and self.qemu.poll() is not None:
            why = (f"QEMU exited (status {self.qemu.returncode}; seen {time.monotonic() - self.started:.1f} s after "
                   f"it started): the guest powered off or crashed")
        elif self.root_mounted and time.monotonic() >= self.agent_deadline() and not self.agent:
            why = (f"no answer from the guest agent within {self.agent_timeout:g} s of the root's mount "
                   f"(root mounted {self.root_mounted - self.started:.1f} s after QEMU started, given up at "
                   f"{time.monotonic() - self.started:.1f} s; the guest runs {self.init}, its agent "
                   f"{GUEST_STAGE}/guest-agent.py)")
        else:
            why = "QEMU still runs"
        return f"\n{why}; the guest's console, last lines:\n" + self.tail()

    def check_guest(self):
        """Raises a VMError, with the console's last lines, once the guest is known lost: QEMU
        exited, or the agent sought in the background did not answer within its bound."""
        if self.qemu and self.qemu.poll() is not None:
            raise VMError("the guest is gone:" + self.lost())
        if self.agent_error:
            raise self.agent_error

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
                raise VMError(f"QEMU exited (status {self.qemu.returncode}) before the guest printed "
                              f"{marker.decode()}; the guest's console, last lines:\n" + self.tail())
            if time.monotonic() > deadline:
                raise VMError(f"the guest did not print {marker.decode()} in time:\n" + self.tail())
            time.sleep(0.1)

    def console_lines(self):
        """The serial console as lines a person reads: colour and cursor escapes removed, a
        carriage return taken as a line break (systemd's progress lines), blank lines dropped."""
        text = re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|[@-Z\\-_])", "", self.serial_text()).replace("\r", "\n")
        return [line.rstrip() for line in text.split("\n") if line.strip()]

    def tail(self, lines=30):
        console = self.console_lines()
        text = console[-lines:]
        # Earlier lines about the agent (systemd's "Started dmk-agent.service", guest-init's
        # "the agent ended"), when the last lines have scrolled past them.
        agent = [l for l in console[:-lines] if "agent" in l.lower()][-5:]
        if agent:
            text = ["(earlier lines naming the agent:)", *agent, "(the last lines:)", *text]
        qemu = ""
        try:
            qemu = open(os.path.join(self.work, "qemu.log")).read().strip()
        except OSError:
            pass
        return "--- serial:\n" + "\n".join(text) + (f"\n--- qemu:\n{qemu}" if qemu else "")

    def close(self):
        if self.vnc_socket:
            self.vnc_socket.close()
            self.vnc_socket = None
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

    # --- the display's size (VNC) ----------------------------------------------------------------
    def set_display_size(self, width, height, timeout=30):
        """Asks QEMU for another display size the way a VNC viewer resized by its user does
        (RFB 3.8, no authentication, SetDesktopSize with one screen): a display with UI info
        (virtio-gpu) tells its guest of a new preferred mode, whose driver sends a real
        HOTPLUG=1 uevent. The connection stays open (the next call reuses it). A VMError when
        the VM has no VNC server or QEMU answers otherwise than expected."""
        if not self.vnc:
            raise VMError("set_display_size needs VM(vnc=True)")
        deadline = time.monotonic() + timeout

        def read(n):
            data = b""
            while len(data) < n:
                self.vnc_socket.settimeout(max(0.1, deadline - time.monotonic()))
                chunk = self.vnc_socket.recv(n - len(data))
                if not chunk:
                    raise VMError("the VNC server closed the connection")
                data += chunk
            return data
        if self.vnc_socket is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(os.path.join(self.work, "vnc.sock"))
            self.vnc_socket = s
            version = read(12)
            if not version.startswith(b"RFB 003."):
                raise VMError(f"not a VNC server: {version!r}")
            s.sendall(b"RFB 003.008\n")
            types = read(read(1)[0])
            if 1 not in types:
                raise VMError(f"the VNC server wants authentication (types {list(types)})")
            s.sendall(b"\x01")
            if struct.unpack(">I", read(4))[0] != 0:
                raise VMError("the VNC server refused the connection")
            s.sendall(b"\x01")                                        # ClientInit: shared
            read(20)                                                  # ServerInit: size, pixel format
            read(struct.unpack(">I", read(4))[0])                     # its name
            # SetEncodings: raw, and the ExtendedDesktopSize pseudo-encoding (-308).
            s.sendall(struct.pack(">BBHii", 2, 0, 2, 0, -308))
        # SetDesktopSize: width, height, one screen (id 0 at 0,0, flags 0).
        self.vnc_socket.sendall(struct.pack(">BBHHBB", 251, 0, width, height, 1, 0)
                                + struct.pack(">IHHHHI", 0, 0, 0, width, height, 0))

    # --- seeing -----------------------------------------------------------------------------
    def screendump(self):
        path = os.path.join(self.work, "dump.ppm")
        try:
            self.qmp.command("screendump", filename=path)
        except VMError as x:
            raise VMError(f"{x}" + self.lost()) from None
        return Image.read_ppm(path)

    def wait_image(self, check, timeout, what):
        """Screendumps until check(image) is true: (image, seconds waited). On timeout a
        VMError naming `what`, with the last image saved as what-timeout.png in the work folder."""
        started = time.monotonic()
        while True:
            self.check_guest()
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
