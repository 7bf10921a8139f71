/* RFC 8949 Appendix F.1: every not-well-formed example of the data file
 * tests/cbor/appendix_f.txt (hex, offset, truncated|syntax) is rejected by
 * all three readers with the listed error and offset:
 *
 *   - the memory pull reader (sdx_cbor_reader_new);
 *   - the stream reader, fed one byte per read call (it cannot see the end
 *     of its input in advance, so it must find the offending item from
 *     what it has read);
 *   - the tree parser (sdx_cbor_parse).
 *
 * Then, for each example:
 *   - every proper prefix (the valid beginnings of the example) is rejected
 *     by all three, with SDX_ERR_TRUNCATED or SDX_ERR_SYNTAX at an offset
 *     inside the prefix, the three agreeing (the sanitizer build runs this,
 *     so none of them may read out of bounds either);
 *   - as the second item of a CBOR sequence (RFC 8742) after a valid item,
 *     both readers report the same error at the offset moved by the first
 *     item's length (offsets are absolute, not relative to the item).
 *
 * The data file's path is SDX_CBOR_DATA_DIR (tests/cbor/CMakeLists.txt); the
 * environment variable SDX_CBOR_DATA overrides it. The file lists 94
 * examples; fewer is a failure (a truncated or unreadable data file must not
 * pass as "nothing to check"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbor_test.h"

#ifndef SDX_CBOR_DATA_DIR
#define SDX_CBOR_DATA_DIR "tests/cbor"
#endif

/* RFC 8949 Appendix F.1 lists this many examples. */
#define APPENDIX_F_EXAMPLES 94

typedef struct example {
    unsigned char bytes[64];
    size_t len;
    size_t offset;
    sdx_err kind;
    int line;
    char hex[129];
} example;

typedef struct result {
    sdx_err code;
    size_t offset;
    const char *msg;
} result;

/* ---- the three readers ---------------------------------------------------- */

static result from_error(sdx_err code, const sdx_error *e) {
    result r = {code, code ? e->offset : 0, code ? e->msg : NULL};
    return r;
}

/* Read every event of a new reader (NULL: it could not be made) to its end
 * or error; frees it. */
static result read_all(sdx_cbor_reader *r) {
    if (!r) return (result){SDX_ERR_NOMEM, 0, "no reader"};
    sdx_event ev;
    while (sdx_cbor_reader_next(r, &ev)) {
    }
    sdx_error e;
    result res = from_error(sdx_cbor_reader_error(r, &e), &e);
    sdx_cbor_reader_free(r);
    return res;
}

static result read_memory(const unsigned char *in, size_t n, uint32_t flags) {
    sdx_cbor_read_opts o = {flags, 0, 0, 0, NULL};
    return read_all(sdx_cbor_reader_new((const char *)in, n, &o));
}

typedef struct byte_feed {
    const unsigned char *p;
    size_t len, pos;
} byte_feed;

/* One byte per call: the stream reader sees the input end only when a read
 * returns 0. */
static size_t feed_one(void *ctx, void *buf, size_t cap) {
    byte_feed *f = ctx;
    if (f->pos == f->len || cap == 0) return 0;
    memcpy(buf, f->p + f->pos++, 1);
    return 1;
}

static result read_stream(const unsigned char *in, size_t n, uint32_t flags) {
    sdx_cbor_read_opts o = {flags, 0, 0, 0, NULL};
    byte_feed f = {in, n, 0};
    return read_all(sdx_cbor_reader_new_stream(feed_one, &f, 1, &o));
}

static result read_parse(const unsigned char *in, size_t n) {
    sdx_error e;
    sdx_doc *doc = sdx_cbor_parse((const char *)in, n, NULL, &e);
    if (doc) {
        sdx_doc_free(doc);
        return (result){SDX_OK, 0, NULL};
    }
    return from_error(e.code, &e);
}

/* ---- the data file ---------------------------------------------------------- */

/* Read every example of the file into *out (malloc'd); returns the count, or
 * -1 when the file cannot be read or a line is malformed (printed). */
static int load(const char *path, example **out) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "  cannot open %s (set SDX_CBOR_DATA to the directory of appendix_f.txt)\n",
                path);
        return -1;
    }
    example *ex = NULL;
    int n = 0, cap = 0, lineno = 0, bad = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
        if (l == 0 || line[0] == '#') continue;
        char hex[256], kind[32];
        unsigned long off;
        if (sscanf(line, "%255[0-9a-fA-F]\t%lu\t%31s", hex, &off, kind) != 3 || strlen(hex) % 2 ||
            strlen(hex) > 128 || (strcmp(kind, "truncated") && strcmp(kind, "syntax"))) {
            fprintf(stderr, "  %s:%d: not <hex> TAB <offset> TAB <truncated|syntax>: %s\n", path,
                    lineno, line);
            bad = 1;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 128;
            example *grown = realloc(ex, (size_t)cap * sizeof *ex);
            if (!grown) {
                bad = 1;
                break;
            }
            ex = grown;
        }
        example *e = &ex[n++];
        e->len = unhex(hex, e->bytes);
        e->offset = (size_t)off;
        e->kind = strcmp(kind, "truncated") == 0 ? SDX_ERR_TRUNCATED : SDX_ERR_SYNTAX;
        e->line = lineno;
        memcpy(e->hex, hex, strlen(hex) + 1); /* at most 128 digits, checked above */
    }
    fclose(f);
    if (bad) {
        free(ex);
        return -1;
    }
    *out = ex;
    return n;
}

