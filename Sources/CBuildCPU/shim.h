#ifndef DARKMODE_KIOSK_BUILD_CPU_H
#define DARKMODE_KIOSK_BUILD_CPU_H

/* The x86 instruction-set extensions the including Swift module is compiled for: the
   compiler's predefined macros, which follow its -target-cpu (Package.swift). Bit i stands for
   BuildCPU.features[i] (Sources/BuildCPU/BuildCPU.swift), named as /proc/cpuinfo names them.
   Elsewhere than x86 none of these is defined: 0. */
static inline unsigned long long darkmode_kiosk_build_cpu_features(void) {
    unsigned long long f = 0;
#ifdef __SSSE3__
    f |= 1ull << 0;
#endif
#ifdef __SSE4_1__
    f |= 1ull << 1;
#endif
#ifdef __SSE4_2__
    f |= 1ull << 2;
#endif
#ifdef __POPCNT__
    f |= 1ull << 3;
#endif
#ifdef __AVX__
    f |= 1ull << 4;
#endif
#ifdef __AVX2__
    f |= 1ull << 5;
#endif
#ifdef __FMA__
    f |= 1ull << 6;
#endif
#ifdef __BMI__
    f |= 1ull << 7;
#endif
#ifdef __BMI2__
    f |= 1ull << 8;
#endif
#ifdef __F16C__
    f |= 1ull << 9;
#endif
#ifdef __MOVBE__
    f |= 1ull << 10;
#endif
#ifdef __LZCNT__
    f |= 1ull << 11;
#endif
#ifdef __AVX512F__
    f |= 1ull << 12;
#endif
#ifdef __AVX512DQ__
    f |= 1ull << 13;
#endif
#ifdef __AVX512CD__
    f |= 1ull << 14;
#endif
#ifdef __AVX512BW__
    f |= 1ull << 15;
#endif
#ifdef __AVX512VL__
    f |= 1ull << 16;
#endif
    return f;
}

#endif
