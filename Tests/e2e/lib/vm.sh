# The QEMU harness's shell side, for the VM e2e scripts (after lib/common.sh): QEMU that the
# harness starts is killed on any exit, however the harness ended; the host tools and the
# kernel are checked; KIOSK_BIN is exported; SHOTS is where screenshots go. Usage:
#   vm_setup NAME    (NAME names the default screenshot folder)
vm_cleanup() {
    local pid
    if [ -f "$DMK_VM_PIDFILE" ]; then
        while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$DMK_VM_PIDFILE"
    fi
    cleanup
}

vm_setup() {
    DMK_VM_PIDFILE="$E2E_TMP/qemu.pids"
    export DMK_VM_PIDFILE PYTHONDONTWRITEBYTECODE=1
    trap vm_cleanup EXIT
    trap 'exit 143' TERM INT
    need qemu-system-x86_64 cpio modprobe /usr/bin/python3 /bin/busybox
    ls /boot/vmlinuz-* >/dev/null 2>&1 || fail "no kernel in /boot (install linux-image-amd64)"
    /usr/bin/python3 -c 'import evdev' 2>/dev/null || fail "python3-evdev is not installed (the guest's touch devices)"
    KIOSK_BIN=$(kiosk_binary)
    export KIOSK_BIN
    SHOTS=${E2E_SHOTS:-$(mktemp -d "/tmp/$1-shots.XXXXXX")}
}
