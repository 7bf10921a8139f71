/*
 * Micro-benchmark: what the first stage of a two-stage JSON parser would
 * cost on this machine, against sdx's whole one-pass parse (issue 17, "JSON
 * Tree and Incremental against simdjson 5").
 *
 * Stage 1 is the structural indexing of Langdale and Lemire ("Parsing
 * Gigabytes of JSON per Second", VLDB Journal 28, 2019), written here from
 * the paper's description, for one 64-byte block at a time:
 *   - bit masks of the block's quotes, backslashes, control bytes, the six
 *     structural characters {}[]:, and the four whitespace bytes; the last
 *     two from a table lookup by low and by high nibble (AND of the two
 *     entries, one bit per class: section 3.1.2 of the paper);
 *   - the escaped bytes (each byte after an odd run of backslashes; a loop
 *     over the backslashes, which are rare, rather than the paper's carry
 *     arithmetic), so the quotes that delimit strings;
 *   - the bytes inside strings, a prefix XOR of those quotes (one carry-less
 *     multiplication by all ones, section 3.1.1);
 *   - the index entries: every delimiting quote, every structural character
 *     outside strings, the first byte of every scalar (a byte that is none
 *     of those, nor whitespace, after one that is), and, inside strings,
 *     every escaping backslash and control byte (for a second stage to
 *     unescape or reject);
 *   - their offsets written out ("flattened") as 32-bit integers, either by
 *     one count-trailing-zeros per entry (the paper's loop, unrolled eight
 *     and sixteen at a time) or, with AVX-512 VBMI2, by compressing the
 *     block's byte positions with the entry mask (vpcompressb) and widening
 *     them.
 * A scalar byte loop computes the same entries; every variant is checked
 * against it before it is timed. (The library's own first stage, built
 * after this measurement, is index_chunk in src/json/parse.c: the
 * vpcompressb variant.) The UTF-8 validation that sdx's parser
 * runs first (simd kernel) is timed too, and sdx_json_parse itself.
 *
 *   cc -O3 -std=c11 -mavx512f -mavx512bw -mavx512vl -mavx512vbmi2 -mpclmul \
 *      -Isrc -Iinclude bench/micro/json_index_bench.c build/release/libsdx.a \
 *      -o /tmp/json_index_bench
 *   /tmp/json_index_bench build/bench/data/twitter.json ../shared/corpus/canada.json
 *
 * Needs a CPU with AVX-512 BW and VBMI2 (it says so and stops otherwise).
 * Fastest of interleaved passes, about 0.5 s in all per file. Not part of
 * the build.
 */
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "micro.h"
#include "sdx/sdx.h"
#include "simd/simd.h"

#define CHUNK 4096 /* input bytes indexed per call; entries stay in L1/L2 */

typedef struct {
    uint64_t escaped;   /* bit 0: the next block's first byte is escaped */
    uint64_t in_string; /* all ones while the previous block ended in a string */
    uint64_t scalar;    /* bit 0: the previous block ended in a scalar's bytes */
} index_state;

typedef struct {
    uint64_t quote, backslash, control, structural, space;
} block_masks;

/* ---- classification ---- */

static inline block_masks classify_avx512(const char *p) {
    /* one bit per class: 1 ',', 2 ':', 4 brackets, 8 ' ', 16 \t \n \r */
    const __m512i lo_table = _mm512_broadcast_i32x4(
        _mm_setr_epi8(8, 0, 0, 0, 0, 0, 0, 0, 0, 16, 2 | 16, 4, 1, 4 | 16, 0, 0));
    const __m512i hi_table =
        _mm512_broadcast_i32x4(_mm_setr_epi8(16, 0, 1 | 8, 2, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0));
    const __m512i v = _mm512_loadu_si512(p);
    const __m512i lo = _mm512_shuffle_epi8(lo_table, v); /* bytes >= 0x80 give 0 */
    const __m512i hi =
        _mm512_shuffle_epi8(hi_table, _mm512_and_si512(_mm512_srli_epi16(v, 4), _mm512_set1_epi8(15)));
    const __m512i cls = _mm512_and_si512(lo, hi);
    block_masks m;
    m.structural = _mm512_test_epi8_mask(cls, _mm512_set1_epi8(7));
    m.space = _mm512_test_epi8_mask(cls, _mm512_set1_epi8(24));
    m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m.backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m.control = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
    return m;
}

static inline block_masks classify_scalar(const char *p) {
    block_masks m = {0, 0, 0, 0, 0};
    for (int i = 0; i < 64; i++) {
        const unsigned char c = (unsigned char)p[i];
        const uint64_t bit = 1ull << i;
        if (c == '"') m.quote |= bit;
        if (c == '\\') m.backslash |= bit;
        if (c < 0x20) m.control |= bit;
        if (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') m.structural |= bit;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') m.space |= bit;
    }
    return m;
}

