#!/usr/bin/python3
"""A hostile client of the accessibility bus, for Tests/e2e/accessibility-fuzz.sh (GLib's GDBus
through python3-gi; raw messages, so any signature, a missing interface or a wrong path can be
sent). Finds the kiosk under the AT-SPI registry (or takes its unique name from $A11Y_FUZZ_DEST,
when two kiosks are on the bus), then:

  a11y-fuzz.py ADDRESS fuzz            every method of every interface of every object the kiosk
                                       registers (found with Introspect) with boundary values,
                                       wrong signatures, missing and extra arguments; unknown
                                       objects, interfaces, methods and properties; file
                                       descriptors attached (refused). Prints a
                                       summary line; exits 1 naming each call that got no reply
                                       or D-Bus error, or not the error it must get.
  a11y-fuzz.py ADDRESS burst N         N of those calls at once (pipelined, none waited for
                                       before the next is sent); exits 1 unless each gets a reply
                                       or a D-Bus error. Prints "burst: N calls, R replies, E
                                       errors in S s".
  a11y-fuzz.py ADDRESS flood N PATH MEMBER
                                       N calls of Action.MEMBER(0) (DoAction) or
                                       Component.MEMBER() (GrabFocus) on PATH at once; prints
                                       "flood: N calls, T true, F false, E errors in S s".
  a11y-fuzz.py ADDRESS call PATH IFACE MEMBER SIGNATURE JSON-ARGS
                                       one call; prints the reply's body (GVariant text) or
                                       "error NAME".
"""
import itertools
import json
import os
import sys
import time
import xml.etree.ElementTree as ET

from gi.repository import Gio, GLib

APP = "DarkModeKiosk"
REGISTRY = "org.a11y.atspi.Registry"
ROOT = "/org/a11y/atspi/accessible/root"
PROPS = "org.freedesktop.DBus.Properties"
# Errors that mean the kiosk did not answer: it died, left the bus, or hung.
NO_ANSWER = {"org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.ServiceUnknown",
             "org.freedesktop.DBus.Error.NameHasNoOwner", "org.freedesktop.DBus.Error.Disconnected",
             "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut"}
I32 = [0, -1, 1, -2**31, 2**31 - 1]
U32 = [0, 1, 2, 3, 2**32 - 1, 2**31]
STRINGS = ["", "x", "org.a11y.atspi.Accessible", "é" * 3, "y" * 65536]


def connect(address):
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    return Gio.DBusConnection.new_for_address_sync(address, flags, None, None)


def message(dest, path, iface, member, sig, args):
    m = Gio.DBusMessage.new_method_call(dest, path, iface, member)
    if sig:
        m.set_body(GLib.Variant("(" + sig + ")", tuple(args)))
    return m


def call(conn, dest, path, iface, member, sig="", args=(), timeout=5000):
    """(True, body) for a reply, (False, error name) for an error; raises on a local error."""
    reply, _ = conn.send_message_with_reply_sync(message(dest, path, iface, member, sig, args),
                                                 Gio.DBusSendMessageFlags.NONE, timeout, None)
    if reply.get_message_type() == Gio.DBusMessageType.ERROR:
        return False, reply.get_error_name()
    return True, reply.get_body()


def find_kiosk(conn, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        ok, body = call(conn, REGISTRY, ROOT, "org.a11y.atspi.Accessible", "GetChildren")
        if ok:
            for bus, path in body.unpack()[0]:
                ok, name = call(conn, bus, path, PROPS, "Get", "ss", ["org.a11y.atspi.Accessible", "Name"])
                if ok and name.unpack()[0] == APP:
                    return bus
        time.sleep(0.2)
    sys.exit(f"a11y-fuzz: no application named {APP} under the registry within {timeout} s")


def introspect(conn, dest, path="/org/a11y/atspi"):
    """{path: {interface: {"methods": {name: in-signature}, "properties": {name: (type, access)}}}}"""
    ok, body = call(conn, dest, path, "org.freedesktop.DBus.Introspectable", "Introspect")
    if not ok:
        sys.exit(f"a11y-fuzz: Introspect {path}: {body}")
    root = ET.fromstring(body.unpack()[0])
    out = {path: {}}
    for i in root.findall("interface"):
        entry = {"methods": {}, "properties": {}}
        for m in i.findall("method"):
            entry["methods"][m.get("name")] = "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")
        for p in i.findall("property"):
            entry["properties"][p.get("name")] = (p.get("type"), p.get("access"))
        out[path][i.get("name")] = entry
    for n in root.findall("node"):
        out.update(introspect(conn, dest, path.rstrip("/") + "/" + n.get("name")))
    return out


