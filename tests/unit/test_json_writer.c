/* The JSON writer: exact output, escaping against a reference, every SIMD
 * kernel, pretty printing, errors, fixed buffers, streams, deep nesting,
 * allocation failure, and the inline fast paths (the macros in json.h)
 * against the exported functions. */
#include <math.h>
#include <stdarg.h>

#include "alloc_test.h"
#include "json/escape.h"
#include "sdx/json.h"
#include "simd/simd.h"
#include "sbuf.h"
#include "test.h"
#include "utf8_ref.h"
#include "writer_script.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* Reference escaping of a string body per RFC 8259 and the writer's flags,
 * written independently of the library. Returns 0 for invalid UTF-8 that
 * may not be replaced. */
static int ref_escape(sbuf *o, const char *sp, size_t n, uint32_t flags) {
    const uint8_t *s = (const uint8_t *)sp;
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            if (c == '"') sb_puts(o, "\\\"");
            else if (c == '\\') sb_puts(o, "\\\\");
            else if (c == '/' && (flags & SDX_JSON_WRITE_ESCAPE_SLASH)) sb_puts(o, "\\/");
            else if (c == '\b') sb_puts(o, "\\b");
            else if (c == '\f') sb_puts(o, "\\f");
            else if (c == '\n') sb_puts(o, "\\n");
            else if (c == '\r') sb_puts(o, "\\r");
            else if (c == '\t') sb_puts(o, "\\t");
            else if (c < 0x20) sb_printf(o, "\\u%04x", c);
            else sb_put(o, (const char *)&c, 1);
            i++;
            continue;
        }
        if ((flags & SDX_JSON_WRITE_NO_UTF8_CHECK) && !(flags & SDX_JSON_WRITE_ESCAPE_UNICODE)) {
            sb_put(o, (const char *)s + i, 1); /* unchecked: as it is */
            i++;
            continue;
        }
        size_t len = ref_seq_len(s + i, n - i);
        uint32_t cp;
        if (len) {
            cp = s[i] & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
            for (size_t k = 1; k < len; k++) cp = cp << 6 | (s[i + k] & 0x3Fu);
        } else {
            if (!(flags & SDX_JSON_WRITE_REPLACE_INVALID_UTF8)) return 0;
            len = ref_invalid_len(s + i, n - i);
            cp = 0xFFFD;
        }
        if (flags & SDX_JSON_WRITE_ESCAPE_UNICODE) {
            if (cp >= 0x10000)
                sb_printf(o, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
                           0xDC00 + ((cp - 0x10000) & 0x3FF));
            else
                sb_printf(o, "\\u%04x", cp);
        } else if (cp == 0xFFFD && !ref_seq_len(s + i, n - i)) {
            sb_puts(o, "\xEF\xBF\xBD");
        } else {
            sb_put(o, (const char *)s + i, len);
        }
        i += len;
    }
    return 1;
}

/* Write one string value with a fresh writer into memory. */
static sdx_err write_one_string(const char *s, size_t n, uint32_t flags, sbuf *out) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {flags, 0, NULL};
    sdx_json_writer_init(&w, &b, &o);
    sdx_json_writer_string(&w, s, n);
    sdx_err e = sdx_json_writer_finish(&w);
    out->len = 0;
    if (!e) sb_put(out, sdx_buf_data(&b), sdx_buf_len(&b));
    sdx_buf_destroy(&b);
    return e;
}

/* Compare one string's output with the reference. */
static int check_string(const char *s, size_t n, uint32_t flags) {
    sbuf want = {0}, got = {0};
    sb_puts(&want, "\"");
    int valid = ref_escape(&want, s, n, flags);
    sb_puts(&want, "\"");
    sdx_err e = write_one_string(s, n, flags, &got);
    int ok;
    if (valid) ok = CHECK(e == SDX_OK) && CHECK_MEM(got.p, got.len, want.p, want.len);
    else ok = CHECK(e == SDX_ERR_UTF8);
    if (!ok) fprintf(stderr, "  flags %#x, length %zu\n", flags, n);
    free(want.p);
    free(got.p);
    return ok;
}

static const uint32_t string_flag_sets[] = {
    0,
    SDX_JSON_WRITE_ESCAPE_SLASH,
    SDX_JSON_WRITE_ESCAPE_UNICODE,
    SDX_JSON_WRITE_REPLACE_INVALID_UTF8,
    SDX_JSON_WRITE_REPLACE_INVALID_UTF8 | SDX_JSON_WRITE_ESCAPE_UNICODE | SDX_JSON_WRITE_ESCAPE_SLASH,
    SDX_JSON_WRITE_NO_UTF8_CHECK,
    SDX_JSON_WRITE_NO_UTF8_CHECK | SDX_JSON_WRITE_ESCAPE_SLASH | SDX_JSON_WRITE_REPLACE_INVALID_UTF8,
    SDX_JSON_WRITE_NO_UTF8_CHECK | SDX_JSON_WRITE_ESCAPE_UNICODE,
};
#define N_FLAG_SETS (sizeof string_flag_sets / sizeof string_flag_sets[0])

/* Run fn once with every SIMD level this machine supports active. */
static void for_each_simd_level(void (*fn)(void)) {
    for (int level = 0; level < SDX_SIMD__COUNT; level++) {
        if (!sdx_simd_kernels_for((sdx_simd_level)level)) continue;
        sdx_simd_select((sdx_simd_level)level);
        long failed = test_checks_failed;
        fn();
        if (test_checks_failed != failed)
            fprintf(stderr, "  (with SIMD level %s)\n", sdx_simd_level_name((sdx_simd_level)level));
    }
    sdx_simd_select(SDX_SIMD__COUNT);
}

/* ------------------------------------------------------------------------ */
/* Documents as event lists                                                  */
/* ------------------------------------------------------------------------ */

typedef struct doc {
    sdx_event *ev;
    size_t n, cap;
    char **strings;
    size_t n_strings;
} doc;

static void doc_add(doc *d, sdx_event e) {
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->ev = realloc(d->ev, d->cap * sizeof *d->ev);
    }
    d->ev[d->n++] = e;
}

static const char *doc_keep(doc *d, const char *s, size_t n) {
    d->strings = realloc(d->strings, (d->n_strings + 1) * sizeof *d->strings);
    char *p = malloc(n + 1);
    memcpy(p, s, n);
    return d->strings[d->n_strings++] = p;
}

static void doc_free(doc *d) {
    for (size_t i = 0; i < d->n_strings; i++) free(d->strings[i]);
    free(d->strings);
    free(d->ev);
}

/* Random valid UTF-8 (with escapable characters) of length about n. */
static size_t random_text(uint64_t *seed, char *out, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint64_t x = test_rand(seed);
        if (x % 10 < 7) {
            out[i++] = (char)(0x20 + (x >> 8) % 95);
        } else if (x % 10 < 8) {
            static const char specials[] = "\"\\/\b\f\n\r\t\x01\x1f";
            out[i++] = specials[(x >> 8) % (sizeof specials - 1)];
        } else {
            uint32_t cp = 0x80 + (uint32_t)((x >> 16) % 0x10FF7F);
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0x4E2D;
            uint8_t o[4];
            size_t len;
            ref_encode(cp, o, &len);
            if (i + len > n) break;
            memcpy(out + i, o, len);
            i += len;
        }
    }
    return i;
}

static void gen_value(doc *d, uint64_t *seed, int depth);

static void gen_string_event(doc *d, uint64_t *seed, uint8_t kind) {
    char tmp[300];
    size_t want = test_rand(seed) % (test_rand(seed) % 8 == 0 ? 300 : 20);
    size_t n = random_text(seed, tmp, want);
    sdx_event e = {0};
    e.kind = kind;
    e.v.str.ptr = doc_keep(d, tmp, n);
    e.v.str.len = n;
    doc_add(d, e);
}

