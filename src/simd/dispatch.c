/*
 * Run-time choice of the SIMD kernels.
 *
 * The first call to sdx_simd_active() detects what the CPU supports, reads
 * the environment variable SDX_SIMD and publishes the chosen table through an
 * atomic pointer; later calls are one acquire load. Two threads racing on the
 * first call compute the same answer, and only one of them publishes it.
 *
 * Levels are ranked by vector width: scalar 0, sse2 and neon 1 (16 bytes),
 * avx2 2, avx512 3. A cap (SDX_SIMD or sdx_simd_select) picks the supported
 * level of the highest rank not above the cap's rank, so the named level
 * when the CPU has it, else the best one below it; a name from the other
 * architecture caps at the same width (SDX_SIMD=avx2 on an ARM CPU gives
 * neon, SDX_SIMD=neon on an x86 CPU gives sse2).
 */
#include "simd/simd.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "core/platform.h"
#include "sdx/common.h"

#if defined(SDX_HAVE_X86_KERNELS) && defined(SDX_ARCH_X86)
#define SDX_DETECT_X86 1
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

/* In the detected set beside the levels' bits (see supported_levels). */
#define SDX_SIMD_X_VBMI2_CLMUL (1u << 16)

static const char *const level_names[SDX_SIMD__COUNT] = {"scalar", "sse2", "avx2", "avx512",
                                                         "neon"};

static const unsigned char level_rank[SDX_SIMD__COUNT] = {0, 1, 2, 3, 1};