def values(t):
    """Boundary values of one complete type."""
    if t == "i":
        return I32
    if t == "u":
        return U32
    if t == "s":
        return STRINGS
    if t == "v":
        return [GLib.Variant("i", 0), GLib.Variant("s", ""), GLib.Variant("b", True), GLib.Variant("u", 2**32 - 1)]
    raise ValueError(f"no values for type {t}")


def split(sig):
    parts, cur, depth = [], "", 0
    for c in sig:
        cur += c
        depth += c in "({"
        depth -= c in ")}"
        if depth == 0 and c != "a":
            parts.append(cur)
            cur = ""
    return parts


def wrong(t):
    """A value of another type than t: (type, value)."""
    return ("s", "x") if t != "s" else ("i", 0)


def cases(objects):
    """(path, iface, member, sig, args, expected error or None for 'a reply or any D-Bus error')."""
    out = []
    invalid = "org.freedesktop.DBus.Error.InvalidArgs"
    for path, ifaces in objects.items():
        for iface, spec in ifaces.items():
            if iface == "org.freedesktop.DBus.Peer":
                continue
            for member, sig in spec["methods"].items():
                if iface == PROPS:
                    continue  # below, with every interface and property name
                parts = split(sig)
                for args in itertools.product(*[values(t) for t in parts]):
                    out.append((path, iface, member, sig, list(args), None))
                # Wrong signatures: each argument of another type; one missing; one and two extra.
                for k, t in enumerate(parts):
                    wt, wv = wrong(t)
                    s = "".join(parts[:k] + [wt] + parts[k + 1:])
                    a = [values(p)[0] for p in parts]
                    a[k] = wv
                    out.append((path, iface, member, s, a, invalid))
                if parts:
                    out.append((path, iface, member, "".join(parts[:-1]), [values(p)[0] for p in parts[:-1]], invalid))
                out.append((path, iface, member, sig + "i", [values(p)[0] for p in parts] + [0], invalid))
                out.append((path, iface, member, sig + "sv", [values(p)[0] for p in parts] + ["x", GLib.Variant("i", 1)], invalid))
            out.append((path, iface, "NoSuchMethod", "", [], "org.freedesktop.DBus.Error.UnknownMethod"))
        if not ifaces.get("org.a11y.atspi.Accessible"):
            continue
        served = [i for i in ifaces if i.startswith("org.a11y.atspi.")]
        # Interfaces this object does not serve.
        for iface in ["org.a11y.atspi.Accessible", "org.a11y.atspi.Component", "org.a11y.atspi.Action",
                      "org.a11y.atspi.Application", "org.a11y.atspi.Text", "org.example.Nope"]:
            if iface not in served:
                out.append((path, iface, "GetRole", "", [], "org.freedesktop.DBus.Error.UnknownInterface"))
                out.append((path, PROPS, "GetAll", "s", [iface], "org.freedesktop.DBus.Error.UnknownInterface"))
                out.append((path, PROPS, "Get", "ss", [iface, "Name"], "org.freedesktop.DBus.Error.UnknownInterface"))
        # Properties: every interface (and "") with every name the object has, and unknown ones.
        names = sorted({n for s in ifaces.values() for n in s["properties"]} | {"", "Nope"})
        for iface in served + [""]:
            out.append((path, PROPS, "GetAll", "s", [iface], None))
            for name in names:
                known = name in ifaces.get(iface, {}).get("properties", {})
                out.append((path, PROPS, "Get", "ss", [iface, name],
                            None if known else "org.freedesktop.DBus.Error.UnknownProperty" if iface else None))
                for v in values("v"):
                    if known:
                        t, access = ifaces[iface]["properties"][name]
                        expect = (None if v.get_type_string() == t else invalid) if access == "readwrite" \
                            else "org.freedesktop.DBus.Error.PropertyReadOnly"
                    else:
                        expect = "org.freedesktop.DBus.Error.UnknownProperty" if iface else None
                    out.append((path, PROPS, "Set", "ssv", [iface, name, v], expect))
        for sig, args in [("", []), ("s", ["org.a11y.atspi.Accessible"]), ("sss", ["a", "b", "c"]), ("i", [0])]:
            out.append((path, PROPS, "Get", sig, args, invalid))
            out.append((path, PROPS, "Set", sig, args, invalid))
        out.append((path, PROPS, "GetAll", "", [], invalid))
        for s in STRINGS:
            out.append((path, PROPS, "GetAll", "s", [s], "org.freedesktop.DBus.Error.UnknownInterface" if s and s not in served else None))
            out.append((path, PROPS, "Get", "ss", [s, s], None))
        out.append((path, PROPS, "GetAll", "i", [0], invalid))
    # Objects that do not exist, and paths that look like ones that do.
    p = "/org/a11y/atspi/accessible"
    for bad in [p + "/02", p + "/0", p + "/00", p + "/99", p + "/2147483648", p + "/18446744073709551617", p + "/root/x",
                p + "/Root", p + "/1/2", "/org/a11y/atspi/x", "/org/a11y/atspi/accessible_1", "/org/a11y/atspi/null"]:
        out.append((bad, "org.a11y.atspi.Accessible", "GetRole", "", [], "org.freedesktop.DBus.Error.UnknownObject"))
        out.append((bad, PROPS, "GetAll", "s", ["org.a11y.atspi.Accessible"], "org.freedesktop.DBus.Error.UnknownObject"))
    # No interface given: resolved by member name.
    out.append((ROOT, None, "GetRole", "", [], None))
    out.append((ROOT, None, "NoSuchMethod", "", [], "org.freedesktop.DBus.Error.UnknownMethod"))
    return out


