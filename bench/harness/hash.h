/*
 * The benchmark's value hash ("sbh64"), identical in the C harness and the
 * Rust runner (bench/rust/src/hash.rs); bench/harness/SPEC.md defines it.
 *
 * Every test's result is one of these hashes, checked against the reference
 * before the test's time counts. Values are hashed by meaning, not encoding:
 * an integer hashes the same whether a library hands it out as int64 or
 * uint64, a double by its exact bit pattern, containers by begin and end
 * marks (no counts, so a SAX stream and a tree walk give the same hash).
 */
#ifndef SDX_BENCH_HASH_H
#define SDX_BENCH_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbh {
    uint64_t h;
} sbh;

#define SBH_SEED 0x243F6A8885A308D3ull

/* Event tags absorbed before each value. */
enum {
    SBH_NULL = 1,
    SBH_FALSE = 2,
    SBH_TRUE = 3,
    SBH_UINT = 4,   /* an integer >= 0, then its value */
    SBH_NEGINT = 5, /* an integer < 0, then its two's complement bits */
    SBH_DOUBLE = 6, /* then the IEEE 754 binary64 bits */
    SBH_STR = 7,    /* then the bytes */
    SBH_KEY = 8,    /* a string map key, then the bytes */
    SBH_BIN = 9,    /* then the bytes */
    SBH_ARRAY = 10,
    SBH_MAP = 11,
    SBH_END = 12
};

static inline void sbh_init(sbh *s) { s->h = SBH_SEED; }

static inline void sbh_word(sbh *s, uint64_t w) {
    uint64_t h = (s->h ^ w) * 0x9E3779B97F4A7C15ull;
    s->h = h ^ (h >> 29);
}

static inline uint64_t sbh_final(const sbh *s) {
    uint64_t h = s->h;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 32);
}

/* Length, then 8-byte little-endian words, the last zero-padded. */
void sbh_bytes(sbh *s, const void *p, size_t n);

static inline void sbh_null(sbh *s) { sbh_word(s, SBH_NULL); }
static inline void sbh_bool(sbh *s, int b) { sbh_word(s, b ? SBH_TRUE : SBH_FALSE); }
static inline void sbh_uint(sbh *s, uint64_t u) {
    sbh_word(s, SBH_UINT);
    sbh_word(s, u);
}
static inline void sbh_int(sbh *s, int64_t i) {
    sbh_word(s, i < 0 ? SBH_NEGINT : SBH_UINT);
    sbh_word(s, (uint64_t)i);
}
static inline void sbh_double(sbh *s, double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    sbh_word(s, SBH_DOUBLE);
    sbh_word(s, bits);
}
static inline void sbh_str(sbh *s, const char *p, size_t n) {
    sbh_word(s, SBH_STR);
    sbh_bytes(s, p, n);
}
static inline void sbh_key(sbh *s, const char *p, size_t n) {
    sbh_word(s, SBH_KEY);
    sbh_bytes(s, p, n);
}
static inline void sbh_bin(sbh *s, const void *p, size_t n) {
    sbh_word(s, SBH_BIN);
    sbh_bytes(s, p, n);
}
static inline void sbh_array(sbh *s) { sbh_word(s, SBH_ARRAY); }
static inline void sbh_map(sbh *s) { sbh_word(s, SBH_MAP); }
static inline void sbh_end(sbh *s) { sbh_word(s, SBH_END); }

/* Maps without order (SPEC.md): for a library whose maps do not keep the
 * document's key order. Each entry is hashed on its own — a fresh state,
 * sbh_key, the value (its maps hashed this way too), sbh_final — and the map
 * is absorbed as its begin mark, the sum of the entry hashes (mod 2^64), the
 * entry count and the end mark, which no key order changes:
 *
 *     uint64_t sum = 0;
 *     for each entry { sbh e; sbh_init(&e); sbh_key(&e, k, n); walk(v, &e); sum += sbh_final(&e); }
 *     sbh_unordered_map(h, sum, count);
 */
static inline void sbh_unordered_map(sbh *s, uint64_t entry_sum, uint64_t count) {
    sbh_word(s, SBH_MAP);
    sbh_word(s, entry_sum);
    sbh_word(s, count);
    sbh_word(s, SBH_END);
}

/* The hash of a byte string on its own (Write tests hash their output). */
static inline uint64_t sbh_of_bytes(const void *p, size_t n) {
    sbh s;
    sbh_init(&s);
    sbh_bytes(&s, p, n);
    return sbh_final(&s);
}

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_HASH_H */