static void gen_value(doc *d, uint64_t *seed, int depth) {
    uint64_t x = test_rand(seed);
    sdx_event e = {0};
    unsigned kind = (unsigned)(x % (depth > 6 ? 7 : 9));
    switch (kind) {
    case 0: e.kind = SDX_NULL; break;
    case 1: e.kind = SDX_BOOL, e.v.b = (x >> 8) & 1; break;
    case 2: e.kind = SDX_INT, e.v.i = (int64_t)test_rand(seed) >> (test_rand(seed) % 64); break;
    case 3: e.kind = SDX_UINT, e.v.u = test_rand(seed) >> (test_rand(seed) % 64); break;
    case 4: e.kind = SDX_DOUBLE, e.v.d = (double)((int)(x >> 8 & 0xFFF) - 2048) / 8; break;
    case 5:
    case 6: gen_string_event(d, seed, SDX_STR); return;
    default: {
        int is_map = kind == 8;
        size_t n = test_rand(seed) % 6;
        e.kind = is_map ? SDX_MAP : SDX_ARRAY;
        e.v.count = test_rand(seed) & 1 ? n : SDX_COUNT_UNKNOWN;
        doc_add(d, e);
        for (size_t i = 0; i < n; i++) {
            if (is_map) gen_string_event(d, seed, SDX_KEY);
            gen_value(d, seed, depth + 1);
        }
        sdx_event end = {0};
        end.kind = SDX_END;
        doc_add(d, end);
        return;
    }
    }
    doc_add(d, e);
}

/* Reference serializer: minified, or pretty with `indent` spaces (the
 * layout of JSON.stringify(v, null, indent) and Python's json.dumps). */
static void ref_doc(sbuf *o, const doc *d, uint32_t flags, unsigned indent) {
    int first[4096] = {0};
    int is_key[4096] = {0};
    int depth = 0;
    int after_key = 0;
    for (size_t i = 0; i < d->n; i++) {
        const sdx_event *e = &d->ev[i];
        if (e->kind == SDX_END) {
            if (indent && !first[depth]) {
                sb_puts(o, "\n");
                for (unsigned k = 0; k < (unsigned)(depth - 1) * indent; k++) sb_puts(o, " ");
            }
            sb_puts(o, is_key[depth] ? "}" : "]");
            depth--;
            continue;
        }
        if (depth > 0 && !after_key) {
            if (!first[depth]) sb_puts(o, ",");
            if (indent) {
                sb_puts(o, "\n");
                for (unsigned k = 0; k < (unsigned)depth * indent; k++) sb_puts(o, " ");
            }
            first[depth] = 0;
        }
        after_key = 0;
        switch (e->kind) {
        case SDX_NULL: sb_puts(o, "null"); break;
        case SDX_BOOL: sb_puts(o, e->v.b ? "true" : "false"); break;
        case SDX_INT: sb_printf(o, "%" PRId64, e->v.i); break;
        case SDX_UINT: sb_printf(o, "%" PRIu64, e->v.u); break;
        case SDX_DOUBLE: {
            /* Multiples of 1/8 print exactly with 3 decimals. */
            char t[64];
            snprintf(t, sizeof t, "%.3f", e->v.d);
            size_t n = strlen(t);
            while (t[n - 1] == '0' && t[n - 2] != '.') n--;
            if (strcmp(t, "-0.000") == 0) n = 4;
            sb_put(o, t, n);
            break;
        }
        case SDX_STR:
        case SDX_KEY:
            sb_puts(o, "\"");
            ref_escape(o, e->v.str.ptr, e->v.str.len, flags);
            sb_puts(o, e->kind == SDX_KEY ? (indent ? "\": " : "\":") : "\"");
            after_key = e->kind == SDX_KEY;
            break;
        case SDX_ARRAY:
        case SDX_MAP:
            sb_puts(o, e->kind == SDX_MAP ? "{" : "[");
            depth++;
            first[depth] = 1;
            is_key[depth] = e->kind == SDX_MAP;
            break;
        }
    }
}

/* Drive the writer with the typed API calls. */
static sdx_err drive_api(sdx_json_writer *w, const doc *d) {
    sdx_err e = SDX_OK;
    for (size_t i = 0; i < d->n; i++) {
        const sdx_event *v = &d->ev[i];
        switch (v->kind) {
        case SDX_NULL: e = sdx_json_writer_null(w); break;
        case SDX_BOOL: e = sdx_json_writer_bool(w, v->v.b); break;
        case SDX_INT: e = sdx_json_writer_int(w, v->v.i); break;
        case SDX_UINT: e = sdx_json_writer_uint(w, v->v.u); break;
        case SDX_DOUBLE: e = sdx_json_writer_double(w, v->v.d); break;
        case SDX_STR: e = sdx_json_writer_string(w, v->v.str.ptr, v->v.str.len); break;
        case SDX_BIN: e = sdx_json_writer_bin(w, v->v.str.ptr, v->v.str.len); break;
        case SDX_ARRAY: e = sdx_json_writer_begin_array(w, v->v.count); break;
        case SDX_MAP: e = sdx_json_writer_begin_map(w, v->v.count); break;
        case SDX_KEY: e = sdx_json_writer_key(w, v->v.str.ptr, v->v.str.len); break;
        case SDX_END: e = sdx_json_writer_end(w); break;
        }
    }
    return e;
}

/* Drive the writer through its sink. */
static sdx_err drive_sink(sdx_sink s, const doc *d) {
    sdx_err e = SDX_OK;
    for (size_t i = 0; i < d->n; i++) e = sdx_sink_put(s, &d->ev[i]);
    return e;
}

/* Write a document into a fresh memory buffer. */
static sdx_err write_doc(const doc *d, uint32_t flags, unsigned indent, int via_sink, sbuf *out) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {flags, indent, NULL};
    sdx_json_writer_init(&w, &b, &o);
    sdx_err e;
    if (via_sink) {
        sdx_sink s = sdx_json_writer_sink(&w);
        drive_sink(s, d);
        e = sdx_sink_finish(s);
    } else {
        drive_api(&w, d);
        e = sdx_json_writer_finish(&w);
    }
    out->len = 0;
    sb_put(out, sdx_buf_data(&b), sdx_buf_len(&b));
    sdx_buf_destroy(&b);
    return e;
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */
/* ------------------------------------------------------------------------ */

TEST(exact_document) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    CHECK(sdx_json_writer_init(&w, &b, NULL) == SDX_OK);
    sdx_json_writer_begin_map(&w, 4);
    sdx_json_writer_key(&w, "id", 2);
    sdx_json_writer_int(&w, 42);
    sdx_json_writer_key(&w, "tags", 4);
    sdx_json_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    sdx_json_writer_string(&w, "a\"b", 3);
    sdx_json_writer_bool(&w, true);
    sdx_json_writer_bool(&w, false);
    sdx_json_writer_null(&w);
    sdx_json_writer_int(&w, INT64_MIN);
    sdx_json_writer_uint(&w, UINT64_MAX);
    sdx_json_writer_double(&w, 1.5);
    sdx_json_writer_double(&w, 0.1);
    sdx_json_writer_double(&w, 1e21);
    sdx_json_writer_double(&w, -0.0);
    sdx_json_writer_double(&w, 100);
    sdx_json_writer_string(&w, "", 0);
    sdx_json_writer_end_array(&w);
    sdx_json_writer_key(&w, "", 0);
    sdx_json_writer_begin_map(&w, 0);
    sdx_json_writer_end_map(&w);
    sdx_json_writer_key(&w, "f", 1);
    sdx_json_writer_begin_array(&w, 0);
    sdx_json_writer_end(&w);
    sdx_json_writer_end(&w);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b),
              "{\"id\":42,\"tags\":[\"a\\\"b\",true,false,null,-9223372036854775808,"
              "18446744073709551615,1.5,0.1,1e21,-0.0,100.0,\"\"],\"\":{},\"f\":[]}");
    sdx_buf_destroy(&b);
}

