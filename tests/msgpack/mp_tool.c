/*
 * The MessagePack conformance helper, for the ctest tests of this folder.
 *
 *   msgpack_tool suite FILE          the msgpack-test-suite cases (lines
 *                                    written by extract_suite.mjs): every
 *                                    listed encoding decodes to the expected
 *                                    value; encoding the value gives one of
 *                                    the listed encodings
 *   msgpack_tool gen SEED COUNT OUT  random documents that Python's msgpack
 *                                    can hold: lines "<hex>\t<tokens>"
 *   msgpack_tool decode IN OUT       lines of hex in, lines of tokens out
 *                                    ("!<code>@<offset>" for an error)
 *
 * Tokens, separated by spaces: n t f i:<decimal> d:<float64 bits, hex>
 * f:<float32 bits, hex> s:<utf-8 hex> b:<hex> x:<type>:<hex>
 * T:<seconds>:<nanoseconds> [<count> {<count> (elements follow; a map's as
 * key value key value ...; str keys are s: tokens like str values).
 *
 * The suite compares numbers by value, as its own drivers do: an integral
 * number within int64 or uint64 is i:<decimal> whether it was encoded as an
 * integer or a float, every other number d:<bits>.
 *
 * Every decoding goes through the pull reader (memory, and a stream read a
 * byte at a time) and, when the document is built, the tree parser; all
 * must agree.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpack_util.h"
#include "sbuf.h"
#include "sdx/sdx.h"

/* ---- a growable string (sbuf.h) in hex ------------------------------------ */

static void sb_hex(sbuf *s, const void *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        char h[2] = {digits[b[i] >> 4], digits[b[i] & 15]};
        sb_put(s, h, 2);
    }
}

/* ---- events to tokens ---------------------------------------------------------- */

/* One event's token (none for END). `by_value`: the suite's number rule. */
static void event_token(sbuf *s, const sdx_event *ev, int by_value) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: sb_put(s, "n ", 2); return;
    case SDX_BOOL: sb_put(s, ev->v.b ? "t " : "f ", 2); return;
    case SDX_INT: sb_printf(s, "i:%" PRId64 " ", ev->v.i); return;
    case SDX_UINT: sb_printf(s, "i:%" PRIu64 " ", ev->v.u); return;
    case SDX_DOUBLE: {
        double d = ev->v.d;
        if (by_value && d == floor(d) && d >= -9223372036854775808.0 && d < 18446744073709551616.0) {
            if (d < 9223372036854775808.0) sb_printf(s, "i:%" PRId64 " ", (int64_t)d);
            else sb_printf(s, "i:%" PRIu64 " ", (uint64_t)d);
            return;
        }
        uint64_t bits;
        memcpy(&bits, &d, 8);
        if (!by_value && (ev->flags & SDX_EVENT_FLOAT32)) {
            float f = (float)d;
            uint32_t fb;
            memcpy(&fb, &f, 4);
            if (d != d) fb = (uint32_t)(bits >> 32 & 0x80000000u) | 0x7f800000u | (uint32_t)(bits >> 29 & 0x7fffffu);
            sb_printf(s, "f:%08" PRIx32 " ", fb);
        } else {
            sb_printf(s, "d:%016" PRIx64 " ", bits);
        }
        return;
    }
    case SDX_STR:
    case SDX_KEY:
        sb_put(s, "s:", 2);
        sb_hex(s, ev->v.str.ptr, ev->v.str.len);
        sb_put(s, " ", 1);
        return;
    case SDX_BIN:
        if (ev->tag_kind == SDX_TAG_MSGPACK_EXT) {
            int64_t sec;
            uint32_t nsec;
            if ((int64_t)ev->tag == -1 && sdx_msgpack_timestamp_decode(ev->v.str.ptr, ev->v.str.len, &sec, &nsec)) {
                sb_printf(s, "T:%" PRId64 ":%" PRIu32 " ", sec, nsec);
                return;
            }
            sb_printf(s, "x:%" PRId64 ":", (int64_t)ev->tag);
        } else {
            sb_put(s, "b:", 2);
        }
        sb_hex(s, ev->v.str.ptr, ev->v.str.len);
        sb_put(s, " ", 1);
        return;
    case SDX_ARRAY: sb_printf(s, "[%" PRIu64 " ", ev->v.count); return;
    case SDX_MAP: sb_printf(s, "{%" PRIu64 " ", ev->v.count); return;
    case SDX_END: return;
    case SDX_RAW: sb_put(s, "RAW ", 4); return;
    case SDX_NINT: sb_put(s, "NINT ", 5); return; /* never from MessagePack */
    case SDX_TAG: sb_put(s, "TAG ", 4); return;
    }
}

