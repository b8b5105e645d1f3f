#!/usr/bin/python3
"""xdg-desktop-portal's Settings as Debian 12's portal (1.16) serves it, for the e2e tests
(python3-dbusmock, run with /usr/bin/python3): `Read` only, each value wrapped in a second
variant; `org.freedesktop.appearance color-scheme` and the GNOME keys, no `contrast` and no
`reduced-motion`.

    gnome-portal-mock.py ADDRESS COLOR-SCHEME HIGH-CONTRAST ENABLE-ANIMATIONS

COLOR-SCHEME is 0/1/2; the two GNOME keys are true/false. Prints READY once the bus name is
taken, then takes commands on stdin, one per line, and answers each with "EMITTED":
    high-contrast true|false       org.gnome.desktop.a11y.interface high-contrast (b)
    enable-animations true|false   org.gnome.desktop.interface enable-animations (b)
    text-scaling-factor F          org.gnome.desktop.interface text-scaling-factor (d)
"""
import os
import sys

import dbus
import dbus.mainloop.glib
import dbusmock
from gi.repository import GLib

NAME = 'org.freedesktop.portal.Desktop'
PATH = '/org/freedesktop/portal/desktop'
SETTINGS = 'org.freedesktop.portal.Settings'
A11Y = 'org.gnome.desktop.a11y.interface'
INTERFACE = 'org.gnome.desktop.interface'


def main():
    address, scheme, contrast, animations = sys.argv[1:5]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    conn = dbus.bus.BusConnection(address)
    loop = GLib.MainLoop()
    values = {
        ('org.freedesktop.appearance', 'color-scheme'): dbus.UInt32(int(scheme), variant_level=2),
        (A11Y, 'high-contrast'): dbus.Boolean(contrast == 'true', variant_level=2),
        (INTERFACE, 'enable-animations'): dbus.Boolean(animations == 'true', variant_level=2),
        (INTERFACE, 'text-scaling-factor'): dbus.Double(1.0, variant_level=2),
    }
    mock = dbusmock.DBusMockObject(conn, PATH, SETTINGS, {}, logfile=os.devnull)

    def lookup(namespace, key):
        if (namespace, key) not in values:
            raise dbus.exceptions.DBusException(f'{namespace} {key} not found', name='org.freedesktop.portal.Error.NotFound')
        return values[(namespace, key)]

    mock.lookup = lookup
    mock.AddMethod(SETTINGS, 'Read', 'ss', 'v', 'ret = self.lookup(args[0], args[1])')

    def command(source, _condition):
        line = source.readline()
        if not line:
            loop.quit()
            return False
        words = line.split()
        if len(words) == 2 and words[0] in ('high-contrast', 'enable-animations'):
            namespace = A11Y if words[0] == 'high-contrast' else INTERFACE
            values[(namespace, words[0])] = dbus.Boolean(words[1] == 'true', variant_level=2)
            mock.EmitSignal(SETTINGS, 'SettingChanged', 'ssv', [namespace, words[0], dbus.Boolean(words[1] == 'true', variant_level=1)])
            print('EMITTED', flush=True)
        elif len(words) == 2 and words[0] == 'text-scaling-factor':
            values[(INTERFACE, words[0])] = dbus.Double(float(words[1]), variant_level=2)
            mock.EmitSignal(SETTINGS, 'SettingChanged', 'ssv', [INTERFACE, words[0], dbus.Double(float(words[1]), variant_level=1)])
            print('EMITTED', flush=True)
        elif words:
            print(f'unknown command {line.strip()}', flush=True)
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
    conn.request_name(NAME)
    print('READY', flush=True)
    loop.run()


main()
