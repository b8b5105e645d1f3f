# The AT-SPI2 side of the accessibility e2e scripts (after lib/common.sh): private session
# buses, at-spi2-core's bus launcher, and its IsEnabled switch. Usage:
#   start_bus NAME                 a private dbus-daemon; its address in $E2E_TMP/NAME.addr
#   start_a11y_launcher [NICE]     the launcher on $DBUS_SESSION_BUS_ADDRESS (at NICE, default 0),
#                                  until it answers GetAddress
#   set_enabled true|false         org.a11y.Status.IsEnabled
LAUNCHER=/usr/libexec/at-spi-bus-launcher
[ -x $LAUNCHER ] || fail "$LAUNCHER is missing (at-spi2-core)"

start_bus() { # NAME (not in $(...), so cleanup sees its pid)
    dbus-daemon --session --address="unix:path=$E2E_TMP/$1.sock" --nofork --print-address=1 >"$E2E_TMP/$1.addr" 2>/dev/null &
    E2E_PIDS+=($!)
    for _ in $(seq 100); do [ -s "$E2E_TMP/$1.addr" ] && break; sleep 0.05; done
    [ -s "$E2E_TMP/$1.addr" ] || fail "dbus-daemon ($1) printed no address"
}

start_a11y_launcher() { # [NICE]
    nice -n "${1:-0}" $LAUNCHER --launch-immediately >"$E2E_TMP/launcher.log" 2>&1 &
    E2E_PIDS+=($!)
    for _ in $(seq 100); do
        dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress >/dev/null 2>&1 && break
        sleep 0.1
    done
}

set_enabled() { # true|false
    dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.freedesktop.DBus.Properties.Set \
        string:org.a11y.Status string:IsEnabled variant:boolean:"$1" >/dev/null || fail "cannot set org.a11y.Status.IsEnabled $1"
}