static example *examples;
static int nexamples = -2; /* -2: not loaded yet, -1: the file could not be read */

/* Load the data file once (each test can run alone: test_cbor_appendix_f NAME). */
static int loaded(void) {
    if (nexamples == -2) {
        const char *dir = getenv("SDX_CBOR_DATA");
        char path[1024];
        snprintf(path, sizeof path, "%s/appendix_f.txt", dir && *dir ? dir : SDX_CBOR_DATA_DIR);
        nexamples = load(path, &examples);
    }
    return CHECK(nexamples == APPENDIX_F_EXAMPLES);
}

static const char *code_name(sdx_err c) {
    return c == SDX_ERR_TRUNCATED ? "truncated" : c == SDX_ERR_SYNTAX ? "syntax" : sdx_strerror(c);
}

static int expect(const example *e, const char *reader, result got, sdx_err code, size_t offset) {
    if (got.code == code && got.offset == offset) return 1;
    fprintf(stderr, "  line %d, %s: %s gives %s at %zu (\"%s\"), the file says %s at %zu\n", e->line,
            e->hex, reader, got.code ? code_name(got.code) : "no error", got.offset,
            got.msg ? got.msg : "", code_name(code), offset);
    return 0;
}

/* ---- the tests -------------------------------------------------------------- */

TEST(data_file) {
    if (!loaded()) {
        fprintf(stderr, "  %d examples read, %d expected\n", nexamples, APPENDIX_F_EXAMPLES);
        return;
    }
    int truncated = 0;
    for (int i = 0; i < nexamples; i++) truncated += examples[i].kind == SDX_ERR_TRUNCATED;
    /* F.1's lists: 42 examples of too little data, 52 syntax errors */
    CHECK_EQ_INT(truncated, 42);
    for (int i = 0; i < nexamples; i++) CHECK(examples[i].offset < examples[i].len);
}

TEST(memory_reader) {
    if (!loaded()) return;
    int ok = 0;
    for (int i = 0; i < nexamples; i++) {
        const example *e = &examples[i];
        ok += expect(e, "memory reader", read_memory(e->bytes, e->len, 0), e->kind, e->offset);
    }
    CHECK_EQ_INT(ok, nexamples);
}

TEST(stream_reader) {
    if (!loaded()) return;
    int ok = 0;
    for (int i = 0; i < nexamples; i++) {
        const example *e = &examples[i];
        ok += expect(e, "stream reader (1-byte reads)", read_stream(e->bytes, e->len, 0), e->kind,
                     e->offset);
    }
    CHECK_EQ_INT(ok, nexamples);
}

TEST(parser) {
    if (!loaded()) return;
    int ok = 0;
    for (int i = 0; i < nexamples; i++) {
        const example *e = &examples[i];
        ok += expect(e, "parser", read_parse(e->bytes, e->len), e->kind, e->offset);
    }
    CHECK_EQ_INT(ok, nexamples);
}

/* Every proper prefix is rejected too, by all three alike. No prefix of a
 * not-well-formed item is a whole item, since the item starts at byte 0 and
 * is bad or unfinished. */
TEST(prefixes) {
    if (!loaded()) return;
    int bad = 0;
    for (int i = 0; i < nexamples; i++) {
        const example *e = &examples[i];
        for (size_t cut = 0; cut < e->len; cut++) {
            result m = read_memory(e->bytes, cut, 0);
            result s = read_stream(e->bytes, cut, 0);
            result p = read_parse(e->bytes, cut);
            int ok = (m.code == SDX_ERR_TRUNCATED || m.code == SDX_ERR_SYNTAX) &&
                     (m.offset < cut || (cut == 0 && m.offset == 0)) && s.code == m.code &&
                     s.offset == m.offset && p.code == m.code && p.offset == m.offset;
            if (!ok) {
                bad++;
                fprintf(stderr,
                        "  line %d, %s cut to %zu bytes: memory %s at %zu, stream %s at %zu, "
                        "parser %s at %zu\n",
                        e->line, e->hex, cut, code_name(m.code), m.offset, code_name(s.code),
                        s.offset, code_name(p.code), p.offset);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
}

/* After a valid first item in a sequence (a 4-byte array, [1, 2, 3]), the
 * example fails the same way with its offset moved by 4. */
TEST(in_a_sequence) {
    static const unsigned char first[] = {0x83, 0x01, 0x02, 0x03};
    if (!loaded()) return;
    int ok = 0;
    for (int i = 0; i < nexamples; i++) {
        const example *e = &examples[i];
        unsigned char in[sizeof first + sizeof e->bytes];
        memcpy(in, first, sizeof first);
        memcpy(in + sizeof first, e->bytes, e->len);
        size_t n = sizeof first + e->len;
        size_t want = sizeof first + e->offset;
        int both = expect(e, "memory reader, second item of a sequence",
                          read_memory(in, n, SDX_CBOR_READ_STOP_AFTER_VALUE), e->kind, want);
        both &= expect(e, "stream reader, second item of a sequence",
                       read_stream(in, n, SDX_CBOR_READ_STOP_AFTER_VALUE), e->kind, want);
        ok += both;
    }
    CHECK_EQ_INT(ok, nexamples);
}

int main(int argc, char **argv) {
    int rc = test_run(argc, argv,
                      (test_case[]){
                          {"data_file", data_file},
                          {"memory_reader", memory_reader},
                          {"stream_reader", stream_reader},
                          {"parser", parser},
                          {"prefixes", prefixes},
                          {"in_a_sequence", in_a_sequence},
                          {0, 0},
                      });
    free(examples);
    return rc;
}
