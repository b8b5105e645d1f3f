#!/usr/bin/python3
"""A stand-in for systemd's notify socket, for end-to-end tests.

    notify-listener.py SOCKET_PATH LOG_FILE

Binds an AF_UNIX datagram socket at SOCKET_PATH (pass it to the process under test as
NOTIFY_SOCKET), then appends one JSON line per datagram to LOG_FILE:

    {"t": <CLOCK_MONOTONIC seconds>, "pid": <sender pid>, "fields": {"READY": "1", ...}}

The sender's pid comes from SCM_CREDENTIALS, as systemd gets it (under cage the kiosk, not
cage, sends). File descriptors passed along (sd_notify_barrier's BARRIER=1) are closed at
once, which releases the barrier as systemd does after processing. Runs until SIGTERM or
SIGINT, then removes the socket. Debian's /usr/bin/python3, standard library only.
"""
import array, json, os, signal, socket, struct, sys, time

def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: notify-listener.py SOCKET_PATH LOG_FILE\n")
        return 2
    path, log_path = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    sock.bind(path)
    os.chmod(path, 0o777)  # the kiosk may run as another (unprivileged) user
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    # A parent may have spawned us with these blocked (posix_spawn keeps the signal mask).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    sock.settimeout(0.1)
    fd_space = socket.CMSG_SPACE(16 * array.array("i").itemsize)
    cred_space = socket.CMSG_SPACE(struct.calcsize("3i"))
    with open(log_path, "a", buffering=1) as log:
        while not stop:
            try:
                data, ancillary, _flags, _addr = sock.recvmsg(4096, fd_space + cred_space)
            except (socket.timeout, InterruptedError):
                continue
            now = time.monotonic()
            pid = None
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds = array.array("i")
                    fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
                    for fd in fds:
                        os.close(fd)
                elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid, _uid, _gid = struct.unpack("3i", payload[:12])
            text = data.decode("utf-8", "replace")
            fields = dict(line.split("=", 1) for line in text.split("\n") if "=" in line)
            log.write(json.dumps({"t": round(now, 6), "pid": pid, "fields": fields}) + "\n")
    sock.close()
    os.unlink(path)
    return 0

if __name__ == "__main__":
    sys.exit(main())