TEST(scalars_at_the_root) {
    sbuf out = {0};
    doc d = {0};
    sdx_event e = {0};
    e.kind = SDX_INT;
    e.v.i = -5;
    doc_add(&d, e);
    CHECK(write_doc(&d, 0, 0, 0, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "-5");
    d.ev[0].kind = SDX_NULL;
    CHECK(write_doc(&d, 0, 2, 1, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "null");
    doc_free(&d);
    free(out.p);
}

TEST(pretty_output) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {0, 2, NULL};
    CHECK(sdx_json_writer_init(&w, &b, &o) == SDX_OK);
    sdx_json_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_json_writer_key(&w, "a", 1);
    sdx_json_writer_int(&w, 1);
    sdx_json_writer_key(&w, "b", 1);
    sdx_json_writer_begin_array(&w, 3);
    sdx_json_writer_bool(&w, true);
    sdx_json_writer_begin_map(&w, 0);
    sdx_json_writer_end(&w);
    sdx_json_writer_begin_array(&w, 1);
    sdx_json_writer_string(&w, "x", 1);
    sdx_json_writer_end(&w);
    sdx_json_writer_end(&w);
    sdx_json_writer_key(&w, "c", 1);
    sdx_json_writer_begin_array(&w, 0);
    sdx_json_writer_end(&w);
    sdx_json_writer_end(&w);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b),
              "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    {},\n    [\n      \"x\"\n    ]\n  ],\n"
              "  \"c\": []\n}");
    sdx_buf_destroy(&b);
}

/* json.h: `s` may be NULL when the length is 0 (a document's empty
 * string is): as a value and as a key, minified and indented (the slow
 * path), at the root and inside containers. The slow path once added 0 to
 * the NULL pointer, which clang's UBSan reports (fuzz_transcode found it
 * in the fuzz build; gcc's does not report it). */
TEST(null_empty_strings) {
    for (uint32_t indent = 0; indent <= 2; indent += 2) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_write_opts o = {SDX_JSON_WRITE_SEQUENCE, indent, NULL};
        CHECK(sdx_json_writer_init(&w, &b, &o) == SDX_OK);
        sdx_json_writer_string(&w, NULL, 0);
        sdx_json_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
        sdx_json_writer_key(&w, NULL, 0);
        sdx_json_writer_string(&w, NULL, 0);
        sdx_json_writer_end(&w);
        CHECK(sdx_json_writer_finish(&w) == SDX_OK);
        if (indent) CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "\"\"\n{\n  \"\": \"\"\n}\n");
        else CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "\"\"\n{\"\":\"\"}\n");
        sdx_buf_destroy(&b);
    }
}

TEST(random_documents_match_reference) {
    uint64_t seed = 2024;
    sbuf out = {0}, want = {0};
    int rounds = (int)(3000 * test_scale());
    for (int r = 0; r < rounds; r++) {
        doc d = {0};
        gen_value(&d, &seed, 0);
        uint32_t flags = string_flag_sets[r % N_FLAG_SETS];
        unsigned indent = r % 3 == 0 ? (unsigned)(r % 5) : 0;
        want.len = 0;
        ref_doc(&want, &d, flags, indent);
        int ok = CHECK(write_doc(&d, flags, indent, r & 1, &out) == SDX_OK) &&
                 CHECK_MEM(out.p, out.len, want.p, want.len);
        doc_free(&d);
        if (!ok) {
            fprintf(stderr, "  round %d, flags %#x, indent %u\n", r, flags, indent);
            break;
        }
    }
    free(out.p);
    free(want.p);
}

static void every_byte_value_body(void) {
    for (size_t f = 0; f < N_FLAG_SETS; f++) {
        for (int c = 0; c < 256; c++) {
            char s[3] = {'a', (char)c, 'b'};
            if (!check_string(s + 1, 1, string_flag_sets[f])) return;
            if (!check_string(s, 3, string_flag_sets[f])) return;
        }
    }
}

TEST(every_byte_value) { for_each_simd_level(every_byte_value_body); }

/* Lengths 0 to 200 (across every vector block edge) with one special byte
 * at every position, and with a non-ASCII character at every position. */
static void lengths_and_positions_body(void) {
    static const char specials[] = {'"', '\\', '/', '\n', 0x01, 0x1f, 0x7f, (char)0xC3, (char)0xFF};
    char s[256];
    for (size_t n = 0; n <= 200; n++) {
        memset(s, 'x', n);
        for (size_t f = 0; f < N_FLAG_SETS; f++)
            if (!check_string(s, n, string_flag_sets[f])) return;
        for (size_t pos = 0; pos < n; pos++) {
            for (size_t k = 0; k < sizeof specials; k++) {
                memset(s, 'x', n);
                s[pos] = specials[k];
                /* 0xC3 followed by 'x' is invalid; make a valid é where it fits. */
                if (specials[k] == (char)0xC3 && pos + 1 < n) s[pos + 1] = (char)0xA9;
                uint32_t flags = string_flag_sets[(pos + k) % N_FLAG_SETS];
                if (!check_string(s, n, flags)) return;
            }
        }
    }
}

TEST(lengths_and_positions) { for_each_simd_level(lengths_and_positions_body); }

/* Strings and keys of up to 17 bytes inside containers (the writer's fast
 * path, where most keys go): every byte value at every position (and a
 * valid two-byte character), each in a heap block of exactly its size so
 * that a read outside it shows under AddressSanitizer. */
static void short_strings_body(void) {
    for (size_t n = 0; n <= 17; n++) {
        for (size_t pos = 0; pos <= n; pos++) {
            for (int c = 0; c < 257; c++) {
                if (pos == n && c > 0) break; /* n bytes of 'x' once */
                char *s = malloc(n ? n : 1);
                memset(s, 'x', n);
                if (pos < n) s[pos] = (char)(c < 256 ? c : 0xC3);
                if (c == 256 && pos + 1 < n) s[pos + 1] = (char)0xA9; /* U+00E9 */
                sbuf want = {0};
                sb_puts(&want, "[\"");
                int valid = ref_escape(&want, s, n, 0);
                sb_puts(&want, "\",{\"");
                ref_escape(&want, s, n, 0);
                sb_puts(&want, "\":0}]");
                sdx_buf b;
                sdx_buf_init(&b, NULL);
                sdx_json_writer w;
                sdx_json_writer_init(&w, &b, NULL);
                sdx_json_writer_begin_array(&w, 2);
                sdx_json_writer_string(&w, s, n);
                sdx_json_writer_begin_map(&w, 1);
                sdx_json_writer_key(&w, s, n);
                sdx_json_writer_int(&w, 0);
                sdx_json_writer_end(&w);
                sdx_json_writer_end(&w);
                sdx_err e = sdx_json_writer_finish(&w);
                int ok = valid ? CHECK(e == SDX_OK) && CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), want.p, want.len)
                               : CHECK(e == SDX_ERR_UTF8);
                if (!ok) fprintf(stderr, "  length %zu, byte %d at %zu\n", n, c, pos);
                sdx_buf_destroy(&b);
                free(want.p);
                free(s);
                if (!ok) return;
            }
        }
    }
}

TEST(short_strings) { for_each_simd_level(short_strings_body); }

