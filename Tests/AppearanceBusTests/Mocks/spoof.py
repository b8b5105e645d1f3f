#!/usr/bin/python3
"""A local attacker for AppearanceBusTests and Tests/e2e/appearance-sources.sh (issue 32, item 7).

    spoof.py ADDRESS portal|sensor COUNT

Connects to the bus at ADDRESS as an ordinary client (its own unique name, owning nothing)
and sends COUNT times, as fast as it can, the signal the real service would send:
    portal: org.freedesktop.portal.Settings.SettingChanged on /org/freedesktop/portal/desktop,
            org.freedesktop.appearance color-scheme = uint32 1 (dark)
    sensor: org.freedesktop.DBus.Properties.PropertiesChanged on /net/hadess/SensorProxy,
            net.hadess.SensorProxy {LightLevel: 5000.0, HasAmbientLight: true}
each time once as a broadcast and once unicast to every other connection on the bus (a
unicast signal reaches its destination whatever that connection's match rules say). Prints
"SPOOFED <signals sent> FROM <own unique name>" and exits.
"""
import sys

import dbus

address, kind, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = dbus.bus.BusConnection(address)
me = conn.get_unique_name()
daemon = conn.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus')
others = [n for n in daemon.ListNames(dbus_interface='org.freedesktop.DBus')
          if n.startswith(':') and n != me]

if kind == 'portal':
    path, iface, member, sig = '/org/freedesktop/portal/desktop', 'org.freedesktop.portal.Settings', 'SettingChanged', 'ssv'
    args = ['org.freedesktop.appearance', 'color-scheme', dbus.UInt32(1, variant_level=1)]
elif kind == 'sensor':
    path, iface, member, sig = '/net/hadess/SensorProxy', 'org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as'
    args = ['net.hadess.SensorProxy',
            dbus.Dictionary({'LightLevel': dbus.Double(5000.0, variant_level=1),
                             'HasAmbientLight': dbus.Boolean(True, variant_level=1)}, signature='sv'),
            dbus.Array([], signature='s')]
else:
    sys.exit(f'unknown kind {kind}')

sent = 0
for _ in range(count):
    for destination in [None] + others:
        msg = dbus.lowlevel.SignalMessage(path, iface, member)
        if destination:
            msg.set_destination(destination)
        msg.append(*args, signature=sig)
        conn.send_message(msg)
        sent += 1
conn.flush()
print(f'SPOOFED {sent} FROM {me}', flush=True)