/* The table compiled into this build for each level, NULL where none. */
static const sdx_simd_kernels *built_table(sdx_simd_level level) {
    switch (level) {
    case SDX_SIMD_SCALAR:
        return &sdx_simd_scalar;
#ifdef SDX_DETECT_X86
    case SDX_SIMD_SSE2:
        return &sdx_simd_sse2;
    case SDX_SIMD_AVX2:
        return &sdx_simd_avx2;
    case SDX_SIMD_AVX512:
        return &sdx_simd_avx512;
#endif
#ifdef SDX_HAVE_NEON_KERNELS
    case SDX_SIMD_NEON:
        return &sdx_simd_neon;
#endif
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* CPU detection                                                             */
/* ------------------------------------------------------------------------ */

#ifdef SDX_DETECT_X86

/* cpuid leaf/subleaf into r[0..3] = eax, ebx, ecx, edx; 0 if the leaf is
 * above the CPU's highest one. */
static int cpuid(unsigned leaf, unsigned subleaf, unsigned r[4]) {
#if defined(_MSC_VER) && !defined(__clang__)
    int regs[4];
    __cpuid(regs, (int)(leaf & 0x80000000u));
    if ((unsigned)regs[0] < leaf) return 0;
    __cpuidex(regs, (int)leaf, (int)subleaf);
    for (int i = 0; i < 4; i++) r[i] = (unsigned)regs[i];
    return 1;
#else
    return __get_cpuid_count(leaf, subleaf, &r[0], &r[1], &r[2], &r[3]);
#endif
}

/* XCR0: which register states the OS saves on a context switch. Only valid
 * when cpuid reports OSXSAVE. */
static uint64_t xgetbv0(void) {
#if defined(_MSC_VER) && !defined(__clang__)
    return _xgetbv(0);
#else
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
#endif
}

static unsigned detect_levels(void) {
    unsigned levels = 1u << SDX_SIMD_SCALAR;
    unsigned r[4];
    if (!cpuid(1, 0, r)) return levels;
    const unsigned ecx1 = r[2], edx1 = r[3];
    if (edx1 & (1u << 26)) levels |= 1u << SDX_SIMD_SSE2;

    /* OS support: XCR0 bits 1-2 (XMM, YMM), 5-7 (opmask, ZMM 0-15 upper
     * halves, ZMM 16-31). */
    const int osxsave = (ecx1 >> 27) & 1, avx = (ecx1 >> 28) & 1;
    const uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    const int ymm_ok = (xcr0 & 0x06) == 0x06;
    const int zmm_ok = ymm_ok && (xcr0 & 0xE0) == 0xE0;

    if (!cpuid(7, 0, r)) return levels;
    const unsigned ebx7 = r[1];
    /* avx2.c and avx512.c are compiled with -mbmi -mbmi2 as well */
    const int avx2 = avx && ((ebx7 >> 5) & 1) && ((ebx7 >> 3) & 1) && ((ebx7 >> 8) & 1);
    const int avx512 = ((ebx7 >> 16) & 1) && ((ebx7 >> 30) & 1) && ((ebx7 >> 31) & 1);
    if (!(levels & (1u << SDX_SIMD_SSE2)) || !avx2 || !ymm_ok) return levels;
    levels |= 1u << SDX_SIMD_AVX2;
    if (avx512 && zmm_ok) {
        levels |= 1u << SDX_SIMD_AVX512;
        /* the JSON parser's structural indexing: AVX-512 VBMI2 (cpuid 7
         * ecx bit 6) and PCLMULQDQ (cpuid 1 ecx bit 1) */
        if (((r[2] >> 6) & 1) && ((ecx1 >> 1) & 1)) levels |= SDX_SIMD_X_VBMI2_CLMUL;
    }
    return levels;
}

#else

static unsigned detect_levels(void) {
    unsigned levels = 1u << SDX_SIMD_SCALAR;
#ifdef SDX_HAVE_NEON_KERNELS
    levels |= 1u << SDX_SIMD_NEON; /* Advanced SIMD is mandatory on AArch64 */
#endif
    return levels;
}

#endif

/* Bit per level the CPU runs and the build has, SDX_SIMD_X_VBMI2_CLMUL
 * (bit 16) for the extensions of sdx_simd_avx512_vbmi2; bit 31 marks
 * "computed". */
static atomic_uint cpu_levels;

static unsigned supported_levels(void) {
    unsigned v = atomic_load_explicit(&cpu_levels, memory_order_relaxed);
    if (SDX_LIKELY(v)) return v;
    v = detect_levels() | 1u << 31;
    atomic_store_explicit(&cpu_levels, v, memory_order_relaxed);
    return v;
}

int sdx_simd_avx512_vbmi2(void) {
    return (supported_levels() & SDX_SIMD_X_VBMI2_CLMUL) != 0;
}

static int is_supported(sdx_simd_level level) {
    return (unsigned)level < SDX_SIMD__COUNT && built_table(level) &&
           (supported_levels() >> level & 1);
}

/* The supported level of the highest rank not above the rank of `cap`; a
 * cap outside the enum means no cap. */
static sdx_simd_level best_at_most(sdx_simd_level cap) {
    const unsigned max_rank = (unsigned)cap < SDX_SIMD__COUNT ? level_rank[cap] : ~0u;
    sdx_simd_level best = SDX_SIMD_SCALAR;
    for (int l = 0; l < SDX_SIMD__COUNT; l++) {
        if (level_rank[l] <= max_rank && level_rank[l] > level_rank[best] &&
            is_supported((sdx_simd_level)l))
            best = (sdx_simd_level)l;
    }
    return best;
}

/* ------------------------------------------------------------------------ */
/* The active table                                                          */
/* ------------------------------------------------------------------------ */

static _Atomic(const sdx_simd_kernels *) active_table = NULL;

static const sdx_simd_kernels *choose_initial(void) {
    sdx_simd_level cap = SDX_SIMD__COUNT; /* no cap */
    const char *env = getenv("SDX_SIMD");
    if (env) {
        int l = sdx_simd_level_from_name(env);
        if (l >= 0) cap = (sdx_simd_level)l; /* an unknown name is ignored */
    }
    const sdx_simd_kernels *k = built_table(best_at_most(cap));
    const sdx_simd_kernels *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&active_table, &expected, k, memory_order_acq_rel,
                                                memory_order_acquire))
        return k;
    return expected; /* another thread (or sdx_simd_select) got there first */
}

const sdx_simd_kernels *sdx_simd_active(void) {
    const sdx_simd_kernels *k = atomic_load_explicit(&active_table, memory_order_acquire);
    if (SDX_LIKELY(k != NULL)) return k;
    return choose_initial();
}

const sdx_simd_kernels *sdx_simd_kernels_for(sdx_simd_level level) {
    return is_supported(level) ? built_table(level) : NULL;
}

sdx_simd_level sdx_simd_select(sdx_simd_level level) {
    const sdx_simd_level chosen = best_at_most(level);
    atomic_store_explicit(&active_table, built_table(chosen), memory_order_release);
    return chosen;
}

const char *sdx_simd_level_name(sdx_simd_level level) {
    return (unsigned)level < SDX_SIMD__COUNT ? level_names[level] : "unknown";
}

int sdx_simd_level_from_name(const char *name) {
    if (!name) return -1;
    for (int l = 0; l < SDX_SIMD__COUNT; l++) {
        const char *a = name, *b = level_names[l];
        /* ASCII case-insensitive, independent of the locale */
        while (*a && *b && (*a | ((*a >= 'A' && *a <= 'Z') ? 0x20 : 0)) == *b) a++, b++;
        if (*a == '\0' && *b == '\0') return l;
    }
    return -1;
}

SDX_API const char *sdx_simd_name(void) {
    return sdx_simd_active()->name;
}
