#ifndef DARKMODEKIOSK_CSDL2_SHIM_H
#define DARKMODEKIOSK_CSDL2_SHIM_H
#include <SDL2/SDL.h>

/* Macros Swift cannot import, re-exported as constants. */
static const Uint32 CSDL2_WINDOWPOS_UNDEFINED = SDL_WINDOWPOS_UNDEFINED;
static const Uint32 CSDL2_WINDOWPOS_CENTERED = SDL_WINDOWPOS_CENTERED;
static const Uint32 CSDL2_PIXELFORMAT_RGBA32 = SDL_PIXELFORMAT_RGBA32;
static const Uint32 CSDL2_TOUCH_MOUSEID = SDL_TOUCH_MOUSEID;
static const Sint64 CSDL2_MOUSE_TOUCHID = SDL_MOUSE_TOUCHID;

/* Which signal asked the kiosk to quit. SDL turns SIGTERM/SIGINT into SDL_QUIT, and so does a
   Wayland compositor going away: the recorder (installed after SDL_Init, chained in front of
   SDL's handlers) tells the two apart. Only installed over a real handler, so a signal is
   never swallowed. Call both functions from one Swift file (the statics are per object). */
#include <signal.h>
#include <string.h>
static volatile sig_atomic_t csdl2_quit_signal = 0;
static void (*csdl2_prev_term)(int) = 0;
static void (*csdl2_prev_int)(int) = 0;
static void csdl2_signal_recorder(int sig) {
    if (csdl2_quit_signal == 0) csdl2_quit_signal = sig;
    void (*prev)(int) = sig == SIGTERM ? csdl2_prev_term : csdl2_prev_int;
    if (prev != 0 && prev != SIG_DFL && prev != SIG_IGN) prev(sig);
}
static inline void CSDL2_RecordQuitSignals(void) {
    int sigs[2] = { SIGTERM, SIGINT };
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        memset(&old, 0, sizeof old);
        if (sigaction(sigs[i], 0, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN) continue;
        if (old.sa_handler == csdl2_signal_recorder) continue;
        if (sigs[i] == SIGTERM) csdl2_prev_term = old.sa_handler; else csdl2_prev_int = old.sa_handler;
        struct sigaction act = old;
        act.sa_handler = csdl2_signal_recorder;
        sigaction(sigs[i], &act, 0);
    }
}
static inline int CSDL2_QuitSignal(void) { return csdl2_quit_signal; }
/* Puts the chained handlers back (before SDL_Quit, which then restores the defaults) and
   forgets the recorded signal. */
static inline void CSDL2_RestoreQuitSignals(void) {
    int sigs[2] = { SIGTERM, SIGINT };
    for (int i = 0; i < 2; i++) {
        void (*prev)(int) = sigs[i] == SIGTERM ? csdl2_prev_term : csdl2_prev_int;
        if (prev == 0) continue;
        struct sigaction cur;
        memset(&cur, 0, sizeof cur);
        if (sigaction(sigs[i], 0, &cur) == 0 && cur.sa_handler == csdl2_signal_recorder) {
            cur.sa_handler = prev;
            sigaction(sigs[i], &cur, 0);
        }
        if (sigs[i] == SIGTERM) csdl2_prev_term = 0; else csdl2_prev_int = 0;
    }
    csdl2_quit_signal = 0;
}
#endif
