#!/usr/bin/python3
"""A screen reader's view of the kiosk, for Tests/e2e/accessibility.sh: pyatspi (Debian's
python3-pyatspi, run with /usr/bin/python3) on the accessibility bus the test started.

  atspi-client.py tree                 the kiosk's tree as JSON (roles, names, states, extents)
  atspi-client.py action NAME          DoAction(0) on the control named NAME; prints its result
  atspi-client.py focus NAME           GrabFocus on the control named NAME
  atspi-client.py events SECONDS CMD…  listens to the kiosk's events while CMD runs (0.5 s after
                                       listening starts); prints one line per event:
                                       "<type> <detail1> <name>"
Exits 1 with one line on stderr when the kiosk is not under the desktop."""
import json
import subprocess
import sys
import time

import pyatspi
from gi.repository import GLib

APP = "DarkModeKiosk"


def find_app(timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            a = desktop.getChildAtIndex(i)
            if a is not None and a.name == APP:
                return a
        time.sleep(0.2)
    sys.exit(f"atspi-client: no application named {APP} under the desktop within {timeout} s")


def states(obj):
    return sorted(pyatspi.stateToString(s) for s in obj.getState().getStates())


def node(obj):
    out = {"role": obj.getRoleName(), "name": obj.name, "states": states(obj), "children": []}
    try:
        e = obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        out["extents"] = [e.x, e.y, e.width, e.height]
    except NotImplementedError:
        pass
    try:
        act = obj.queryAction()
        out["actions"] = [act.getName(i) for i in range(act.nActions)]
    except NotImplementedError:
        pass
    for i in range(obj.childCount):
        out["children"].append(node(obj.getChildAtIndex(i)))
    return out


def control(name):
    app = find_app()
    frame = app.getChildAtIndex(0)
    for i in range(frame.childCount):
        c = frame.getChildAtIndex(i)
        if c.name == name:
            return c
    sys.exit(f"atspi-client: no control named {name!r}; there are {[frame.getChildAtIndex(i).name for i in range(frame.childCount)]}")


def events(seconds, cmd):
    app = find_app()
    seen = []

    def on_event(e):
        try:
            if e.source is None or e.source.getApplication() is None or e.source.getApplication().name != APP:
                return
            name = e.source.name
        except Exception:
            return
        if e.type.startswith("object:property-change"):
            seen.append(f"{e.type} {e.any_data}")
        else:
            seen.append(f"{e.type} {e.detail1} {name}")
        sys.stdout.flush()

    kinds = ["object:state-changed:focused", "object:state-changed:checked", "object:state-changed:pressed",
             "object:property-change:accessible-name", "window:activate"]
    for k in kinds:
        pyatspi.Registry.registerEventListener(on_event, k)

    def run():
        if cmd:
            subprocess.run(cmd, check=False)
        return False

    def stop():
        pyatspi.Registry.stop()
        return False

    GLib.timeout_add(500, run)
    GLib.timeout_add(int(500 + seconds * 1000), stop)
    pyatspi.Registry.start()
    _ = app
    for line in seen:
        print(line)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    what = sys.argv[1]
    if what == "tree":
        print(json.dumps(node(find_app()), ensure_ascii=False))
    elif what == "action":
        print(control(sys.argv[2]).queryAction().doAction(0))
    elif what == "focus":
        print(control(sys.argv[2]).queryComponent().grabFocus())
    elif what == "events":
        events(float(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(__doc__)


main()
