#ifndef DARKMODE_KIOSK_CDRM_SHIM_H
#define DARKMODE_KIOSK_CDRM_SHIM_H
/* libdrm (Debian's libdrm-dev) for the framebuffer presenter, plus the few ioctls Swift cannot
   call itself (ioctl is variadic): dumb buffers, and the console's VT mode. */
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
#include <linux/vt.h>
#include <linux/kd.h>
#include <sys/socket.h>
#include <linux/netlink.h>

static const uint32_t CDRM_FORMAT_XRGB8888 = DRM_FORMAT_XRGB8888;
static const uint32_t CDRM_FORMAT_RGB565 = DRM_FORMAT_RGB565;
static const uint32_t CDRM_MODE_PAGE_FLIP_EVENT = DRM_MODE_PAGE_FLIP_EVENT;
static const uint32_t CDRM_MODE_ATOMIC_NONBLOCK = DRM_MODE_ATOMIC_NONBLOCK;
static const uint32_t CDRM_MODE_ATOMIC_TEST_ONLY = DRM_MODE_ATOMIC_TEST_ONLY;
static const uint32_t CDRM_MODE_ATOMIC_ALLOW_MODESET = DRM_MODE_ATOMIC_ALLOW_MODESET;
static const uint32_t CDRM_MODE_OBJECT_PLANE = DRM_MODE_OBJECT_PLANE;
static const uint32_t CDRM_MODE_OBJECT_CRTC = DRM_MODE_OBJECT_CRTC;
static const uint32_t CDRM_MODE_OBJECT_CONNECTOR = DRM_MODE_OBJECT_CONNECTOR;
static const uint32_t CDRM_CAP_DUMB_BUFFER = DRM_CAP_DUMB_BUFFER;
static const uint32_t CDRM_CAP_DUMB_PREFER_SHADOW = DRM_CAP_DUMB_PREFER_SHADOW;
static const uint32_t CDRM_CLIENT_CAP_ATOMIC = DRM_CLIENT_CAP_ATOMIC;
static const uint32_t CDRM_CLIENT_CAP_UNIVERSAL_PLANES = DRM_CLIENT_CAP_UNIVERSAL_PLANES;
static const uint32_t CDRM_MODE_TYPE_PREFERRED = DRM_MODE_TYPE_PREFERRED;
static const uint32_t CDRM_ROTATE_0 = DRM_MODE_ROTATE_0;
static const uint32_t CDRM_ROTATE_90 = DRM_MODE_ROTATE_90;
static const uint32_t CDRM_ROTATE_180 = DRM_MODE_ROTATE_180;
static const uint32_t CDRM_ROTATE_270 = DRM_MODE_ROTATE_270;
static const int CDRM_EVENT_CONTEXT_VERSION = 2;
static const int CDRM_VT_PROCESS = VT_PROCESS;
static const int CDRM_VT_AUTO = VT_AUTO;
static const int CDRM_VT_ACKACQ = VT_ACKACQ;

/* A device number's parts (major() and minor() are macros). */
static inline uint32_t cdrm_major(dev_t d) { return major(d); }
static inline uint32_t cdrm_minor(dev_t d) { return minor(d); }

/* A dumb buffer: its handle, pitch and size (0 on success, else -errno). */
static inline int cdrm_create_dumb(int fd, uint32_t width, uint32_t height, uint32_t bpp,
                                   uint32_t *handle, uint32_t *pitch, uint64_t *size) {
    struct drm_mode_create_dumb c;
    memset(&c, 0, sizeof c);
    c.width = width; c.height = height; c.bpp = bpp;
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c) != 0) return -errno;
    *handle = c.handle; *pitch = c.pitch; *size = c.size;
    return 0;
}

/* The offset to mmap a dumb buffer at (0 on success, else -errno). */
static inline int cdrm_map_dumb(int fd, uint32_t handle, uint64_t *offset) {
    struct drm_mode_map_dumb m;
    memset(&m, 0, sizeof m);
    m.handle = handle;
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m) != 0) return -errno;
    *offset = m.offset;
    return 0;
}

static inline int cdrm_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb d;
    memset(&d, 0, sizeof d);
    d.handle = handle;
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d) == 0 ? 0 : -errno;
}

/* drmModeAddFB2 with one plane. */
static inline int cdrm_add_fb(int fd, uint32_t width, uint32_t height, uint32_t format, uint32_t handle,
                              uint32_t pitch, uint32_t *fb) {
    uint32_t handles[4] = { handle, 0, 0, 0 }, pitches[4] = { pitch, 0, 0, 0 }, offsets[4] = { 0, 0, 0, 0 };
    return drmModeAddFB2(fd, width, height, format, handles, pitches, offsets, fb, 0);
}

/* The page-flip events waiting on the DRM fd, each calling `handler` with its user data. */
static inline int cdrm_handle_events(int fd, void (*handler)(int, unsigned int, unsigned int, unsigned int, void *)) {
    drmEventContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.version = 2;
    ctx.page_flip_handler = handler;
    return drmHandleEvent(fd, &ctx);
}

/* The console's VT mode: VT_PROCESS (switches wait for our acknowledgement, announced by
   `release` and `acquire` signals) or VT_AUTO. 0 on success, else -errno. */
static inline int cdrm_vt_set_mode(int tty, int process, int release, int acquire) {
    struct vt_mode m;
    memset(&m, 0, sizeof m);
    m.mode = process ? VT_PROCESS : VT_AUTO;
    m.relsig = (short)release;
    m.acqsig = (short)acquire;
    return ioctl(tty, VT_SETMODE, &m) == 0 ? 0 : -errno;
}

/* A pipe with both ends close-on-exec and non-blocking (pipe2 is a GNU extension Swift's
   Glibc module does not show). 0 or -errno. */
static inline int cdrm_pipe(int fds[2]) {
    if (pipe(fds) != 0) return -errno;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    }
    return 0;
}

/* VT_RELDISP: 1 allows a switch away, VT_ACKACQ acknowledges one back. */
static inline int cdrm_vt_release(int tty, int how) { return ioctl(tty, VT_RELDISP, how) == 0 ? 0 : -errno; }
/* The kernel's uevents (NETLINK_KOBJECT_UEVENT, multicast group 1: the kernel's own messages,
   not udevd's), close-on-exec and non-blocking. The fd, or -errno. */
static inline int cdrm_uevent_open(void) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
    if (fd < 0) return -errno;
    struct sockaddr_nl a;
    memset(&a, 0, sizeof a);
    a.nl_family = AF_NETLINK;
    a.nl_groups = 1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) { int e = errno; close(fd); return -e; }
    return fd;
}

/* One uevent into `buf`: its length; 0 for a message not from the kernel (sender pid not 0),
   which is dropped; -errno (-EAGAIN: none waiting). */
static inline long cdrm_uevent_receive(int fd, void *buf, unsigned long size) {
    struct sockaddr_nl from;
    struct iovec iov = { buf, size };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    memset(&from, 0, sizeof from);
    m.msg_name = &from;
    m.msg_namelen = sizeof from;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    long n = recvmsg(fd, &m, 0);
    if (n < 0) return -errno;
    if (m.msg_namelen != sizeof from || from.nl_pid != 0 || (m.msg_flags & MSG_TRUNC)) return 0;
    return n;
}
#endif