static void random_strings_body(void) {
    uint64_t seed = 77;
    char s[600];
    long rounds = (long)(20000 * test_scale());
    for (long r = 0; r < rounds; r++) {
        size_t n = random_text(&seed, s, test_rand(&seed) % sizeof s);
        /* Sometimes break the UTF-8. */
        if (n && r % 3 == 0) s[test_rand(&seed) % n] = (char)(0x80 + test_rand(&seed) % 128);
        size_t cut = test_rand(&seed) % 3;
        if (r % 7 == 0 && cut < n) n -= cut; /* end inside a character */
        if (!check_string(s, n, string_flag_sets[r % N_FLAG_SETS])) return;
    }
}

TEST(random_strings) { for_each_simd_level(random_strings_body); }

/* Strings longer than the writer's 4096-byte piece, with escapes and
 * multi-byte characters straddling the piece boundaries. */
static void long_strings_body(void) {
    size_t n = 20000;
    char *s = malloc(n);
    for (size_t shift = 0; shift < 8; shift++) {
        for (size_t i = 0; i < n; i++) s[i] = (char)('a' + i % 26);
        for (size_t b = 4096; b + 8 < n; b += 4096) {
            memcpy(s + b - 2 + shift % 4, "\xE4\xB8\xAD", 3); /* U+4E2D across the edge */
            s[b + 3 + shift] = '\n';
        }
        if (shift == 5) s[12000] = (char)0xFF;
        for (size_t f = 0; f < N_FLAG_SETS; f++)
            if (!check_string(s, n - shift, string_flag_sets[f])) break;
    }
    free(s);
}

TEST(long_strings) { for_each_simd_level(long_strings_body); }

/* The writer reserves an escape's room from sdx_json_escape_ascii_len
 * before writing it in place: the two must agree on every ASCII byte. */
TEST(escape_lengths) {
    for (unsigned c = 0; c < 0x80; c++) {
        char e[8];
        if (!CHECK_EQ_INT((int)sdx_json_escape_ascii_len((uint8_t)c), (int)sdx_json_escape_ascii(e, (uint8_t)c)))
            fprintf(stderr, "  byte %#x\n", c);
    }
}

TEST(escape_options_exact) {
    sbuf out = {0};
    CHECK(write_one_string("</a>", 4, SDX_JSON_WRITE_ESCAPE_SLASH, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"<\\/a>\"");
    CHECK(write_one_string("</a>", 4, 0, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"</a>\"");
    CHECK(write_one_string("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 9, SDX_JSON_WRITE_ESCAPE_UNICODE,
                           &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"\\u00e9\\u20ac\\ud83d\\ude00\"");
    CHECK(write_one_string("\x00\x1f\x7f\b\f\n\r\t", 8, 0, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"\\u0000\\u001f\x7f\\b\\f\\n\\r\\t\"");
    CHECK(write_one_string("a\xFF" "b", 3, 0, &out) == SDX_ERR_UTF8);
    CHECK(write_one_string("a\xFF" "b", 3, SDX_JSON_WRITE_REPLACE_INVALID_UTF8, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"a\xEF\xBF\xBD" "b\"");
    /* One U+FFFD per maximal subpart: F0 80 80 is three, E1 80 at the end one. */
    CHECK(write_one_string("\xF0\x80\x80|\xE1\x80", 6, SDX_JSON_WRITE_REPLACE_INVALID_UTF8, &out) ==
          SDX_OK);
    CHECK_STR(out.p, out.len, "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\"");
    CHECK(write_one_string("\xED\xA0\x80", 3, 0, &out) == SDX_ERR_UTF8); /* a surrogate */
    CHECK(write_one_string("\xC0\xAF", 2, 0, &out) == SDX_ERR_UTF8);     /* overlong */
    CHECK(write_one_string("\xF4\x90\x80\x80", 4, 0, &out) == SDX_ERR_UTF8); /* > U+10FFFF */
    CHECK(write_one_string("\xED\xA0\x80", 3,
                           SDX_JSON_WRITE_REPLACE_INVALID_UTF8 | SDX_JSON_WRITE_ESCAPE_UNICODE,
                           &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"\\ufffd\\ufffd\\ufffd\"");
    /* Unchecked: bytes above 0x7f as they are, valid or not; ASCII still
     * escaped; with ESCAPE_UNICODE the flag is ignored. */
    CHECK(write_one_string("a\xFF\n\xC3\xA9", 5, SDX_JSON_WRITE_NO_UTF8_CHECK, &out) == SDX_OK);
    CHECK_STR(out.p, out.len, "\"a\xFF\\n\xC3\xA9\"");
    CHECK(write_one_string("a\xFF", 2, SDX_JSON_WRITE_NO_UTF8_CHECK | SDX_JSON_WRITE_ESCAPE_UNICODE, &out) ==
          SDX_ERR_UTF8);
    /* Invalid UTF-8 in a key. */
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    sdx_json_writer_begin_map(&w, 1);
    CHECK(sdx_json_writer_key(&w, "\x80", 1) == SDX_ERR_UTF8);
    CHECK(sdx_json_writer_finish(&w) == SDX_ERR_UTF8);
    sdx_buf_destroy(&b);
    free(out.p);
}

TEST(numbers) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    sdx_json_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    double d[] = {0.0, 1.0, -1.0, 0.5, 1e-7, 123456.789, 5e-324, 1.7976931348623157e308, 1e300};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) sdx_json_writer_double(&w, d[i]);
    sdx_json_writer_int(&w, 0);
    sdx_json_writer_int(&w, INT64_MAX);
    sdx_json_writer_uint(&w, 0);
    sdx_json_writer_end(&w);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b),
              "[0.0,1.0,-1.0,0.5,1e-7,123456.789,5e-324,1.7976931348623157e308,1e300,0,"
              "9223372036854775807,0]");
    sdx_buf_destroy(&b);
}

TEST(raw_numbers) {
    static const char *good[] = {"0", "-0", "123456789012345678901234567890", "1.5e+300",
                                 "-2E-5", "0.000", "1e400"};
    static const char *bad[] = {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10",
                                "1 ", "NaN", "1.5.5"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &b, NULL);
        sdx_event e = {0};
        sdx_json_writer_begin_array(&w, 1);
        e.kind = SDX_RAW, e.v.str.ptr = good[i], e.v.str.len = strlen(good[i]);
        CHECK(sdx_json_writer_put(&w, &e) == SDX_OK);
        sdx_json_writer_end(&w);
        CHECK(sdx_json_writer_finish(&w) == SDX_OK);
        CHECK(sdx_buf_len(&b) == strlen(good[i]) + 2);
        CHECK(memcmp(sdx_buf_data(&b) + 1, good[i], strlen(good[i])) == 0);
        sdx_buf_destroy(&b);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &b, NULL);
        CHECK(sdx_json_writer_raw_number(&w, bad[i], strlen(bad[i])) == SDX_ERR_INVALID_ARG);
        CHECK(sdx_json_writer_finish(&w) == SDX_ERR_INVALID_ARG);
        sdx_buf_destroy(&b);
    }
}

TEST(nan_and_infinity) {
    double bad[] = {NAN, -NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < 4; i++) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &b, NULL);
        sdx_json_writer_begin_array(&w, 2);
        sdx_json_writer_int(&w, 1);
        CHECK(sdx_json_writer_double(&w, bad[i]) == SDX_ERR_RANGE);
        CHECK(sdx_json_writer_end(&w) == SDX_ERR_RANGE); /* sticky */
        CHECK(sdx_json_writer_finish(&w) == SDX_ERR_RANGE);
        sdx_buf_destroy(&b);

        sdx_json_write_opts o = {SDX_JSON_WRITE_NAN_AS_NULL, 0, NULL};
        sdx_buf_init(&b, NULL);
        sdx_json_writer_init(&w, &b, &o);
        sdx_json_writer_begin_array(&w, 2);
        sdx_json_writer_double(&w, bad[i]);
        sdx_json_writer_double(&w, 2.5);
        sdx_json_writer_end(&w);
        CHECK(sdx_json_writer_finish(&w) == SDX_OK);
        CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "[null,2.5]");
        sdx_buf_destroy(&b);
    }
}

