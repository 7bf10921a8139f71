/* The MessagePack code's UTF-8 checks (the automaton of src/core/utf8_dfa.c
 * and sdx_utf8_ok of core/utf8.h) against an independent reference, and
 * every length class of the writer's, reader's and parser's string paths:
 * valid multi-byte characters and invalid bytes at every position. */
#include <stdlib.h>

#include "core/utf8.h"
#include "msgpack/msgpack_internal.h"
#include "sdx/msgpack.h"
#include "simd/simd.h"
#include "test.h"
#include "utf8_ref.h"

static int dfa_ok(const uint8_t *s, size_t n) {
    return sdx_utf8_valid_dfa((const char *)s, n);
}

static int ref_ok(const uint8_t *s, size_t n) { return ref_valid_prefix(s, n) == n; }

TEST(automaton_every_sequence_up_to_three_bytes) {
    uint8_t s[3];
    for (uint32_t v = 0; v < (1u << 24); v++) {
        s[0] = (uint8_t)(v >> 16), s[1] = (uint8_t)(v >> 8), s[2] = (uint8_t)v;
        if (dfa_ok(s, 3) != ref_ok(s, 3)) {
            CHECK_EQ_INT(dfa_ok(s, 3), ref_ok(s, 3));
            fprintf(stderr, "  bytes %02x %02x %02x\n", s[0], s[1], s[2]);
            return;
        }
        if (v < 65536) {
            s[0] = (uint8_t)(v >> 8), s[1] = (uint8_t)v;
            if (!CHECK_EQ_INT(dfa_ok(s, 2), ref_ok(s, 2))) return;
            if (v < 256 && !CHECK_EQ_INT(dfa_ok(s + 1, 1), ref_ok(s + 1, 1))) return;
        }
    }
}

/* Every four-byte sequence from a lead of F0 to FF, with every second and
 * third byte and a fourth from each range that matters (the shorter
 * sequences are all in the test above). */
TEST(automaton_four_byte_sequences) {
    static const uint8_t last[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0, 0xf4, 0xff};
    uint8_t s[4];
    for (uint32_t v = 0xf00000; v <= 0xffffff; v++) {
        s[0] = (uint8_t)(v >> 16), s[1] = (uint8_t)(v >> 8), s[2] = (uint8_t)v;
        for (size_t k = 0; k < sizeof last; k++) {
            s[3] = last[k];
            if (dfa_ok(s, 4) != ref_ok(s, 4)) {
                CHECK_EQ_INT(dfa_ok(s, 4), ref_ok(s, 4));
                fprintf(stderr, "  bytes %02x %02x %02x %02x\n", s[0], s[1], s[2], s[3]);
                return;
            }
        }
    }
}

/* Pieces of text: ASCII, the first and last character of each encoded
 * length, and ill-formed pieces (a lone continuation, cut sequences,
 * overlong forms, a surrogate, beyond U+10FFFF, bytes never used). */
static const uint8_t pieces[][5] = {
    /* valid */
    {1, 'a'}, {1, '~'}, {1, 0x00},
    {2, 0xc2, 0x80}, {2, 0xdf, 0xbf},
    {3, 0xe0, 0xa0, 0x80}, {3, 0xef, 0xbf, 0xbf}, {3, 0xe4, 0xb8, 0xad},
    {4, 0xf0, 0x90, 0x80, 0x80}, {4, 0xf4, 0x8f, 0xbf, 0xbf},
    /* ill-formed */
    {1, 0x80}, {1, 0xbf}, {2, 0xe4, 0xb8}, {1, 0xf0},
    {2, 0xc0, 0x80}, {3, 0xe0, 0x9f, 0xbf}, {3, 0xed, 0xa0, 0x80}, {4, 0xf4, 0x90, 0x80, 0x80},
    {1, 0xf5}, {1, 0xff},
};
#define VALID_PIECES 10

/* Up to n bytes of mostly ASCII text from the pieces (ill-formed ones only
 * with `garbage`); returns the length. */
static size_t random_text(uint8_t *buf, size_t n, int garbage, uint64_t *seed) {
    size_t i = 0;
    while (i < n) {
        uint64_t x = test_rand(seed);
        size_t kinds = garbage ? sizeof pieces / sizeof *pieces : VALID_PIECES;
        size_t k = x % 4 ? x % 2 : (size_t)(x >> 8) % kinds;
        if (i + pieces[k][0] > n) break;
        memcpy(buf + i, pieces[k] + 1, pieces[k][0]);
        i += pieces[k][0];
    }
    return i;
}

/* The automaton at every length (its word loop and the shifted last word),
 * and sdx_utf8_ok with every kernel this CPU has. */
