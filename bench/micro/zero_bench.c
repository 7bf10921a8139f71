/*
 * Clearing a reader's state on reset: memset of a constant size above 64
 * bytes (which GCC expands to rep stosq with its default tuning) against
 * sdx_zero_small (src/core/platform.h: 64-byte pieces, stored as vectors),
 * for the sizes the readers clear (the part of the reader before its
 * inline stack). The two run interleaved, ROUNDS rounds of N clears each;
 * prints the median and the minimum ns per clear.
 *
 *   cc -O2 -Isrc -Iinclude bench/micro/zero_bench.c -o /tmp/zero_bench
 *   taskset -c 1 /tmp/zero_bench
 *
 * Each clear is a call (noinline) that then stores one byte, as a reset
 * goes on to set the reader's fields.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "micro.h"
#include "core/platform.h"

#define N 2000000
#define ROUNDS 15

typedef struct {
    _Alignas(64) unsigned char bytes[512];
} state;

#define CLEARS(size)                                                                            \
    static __attribute__((noinline)) void clear_memset_##size(state *s) {                     \
        memset(s->bytes, 0, size);                                                              \
        s->bytes[5] = 1;                                                                        \
    }                                                                                           \
    static __attribute__((noinline)) void clear_small_##size(state *s) {                      \
        sdx_zero_small(s->bytes, size);                                                         \
        s->bytes[5] = 1;                                                                        \
    }

/* JSON's reader clears 272 bytes, MessagePack's 216 (x86-64, from the
 * disassembly); 128 and 440 on either side */
CLEARS(128)
CLEARS(216)
CLEARS(272)
CLEARS(440)

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double run(void (*fn)(state *), state *s) {
    const double t0 = micro_now();
    for (int i = 0; i < N; i++) fn(s);
    return (micro_now() - t0) / N * 1e9;
}

static void compare(const char *name, void (*a)(state *), void (*b)(state *)) {
    static state s;
    double ta[ROUNDS], tb[ROUNDS];
    run(a, &s);
    run(b, &s);
    for (int r = 0; r < ROUNDS; r++) {
        if (r & 1) {
            tb[r] = run(b, &s);
            ta[r] = run(a, &s);
        } else {
            ta[r] = run(a, &s);
            tb[r] = run(b, &s);
        }
    }
    qsort(ta, ROUNDS, sizeof ta[0], cmp_double);
    qsort(tb, ROUNDS, sizeof tb[0], cmp_double);
    printf("%-10s memset median %6.2f ns (min %6.2f)   sdx_zero_small median %6.2f ns (min %6.2f)\n", name,
           ta[ROUNDS / 2], ta[0], tb[ROUNDS / 2], tb[0]);
}

int main(void) {
    (void)micro_rand;
    compare("128 bytes", clear_memset_128, clear_small_128);
    compare("216 bytes", clear_memset_216, clear_small_216);
    compare("272 bytes", clear_memset_272, clear_small_272);
    compare("440 bytes", clear_memset_440, clear_small_440);
    return 0;
}