/* Decode data with the reader (memory, or a stream of `chunk` bytes per
 * read) into tokens; on an error "!<code>@<offset>". */
static void reader_tokens(sbuf *s, const char *data, size_t len, size_t chunk, int by_value) {
    mp_mem_stream st = {data, len, chunk, -1};
    sdx_msgpack_reader *r = chunk ? sdx_msgpack_reader_new_stream(mp_mem_read, &st, chunk, NULL)
                                  : sdx_msgpack_reader_new(data, len, NULL);
    if (!r) abort();
    sdx_event ev;
    while (sdx_msgpack_reader_next(r, &ev)) event_token(s, &ev, by_value);
    sdx_error e;
    if (sdx_msgpack_reader_error(r, &e)) {
        s->len = 0;
        sb_printf(s, "!%d@%zu", (int)e.code, e.offset);
    }
    sdx_msgpack_reader_free(r);
}

/* The tree parser's view: the document sent back as events (sdx_node_emit)
 * through a sink that writes tokens. */
typedef struct token_sink {
    sbuf *s;
    int by_value;
} token_sink;

static sdx_err token_put(void *ctx, const sdx_event *ev) {
    token_sink *t = ctx;
    event_token(t->s, ev, t->by_value);
    return SDX_OK;
}

static sdx_err token_finish(void *ctx) {
    (void)ctx;
    return SDX_OK;
}

static void doc_tokens(sbuf *s, const char *data, size_t len, int by_value) {
    static const sdx_sink_vt vt = {token_put, token_finish};
    sdx_error e;
    sdx_doc *doc = sdx_msgpack_parse(data, len, NULL, &e);
    if (!doc) {
        sb_printf(s, "!%d@%zu", (int)e.code, e.offset);
        return;
    }
    token_sink t = {s, by_value};
    sdx_sink sink = {&vt, &t};
    if (sdx_node_emit(sdx_doc_root(doc), sink) != SDX_OK) sb_put(s, "!emit", 5);
    sdx_doc_free(doc);
}

/* Tokens of data by every decoder; "!disagree" when they differ. */
static void decode_tokens(sbuf *out, const char *data, size_t len, int by_value) {
    sbuf a = {0}, b = {0};
    reader_tokens(&a, data, len, 0, by_value);
    reader_tokens(&b, data, len, 1, by_value);
    int same = a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
    sbuf c = {0};
    doc_tokens(&c, data, len, by_value);
    same = same && a.len == c.len && memcmp(a.p, c.p, a.len) == 0;
    free(c.p);
    if (same) sb_put(out, a.p, a.len);
    else sb_put(out, "!disagree", 9);
    free(a.p);
    free(b.p);
}