TEST(binary) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    CHECK(sdx_json_writer_bin(&w, "\x01\x02", 2) == SDX_ERR_UNSUPPORTED);
    CHECK(sdx_json_writer_finish(&w) == SDX_ERR_UNSUPPORTED);
    sdx_buf_destroy(&b);

    sdx_json_write_opts o = {SDX_JSON_WRITE_BIN_BASE64, 0, NULL};
    sdx_buf_init(&b, NULL);
    sdx_json_writer_init(&w, &b, &o);
    sdx_json_writer_begin_array(&w, 3);
    sdx_json_writer_bin(&w, "foobar", 6);
    sdx_json_writer_bin(&w, "", 0);
    sdx_event e = {0};
    e.kind = SDX_BIN;
    e.tag_kind = SDX_TAG_CBOR; /* tags other than MessagePack ext: ignored */
    e.tag = 5;
    e.v.str.ptr = "fo";
    e.v.str.len = 2;
    sdx_json_writer_put(&w, &e);
    sdx_json_writer_end(&w);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "[\"Zm9vYmFy\",\"\",\"Zm8=\"]");
    sdx_buf_destroy(&b);

    /* Large binary goes out in pieces. */
    size_t n = 100000;
    unsigned char *data = malloc(n);
    for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(i * 31);
    sdx_buf_init(&b, NULL);
    sdx_json_writer_init(&w, &b, &o);
    sdx_json_writer_bin(&w, data, n);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&b), (n + 2) / 3 * 4 + 2);
    sdx_buf_destroy(&b);
    free(data);
}

/* Each misuse gives the documented error, which then sticks. */
typedef sdx_err (*misuse_fn)(sdx_json_writer *w);

static sdx_err m_value_as_key(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_int(w, 1);
}
static sdx_err m_string_as_key(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_string(w, "k", 1);
}
static sdx_err m_array_as_key(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_begin_array(w, 0);
}
static sdx_err m_key_in_array(sdx_json_writer *w) {
    sdx_json_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_key(w, "k", 1);
}
static sdx_err m_key_at_root(sdx_json_writer *w) { return sdx_json_writer_key(w, "k", 1); }
static sdx_err m_key_after_key(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_json_writer_key(w, "k", 1);
    return sdx_json_writer_key(w, "k", 1);
}
static sdx_err m_end_without_begin(sdx_json_writer *w) { return sdx_json_writer_end(w); }
static sdx_err m_end_after_key(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_json_writer_key(w, "k", 1);
    return sdx_json_writer_end(w);
}
static sdx_err m_end_array_on_map(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_end_array(w);
}
static sdx_err m_end_map_on_array(sdx_json_writer *w) {
    sdx_json_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_end_map(w);
}
static sdx_err m_two_roots(sdx_json_writer *w) {
    sdx_json_writer_null(w);
    return sdx_json_writer_null(w);
}
static sdx_err m_too_many_elements(sdx_json_writer *w) {
    sdx_json_writer_begin_array(w, 1);
    sdx_json_writer_null(w);
    return sdx_json_writer_string(w, "x", 1);
}
static sdx_err m_too_few_elements(sdx_json_writer *w) {
    sdx_json_writer_begin_array(w, 2);
    sdx_json_writer_null(w);
    return sdx_json_writer_end(w);
}
static sdx_err m_too_many_entries(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, 1);
    sdx_json_writer_key(w, "a", 1);
    sdx_json_writer_null(w);
    return sdx_json_writer_key(w, "b", 1);
}
static sdx_err m_too_few_entries(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, 2);
    sdx_json_writer_key(w, "a", 1);
    sdx_json_writer_null(w);
    return sdx_json_writer_end(w);
}
static sdx_err m_unfinished(sdx_json_writer *w) {
    sdx_json_writer_begin_array(w, SDX_COUNT_UNKNOWN);
    return sdx_json_writer_finish(w);
}
static sdx_err m_nothing_written(sdx_json_writer *w) { return sdx_json_writer_finish(w); }
static sdx_err m_bad_event_kind(sdx_json_writer *w) {
    sdx_event e = {0};
    e.kind = 200;
    return sdx_json_writer_put(w, &e);
}
static sdx_err m_int_key_event(sdx_json_writer *w) {
    sdx_json_writer_begin_map(w, SDX_COUNT_UNKNOWN);
    sdx_event e = {0};
    e.kind = SDX_INT;
    e.v.i = 1;
    return sdx_json_writer_put(w, &e);
}
static sdx_err m_after_finish(sdx_json_writer *w) {
    sdx_json_writer_null(w);
    sdx_json_writer_finish(w);
    return sdx_json_writer_null(w);
}

TEST(misuse_errors) {
    struct {
        const char *name;
        misuse_fn fn;
        sdx_err want;
    } cases[] = {
        {"value_as_key", m_value_as_key, SDX_ERR_KEY},
        {"string_as_key", m_string_as_key, SDX_ERR_KEY},
        {"array_as_key", m_array_as_key, SDX_ERR_KEY},
        {"int_key_event", m_int_key_event, SDX_ERR_KEY},
        {"key_in_array", m_key_in_array, SDX_ERR_USAGE},
        {"key_at_root", m_key_at_root, SDX_ERR_USAGE},
        {"key_after_key", m_key_after_key, SDX_ERR_USAGE},
        {"end_without_begin", m_end_without_begin, SDX_ERR_USAGE},
        {"end_after_key", m_end_after_key, SDX_ERR_USAGE},
        {"end_array_on_map", m_end_array_on_map, SDX_ERR_USAGE},
        {"end_map_on_array", m_end_map_on_array, SDX_ERR_USAGE},
        {"two_roots", m_two_roots, SDX_ERR_USAGE},
        {"too_many_elements", m_too_many_elements, SDX_ERR_USAGE},
        {"too_few_elements", m_too_few_elements, SDX_ERR_USAGE},
        {"too_many_entries", m_too_many_entries, SDX_ERR_USAGE},
        {"too_few_entries", m_too_few_entries, SDX_ERR_USAGE},
        {"unfinished", m_unfinished, SDX_ERR_USAGE},
        {"nothing_written", m_nothing_written, SDX_ERR_USAGE},
        {"bad_event_kind", m_bad_event_kind, SDX_ERR_INVALID_ARG},
        {"after_finish", m_after_finish, SDX_ERR_USAGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (unsigned indent = 0; indent <= 2; indent += 2) {
            sdx_buf b;
            sdx_buf_init(&b, NULL);
            sdx_json_writer w;
            sdx_json_write_opts o = {0, indent, NULL};
            sdx_json_writer_init(&w, &b, &o);
            sdx_err e = cases[i].fn(&w);
            if (!CHECK(e == cases[i].want))
                fprintf(stderr, "  %s (indent %u): got %s\n", cases[i].name, indent, sdx_strerror(e));
            /* Sticky: later calls return the same error and write nothing. */
            size_t len = sdx_buf_len(&b);
            CHECK(sdx_json_writer_null(&w) == cases[i].want);
            CHECK(sdx_json_writer_string(&w, "abc", 3) == cases[i].want);
            CHECK(sdx_json_writer_end(&w) == cases[i].want);
            CHECK_EQ_U64(sdx_buf_len(&b), len);
            CHECK(sdx_json_writer_error(&w) == cases[i].want);
            CHECK(sdx_json_writer_finish(&w) == cases[i].want);
            sdx_buf_destroy(&b);
        }
    }
}

/* Counts of 2^62 and more are taken as unknown: never exhausted, never
 * short at the end; a count just below still is checked. */
TEST(huge_counts_are_unknown) {
    uint64_t counts[] = {UINT64_C(1) << 62, UINT64_C(1) << 63, (UINT64_C(1) << 63) + 5, SDX_COUNT_UNKNOWN - 1};
    for (size_t i = 0; i < 4; i++) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &b, NULL);
        sdx_json_writer_begin_array(&w, counts[i]);
        sdx_json_writer_int(&w, 1);
        sdx_json_writer_begin_map(&w, counts[i]);
        sdx_json_writer_end(&w);
        sdx_json_writer_end(&w);
        CHECK(sdx_json_writer_finish(&w) == SDX_OK);
        CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "[1,{}]");
        sdx_buf_destroy(&b);
    }
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    sdx_json_writer_begin_array(&w, (UINT64_C(1) << 62) - 1);
    sdx_json_writer_int(&w, 1);
    CHECK(sdx_json_writer_end(&w) == SDX_ERR_USAGE);
    sdx_json_writer_finish(&w);
    sdx_buf_destroy(&b);
}

