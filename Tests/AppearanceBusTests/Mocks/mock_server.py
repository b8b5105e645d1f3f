#!/usr/bin/python3
"""Test double for AppearanceBusTests, run with Debian's /usr/bin/python3 (python3-dbusmock).

    mock_server.py ADDRESS portal|portal-old|sensor [JSON]

Serves the xdg-desktop-portal Settings interface ("portal": ReadOne and Read; "portal-old":
Read only, its value wrapped in a second variant as portals before 1.18 do) or iio-sensor-proxy
(dbusmock's own iio-sensors-proxy template) on the bus at ADDRESS. The bus name is requested
only after the object is complete, so a client that sees the name appear can call it at once.
Prints READY, then takes commands on stdin, one per line, and answers each with a line:
    set KEY VALUE   portal: store org.freedesktop.appearance KEY = uint32 VALUE, emit SettingChanged
    bad N           portal: emit N SettingChanged color-scheme with a bad value (uint32 7), as fast as it can
    bigarray N      portal: emit one SettingChanged color-scheme whose value is an array of N int32
    light LUX       sensor: set LightLevel (PropertiesChanged to the claimants)
    owners          sensor: print the light sensor's claimants
    quit
Emitting commands answer "EMITTED <CLOCK_MONOTONIC seconds just before the emit>".
Portal parameter "delay": seconds every ReadOne/Read waits before answering (a slow portal;
the mock answers nothing else meanwhile).
"""
import json
import os
import sys
import time

import dbus
import dbus.mainloop.glib
import dbus.service
import dbusmock
from gi.repository import GLib

PORTAL_NAME = 'org.freedesktop.portal.Desktop'
PORTAL_PATH = '/org/freedesktop/portal/desktop'
SETTINGS = 'org.freedesktop.portal.Settings'
NAMESPACE = 'org.freedesktop.appearance'
SENSOR_NAME = 'net.hadess.SensorProxy'
SENSOR_PATH = '/net/hadess/SensorProxy'


def main():
    address, kind = sys.argv[1], sys.argv[2]
    params = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    conn = dbus.bus.BusConnection(address)
    loop = GLib.MainLoop()

    if kind in ('portal', 'portal-old'):
        mock = dbusmock.DBusMockObject(conn, PORTAL_PATH, SETTINGS, {}, logfile=os.devnull)
        delay = float(params.pop('delay', 0))
        values = {k: int(v) for k, v in params.items()}

        def lookup(namespace, key, level):
            if delay:
                time.sleep(delay)
            if namespace != NAMESPACE or key not in values:
                raise dbus.exceptions.DBusException(f'{namespace} {key} not found',
                                                    name='org.freedesktop.portal.Error.NotFound')
            return dbus.UInt32(values[key], variant_level=level)

        mock.lookup = lookup
        if kind == 'portal':
            mock.AddMethod(SETTINGS, 'ReadOne', 'ss', 'v', 'ret = self.lookup(args[0], args[1], 1)')
        mock.AddMethod(SETTINGS, 'Read', 'ss', 'v', 'ret = self.lookup(args[0], args[1], 2)')
        name = PORTAL_NAME
    elif kind == 'sensor':
        mock = dbusmock.DBusMockObject(conn, SENSOR_PATH, SENSOR_NAME, {}, logfile=os.devnull)
        mock.AddTemplate('iio-sensors-proxy', {'has_ambient_light': True,
                                               'light_level': float(params.get('lux', 300.0))})
        name = SENSOR_NAME
    else:
        sys.exit(f'unknown mock kind {kind}')

    def command(source, _condition):
        line = source.readline()
        if not line:
            loop.quit()
            return False
        words = line.split()
        if not words:
            return True
        if words[0] == 'set':
            values[words[1]] = int(words[2])
            stamp = time.monotonic()
            mock.EmitSignal(SETTINGS, 'SettingChanged', 'ssv',
                            [NAMESPACE, words[1], dbus.UInt32(int(words[2]), variant_level=1)])
            print(f'EMITTED {stamp:.6f}', flush=True)
        elif words[0] == 'bad':
            stamp = time.monotonic()
            for _ in range(int(words[1])):
                mock.EmitSignal(SETTINGS, 'SettingChanged', 'ssv',
                                [NAMESPACE, 'color-scheme', dbus.UInt32(7, variant_level=1)])
            conn.flush()
            print(f'EMITTED {stamp:.6f}', flush=True)
        elif words[0] == 'bigarray':
            stamp = time.monotonic()
            big = dbus.Array(list(range(int(words[1]))), signature='i', variant_level=1)
            mock.EmitSignal(SETTINGS, 'SettingChanged', 'ssv', [NAMESPACE, 'color-scheme', big])
            print(f'EMITTED {stamp:.6f}', flush=True)
        elif words[0] == 'light':
            stamp = time.monotonic()
            mock.SetInternalProperty(SENSOR_NAME, 'LightLevel', dbus.Double(float(words[1])))
            print(f'EMITTED {stamp:.6f}', flush=True)
        elif words[0] == 'owners':
            print('OWNERS ' + ' '.join(str(o) for o in mock.ambient_light_owners.keys()), flush=True)
        elif words[0] == 'quit':
            loop.quit()
            return False
        else:
            print(f'ERROR unknown command {words[0]}', flush=True)
        return True

    bus_name = dbus.service.BusName(name, conn, do_not_queue=True)
    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, command)
    print('READY', flush=True)
    loop.run()
    del bus_name


if __name__ == '__main__':
    main()