/* ---- tokens to events --------------------------------------------------------- */

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Bytes from n hex digits into a new allocation (*out, *len); 0 on bad hex. */
static int unhex_into(const char *h, size_t n, char **out, size_t *len) {
    *out = NULL;
    if (n % 2) return 0;
    *len = n / 2;
    *out = malloc(*len + 1);
    if (!*out) abort();
    for (size_t i = 0; i < *len; i++) {
        int hi = hex_digit(h[2 * i]), lo = hex_digit(h[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(*out);
            *out = NULL;
            return 0;
        }
        (*out)[i] = (char)(hi << 4 | lo);
    }
    return 1;
}

/* Send the value whose tokens start at *p to the writer; 0 on bad tokens. */
static int emit_value(const char **p, sdx_msgpack_writer *w) {
    const char *t = *p;
    while (*t == ' ') t++;
    const char *e = t;
    while (*e && *e != ' ') e++;
    *p = e;
    size_t n = (size_t)(e - t);
    if (n == 0) return 0;
    switch (t[0]) {
    case 'n': sdx_msgpack_writer_null(w); return 1;
    case 't': sdx_msgpack_writer_bool(w, true); return 1;
    case 'f':
        if (n == 1) {
            sdx_msgpack_writer_bool(w, false);
            return 1;
        } else {
            uint32_t fb = (uint32_t)strtoul(t + 2, NULL, 16);
            float f;
            memcpy(&f, &fb, 4);
            sdx_msgpack_writer_float(w, f);
            return 1;
        }
    case 'i':
        if (t[2] == '-') sdx_msgpack_writer_int(w, strtoll(t + 2, NULL, 10));
        else sdx_msgpack_writer_uint(w, strtoull(t + 2, NULL, 10));
        return 1;
    case 'd': {
        uint64_t bits = strtoull(t + 2, NULL, 16);
        double d;
        memcpy(&d, &bits, 8);
        sdx_msgpack_writer_double(w, d);
        return 1;
    }
    case 's':
    case 'b': {
        char *bytes;
        size_t len;
        if (!unhex_into(t + 2, n - 2, &bytes, &len)) return 0;
        if (t[0] == 's') sdx_msgpack_writer_string(w, bytes, len);
        else sdx_msgpack_writer_bin(w, bytes, len);
        free(bytes);
        return 1;
    }
    case 'x': {
        char *end;
        long type = strtol(t + 2, &end, 10);
        char *bytes;
        size_t len;
        if (*end != ':' || !unhex_into(end + 1, (size_t)(e - end - 1), &bytes, &len)) return 0;
        sdx_msgpack_writer_ext(w, (int8_t)type, bytes, len);
        free(bytes);
        return 1;
    }
    case 'T': {
        char *end;
        long long sec = strtoll(t + 2, &end, 10);
        if (*end != ':') return 0;
        sdx_msgpack_writer_timestamp(w, sec, (uint32_t)strtoul(end + 1, NULL, 10));
        return 1;
    }
    case '[':
    case '{': {
        uint64_t count = strtoull(t + 1, NULL, 10);
        if (t[0] == '[') sdx_msgpack_writer_begin_array(w, count);
        else sdx_msgpack_writer_begin_map(w, count);
        for (uint64_t i = 0; i < count * (t[0] == '{' ? 2 : 1); i++)
            if (!emit_value(p, w)) return 0;
        sdx_msgpack_writer_end(w);
        return 1;
    }
    }
    return 0;
}

/* Encode tokens; returns the writer's error (or SDX_ERR_INVALID_ARG for
 * bad tokens). */
static sdx_err encode_tokens(const char *tokens, sdx_buf *out) {
    sdx_msgpack_writer w;
    sdx_msgpack_writer_init(&w, out, NULL);
    const char *p = tokens;
    int ok = emit_value(&p, &w);
    sdx_err e = sdx_msgpack_writer_finish(&w);
    while (*p == ' ') p++;
    return !ok || *p ? SDX_ERR_INVALID_ARG : e;
}

/* ---- lines ------------------------------------------------------------------- */

static char *read_line(FILE *f) {
    sbuf s = {0};
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
        char ch = (char)c;
        sb_put(&s, &ch, 1);
    }
    if (c == EOF && s.len == 0) {
        free(s.p);
        return NULL;
    }
    if (!s.p) sb_put(&s, "", 0);
    return s.p;
}

/* ---- suite ------------------------------------------------------------------- */