TEST(invalid_options) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {0, 17, NULL};
    CHECK(sdx_json_writer_init(&w, &b, &o) == SDX_ERR_INVALID_ARG);
    CHECK(sdx_json_writer_null(&w) == SDX_ERR_INVALID_ARG);
    CHECK(sdx_json_writer_finish(&w) == SDX_ERR_INVALID_ARG);
    o.indent = 0;
    o.flags = 1u << 30;
    CHECK(sdx_json_writer_init(&w, &b, &o) == SDX_ERR_INVALID_ARG);
    sdx_json_writer_finish(&w);
    CHECK_EQ_U64(sdx_buf_len(&b), 0);
    sdx_buf_destroy(&b);
}

TEST(sequence_mode) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {SDX_JSON_WRITE_SEQUENCE, 0, NULL};
    sdx_json_writer_init(&w, &b, &o);
    sdx_json_writer_int(&w, 1);
    sdx_json_writer_begin_map(&w, 1);
    sdx_json_writer_key(&w, "a", 1);
    sdx_json_writer_begin_array(&w, 0);
    sdx_json_writer_end(&w);
    sdx_json_writer_end(&w);
    sdx_json_writer_string(&w, "x", 1);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "1\n{\"a\":[]}\n\"x\"\n");
    sdx_buf_destroy(&b);
    /* An empty sequence is fine. */
    sdx_buf_init(&b, NULL);
    sdx_json_writer_init(&w, &b, &o);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&b), 0);
    sdx_buf_destroy(&b);
}

/* Output into a fixed buffer of every size from 0 to the full length: the
 * full length succeeds with identical bytes, anything smaller fails with
 * SDX_ERR_OVERFLOW, and nothing is written past the buffer. */
TEST(fixed_buffer_every_size) {
    uint64_t seed = 5;
    int docs = 0;
    while (docs < 40) {
        doc d = {0};
        gen_value(&d, &seed, 0);
        uint32_t flags = string_flag_sets[docs % N_FLAG_SETS];
        unsigned indent = docs % 2 ? 2 : 0;
        sbuf full = {0};
        if (write_doc(&d, flags, indent, 0, &full) != SDX_OK || full.len > 3000) {
            doc_free(&d);
            free(full.p);
            continue;
        }
        docs++;
        char *mem = malloc(full.len + 64);
        for (size_t size = 0; size <= full.len; size++) {
            memset(mem, 0x5A, full.len + 64);
            sdx_buf b;
            sdx_buf_init_fixed(&b, mem, size);
            sdx_json_writer w;
            sdx_json_write_opts o = {flags, indent, NULL};
            sdx_json_writer_init(&w, &b, &o);
            drive_api(&w, &d);
            sdx_err e = sdx_json_writer_finish(&w);
            int ok = 1;
            if (size == full.len) ok &= CHECK(e == SDX_OK) && CHECK_MEM(mem, size, full.p, full.len);
            else ok &= CHECK(e == SDX_ERR_OVERFLOW);
            for (size_t i = size; i < full.len + 64; i++) ok &= CHECK((unsigned char)mem[i] == 0x5A);
            if (!ok) {
                fprintf(stderr, "  size %zu of %zu\n", size, full.len);
                docs = 1000;
                break;
            }
        }
        free(mem);
        free(full.p);
        doc_free(&d);
    }
}

/* A top-level string (or key) is the last thing written: an exactly sized
 * fixed buffer must take it, with escapes and multi-byte characters at the
 * very end, at every length across the vector widths. */
TEST(fixed_buffer_exact_strings) {
    static const char *tails[] = {"", "\n", "\"", "\xC3\xA9", "\xF0\x9F\x98\x80", "\x01", "\xFF"};
    char s[200], mem[1400];
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        for (size_t n = 0; n + 4 < sizeof s; n++) {
            memset(s, 'y', n);
            size_t tl = strlen(tails[t]);
            memcpy(s + n, tails[t], tl);
            for (size_t f = 0; f < N_FLAG_SETS; f++) {
                sbuf full = {0};
                sdx_err want = write_one_string(s, n + tl, string_flag_sets[f], &full);
                if (want) {
                    free(full.p);
                    continue;
                }
                for (size_t size = full.len - 1; size <= full.len; size++) {
                    memset(mem, 0x5A, sizeof mem);
                    sdx_buf b;
                    sdx_buf_init_fixed(&b, mem, size);
                    sdx_json_writer w;
                    sdx_json_write_opts o = {string_flag_sets[f], 0, NULL};
                    sdx_json_writer_init(&w, &b, &o);
                    sdx_json_writer_string(&w, s, n + tl);
                    sdx_err e = sdx_json_writer_finish(&w);
                    int ok = size == full.len ? CHECK(e == SDX_OK) && CHECK_MEM(mem, size, full.p, full.len)
                                              : CHECK(e == SDX_ERR_OVERFLOW);
                    ok &= CHECK((unsigned char)mem[size] == 0x5A);
                    if (!ok) {
                        fprintf(stderr, "  length %zu, tail %zu, flags %#x, size %zu\n", n, t,
                                string_flag_sets[f], size);
                        free(full.p);
                        return;
                    }
                }
                free(full.p);
            }
        }
    }
}

typedef struct collector {
    sbuf s;
    size_t largest;
} collector;

static size_t collect(void *ctx, const void *data, size_t len) {
    collector *c = ctx;
    sb_put(&c->s, data, len);
    if (len > c->largest) c->largest = len;
    return len;
}

TEST(stream_output_matches_memory) {
    uint64_t seed = 9;
    for (int r = 0; r < 300; r++) {
        doc d = {0};
        gen_value(&d, &seed, 0);
        uint32_t flags = string_flag_sets[r % N_FLAG_SETS];
        sbuf full = {0};
        CHECK(write_doc(&d, flags, 0, 0, &full) == SDX_OK);
        collector c = {{0}, 0};
        sdx_buf b;
        size_t chunk = (size_t)1 << (r % 12);
        sdx_buf_init_stream(&b, collect, &c, chunk, NULL);
        sdx_json_writer w;
        sdx_json_write_opts o = {flags, 0, NULL};
        sdx_json_writer_init(&w, &b, &o);
        drive_api(&w, &d);
        CHECK(sdx_json_writer_finish(&w) == SDX_OK);
        CHECK_MEM(c.s.p, c.s.len, full.p, full.len);
        sdx_buf_destroy(&b);
        free(c.s.p);
        free(full.p);
        doc_free(&d);
    }
}

