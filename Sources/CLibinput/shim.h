#ifndef DARKMODEKIOSK_CLIBINPUT_SHIM_H
#define DARKMODEKIOSK_CLIBINPUT_SHIM_H
#include <libinput.h>
#include <libudev.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <time.h>

/* EVIOCGRAB is a function-like ioctl macro Swift cannot import: exclusive delivery of a
   device's events to this descriptor (1) or back to everyone (0). 0 on success, else errno. */
static inline int clibinput_grab(int fd, int on) {
    return ioctl(fd, EVIOCGRAB, (void *)(long)on) == 0 ? 0 : errno;
}
/* open(2) with O_CLOEXEC added; the fd, or -errno as libinput's open_restricted wants. */
static inline int clibinput_open(const char *path, int flags) {
    int fd = open(path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}
static const unsigned int CLIBINPUT_BTN_LEFT = BTN_LEFT;
static const unsigned int CLIBINPUT_BTN_RIGHT = BTN_RIGHT;
static const unsigned int CLIBINPUT_BTN_MIDDLE = BTN_MIDDLE;
/* The evdev reader (EvdevReader.swift, for systems without udevd): the function-like ioctl
   macros Swift cannot import. Each returns 0 on success, else errno. */
/* EVIOCGBIT(type, len): the event codes of `type` (0: the event types) the device reports. */
static inline int clibinput_evdev_bits(int fd, unsigned int type, unsigned char *bits, unsigned int len) {
    return ioctl(fd, EVIOCGBIT(type, len), bits) >= 0 ? 0 : errno;
}
/* EVIOCGPROP: the INPUT_PROP_* bits (INPUT_PROP_DIRECT: a touch screen, not a touchpad). */
static inline int clibinput_evdev_props(int fd, unsigned char *bits, unsigned int len) {
    return ioctl(fd, EVIOCGPROP(len), bits) >= 0 ? 0 : errno;
}
/* EVIOCGABS(code): an absolute axis's range. */
static inline int clibinput_evdev_abs(int fd, unsigned int code, struct input_absinfo *info) {
    return ioctl(fd, EVIOCGABS(code), info) == 0 ? 0 : errno;
}
/* EVIOCGNAME: the device's name, NUL-terminated within len. */
static inline int clibinput_evdev_name(int fd, char *name, unsigned int len) {
    if (len == 0) return EINVAL;
    int n = ioctl(fd, EVIOCGNAME(len), name);
    if (n < 0) return errno;
    name[len - 1] = 0;
    return 0;
}
/* EVIOCSCLOCKID: the events' timestamps on CLOCK_MONOTONIC (libinput's clock) instead of the wall clock. */
static inline int clibinput_evdev_monotonic(int fd) {
    int clock = CLOCK_MONOTONIC;
    return ioctl(fd, EVIOCSCLOCKID, &clock) == 0 ? 0 : errno;
}
static const unsigned int CLIBINPUT_INPUT_EVENT_SIZE = sizeof(struct input_event);
#endif
