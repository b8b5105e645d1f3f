#ifndef DARKMODEKIOSK_CWAYLAND_SHIM_H
#define DARKMODEKIOSK_CWAYLAND_SHIM_H
/* libwayland-client for the host's shared-memory presenter (KioskHost/ShmPresenter.swift).
   SDL links this library already, so using it costs no extra load at start-up. */
#include <wayland-client.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The protocol's interface descriptions are C globals whose address is their identity:
   Swift would pass a copy, so hand out the addresses. */
static inline const struct wl_interface *CWayland_shmInterface(void) { return &wl_shm_interface; }

/* memfd_create(name, MFD_CLOEXEC) (glibc declares it only with _GNU_SOURCE). */
static inline int CWayland_memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, 1u); }
#endif