def fuzz(conn, dest):
    objects = introspect(conn, dest)
    tree = [p for p, i in objects.items() if "org.a11y.atspi.Accessible" in i]
    if len(tree) < 5:
        sys.exit(f"a11y-fuzz: Introspect found only {tree}; expected the application, the frame and three controls")
    all_cases = cases(objects)
    methods = {(p, i, m) for p, ifs in objects.items() for i, s in ifs.items() for m in s["methods"]}
    bad, replies, errors = [], 0, {}
    t0 = time.time()
    for path, iface, member, sig, args, expect in all_cases:
        ok, body = call(conn, dest, path, iface, member, sig, args)
        if ok:
            replies += 1
            if expect:
                bad.append(f"{path} {iface}.{member}({sig}) {short(args)}: a reply, expected {expect}")
        else:
            errors[body] = errors.get(body, 0) + 1
            if body in NO_ANSWER or (expect and body != expect):
                bad.append(f"{path} {iface}.{member}({sig}) {short(args)}: {body}" + (f", expected {expect}" if expect else ""))
                if body in NO_ANSWER:
                    break
    # File descriptors attached to a call: the kiosk takes none (the bus answers NotSupported).
    fd = os.open("/dev/null", os.O_RDONLY)
    for n in (1, 16):
        m = message(dest, "/org/a11y/atspi/accessible/1", "org.a11y.atspi.Component", "GetExtents", "h", [0])
        fds = Gio.UnixFDList.new()
        for _ in range(n):
            fds.append(fd)
        m.set_unix_fd_list(fds)
        reply, _ = conn.send_message_with_reply_sync(m, Gio.DBusSendMessageFlags.NONE, 5000, None)
        name = reply.get_error_name()
        if name != "org.freedesktop.DBus.Error.NotSupported":
            bad.append(f"GetExtents with {n} file descriptors: {name or 'a reply'}, expected NotSupported (no descriptors taken)")
    os.close(fd)
    for line in bad[:40]:
        print("BAD " + line, file=sys.stderr)
    errs = ", ".join(f"{k.rsplit('.', 1)[-1]} {v}" for k, v in sorted(errors.items()))
    print(f"fuzz: {len(all_cases)} calls on {len(tree)} objects ({len(methods)} methods found by Introspect) in "
          f"{time.time() - t0:.1f} s: {replies} replies, {sum(errors.values())} errors ({errs}); 2 with file descriptors "
          f"attached (the bus: NotSupported); {len(bad)} wrong")
    return 1 if bad else 0


