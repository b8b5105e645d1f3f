#ifndef DARKMODE_KIOSK_STREAMING_STORE_H
#define DARKMODE_KIOSK_STREAMING_STORE_H

/* Non-temporal ("streaming") stores of 32-bit pixels: written towards memory past the caches,
   for a buffer this process will not read again soon (what a presenter hands to the display
   server). Swift has no such store; clang's __builtin_nontemporal_store gives one on every
   target it knows (x86-64: MOVNTDQ, AArch64: STNP), through the including module's compiler
   settings. Used by Raster's StreamingCopy, which says when.
   SwiftPM does not count this header among the inputs of the modules that import it: after
   changing it, touch Sources/Raster/StreamingCopy.swift (or build from clean). */

#include <stdint.h>
#include <string.h>

typedef uint32_t darkmode_kiosk_pixels4 __attribute__((ext_vector_type(4)));

/* One pixel as stored: as it is, or with its red and blue bytes exchanged. */
static inline uint32_t darkmode_kiosk_stream_pixel(uint32_t p, int swap_red_blue) {
    return swap_red_blue ? (p & 0xFF00FF00u) | ((p & 0xFFu) << 16) | ((p >> 16) & 0xFFu) : p;
}

/* Copies `count` pixels from `src` to `dst` (which must not overlap), red and blue swapped when
   `swap_red_blue` is not 0 (R, G, B, A bytes to B, G, R, A: XRGB8888 and ARGB8888 on a
   little-endian machine). Blocks of four pixels at 16-byte aligned destinations are streamed;
   the pixels before the first such block and after the last are stored as usual. The stores
   are seen by other threads and processes after darkmode_kiosk_stream_fence. */
static inline void darkmode_kiosk_stream_row(uint32_t *dst, const uint32_t *src, long count, int swap_red_blue) {
    long i = 0;
    for (; i < count && ((uintptr_t)(dst + i) & 15) != 0; i++) dst[i] = darkmode_kiosk_stream_pixel(src[i], swap_red_blue);
    for (; i + 4 <= count; i += 4) {
        darkmode_kiosk_pixels4 v;
        memcpy(&v, src + i, sizeof v);
        if (swap_red_blue) v = (v & 0xFF00FF00u) | ((v & 0xFFu) << 16) | ((v >> 16) & 0xFFu);
        __builtin_nontemporal_store(v, (darkmode_kiosk_pixels4 *)(dst + i));
    }
    for (; i < count; i++) dst[i] = darkmode_kiosk_stream_pixel(src[i], swap_red_blue);
}

/* Orders the streaming stores before every later store and load: after it, another thread or
   process that is told of the pixels sees them. */
static inline void darkmode_kiosk_stream_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}


typedef uint32_t darkmode_kiosk_pixels8 __attribute__((ext_vector_type(8)));
typedef uint16_t darkmode_kiosk_pixels8_565 __attribute__((ext_vector_type(8)));

/* One pixel (R, G, B, A bytes: a little-endian 0xAABBGGRR) as RGB565: the top five bits of red,
   six of green and five of blue in one 16-bit word, red highest (DRM_FORMAT_RGB565). Truncated,
   not rounded. */
static inline uint16_t darkmode_kiosk_pixel_565(uint32_t p) {
    return (uint16_t)(((p & 0xF8u) << 8) | ((p >> 5) & 0x07E0u) | ((p >> 19) & 0x001Fu));
}

/* Copies `count` pixels from `src` into RGB565 at `dst` (not overlapping). With `stream` not 0,
   blocks of eight at 16-byte aligned destinations go past the caches (then fence with
   darkmode_kiosk_stream_fence); else ordinary stores. */
static inline void darkmode_kiosk_row_565(uint16_t *dst, const uint32_t *src, long count, int stream) {
    long i = 0;
    if (stream) {
        for (; i < count && ((uintptr_t)(dst + i) & 15) != 0; i++) dst[i] = darkmode_kiosk_pixel_565(src[i]);
    }
    for (; i + 8 <= count; i += 8) {
        darkmode_kiosk_pixels8 v;
        memcpy(&v, src + i, sizeof v);
        darkmode_kiosk_pixels8 w = ((v & 0xF8u) << 8) | ((v >> 5) & 0x07E0u) | ((v >> 19) & 0x001Fu);
        darkmode_kiosk_pixels8_565 h = __builtin_convertvector(w, darkmode_kiosk_pixels8_565);
        if (stream) __builtin_nontemporal_store(h, (darkmode_kiosk_pixels8_565 *)(dst + i));
        else memcpy(dst + i, &h, sizeof h);
    }
    for (; i < count; i++) dst[i] = darkmode_kiosk_pixel_565(src[i]);
}

#endif
