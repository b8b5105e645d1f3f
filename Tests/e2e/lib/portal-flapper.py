#!/usr/bin/python3
"""A desktop portal that comes and goes (issue 39, item 6), run with Debian's /usr/bin/python3.

    portal-flapper.py ADDRESS PERIOD SECONDS

Serves org.freedesktop.portal.Settings (ReadOne and Read: color-scheme 0, contrast 1,
reduced-motion 1) on the bus at ADDRESS and takes the portal's name, then releases and takes
it again every PERIOD seconds (appear, leave, appear, ...) for SECONDS seconds. Each time it
appears the kiosk reads high contrast and reduced motion on; each time it leaves, off. Prints
READY, then at the end "FLIPS <number of appearances and departures>" and exits.
"""
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
import dbusmock
from gi.repository import GLib

NAME = 'org.freedesktop.portal.Desktop'
PATH = '/org/freedesktop/portal/desktop'
SETTINGS = 'org.freedesktop.portal.Settings'
NAMESPACE = 'org.freedesktop.appearance'
VALUES = {'color-scheme': 0, 'contrast': 1, 'reduced-motion': 1}


def main():
    address, period, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    conn = dbus.bus.BusConnection(address)
    mock = dbusmock.DBusMockObject(conn, PATH, SETTINGS, {}, logfile='/dev/null')

    def lookup(namespace, key, level):
        if namespace != NAMESPACE or key not in VALUES:
            raise dbus.exceptions.DBusException(f'{namespace} {key} not found',
                                                name='org.freedesktop.portal.Error.NotFound')
        return dbus.UInt32(VALUES[key], variant_level=level)

    mock.lookup = lookup
    mock.AddMethod(SETTINGS, 'ReadOne', 'ss', 'v', 'ret = self.lookup(args[0], args[1], 1)')
    mock.AddMethod(SETTINGS, 'Read', 'ss', 'v', 'ret = self.lookup(args[0], args[1], 2)')
    loop = GLib.MainLoop()
    end = time.monotonic() + seconds
    state = {'owned': False, 'flips': 0}

    def flip():
        if state['owned']:
            conn.release_name(NAME)
        else:
            conn.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        state['owned'] = not state['owned']
        state['flips'] += 1
        if time.monotonic() >= end:
            loop.quit()
            return False
        return True

    print('READY', flush=True)
    GLib.timeout_add(int(period * 1000), flip)
    loop.run()
    print(f"FLIPS {state['flips']}", flush=True)


if __name__ == '__main__':
    main()