static int run_suite(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    long passed = 0, failed = 0, encodings = 0;
    char *line;
    while ((line = read_line(f)) != NULL) {
        char *name = line, *want = strchr(line, '\t'), *list = want ? strchr(want + 1, '\t') : NULL;
        if (!want || !list) {
            fprintf(stderr, "bad line: %s\n", line);
            failed++;
            free(line);
            continue;
        }
        *want++ = 0;
        *list++ = 0;
        int ok = 1;
        /* every listed encoding decodes to the value */
        sbuf enc_mine = {0};
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        sdx_err ee = encode_tokens(want, &b);
        sb_hex(&enc_mine, sdx_buf_data(&b), sdx_buf_len(&b));
        if (!enc_mine.p) sb_put(&enc_mine, "", 0);
        int listed = 0;
        for (char *h = strtok(list, ","); h; h = strtok(NULL, ",")) {
            char *bytes;
            size_t len;
            encodings++;
            if (!unhex_into(h, strlen(h), &bytes, &len)) {
                fprintf(stderr, "%s: bad hex %s\n", name, h);
                ok = 0;
                continue;
            }
            sbuf got = {0};
            decode_tokens(&got, bytes, len, 1);
            /* the expected tokens end with a space, as decoded ones do */
            size_t wl = strlen(want);
            if (got.len != wl || memcmp(got.p, want, wl) != 0) {
                fprintf(stderr, "%s: %s decodes to '%s', expected '%s'\n", name, h, got.p ? got.p : "", want);
                ok = 0;
            }
            if (strcmp(h, enc_mine.p) == 0) listed = 1;
            free(got.p);
            free(bytes);
        }
        /* encoding gives one of them */
        if (ee != SDX_OK || !listed) {
            fprintf(stderr, "%s: encodes to %s (error %d), not one of the listed encodings\n", name,
                    enc_mine.p, (int)ee);
            ok = 0;
        }
        sdx_buf_destroy(&b);
        free(enc_mine.p);
        if (ok) passed++;
        else failed++;
        free(line);
    }
    fclose(f);
    printf("msgpack-test-suite: %ld values, %ld encodings decoded\n", passed + failed, encodings);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}

/* ---- gen and decode --------------------------------------------------------- */

static int run_gen(uint64_t seed, long count, const char *out_path) {
    FILE *out = fopen(out_path, "w");
    if (!out) {
        perror(out_path);
        return 2;
    }
    mp_gen g = {seed, 5, 0, 1, 1, 400};
    for (long i = 0; i < count; i++) {
        evlist l = {0};
        g.big = i % 200 == 199;
        mp_gen_doc(&g, &l);
        sdx_buf b;
        sdx_buf_init(&b, NULL);
        if (mp_write_events(&l, &b) != SDX_OK) {
            fprintf(stderr, "gen: the writer failed on document %ld\n", i);
            return 1;
        }
        sbuf hex = {0}, tok = {0};
        sb_hex(&hex, sdx_buf_data(&b), sdx_buf_len(&b));
        for (size_t k = 0; k < l.n; k++) event_token(&tok, &l.ev[k], 0);
        fprintf(out, "%s\t%s\n", hex.p, tok.p);
        free(hex.p);
        free(tok.p);
        sdx_buf_destroy(&b);
        evlist_free(&l);
    }
    return fclose(out) == 0 ? 0 : 1;
}

static int run_decode(const char *in_path, const char *out_path) {
    FILE *in = fopen(in_path, "r"), *out = fopen(out_path, "w");
    if (!in || !out) {
        perror("decode");
        return 2;
    }
    char *line;
    while ((line = read_line(in)) != NULL) {
        char *bytes;
        size_t len;
        sbuf tok = {0};
        if (!unhex_into(line, strlen(line), &bytes, &len)) {
            sb_put(&tok, "!badhex", 7);
            bytes = NULL;
        } else {
            decode_tokens(&tok, bytes, len, 0);
        }
        fprintf(out, "%s\n", tok.p ? tok.p : "");
        free(tok.p);
        free(bytes);
        free(line);
    }
    fclose(in);
    return fclose(out) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "suite") == 0) return run_suite(argv[2]);
    if (argc == 5 && strcmp(argv[1], "gen") == 0)
        return run_gen(strtoull(argv[2], NULL, 10), atol(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "decode") == 0) return run_decode(argv[2], argv[3]);
    fprintf(stderr, "usage: msgpack_tool suite FILE | gen SEED COUNT OUT | decode IN OUT\n");
    return 2;
}