TEST(random_text_every_kernel) {
    uint64_t seed = 5;
    uint8_t buf[300];
    long rounds = (long)(30000 * test_scale());
    for (long r = 0; r < rounds; r++) {
        size_t n = test_rand(&seed) % (r & 1 ? 80 : sizeof buf);
        n = random_text(buf, n, (int)(test_rand(&seed) % 3 == 0), &seed);
        int want = ref_ok(buf, n);
        if (!CHECK_EQ_INT(dfa_ok(buf, n), want)) return;
        for (int l = 0; l < SDX_SIMD__COUNT; l++) {
            const sdx_simd_kernels *k = sdx_simd_kernels_for((sdx_simd_level)l);
            if (!k) continue;
            if (!CHECK_EQ_INT(sdx_utf8_ok(k->utf8_valid_prefix, (const char *)buf, n), want)) {
                fprintf(stderr, "  kernel %s, length %zu\n", k->name, n);
                return;
            }
        }
    }
}

/* sdx_utf8_ok_in (the tree parsers' check, which reads up to 16 bytes from
 * the string whatever its length when the input has them) against the
 * reference, with `pad` bytes after the string that are never ASCII (0xff,
 * 0x80: masked off, they must not count) or ASCII (which must not hide the
 * string's own bytes), in a block of exactly n + pad bytes, so that a read
 * past what the caller says is readable is a heap overflow under ASan. */
TEST(ok_in_masks_what_follows_the_string) {
    uint64_t seed = 9;
    uint8_t text[80];
    static const uint8_t fill[] = {0xff, 0x80, 'a'};
    long rounds = (long)(20000 * test_scale());
    for (long r = 0; r < rounds; r++) {
        size_t n = test_rand(&seed) % (r & 1 ? 20 : sizeof text);
        n = random_text(text, n, (int)(test_rand(&seed) % 3 == 0), &seed);
        int want = ref_ok(text, n);
        size_t pad = test_rand(&seed) % 24;
        uint8_t *block = malloc(n + pad ? n + pad : 1);
        if (!CHECK(block != NULL)) return;
        memcpy(block, text, n);
        memset(block + n, fill[test_rand(&seed) % 3], pad);
        for (int l = 0; l < SDX_SIMD__COUNT; l++) {
            const sdx_simd_kernels *k = sdx_simd_kernels_for((sdx_simd_level)l);
            if (!k) continue;
            if (!CHECK_EQ_INT(sdx_utf8_ok_in(k->utf8_valid_prefix, (const char *)block, n, n + pad), want)) {
                fprintf(stderr, "  kernel %s, length %zu, %zu bytes after it\n", k->name, n, pad);
                free(block);
                return;
            }
        }
        free(block);
    }
}

/* ------------------------------------------------------------------------ */
/* Strings of every length through the writer, the reader and the parser    */
/* ------------------------------------------------------------------------ */

/* The str encoding of s[0, n) into out; returns its length. */
static size_t encode_str(uint8_t *out, const uint8_t *s, size_t n) {
    size_t h;
    if (n < 32) {
        out[0] = (uint8_t)(0xa0 | n);
        h = 1;
    } else if (n <= 0xff) {
        out[0] = 0xd9, out[1] = (uint8_t)n;
        h = 2;
    } else {
        out[0] = 0xda, out[1] = (uint8_t)(n >> 8), out[2] = (uint8_t)n;
        h = 3;
    }
    memcpy(out + h, s, n);
    return h + n;
}

/* Write s as a str and as a key (in a one-entry map {s: nil}), into a
 * growable buffer, a buffer with no room to spare, and a growable buffer
 * whose inline storage is nearly full; check the status and the bytes. */
static int check_write(const uint8_t *s, size_t n, int valid) {
    uint8_t want[400];
    size_t wn = encode_str(want, s, n);
    for (int as_key = 0; as_key < 2; as_key++)
        for (int mode = 0; mode < 3; mode++) {
            sdx_buf b;
            char fixed[400];
            if (mode == 1)
                sdx_buf_init_fixed(&b, fixed, wn + 2 * as_key);
            else
                sdx_buf_init(&b, NULL);
            if (mode == 2) { /* leave 5 bytes of inline storage */
                char pad[SDX_BUF_INLINE - 5];
                memset(pad, 0, sizeof pad);
                sdx_buf_write(&b, pad, sizeof pad);
            }
            size_t before = sdx_buf_len(&b);
            sdx_msgpack_writer w;
            sdx_msgpack_writer_init(&w, &b, NULL);
            sdx_err e;
            if (as_key) {
                sdx_msgpack_writer_begin_map(&w, 1);
                e = sdx_msgpack_writer_key(&w, (const char *)s, n);
                sdx_msgpack_writer_null(&w);
                sdx_msgpack_writer_end(&w);
            } else {
                e = sdx_msgpack_writer_string(&w, (const char *)s, n);
            }
            sdx_err fin = sdx_msgpack_writer_finish(&w);
            int ok = CHECK_EQ_INT(e, valid ? SDX_OK : SDX_ERR_UTF8) &&
                     CHECK_EQ_INT(fin, valid ? SDX_OK : SDX_ERR_UTF8);
            if (ok && valid) {
                const uint8_t *got = (const uint8_t *)sdx_buf_data(&b) + before;
                size_t gn = sdx_buf_len(&b) - before;
                if (as_key)
                    ok = CHECK_EQ_U64(gn, wn + 2) && CHECK(got[0] == 0x81) &&
                         CHECK_MEM(got + 1, wn, want, wn) && CHECK(got[wn + 1] == 0xc0);
                else
                    ok = CHECK_MEM(got, gn, want, wn);
            }
            if (ok && !valid) ok = CHECK_EQ_U64(sdx_buf_len(&b), before + (size_t)as_key);
            sdx_buf_destroy(&b);
            if (!ok) {
                fprintf(stderr, "  length %zu, %s, buffer mode %d\n", n, as_key ? "key" : "str", mode);
                return 0;
            }
        }
    return 1;
}