static inline uint64_t prefix_xor_clmul(uint64_t x) {
    return (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0));
}

static inline uint64_t prefix_xor_scalar(uint64_t x) {
    for (int s = 1; s < 64; s *= 2) x ^= x << s;
    return x;
}

/* The entry mask of a block from its classes (shared by every variant). */
static inline uint64_t entries_of(block_masks m, index_state *st, int clmul) {
    uint64_t escaped = st->escaped, starts = 0;
    st->escaped = 0;
    if (m.backslash | escaped) {
        uint64_t b = m.backslash & ~escaped;
        while (b) {
            const unsigned i = (unsigned)__builtin_ctzll(b);
            starts |= 1ull << i;
            if (i == 63) {
                st->escaped = 1;
                break;
            }
            escaped |= 2ull << i;
            b &= ~(3ull << i);
        }
    }
    const uint64_t quotes = m.quote & ~escaped;
    const uint64_t inside =
        (clmul ? prefix_xor_clmul(quotes) : prefix_xor_scalar(quotes)) ^ st->in_string;
    st->in_string = (uint64_t)((int64_t)inside >> 63);
    const uint64_t other = ~(m.quote | m.structural | m.space) & ~inside;
    const uint64_t scalar_starts = other & ~(other << 1 | st->scalar);
    st->scalar = other >> 63;
    return quotes | (m.structural & ~inside) | scalar_starts | ((starts | m.control) & inside);
}

/* ---- flattening ---- */

/* One count-trailing-zeros per entry; writes up to 15 past the count. */
static inline size_t flatten_ctz(uint64_t e, uint32_t base, uint32_t *out) {
    const size_t n = (size_t)__builtin_popcountll(e);
#define ONE(j)                                          \
    out[j] = base + (uint32_t)__builtin_ctzll(e);       \
    e &= e - 1;
    if (e) {
        ONE(0) ONE(1) ONE(2) ONE(3) ONE(4) ONE(5) ONE(6) ONE(7)
        if (n > 8) {
            ONE(8) ONE(9) ONE(10) ONE(11) ONE(12) ONE(13) ONE(14) ONE(15)
            for (out += 16; e; out++) {
                ONE(0)
            }
        }
    }
#undef ONE
    return n;
}

/* vpcompressb of the byte positions; writes up to 63 past the count. */
static inline size_t flatten_compress(uint64_t e, uint32_t base, uint32_t *out) {
    const __m512i iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const size_t n = (size_t)__builtin_popcountll(e);
    const __m512i pos = _mm512_maskz_compress_epi8(e, iota);
    const __m512i b = _mm512_set1_epi32((int)base);
    _mm512_storeu_si512(out, _mm512_add_epi32(b, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(pos))));
    if (n > 16) {
        _mm512_storeu_si512(out + 16, _mm512_add_epi32(b, _mm512_cvtepu8_epi32(
                                                              _mm512_extracti32x4_epi32(pos, 1))));
        if (n > 32) {
            _mm512_storeu_si512(out + 32, _mm512_add_epi32(b, _mm512_cvtepu8_epi32(
                                                                  _mm512_extracti32x4_epi32(pos, 2))));
            _mm512_storeu_si512(out + 48, _mm512_add_epi32(b, _mm512_cvtepu8_epi32(
                                                                  _mm512_extracti32x4_epi32(pos, 3))));
        }
    }
    return n;
}

/* ---- the variants: index text[0, n) (n a multiple of 64) in chunks ---- */

enum { V_SCALAR, V_CLASSIFY_ONLY, V_CTZ, V_COMPRESS, V_COUNT };
static const char *const variant_name[V_COUNT] = {
    "scalar reference", "AVX-512 classes only", "AVX-512 + ctz flatten",
    "AVX-512 + vpcompressb flatten"};

static uint64_t sink;

