#ifndef DARKMODE_KIOSK_RASTER_CPU_H
#define DARKMODE_KIOSK_RASTER_CPU_H

/* Whether this CPU, and the kernel running on it, can run code compiled for x86-64-v3 (the
   second copy of the span kernels, RasterAVX2): CPUID's AVX, AVX2, FMA, F16C, MOVBE, BMI1,
   BMI2 and LZCNT, and the OS saving the YMM registers (OSXSAVE, then XCR0 bits 1 and 2).
   Elsewhere than x86-64: 0. Asked once at start (Raster's Kernels). */
#if defined(__x86_64__)
#include <cpuid.h>
#endif

static inline int darkmode_kiosk_cpu_runs_x86_64_v3(void) {
#if defined(__x86_64__)
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned int leaf1 = bit_FMA | bit_MOVBE | bit_OSXSAVE | bit_AVX | bit_F16C;
    if ((c & leaf1) != leaf1) return 0;
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6u) != 6u) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const unsigned int leaf7 = bit_BMI | bit_AVX2 | bit_BMI2;
    if ((b & leaf7) != leaf7) return 0;
    if (!__get_cpuid(0x80000001u, &a, &b, &c, &d)) return 0;
    return (c & bit_LZCNT) != 0;
#else
    return 0;
#endif
}

#endif