def short(args):
    s = repr(args)
    return s if len(s) < 80 else s[:77] + "..."


def pipelined(conn, msgs, seconds=120):
    """Sends all messages before waiting for any reply; [(ok, body or error name)] in order (None: no answer)."""
    results = [None] * len(msgs)
    pending = [len(msgs)]
    loop = GLib.MainLoop()

    def done(c, res, k):
        try:
            reply = c.send_message_with_reply_finish(res)
            if reply.get_message_type() == Gio.DBusMessageType.ERROR:
                results[k] = (False, reply.get_error_name())
            else:
                results[k] = (True, reply.get_body())
        except GLib.Error as e:
            results[k] = (False, "local: " + e.message)
        pending[0] -= 1
        if pending[0] == 0:
            loop.quit()

    for k, m in enumerate(msgs):
        conn.send_message_with_reply(m, Gio.DBusSendMessageFlags.NONE, seconds * 1000, None, done, k)
    GLib.timeout_add(seconds * 1000 + 1000, loop.quit)
    loop.run()
    return results


def burst(conn, dest, n):
    objects = introspect(conn, dest)
    base = [c for c in cases(objects) if c[2] not in ("DoAction", "GrabFocus") and not any(len(a) > 1000 for a in c[4] if isinstance(a, str))]
    chosen = [base[k % len(base)] for k in range(n)]
    t0 = time.time()
    results = pipelined(conn, [message(dest, p, i, m, s, a) for p, i, m, s, a, _ in chosen])
    took = time.time() - t0
    missing = [(chosen[k], r) for k, r in enumerate(results) if r is None or (not r[0] and (r[1] in NO_ANSWER or r[1].startswith("local:")))]
    replies = sum(1 for r in results if r and r[0])
    print(f"burst: {n} calls, {replies} replies, {sum(1 for r in results if r and not r[0])} errors in {took:.2f} s")
    for c, r in missing[:10]:
        print(f"BAD {c[0]} {c[1]}.{c[2]}({c[3]}): {r}", file=sys.stderr)
    return 1 if missing else 0


def flood(conn, dest, n, path, member):
    iface, sig, args = ("org.a11y.atspi.Action", "i", [0]) if member == "DoAction" else ("org.a11y.atspi.Component", "", [])
    t0 = time.time()
    results = pipelined(conn, [message(dest, path, iface, member, sig, args) for _ in range(n)])
    took = time.time() - t0
    true = sum(1 for r in results if r and r[0] and r[1].unpack()[0] is True)
    false = sum(1 for r in results if r and r[0] and r[1].unpack()[0] is False)
    errors = [r for r in results if r is None or not r[0]]
    print(f"flood: {n} calls, {true} true, {false} false, {len(errors)} errors in {took:.2f} s")
    for r in errors[:5]:
        print(f"BAD {member}: {r}", file=sys.stderr)
    return 1 if errors else 0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    conn = connect(sys.argv[1])
    dest = os.environ.get("A11Y_FUZZ_DEST") or find_kiosk(conn)
    what = sys.argv[2]
    if what == "fuzz":
        sys.exit(fuzz(conn, dest))
    if what == "burst":
        sys.exit(burst(conn, dest, int(sys.argv[3])))
    if what == "flood":
        sys.exit(flood(conn, dest, int(sys.argv[3]), sys.argv[4], sys.argv[5]))
    if what == "call":
        path, iface, member, sig, args = sys.argv[3:8]
        args = json.loads(args)
        for k, t in enumerate(split(sig)):
            if t == "v":  # a JSON value as the variant of its own type
                v = args[k]
                args[k] = GLib.Variant("s" if isinstance(v, str) else "b" if isinstance(v, bool) else "i", v)
        ok, body = call(conn, dest, path, iface, member, sig, args)
        print(body.print_(False) if ok and body is not None else "()" if ok else f"error {body}")
        return
    sys.exit(__doc__)


main()
