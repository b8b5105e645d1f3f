#!/usr/bin/python3
"""A hostile owner of org.a11y.Bus on the session bus, for Tests/e2e/accessibility-fuzz.sh (any
program of the session may take the name when no at-spi-bus-launcher runs, as on most kiosks):
org.a11y.Status.IsEnabled is true and org.a11y.Bus.GetAddress answers ADDRESS.

  fake-a11y-bus.py ADDRESS      prints READY once it owns the name; runs until killed
"""
import sys
from gi.repository import Gio, GLib
ADDR = sys.argv[1]
XML = """<node><interface name="org.a11y.Bus"><method name="GetAddress"><arg type="s" direction="out"/></method></interface>
<interface name="org.a11y.Status"><property name="IsEnabled" type="b" access="readwrite"/><property name="ScreenReaderEnabled" type="b" access="readwrite"/></interface></node>"""
info = Gio.DBusNodeInfo.new_for_xml(XML)
def call(conn, sender, path, iface, method, params, inv):
    inv.return_value(GLib.Variant("(s)", (ADDR,)))
def getp(conn, sender, path, iface, name):
    return GLib.Variant("b", True)
def acquired(conn, name):
    print("READY", flush=True)
def bus_acquired(conn, name):
    conn.register_object("/org/a11y/bus", info.interfaces[0], call, None, None)
    conn.register_object("/org/a11y/bus", info.interfaces[1], None, getp, None)
Gio.bus_own_name(Gio.BusType.SESSION, "org.a11y.Bus", Gio.BusNameOwnerFlags.NONE, bus_acquired, acquired, None)
GLib.MainLoop().run()