TEST(huge_string_to_stream_stays_bounded) {
    /* A 3 MB string through a 1 KiB stream: the chunk grows only to the
     * writer's per-piece reservation, not to the string's size. */
    size_t n = 3u << 20;
    char *s = malloc(n);
    for (size_t i = 0; i < n; i++) s[i] = (char)(i % 64 == 63 ? '\n' : 'a' + i % 26);
    counting_alloc a;
    counting_alloc_init(&a, 0);
    collector c = {{0}, 0};
    sdx_buf b;
    sdx_buf_init_stream(&b, collect, &c, 1024, &a.iface);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &b, NULL);
    sdx_json_writer_string(&w, s, n);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_EQ_U64(c.s.len, n + n / 64 + 2);
    CHECK(a.live_bytes <= 8192);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
    free(c.s.p);
    free(s);
}

TEST(deep_nesting) {
    size_t depth = 100000;
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {0, 0, &a.iface};
    sdx_json_writer_init(&w, &b, &o);
    for (size_t i = 0; i < depth; i++) {
        if (i % 2) sdx_json_writer_begin_array(&w, 1);
        else {
            sdx_json_writer_begin_map(&w, 1);
            sdx_json_writer_key(&w, "k", 1);
        }
    }
    sdx_json_writer_null(&w);
    for (size_t i = 0; i < depth; i++) sdx_json_writer_end(&w);
    CHECK(sdx_json_writer_finish(&w) == SDX_OK);
    CHECK_EQ_U64(sdx_buf_len(&b), depth / 2 * 6 + depth / 2 * 2 + 4); /* {"k": } and [ ] */
    CHECK(a.calls > 0);
    CHECK_EQ_INT(a.live, 0);
    sdx_buf_destroy(&b);

    /* Each allocation of the nesting stack failing in turn. */
    for (long fail_at = 1; fail_at <= 3; fail_at++) {
        counting_alloc_init(&a, fail_at);
        sdx_buf_init(&b, NULL);
        o.alloc = &a.iface;
        sdx_json_writer_init(&w, &b, &o);
        sdx_err e = SDX_OK;
        for (size_t i = 0; i < 1000 && !e; i++) e = sdx_json_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
        CHECK(e == SDX_ERR_NOMEM);
        CHECK(sdx_json_writer_finish(&w) == SDX_ERR_NOMEM);
        CHECK_EQ_INT(a.live, 0);
        sdx_buf_destroy(&b);
    }
}

TEST(output_allocation_failure) {
    /* The output buffer's allocations failing in turn: a clean NOMEM, no
     * leak. */
    uint64_t seed = 3;
    doc d = {0};
    while (d.n < 200) {
        doc_free(&d);
        memset(&d, 0, sizeof d);
        gen_value(&d, &seed, 0);
    }
    for (long fail_at = 1; fail_at <= 12; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_buf b;
        sdx_buf_init(&b, &a.iface);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &b, NULL);
        drive_api(&w, &d);
        sdx_err e = sdx_json_writer_finish(&w);
        CHECK(e == (a.calls >= fail_at ? SDX_ERR_NOMEM : SDX_OK));
        sdx_buf_destroy(&b);
        CHECK_EQ_INT(a.live, 0);
    }
    doc_free(&d);
}

/* What the writer does with the event model's tags on its own (the JSON
 * forms of tagged values are the mapping layer's, tests/unit/test_map.c):
 * an ext value is SDX_ERR_UNSUPPORTED, other tags are ignored, SDX_TAG
 * events write nothing, SDX_NINT is its exact decimal text. */
static sdx_err put_all(const sdx_event *evs, size_t n, uint32_t flags, sdx_buf *b) {
    sdx_json_writer w;
    sdx_json_write_opts o = {flags, 0, NULL};
    sdx_json_writer_init(&w, b, &o);
    for (size_t i = 0; i < n; i++) sdx_json_writer_put(&w, &evs[i]);
    return sdx_json_writer_finish(&w);
}

TEST(tags_and_nint) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_event ext = {0};
    ext.kind = SDX_BIN;
    ext.tag_kind = SDX_TAG_MSGPACK_EXT;
    ext.tag = 5;
    ext.v.str.ptr = "fo";
    ext.v.str.len = 2;
    CHECK_EQ_INT(put_all(&ext, 1, 0, &b), SDX_ERR_UNSUPPORTED);
    sdx_buf_clear(&b);
    CHECK_EQ_INT(put_all(&ext, 1, SDX_JSON_WRITE_BIN_BASE64, &b), SDX_ERR_UNSUPPORTED);
    /* the old MessagePack ext flag is no flag any more */
    sdx_json_writer w;
    sdx_json_write_opts o = {1u << 7, 0, NULL};
    CHECK_EQ_INT(sdx_json_writer_init(&w, &b, &o), SDX_ERR_INVALID_ARG);
    sdx_json_writer_finish(&w);
    /* [tag 61, (tag 18) [-1, -2^63 - 1, -2^64], tagged bin as base64] */
    sdx_event evs[8];
    memset(evs, 0, sizeof evs);
    evs[0].kind = SDX_ARRAY;
    evs[0].v.count = 2; /* SDX_TAG is no element */
    evs[1].kind = SDX_TAG;
    evs[1].tag_kind = SDX_TAG_CBOR;
    evs[1].tag = 61;
    evs[2].kind = SDX_ARRAY;
    evs[2].tag_kind = SDX_TAG_CBOR;
    evs[2].tag = 18;
    evs[2].v.count = 3;
    evs[3].kind = SDX_NINT;
    evs[3].v.u = 0;
    evs[4].kind = SDX_NINT;
    evs[4].v.u = (uint64_t)INT64_MAX + 1;
    evs[5].kind = SDX_NINT;
    evs[5].v.u = UINT64_MAX;
    evs[6].kind = SDX_END;
    evs[7].kind = SDX_BIN;
    evs[7].tag_kind = SDX_TAG_CBOR;
    evs[7].tag = 24;
    evs[7].v.str.ptr = "\x01";
    evs[7].v.str.len = 1;
    sdx_buf_clear(&b);
    CHECK_EQ_INT(put_all(evs, 8, SDX_JSON_WRITE_BIN_BASE64, &b), SDX_ERR_USAGE); /* the outer array is open */
    sdx_event all[9];
    memcpy(all, evs, sizeof evs);
    memset(&all[8], 0, sizeof all[8]);
    all[8].kind = SDX_END;
    sdx_buf_clear(&b);
    CHECK_EQ_INT(put_all(all, 9, SDX_JSON_WRITE_BIN_BASE64, &b), SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "[[-1,-9223372036854775809,-18446744073709551616],\"AQ==\"]");
    /* SDX_NINT as a key: its text, with STRINGIFY_KEYS */
    sdx_event km[4];
    memset(km, 0, sizeof km);
    km[0].kind = SDX_MAP;
    km[0].v.count = 1;
    km[1].kind = SDX_NINT;
    km[1].v.u = UINT64_MAX;
    km[2].kind = SDX_NULL;
    km[3].kind = SDX_END;
    sdx_buf_clear(&b);
    CHECK_EQ_INT(put_all(km, 4, 0, &b), SDX_ERR_KEY);
    sdx_buf_clear(&b);
    CHECK_EQ_INT(put_all(km, 4, SDX_JSON_WRITE_STRINGIFY_KEYS, &b), SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "{\"-18446744073709551616\":null}");
    sdx_buf_destroy(&b);
}

/* Non-string keys: SDX_ERR_KEY by default, their JSON text with
 * SDX_JSON_WRITE_STRINGIFY_KEYS. */
