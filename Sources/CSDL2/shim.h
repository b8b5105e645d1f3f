#ifndef DARKMODEKIOSK_CSDL2_SHIM_H
#define DARKMODEKIOSK_CSDL2_SHIM_H
#include <SDL2/SDL.h>

/* Macros Swift cannot import, re-exported as constants. */
static const Uint32 CSDL2_WINDOWPOS_UNDEFINED = SDL_WINDOWPOS_UNDEFINED;
static const Uint32 CSDL2_WINDOWPOS_CENTERED = SDL_WINDOWPOS_CENTERED;
static const Uint32 CSDL2_PIXELFORMAT_RGBA32 = SDL_PIXELFORMAT_RGBA32;
static const Uint32 CSDL2_TOUCH_MOUSEID = SDL_TOUCH_MOUSEID;
static const Sint64 CSDL2_MOUSE_TOUCHID = SDL_MOUSE_TOUCHID;

/* A window's Wayland display and surface (for the shared-memory presenter); 0 when the window
   is not on Wayland. SDL_syswm.h is read without its X11 part, which would pull Xlib's headers
   into Swift; every member of the info union starts at its beginning and the union keeps its
   64-byte size, so the Wayland member's layout is the library's. */
#undef SDL_VIDEO_DRIVER_X11
#include <SDL2/SDL_syswm.h>
static inline int CSDL2_WaylandHandles(SDL_Window *window, void **display, void **surface) {
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(window, &info) || info.subsystem != SDL_SYSWM_WAYLAND) return 0;
    *display = info.info.wl.display;
    *surface = info.info.wl.surface;
    return *display != 0 && *surface != 0;
}
#endif
