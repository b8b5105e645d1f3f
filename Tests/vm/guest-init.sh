#!/bin/sh
# The guest's init after switch_root (Tests/vm/initramfs-init), on the host's root mounted
# read-only: the rest of the file systems a program expects, the modules the tests use (the
# display driver named by `dmk.gpu=`, evdev, uinput, virtio-input, virtio-console), then the
# agent (Tests/vm/guest-agent.py) that the harness drives over a virtio-serial port. Both are
# run from the harness's staging share, /mnt/dmk (Tests/vm/vm.py), never from the checkout. When the
# agent ends, the guest powers off (sysrq `o`: no init system to shut down).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 XDG_RUNTIME_DIR=/run/user/0
here=$(dirname "$0")
mkdir -p /dev/pts /dev/shm "$XDG_RUNTIME_DIR"
chmod 0700 "$XDG_RUNTIME_DIR"
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd 2>/dev/null
gpu=
for arg in $(cat /proc/cmdline); do
    case $arg in dmk.gpu=*) gpu=${arg#dmk.gpu=} ;; esac
done
for m in $gpu evdev uinput virtio_input virtio_console; do
    modprobe "$m" || echo "guest-init: modprobe $m failed"
done
echo "guest-init: modules loaded ($gpu evdev uinput virtio_input virtio_console)"
/usr/bin/python3 "$here/guest-agent.py"
echo "guest-init: the agent ended ($?); powering off"
sync
echo o >/proc/sysrq-trigger
sleep 30