TEST(stringify_keys) {
    sdx_event k[6];
    memset(k, 0, sizeof k);
    k[0].kind = SDX_INT;
    k[0].v.i = -42;
    k[1].kind = SDX_UINT;
    k[1].v.u = UINT64_MAX;
    k[2].kind = SDX_DOUBLE;
    k[2].v.d = 2.5;
    k[3].kind = SDX_BOOL;
    k[3].v.b = true;
    k[4].kind = SDX_NULL;
    k[5].kind = SDX_DOUBLE;
    k[5].v.d = 1.0;
    for (int pretty = 0; pretty < 2; pretty++) {
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_json_writer w;
        sdx_json_write_opts o = {SDX_JSON_WRITE_STRINGIFY_KEYS, pretty ? 1u : 0u, NULL};
        sdx_json_writer_init(&w, &b, &o);
        sdx_json_writer_begin_map(&w, 6);
        for (int i = 0; i < 6; i++) {
            CHECK_EQ_INT(sdx_json_writer_put(&w, &k[i]), SDX_OK);
            sdx_json_writer_int(&w, i);
        }
        sdx_json_writer_end(&w);
        CHECK_EQ_INT(sdx_json_writer_finish(&w), SDX_OK);
        if (pretty)
            CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b),
                      "{\n \"-42\": 0,\n \"18446744073709551615\": 1,\n \"2.5\": 2,\n \"true\": 3,\n"
                      " \"null\": 4,\n \"1.0\": 5\n}");
        else
            CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b),
                      "{\"-42\":0,\"18446744073709551615\":1,\"2.5\":2,\"true\":3,\"null\":4,\"1.0\":5}");
        sdx_buf_destroy(&b);
    }
    /* by default, and for other kinds, SDX_ERR_KEY */
    sdx_event bad[3];
    memset(bad, 0, sizeof bad);
    bad[0].kind = SDX_BIN;
    bad[1].kind = SDX_ARRAY;
    bad[2].kind = SDX_STR;
    for (int flag = 0; flag < 2; flag++) {
        for (int i = -1; i < 3; i++) {
            sdx_buf b;
            sdx_buf_init(&b, NULL);
            sdx_json_writer w;
            sdx_json_write_opts o = {flag ? SDX_JSON_WRITE_STRINGIFY_KEYS | SDX_JSON_WRITE_BIN_BASE64 : 0, 0, NULL};
            sdx_json_writer_init(&w, &b, &o);
            sdx_json_writer_begin_map(&w, 1);
            if (i < 0 && flag) { /* a scalar with the flag: tested above */
                sdx_json_writer_finish(&w);
                sdx_buf_destroy(&b);
                continue;
            }
            /* binary without SDX_JSON_WRITE_BIN_BASE64 is no value anywhere */
            CHECK_EQ_INT(sdx_json_writer_put(&w, i < 0 ? &k[0] : &bad[i]),
                         i == 0 && !flag ? SDX_ERR_UNSUPPORTED : SDX_ERR_KEY);
            sdx_json_writer_finish(&w);
            sdx_buf_destroy(&b);
        }
    }
    /* NaN as a key: SDX_ERR_RANGE, or "null" with NAN_AS_NULL */
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {SDX_JSON_WRITE_STRINGIFY_KEYS | SDX_JSON_WRITE_NAN_AS_NULL, 0, NULL};
    sdx_json_writer_init(&w, &b, &o);
    sdx_json_writer_begin_map(&w, 1);
    sdx_json_writer_double(&w, NAN);
    sdx_json_writer_int(&w, 1);
    sdx_json_writer_end(&w);
    CHECK_EQ_INT(sdx_json_writer_finish(&w), SDX_OK);
    CHECK_STR(sdx_buf_data(&b), sdx_buf_len(&b), "{\"null\":1}");
    sdx_buf_destroy(&b);
}

/* ------------------------------------------------------------------------ */
/* The inline fast paths and the exported functions                         */
/* ------------------------------------------------------------------------ */

/* Flag bit of the scripts below (not a writer flag): pretty-print with an
 * indent of 2, where no inline path writes. */
#define SCRIPT_INDENT (1u << 31)

/* The script through a JSON writer (writer_script.h); the functions
 * without an inline path are called alike both ways. */
static sdx_err run_json_ops(sdx_buf *b, uint32_t flags, const op *ops, size_t n, int exported,
                            sdx_err *res) {
    sdx_json_writer wr, *w = &wr;
    sdx_json_write_opts wo = {flags & ~SCRIPT_INDENT, flags & SCRIPT_INDENT ? 2u : 0u, NULL};
    sdx_json_writer_init(w, b, &wo);
    for (size_t i = 0; i < n; i++) {
        const op *o = &ops[i];
        double d;
        memcpy(&d, &o->v, 8);
        sdx_err e = SDX_OK;
        switch (o->kind) {
        case OP_NULL: e = sdx_json_writer_null(w); break;
        case OP_BOOL: e = sdx_json_writer_bool(w, o->v != 0); break;
        case OP_INT: e = sdx_json_writer_int(w, (int64_t)o->v); break;
        case OP_UINT: e = sdx_json_writer_uint(w, o->v); break;
        case OP_DOUBLE: e = sdx_json_writer_double(w, d); break;
/* the exported function (its name in parentheses is not the macro) or the
 * macro, which is the inline path */
#define BOTH(f, ...) (exported ? (f)(__VA_ARGS__) : f(__VA_ARGS__))
        case OP_STR: e = BOTH(sdx_json_writer_string, w, o->s, o->n); break;
        case OP_KEY: e = BOTH(sdx_json_writer_key, w, o->s, o->n); break;
        case OP_ARRAY: e = BOTH(sdx_json_writer_begin_array, w, o->v); break;
        case OP_MAP: e = BOTH(sdx_json_writer_begin_map, w, o->v); break;
        default: e = BOTH(sdx_json_writer_end, w);
#undef BOTH
        }
        res[i] = e;
    }
    return sdx_json_writer_finish(w);
}

TEST(inline_and_exported_agree) {
    static const uint32_t flag_sets[] = {0,
                                         SDX_JSON_WRITE_NO_UTF8_CHECK,
                                         SDX_JSON_WRITE_SEQUENCE,
                                         SDX_JSON_WRITE_ESCAPE_SLASH | SDX_JSON_WRITE_NAN_AS_NULL,
                                         SDX_JSON_WRITE_ESCAPE_UNICODE,
                                         SDX_JSON_WRITE_REPLACE_INVALID_UTF8 | SDX_JSON_WRITE_STRINGIFY_KEYS,
                                         SCRIPT_INDENT};
    scripts_agree(run_json_ops, flag_sets, 7);
}

int main(int argc, char **argv) {
    int rc = test_run(
        argc, argv,
        (test_case[]){{"exact_document", exact_document},
                      {"scalars_at_the_root", scalars_at_the_root},
                      {"pretty_output", pretty_output},
                      {"null_empty_strings", null_empty_strings},
                      {"random_documents_match_reference", random_documents_match_reference},
                      {"every_byte_value", every_byte_value},
                      {"lengths_and_positions", lengths_and_positions},
                      {"short_strings", short_strings},
                      {"random_strings", random_strings},
                      {"long_strings", long_strings},
                      {"escape_lengths", escape_lengths},
                      {"escape_options_exact", escape_options_exact},
                      {"numbers", numbers},
                      {"raw_numbers", raw_numbers},
                      {"nan_and_infinity", nan_and_infinity},
                      {"binary", binary},
                      {"tags_and_nint", tags_and_nint},
                      {"stringify_keys", stringify_keys},
                      {"misuse_errors", misuse_errors},
                      {"huge_counts_are_unknown", huge_counts_are_unknown},
                      {"invalid_options", invalid_options},
                      {"sequence_mode", sequence_mode},
                      {"fixed_buffer_every_size", fixed_buffer_every_size},
                      {"fixed_buffer_exact_strings", fixed_buffer_exact_strings},
                      {"stream_output_matches_memory", stream_output_matches_memory},
                      {"huge_string_to_stream_stays_bounded", huge_string_to_stream_stays_bounded},
                      {"deep_nesting", deep_nesting},
                      {"output_allocation_failure", output_allocation_failure},
                      {"inline_and_exported_agree", inline_and_exported_agree},
                      {0, 0}});
    utf8_ref_free();
    return rc;
}
