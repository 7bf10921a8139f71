/*
 * What the micro-benchmarks (dtoa_bench.c, itoa_bench.c, pull_loop.c,
 * write_loop.c, ...) share: the thread's CPU clock, as the suite times its
 * programs, a xorshift generator (Marsaglia, "Xorshift RNGs", 2003) for
 * their random values, and F(), the name of a function of the format
 * chosen when compiling.
 * Each program is one translation unit that includes this once.
 */
#ifndef SDX_MICRO_H
#define SDX_MICRO_H

#include <stdint.h>
#include <time.h>

/* The calling thread's CPU time in seconds. */
static double micro_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t micro_rng = 0x9E3779B97F4A7C15ull;

/* The next 64 random bits (xorshift64, shifts 13, 7, 17). */
static uint64_t micro_rand(void) {
    micro_rng ^= micro_rng << 13;
    micro_rng ^= micro_rng >> 7;
    micro_rng ^= micro_rng << 17;
    return micro_rng;
}

/* For the programs whose format is chosen when compiling (-DFMT=bson):
 * F(_reader_next) is sdx_bson_reader_next. */
#define MICRO_CAT3_(a, b, c) a##b##c
#define MICRO_CAT3(a, b, c) MICRO_CAT3_(a, b, c)
#define F(suffix) MICRO_CAT3(sdx_, FMT, suffix)

#endif
