#ifndef DARKMODE_KIOSK_THREAD_DEFAULTS_H
#define DARKMODE_KIOSK_THREAD_DEFAULTS_H

/* The stack size glibc gives a thread created without attributes (or with attributes whose
   stack size is unset: SDL's, libdbus's, the Swift runtime's). glibc takes it from
   RLIMIT_STACK when the process starts (`ulimit -s 64` → 64 KiB threads); these GNU calls,
   which Swift's Glibc module does not show, read and set it; and glibc's malloc arenas, which
   cost address space per thread. For Sources/Threads/ThreadStacks.swift. */
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>

extern int pthread_getattr_default_np(pthread_attr_t *attr);
extern int pthread_setattr_default_np(const pthread_attr_t *attr);

/* The default stack size of new threads in bytes, or 0 when it cannot be read. */
static inline size_t dmk_default_thread_stack(void) {
    pthread_attr_t attr;
    size_t size = 0;
    if (pthread_getattr_default_np(&attr) != 0) return 0;
    if (pthread_attr_getstacksize(&attr, &size) != 0) size = 0;
    pthread_attr_destroy(&attr);
    return size;
}

/* Sets the default stack size of new threads; 0 or an errno value. */
static inline int dmk_set_default_thread_stack(size_t bytes) {
    pthread_attr_t attr;
    int rc = pthread_getattr_default_np(&attr);
    if (rc != 0) return rc;
    rc = pthread_attr_setstacksize(&attr, bytes);
    if (rc == 0) rc = pthread_setattr_default_np(&attr);
    pthread_attr_destroy(&attr);
    return rc;
}

/* One malloc arena for every thread (M_ARENA_MAX): glibc otherwise gives threads arenas of
   their own, each reserving 64 MiB of address space. 1 when set. */
static inline int dmk_single_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}

/* A descriptor that polls readable once written to (an eventfd, non-blocking, close-on-exec),
   for waking a thread that sleeps in poll(); -1 with errno on failure. eventfd is declared
   here inside the function rather than by including sys/eventfd.h: CSystemd's and CLibinput's
   shims include that header, and a third module owning it would move whose names Swift sees. */
#include <fcntl.h>
static inline int dmk_wake_descriptor(void) {
    extern int eventfd(unsigned int count, int flags);
    return eventfd(0, O_NONBLOCK | O_CLOEXEC);
}

#endif
