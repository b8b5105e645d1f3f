#ifndef DARKMODE_KIOSK_CONSOLE_H
#define DARKMODE_KIOSK_CONSOLE_H

/* The virtual terminal's KD mode (text or graphics), for Sources/KioskHost/VirtualConsole.swift:
   ioctl is variadic, which Swift cannot call. Both return 0 or -errno; each is one system call,
   so safe in a signal handler. */
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/kd.h>

static inline int dmk_console_get_mode(int fd, int *mode) {
    return ioctl(fd, KDGETMODE, mode) == 0 ? 0 : -errno;
}

/* graphics: 1 for KD_GRAPHICS, 0 for KD_TEXT. */
static inline int dmk_console_set_mode(int fd, int graphics) {
    return ioctl(fd, KDSETMODE, graphics ? KD_GRAPHICS : KD_TEXT) == 0 ? 0 : -errno;
}

static inline int dmk_console_kd_graphics(void) { return KD_GRAPHICS; }

#endif