/* Returns the number of entries; `all` (if not NULL) receives them. */
static size_t run_index(int variant, const char *text, size_t n, uint32_t *buf, uint32_t *all) {
    index_state st = {0, 0, 0};
    size_t total = 0;
    for (size_t off = 0; off < n; off += CHUNK) {
        const size_t len = n - off < CHUNK ? n - off : CHUNK;
        size_t k = 0;
        for (size_t i = 0; i < len; i += 64) {
            const char *p = text + off + i;
            const uint32_t base = (uint32_t)(off + i);
            switch (variant) {
            case V_SCALAR: {
                uint64_t e = entries_of(classify_scalar(p), &st, 0);
                while (e) {
                    buf[k++] = base + (uint32_t)__builtin_ctzll(e);
                    e &= e - 1;
                }
                break;
            }
            case V_CLASSIFY_ONLY: {
                const uint64_t e = entries_of(classify_avx512(p), &st, 1);
                sink ^= e;
                k += (size_t)__builtin_popcountll(e);
                break;
            }
            case V_CTZ: k += flatten_ctz(entries_of(classify_avx512(p), &st, 1), base, buf + k); break;
            default: k += flatten_compress(entries_of(classify_avx512(p), &st, 1), base, buf + k); break;
            }
        }
        if (all && variant != V_CLASSIFY_ONLY) memcpy(all + total, buf, k * sizeof *buf);
        total += k;
    }
    return total;
}

static char *read_file(const char *path, size_t *len, size_t *padded) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    *len = (size_t)size;
    *padded = (*len + 63) / 64 * 64;
    char *b = malloc(*padded ? *padded : 64);
    if (!b || fread(b, 1, *len, f) != *len) {
        fclose(f);
        free(b);
        return NULL;
    }
    fclose(f);
    memset(b + *len, ' ', *padded - *len); /* the last block padded with spaces */
    return b;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.json ...\n", argv[0]);
        return 2;
    }
    (void)micro_rand;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vbmi2") ||
        !__builtin_cpu_supports("pclmul")) {
        fprintf(stderr, "this CPU lacks AVX-512 BW, VBMI2 or PCLMUL\n");
        return 2;
    }
    const sdx_simd_kernels *k = sdx_simd_active();
    printf("SIMD kernels: %s\n", k->name);
    for (int a = 1; a < argc; a++) {
        size_t len, padded;
        char *text = read_file(argv[a], &len, &padded);
        if (!text) {
            fprintf(stderr, "%s: cannot read\n", argv[a]);
            return 1;
        }
        const size_t cap = CHUNK + 64;
        uint32_t *buf = malloc(cap * sizeof *buf);
        uint32_t *ref = malloc((padded + 64) * sizeof *ref);
        uint32_t *got = malloc((padded + 64) * sizeof *got);
        const size_t nref = run_index(V_SCALAR, text, padded, buf, ref);
        for (int v = V_CTZ; v < V_COUNT; v++) {
            const size_t n = run_index(v, text, padded, buf, got);
            if (n != nref || memcmp(ref, got, n * sizeof *ref) != 0) {
                fprintf(stderr, "%s: %s differs from the scalar reference\n", argv[a], variant_name[v]);
                return 1;
            }
        }
        if (run_index(V_CLASSIFY_ONLY, text, padded, buf, NULL) != nref) {
            fprintf(stderr, "%s: the entry count differs\n", argv[a]);
            return 1;
        }
        /* interleaved passes; the fastest of each */
        enum { T_PARSE = V_COUNT, T_UTF8, T_ALL };
        double best[T_ALL];
        for (int t = 0; t < T_ALL; t++) best[t] = 1e30;
        const double stop = micro_now() + 0.5;
        int passes = 0;
        while (micro_now() < stop || passes < 5) {
            for (int t = V_CLASSIFY_ONLY; t < T_ALL; t++) { /* not the reference */
                const double t0 = micro_now();
                if (t < V_COUNT) {
                    sink += run_index(t, text, padded, buf, NULL);
                } else if (t == T_PARSE) {
                    sdx_error err;
                    sdx_doc *doc = sdx_json_parse(text, len, NULL, &err);
                    if (!doc) {
                        fprintf(stderr, "%s: %s at %zu\n", argv[a], err.msg, err.offset);
                        return 1;
                    }
                    sdx_doc_free(doc);
                } else {
                    sink += k->utf8_valid_prefix(text, len);
                }
                const double dt = micro_now() - t0;
                if (dt < best[t]) best[t] = dt;
            }
            passes++;
        }
        printf("%s: %zu bytes, %zu entries (%.2f per 64 bytes), %d passes\n", argv[a], len, nref,
               64.0 * (double)nref / (double)padded, passes);
        for (int t = V_CLASSIFY_ONLY; t < T_ALL; t++) {
            const char *name = t < V_COUNT ? variant_name[t]
                               : t == T_PARSE ? "sdx_json_parse (whole parse)"
                                              : "UTF-8 validation (sdx kernel)";
            printf("  %-32s %9.1f us  %6.2f GB/s\n", name, best[t] * 1e6,
                   (double)len / best[t] * 1e-9);
        }
        free(buf);
        free(ref);
        free(got);
        free(text);
    }
    return sink == 42 ? 3 : 0;
}