/* Read s as a str at the root and as a key, with the reader (at the end of
 * the input and with bytes after it in a sequence) and the parser. */
static int check_read(const uint8_t *s, size_t n, int valid) {
    uint8_t in[400];
    size_t len = 1 + encode_str(in + 1, s, n);
    in[0] = 0x81; /* {s: nil} */
    in[len++] = 0xc0;
    for (int as_key = 0; as_key < 2; as_key++)
        for (int tail = 0; tail < 2; tail++) {
            const char *data = (const char *)in + !as_key;
            size_t dlen = as_key ? len : len - 2;
            char buf[420];
            memcpy(buf, data, dlen);
            if (tail) memset(buf + dlen, 0xc0, 20); /* 20 more nils */
            sdx_msgpack_read_opts o = {tail ? SDX_MSGPACK_READ_STOP_AFTER_VALUE : 0, 0, NULL};
            sdx_msgpack_reader *r = sdx_msgpack_reader_new(buf, dlen + (tail ? 20 : 0), &o);
            sdx_event ev;
            int ok = r != NULL;
            if (ok && as_key) ok = CHECK(sdx_msgpack_reader_next(r, &ev) && ev.kind == SDX_MAP);
            if (ok && valid) {
                ok = CHECK(sdx_msgpack_reader_next(r, &ev)) &&
                     CHECK_EQ_INT(ev.kind, as_key ? SDX_KEY : SDX_STR) &&
                     CHECK_MEM(ev.v.str.ptr, ev.v.str.len, s, n);
            } else if (ok) {
                sdx_error err;
                ok = CHECK(!sdx_msgpack_reader_next(r, &ev)) &&
                     CHECK_EQ_INT(sdx_msgpack_reader_error(r, &err), SDX_ERR_UTF8) &&
                     CHECK_EQ_U64(err.offset, (size_t)as_key);
            }
            sdx_msgpack_reader_free(r);
            sdx_error perr;
            sdx_doc *doc = sdx_msgpack_parse(buf, dlen, NULL, &perr);
            if (ok) ok = valid ? CHECK(doc != NULL) : CHECK(doc == NULL) && CHECK_EQ_INT(perr.code, SDX_ERR_UTF8);
            sdx_doc_free(doc);
            if (!ok) {
                fprintf(stderr, "  length %zu, %s, tail %d\n", n, as_key ? "key" : "str", tail);
                return 0;
            }
        }
    return 1;
}

static int check_all(const uint8_t *s, size_t n) {
    int valid = ref_ok(s, n);
    return check_write(s, n, valid) && check_read(s, n, valid);
}

TEST(strings_every_length_and_position) {
    static const uint8_t chars[][5] = {
        {2, 0xc3, 0xa9}, {3, 0xe4, 0xb8, 0xad}, {4, 0xf0, 0x9f, 0x98, 0x80}, /* valid */
        {1, 0xff},       {1, 0x80},             {2, 0xe4, 0xb8},             /* invalid */
        {3, 0xed, 0xa0, 0x80},                                               /* surrogate */
    };
    uint8_t s[300];
    for (size_t n = 0; n <= 300; n += n < 80 ? 1 : 23) {
        for (size_t i = 0; i < n; i++) s[i] = (uint8_t)('a' + i % 26);
        if (!check_all(s, n)) return;
        for (size_t c = 0; c < sizeof chars / sizeof *chars; c++) {
            size_t len = chars[c][0];
            for (size_t at = 0; at + len <= n; at += n < 40 ? 1 : 7) {
                for (size_t i = 0; i < n; i++) s[i] = (uint8_t)('a' + i % 26);
                memcpy(s + at, chars[c] + 1, len);
                if (!check_all(s, n)) return;
            }
        }
    }
}

int main(int argc, char **argv) {
    int rc = test_run(argc, argv,
                      (test_case[]){
                          {"automaton_every_sequence_up_to_three_bytes",
                           automaton_every_sequence_up_to_three_bytes},
                          {"automaton_four_byte_sequences", automaton_four_byte_sequences},
                          {"random_text_every_kernel", random_text_every_kernel},
                          {"ok_in_masks_what_follows_the_string", ok_in_masks_what_follows_the_string},
                          {"strings_every_length_and_position", strings_every_length_and_position},
                          {NULL, NULL},
                      });
    utf8_ref_free();
    return rc;
}
