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

#include <sys/socket.h>
#include <sys/un.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>

/* One sd_notify(3) datagram, sent without ever blocking (MSG_DONTWAIT): to `address` (length
   `addrlen`; a leading '@' is an abstract address and becomes a NUL byte), optionally passing
   `passfd` (>= 0) with SCM_RIGHTS (BARRIER=1). Returns 0, or -errno (-EAGAIN: the receiver's
   queue is full). CMSG_* are macros Swift cannot import, hence C. */
static inline int csystemd_notify_send(int sock, const char *address, size_t addrlen,
                                       const char *text, size_t textlen, int passfd) {
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (addrlen < 2 || addrlen > sizeof sa.sun_path) return -EINVAL;
    memcpy(sa.sun_path, address, addrlen);
    if (sa.sun_path[0] == '@') sa.sun_path[0] = 0;
    socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + addrlen);
    if (address[0] == '/') salen += 1; /* the path's terminating NUL */
    struct iovec iov = { .iov_base = (void *)text, .iov_len = textlen };
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_name = &sa;
    mh.msg_namelen = salen;
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (passfd >= 0) {
        memset(&control, 0, sizeof control);
        mh.msg_control = control.buf;
        mh.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &passfd, sizeof(int));
    }
    for (;;) {
        ssize_t n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0) return 0;
        if (errno != EINTR) return -errno;
    }
}
#endif
