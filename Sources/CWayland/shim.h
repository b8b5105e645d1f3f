#ifndef DARKMODEKIOSK_CWAYLAND_SHIM_H
#define DARKMODEKIOSK_CWAYLAND_SHIM_H
/* libwayland-client for the host's shared-memory presenter (KioskHost/ShmPresenter.swift) and
   its presentation feedback (KioskHost/Presenters/PresentationFeedback.swift).
   SDL links this library already, so using it costs no extra load at start-up. */
#include <wayland-client.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The protocol's interface descriptions are C globals whose address is their identity:
   Swift would pass a copy, so hand out the addresses. */
static inline const struct wl_interface *CWayland_shmInterface(void) { return &wl_shm_interface; }

/* wp_presentation (presentation-time, stable, version 1): when the compositor showed a frame.
   libwayland-client ships only the core protocol, so its two interfaces are described here
   from the protocol's specification: requests and events by name, signature and argument
   interfaces, in the order the specification lists them (the opcodes). */
static const struct wl_interface CWayland_presentationFeedbackInterface;
static const struct wl_interface *CWayland_presentationTypes[] = {
    /* 0-6: seven plain arguments (presented's uints) */
    NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    /* 7-8: feedback(surface: wl_surface, callback: new_id wp_presentation_feedback) */
    &wl_surface_interface, &CWayland_presentationFeedbackInterface,
    /* 9: sync_output(output: wl_output) */
    &wl_output_interface,
};
static const struct wl_message CWayland_presentationRequests[] = {
    { "destroy", "", CWayland_presentationTypes },
    { "feedback", "on", CWayland_presentationTypes + 7 },
};
static const struct wl_message CWayland_presentationEvents[] = {
    { "clock_id", "u", CWayland_presentationTypes },
};
static const struct wl_interface CWayland_presentationInterface = {
    "wp_presentation", 1, 2, CWayland_presentationRequests, 1, CWayland_presentationEvents,
};
static const struct wl_message CWayland_presentationFeedbackEvents[] = {
    { "sync_output", "o", CWayland_presentationTypes + 9 },
    { "presented", "uuuuuuu", CWayland_presentationTypes },
    { "discarded", "", CWayland_presentationTypes },
};
static const struct wl_interface CWayland_presentationFeedbackInterface = {
    "wp_presentation_feedback", 1, 0, NULL, 3, CWayland_presentationFeedbackEvents,
};

/* The wp_presentation global's interface, for wl_registry_bind. */
static inline const struct wl_interface *CWayland_presentation(void) { return &CWayland_presentationInterface; }

/* wp_presentation.clock_id: the clock (a clockid_t) the feedback's times are on. */
struct CWayland_presentationListener {
    void (*clock_id)(void *data, struct wl_proxy *presentation, uint32_t clock);
};
static inline int CWayland_presentationAddListener(struct wl_proxy *presentation,
                                                   const struct CWayland_presentationListener *l, void *data) {
    return wl_proxy_add_listener(presentation, (void (**)(void))l, data);
}

/* wp_presentation.feedback(surface): one feedback object for the surface's next commit. */
static inline struct wl_proxy *CWayland_presentationFeedback(struct wl_proxy *presentation, struct wl_surface *surface) {
    return wl_proxy_marshal_flags(presentation, 1, &CWayland_presentationFeedbackInterface,
                                  wl_proxy_get_version(presentation), 0, surface, NULL);
}

/* wp_presentation.destroy (the object goes with it). */
static inline void CWayland_presentationDestroy(struct wl_proxy *presentation) {
    wl_proxy_marshal_flags(presentation, 0, NULL, wl_proxy_get_version(presentation), WL_MARSHAL_FLAG_DESTROY);
}

/* A feedback's three events; exactly one of presented and discarded comes, and the object is
   then gone on the compositor's side (the client destroys its proxy). */
struct CWayland_feedbackListener {
    void (*sync_output)(void *data, struct wl_proxy *feedback, struct wl_proxy *output);
    void (*presented)(void *data, struct wl_proxy *feedback, uint32_t tv_sec_hi, uint32_t tv_sec_lo,
                      uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags);
    void (*discarded)(void *data, struct wl_proxy *feedback);
};
static inline int CWayland_feedbackAddListener(struct wl_proxy *feedback, const struct CWayland_feedbackListener *l,
                                               void *data) {
    return wl_proxy_add_listener(feedback, (void (**)(void))l, data);
}

/* memfd_create(name, MFD_CLOEXEC) (glibc declares it only with _GNU_SOURCE). */
static inline int CWayland_memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, 1u); }
#endif
