#ifndef DARKMODEKIOSK_CSYSTEMD_SHIM_H
#define DARKMODEKIOSK_CSYSTEMD_SHIM_H
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <unistd.h>
#include <sys/syscall.h>

/* An empty sd_bus_error (SD_BUS_ERROR_NULL is a compound-literal macro Swift cannot import). */
static inline sd_bus_error csystemd_error_null(void) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    return e;
}
/* The calling thread's kernel id (for /proc/self/task/<tid>/stat). */
static inline int csystemd_gettid(void) { return (int)syscall(SYS_gettid); }
static const int CSYSTEMD_TFD_TIMER_CANCEL_ON_SET = TFD_TIMER_CANCEL_ON_SET;
static const int CSYSTEMD_TFD_TIMER_ABSTIME = TFD_TIMER_ABSTIME;
#endif
