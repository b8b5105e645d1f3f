#!/usr/bin/python3
"""Counts the times a file is written in place or replaced, for end-to-end tests.

    inotify-count.py FILE SECS

Watches FILE's folder with inotify (through ctypes: no package needed) for SECS seconds and
prints `writes N`: the events that put new content at FILE's name — a rename onto it
(IN_MOVED_TO, how atomic writers replace a file) or a write closed on it (IN_CLOSE_WRITE).
Prints `watching` on stdout once the watch is in place. Debian's /usr/bin/python3, standard
library only.
"""
import ctypes, os, select, struct, sys, time

IN_CLOSE_WRITE = 0x008
IN_MOVED_TO = 0x080


def main():
    path, secs = sys.argv[1], float(sys.argv[2])
    folder, name = os.path.dirname(os.path.abspath(path)), os.path.basename(path)
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0:
        sys.exit("FAIL: inotify_init1: %s" % os.strerror(ctypes.get_errno()))
    if libc.inotify_add_watch(fd, folder.encode(), IN_CLOSE_WRITE | IN_MOVED_TO) < 0:
        sys.exit("FAIL: inotify_add_watch %s: %s" % (folder, os.strerror(ctypes.get_errno())))
    print("watching", flush=True)
    writes = 0
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            continue
        buf = os.read(fd, 65536)
        i = 0
        while i < len(buf):
            _wd, mask, _cookie, length = struct.unpack_from("iIII", buf, i)
            ev_name = buf[i + 16:i + 16 + length].rstrip(b"\0").decode(errors="replace")
            i += 16 + length
            if ev_name == name and mask & (IN_CLOSE_WRITE | IN_MOVED_TO):
                writes += 1
    print("writes %d" % writes, flush=True)


if __name__ == "__main__":
    main()
