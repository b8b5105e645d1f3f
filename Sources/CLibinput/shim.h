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
#endif
