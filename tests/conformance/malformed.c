/*
 * Malformed input: every case must end in a clean error (code, message,
 * offset within the input, line and column matching the offset) or a
 * success, never a crash, hang or sanitizer report; the tree parser and the
 * pull reader must agree on the outcome, the code and the offset.
 *
 *  truncate_reader  every cut point of each corpus document, through the
 *                   reader's internal hook sdx_json_reader_clone_truncated
 *                   (walk the events; after each, clone with every cut up to
 *                   the end of the next event and drain the clone)
 *  truncate_parser  cut points of each corpus document for the tree parser
 *                   (each cut costs a parse of the prefix, so: the first
 *                   SDX_CONF_CUT_HEAD and last SDX_CONF_CUT_TAIL bytes plus
 *                   SDX_CONF_CUT_RANDOM random cuts); each gives
 *                   SDX_ERR_TRUNCATED at offset == cut, or success where the
 *                   prefix is a complete document, and the reader agrees
 *  mutants          SDX_CONF_MUTANTS mutants per corpus document (byte
 *                   flips, replacements, insertions, deletions)
 *  deep_nesting     10^6 levels of arrays and of maps: SDX_ERR_DEPTH with the
 *                   default limit (at the first level too deep), parsed and
 *                   written back without recursion with the limit raised;
 *                   the limit's boundary (1024 levels pass, 1025 fail)
 *  invalid_utf8     invalid UTF-8 in strings, exhaustively for two-byte
 *                   bodies and over a grid for longer ones, against an
 *                   independent reference (tests/unit/utf8_ref.h); the byte
 *                   forms of the JSONTestSuite files whose invalid bytes the
 *                   npm package lost
 *
 * Counts are set by CMake (lower under the sanitizers) and printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_util.h"
#include "json/reader_internal.h"
#include "test.h"
#include "utf8_ref.h"

#ifndef SDX_CONF_MUTANTS
#define SDX_CONF_MUTANTS 2000
#endif
#ifndef SDX_CONF_CUT_HEAD
#define SDX_CONF_CUT_HEAD 65536
#endif
#ifndef SDX_CONF_CUT_TAIL
#define SDX_CONF_CUT_TAIL 4096
#endif
#ifndef SDX_CONF_CUT_RANDOM
#define SDX_CONF_CUT_RANDOM 2000
#endif

/* A count from CMake, times SDX_TEST_SCALE. */
static size_t scaled(size_t n) { return (size_t)((double)n * test_scale()); }

/* ------------------------------------------------------------------------ */
/* Outcomes                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct outcome {
    sdx_err code;
    sdx_error err;
} outcome;

static outcome parse_outcome(const char *data, size_t len, const sdx_json_read_opts *opts) {
    outcome o;
    o.code = conf_parse_into(data, len, opts, false, NULL, &o.err);
    return o;
}

static outcome read_outcome(const char *data, size_t len, const sdx_json_read_opts *opts) {
    outcome o;
    o.code = conf_read_into(data, len, opts, NULL, &o.err);
    return o;
}

static bool same_outcome(const outcome *a, const outcome *b) {
    return a->code == b->code && (a->code == SDX_OK || a->err.offset == b->err.offset);
}

/* A failure is clean: a reading error (never a crash or a usage/memory
 * error), a message, an offset within the input, and line and column that
 * match it. */
static bool clean(const outcome *o, const char *data, size_t len) {
    if (o->code == SDX_OK) return true;
    bool reading_error = o->code == SDX_ERR_SYNTAX || o->code == SDX_ERR_TRUNCATED ||
                         o->code == SDX_ERR_DEPTH || o->code == SDX_ERR_UTF8 ||
                         o->code == SDX_ERR_RANGE;
    return reading_error && conf_error_clean(&o->err, len) && conf_error_position_ok(data, len, &o->err);
}

/* Report a disagreement or unclean error (the first few per test). */
static long reported;

static void report(const char *what, const char *name, size_t where, const outcome *p, const outcome *r) {
    if (++reported > 12) return;
    fprintf(stderr, "  %s, %s at %zu: parser %s", what, name, where, conf_error_str(p->code, &p->err));
    fprintf(stderr, "; reader %s\n", conf_error_str(r->code, &r->err));
}

/* End of the root value of a complete document: its length less the
 * trailing whitespace. */
static size_t value_end(const char *data, size_t len) {
    while (len > 0 && (data[len - 1] == ' ' || data[len - 1] == '\n' || data[len - 1] == '\r' ||
                       data[len - 1] == '\t'))
        len--;
    return len;
}

/* ------------------------------------------------------------------------ */
/* Truncation: tree parser                                                   */
/* ------------------------------------------------------------------------ */

/* Check one cut: TRUNCATED at the cut (or success past the root value's
 * end), from both the parser and the reader. */
static bool check_cut(const char *name, const char *data, size_t cut, size_t end) {
    outcome p = parse_outcome(data, cut, NULL);
    outcome r = read_outcome(data, cut, NULL);
    bool ok = cut >= end ? p.code == SDX_OK
                         : p.code == SDX_ERR_TRUNCATED && p.err.offset == cut && clean(&p, data, cut);
    ok = ok && same_outcome(&p, &r);
    if (!ok) report("cut", name, cut, &p, &r);
    return ok;
}

TEST(truncate_parser) {
    uint64_t rng = 4242;
    for (int d = 0; conf_corpus_names[d]; d++) {
        size_t len;
        char *data = conf_read_corpus(conf_corpus_names[d], &len);
        if (!CHECK(data != NULL)) continue;
        size_t end = value_end(data, len), head = scaled(SDX_CONF_CUT_HEAD),
               tail = scaled(SDX_CONF_CUT_TAIL), nrand = scaled(SDX_CONF_CUT_RANDOM);
        if (head > len) head = len;
        if (tail > len - head) tail = len - head;
        size_t cuts = 0, bad = 0;
        for (size_t cut = 0; cut <= head; cut++, cuts++) bad += !check_cut(conf_corpus_names[d], data, cut, end);
        for (size_t cut = len - tail; cut <= len; cut++, cuts++)
            bad += !check_cut(conf_corpus_names[d], data, cut, end);
        for (size_t i = 0; i < nrand; i++, cuts++)
            bad += !check_cut(conf_corpus_names[d], data, (size_t)(test_rand(&rng) % (len + 1)), end);
        CHECK_EQ_U64(bad, 0);
        printf("  %s: %zu cuts by the parser and the reader (first %zu bytes, last %zu, %zu random), "
               "%zu wrong\n", conf_corpus_names[d], cuts, head, tail, nrand, bad);
        free(data);
    }
}

/* ------------------------------------------------------------------------ */
/* Truncation: pull reader                                                   */
/* ------------------------------------------------------------------------ */

/* Line and column of offsets visited in increasing order, in O(total):
 * conf_error_position_ok() costs O(offset) per call, too much for every
 * byte of the corpus. */
typedef struct line_walk {
    const char *data;
    size_t pos, line, line_start;
    bool cr; /* a '\r' before pos: the reader's choice, not checked */
} line_walk;

static void line_walk_to(line_walk *w, size_t off) {
    for (; w->pos < off; w->pos++) {
        if (w->data[w->pos] == '\r') w->cr = true;
        else if (w->data[w->pos] == '\n') w->line++, w->line_start = w->pos + 1;
    }
}

/* Drain a clone truncated at `cut` and check its outcome: SDX_ERR_TRUNCATED
 * at the cut with a clean report, or success once the prefix holds the
 * whole root value (`end`). Frees the clone. */
static bool check_reader_cut(const char *name, const char *data, sdx_json_reader *clone, size_t cut,
                             size_t end, line_walk *w) {
    outcome o;
    o.code = conf_drain(clone, NULL, &o.err);
    sdx_json_reader_free(clone);
    bool ok;
    if (cut >= end) {
        ok = o.code == SDX_OK;
    } else {
        line_walk_to(w, cut);
        ok = o.code == SDX_ERR_TRUNCATED && o.err.offset == cut && conf_error_clean(&o.err, cut) &&
             (w->cr || (o.err.line == w->line && o.err.column == cut - w->line_start + 1));
        /* the incremental position against the library's own check, now and then */
        if (ok && cut % 4096 == 0) ok = conf_error_position_ok(data, cut, &o.err);
    }
    if (!ok && ++reported <= 12)
        fprintf(stderr, "  reader cut, %s at %zu: %s\n", name, cut, conf_error_str(o.code, &o.err));
    return ok;
}

TEST(truncate_reader) {
    for (int d = 0; conf_corpus_names[d]; d++) {
        const char *name = conf_corpus_names[d];
        size_t len;
        char *data = conf_read_corpus(name, &len);
        if (!CHECK(data != NULL)) continue;
        const size_t end = value_end(data, len);
        /* r walks the events; ahead is one event further and tells where
         * the next event ends */
        sdx_json_reader *r = sdx_json_reader_new(data, len, NULL);
        sdx_json_reader *ahead = sdx_json_reader_new(data, len, NULL);
        if (!CHECK(r != NULL && ahead != NULL)) {
            sdx_json_reader_free(r);
            sdx_json_reader_free(ahead);
            free(data);
            continue;
        }
        line_walk w = {data, 0, 1, 0, false};
        size_t cut = 0, cuts = 0, bad = 0, events = 0;
        sdx_event ev;
        for (;;) {
            const bool more = sdx_json_reader_next(ahead, &ev);
            const size_t next_end = more ? (size_t)sdx_json_reader_offset(ahead) : len;
            /* every cut from here to the end of the next event, from r's state */
            for (; cut <= next_end; cut++, cuts++) {
                sdx_json_reader *clone = sdx_json_reader_clone_truncated(r, cut);
                if (!clone) {
                    bad++;
                    if (++reported <= 12)
                        fprintf(stderr, "  reader cut, %s at %zu: no clone\n", name, cut);
                    continue;
                }
                bad += !check_reader_cut(name, data, clone, cut, end, &w);
            }
            if (!more) break;
            if (!CHECK(sdx_json_reader_next(r, &ev))) break;
            events++;
        }
        CHECK_EQ_INT(sdx_json_reader_error(ahead, NULL), SDX_OK);
        CHECK_EQ_U64(cuts, len + 1);
        CHECK_EQ_U64(bad, 0);
        printf("  %s: %zu cuts (every byte) by the reader over %zu events, %zu wrong\n", name, cuts,
               events, bad);
        sdx_json_reader_free(ahead);
        sdx_json_reader_free(r);
        free(data);
    }
}

/* ------------------------------------------------------------------------ */
/* Mutants                                                                   */
/* ------------------------------------------------------------------------ */

/* Bytes that change the structure, when they replace or join others. */
static const char interesting[] = "{}[]:,\"\\ \t\n0123456789.eE+-tfnulrs\x00\x01\x1f\x7f\x80\xbf\xc0\xc2"
                                  "\xe0\xed\xef\xf0\xf4\xf5\xff";

/* Apply one random mutation to m (len *n, capacity cap); returns where. */
static size_t mutate(char *m, size_t *n, size_t cap, uint64_t *rng) {
    size_t len = *n, at = len ? (size_t)(test_rand(rng) % len) : 0;
    uint64_t r = test_rand(rng);
    char b = (r >> 8) & 1 ? interesting[(r >> 16) % (sizeof interesting - 1)] : (char)(r >> 24);
    switch (r % 4) {
    case 0: /* flip a bit */
        if (len) m[at] ^= (char)(1u << ((r >> 32) % 8));
        break;
    case 1: /* replace a byte */
        if (len) m[at] = b;
        break;
    case 2: /* insert a byte */
        if (len + 1 > cap) break;
        memmove(m + at + 1, m + at, len - at);
        m[at] = b;
        (*n)++;
        break;
    default: { /* delete 1 to 4 bytes */
        size_t k = 1 + (size_t)((r >> 32) % 4);
        if (k > len - at) k = len - at;
        memmove(m + at, m + at + k, len - at - k);
        *n -= k;
        break;
    }
    }
    return at;
}

TEST(mutants) {
    uint64_t rng = 777;
    size_t per_doc = scaled(SDX_CONF_MUTANTS);
    for (int d = 0; conf_corpus_names[d]; d++) {
        size_t len;
        char *data = conf_read_corpus(conf_corpus_names[d], &len);
        if (!CHECK(data != NULL)) continue;
        size_t cap = len + 16;
        char *m = malloc(cap);
        if (!m) abort();
        size_t bad = 0, failed = 0;
        for (size_t i = 0; i < per_doc; i++) {
            memcpy(m, data, len);
            size_t n = len, at = 0;
            int ops = 1 + (int)(test_rand(&rng) % 3 == 0); /* one mutation, sometimes two */
            for (int k = 0; k < ops; k++) at = mutate(m, &n, cap, &rng);
            outcome p = parse_outcome(m, n, NULL), r = read_outcome(m, n, NULL);
            failed += p.code != SDX_OK;
            if (!same_outcome(&p, &r) || !clean(&p, m, n) || !clean(&r, m, n)) {
                bad++;
                report("mutant", conf_corpus_names[d], at, &p, &r);
            }
        }
        CHECK_EQ_U64(bad, 0);
        printf("  %s: %zu mutants, %zu rejected, %zu with a disagreement or unclean error\n",
               conf_corpus_names[d], per_doc, failed, bad);
        free(m);
        free(data);
    }
}

/* ------------------------------------------------------------------------ */
/* Deep nesting                                                              */
/* ------------------------------------------------------------------------ */

#define DEEP 1000000

/* `levels` nested arrays ("[[...]]") or maps ({"a":{"a":...0...}}). */
static char *deep_text(size_t levels, bool map, size_t *len) {
    size_t open = map ? 5 : 1, n = levels * (open + 1) + (map ? 1 : 0);
    char *t = malloc(n + 1);
    if (!t) abort();
    char *p = t;
    for (size_t i = 0; i < levels; i++) {
        if (map) memcpy(p, "{\"a\":", 5);
        else *p = '[';
        p += open;
    }
    if (map) *p++ = '0';
    memset(p, map ? '}' : ']', levels);
    p += levels;
    *p = 0;
    *len = (size_t)(p - t);
    return t;
}

/* The default limit: SDX_ERR_DEPTH at the first container too deep, from
 * both the parser and the reader. */
static void deep_default(const char *t, size_t len, bool map) {
    size_t first_bad = (size_t)SDX_JSON_DEFAULT_MAX_DEPTH * (map ? 5 : 1);
    outcome p = parse_outcome(t, len, NULL), r = read_outcome(t, len, NULL);
    CHECK_EQ_INT(p.code, SDX_ERR_DEPTH);
    CHECK_EQ_U64(p.err.offset, first_bad);
    CHECK(clean(&p, t, len));
    if (!CHECK(same_outcome(&p, &r))) report("deep", map ? "maps" : "arrays", 0, &p, &r);
}

/* A raised limit: the parser and the reader take it, the tree is written
 * back byte for byte, equal to itself, and freed, all without recursion. */
static void deep_raised(const char *t, size_t len, bool map) {
    sdx_json_read_opts o = {0, DEEP + 10, NULL};
    sdx_error err;
    sdx_doc *doc = sdx_json_parse(t, len, &o, &err);
    if (!CHECK(doc != NULL)) {
        fprintf(stderr, "  %s\n", conf_error_str(err.code, &err));
        return;
    }
    cbuf out = {0};
    CHECK_EQ_INT(conf_write_node(sdx_doc_root(doc), &out), SDX_OK);
    CHECK_MEM(out.p, out.len, t, len);
    CHECK(sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(doc)));
    CHECK_EQ_U64(sdx_doc_size(doc), map ? 2 * (size_t)DEEP + 1 : (size_t)DEEP); /* maps: map, key */
    /* The reader into the writer, and into the builder. */
    CHECK_EQ_INT(conf_write_from_reader(t, len, &o, &out), SDX_OK);
    CHECK_MEM(out.p, out.len, t, len);
    sdx_doc_builder b;
    sdx_doc_build_opts bo = {NULL, DEEP + 10};
    sdx_doc_builder_init(&b, &bo);
    sdx_sink sink = sdx_doc_builder_sink(&b);
    CHECK_EQ_INT(conf_read_into(t, len, &o, &sink, &err), SDX_OK);
    sdx_err brc;
    sdx_doc *built = sdx_doc_builder_finish(&b, &brc);
    if (CHECK(built != NULL)) CHECK(sdx_node_equal(sdx_doc_root(doc), sdx_doc_root(built)));
    sdx_doc_free(built);
    sdx_doc_free(doc);
    cbuf_free(&out);
}

/* The limit's boundary: `limit` levels pass, one more fails. */
static void deep_boundary(uint32_t limit, bool map) {
    sdx_json_read_opts o = {0, limit, NULL};
    uint32_t effective = limit ? limit : SDX_JSON_DEFAULT_MAX_DEPTH;
    for (size_t levels = effective; levels <= (size_t)effective + 1; levels++) {
        size_t len;
        char *t = deep_text(levels, map, &len);
        outcome p = parse_outcome(t, len, &o), r = read_outcome(t, len, &o);
        bool pass = levels == effective;
        CHECK_EQ_INT(p.code, pass ? SDX_OK : SDX_ERR_DEPTH);
        if (!CHECK(same_outcome(&p, &r))) report("depth limit", map ? "maps" : "arrays", levels, &p, &r);
        free(t);
    }
}

TEST(deep_nesting) {
    for (int map = 0; map <= 1; map++) {
        size_t len;
        char *t = deep_text(DEEP, map, &len);
        deep_default(t, len, map);
        deep_raised(t, len, map);
        free(t);
        deep_boundary(0, map);
        deep_boundary(1, map);
        deep_boundary(5000, map);
    }
    printf("  10^6 levels of arrays and of maps: SDX_ERR_DEPTH by default, parsed, read, built, "
           "compared and written back with the limit raised; limits 1, 1024 (default), 5000\n");
}

/* ------------------------------------------------------------------------ */
/* Invalid UTF-8                                                             */
/* ------------------------------------------------------------------------ */

/* ["<body>"]: accepted exactly when the body is valid UTF-8 (bodies here hold
 * no '"', '\\' or control bytes), else SDX_ERR_UTF8 inside the string; the
 * parser and the reader agree. Returns false on a miss. */
static bool check_utf8_body(const uint8_t *body, size_t n) {
    char t[32];
    memcpy(t, "[\"", 2);
    memcpy(t + 2, body, n);
    memcpy(t + 2 + n, "\"]", 2);
    size_t len = n + 4;
    bool valid = ref_valid_prefix(body, n) == n;
    outcome p = parse_outcome(t, len, NULL), r = read_outcome(t, len, NULL);
    bool ok = valid ? p.code == SDX_OK
                    : p.code == SDX_ERR_UTF8 && p.err.offset >= 2 && p.err.offset < 2 + n && clean(&p, t, len);
    ok = ok && same_outcome(&p, &r);
    if (!ok) {
        char hex[80] = "";
        for (size_t i = 0; i < n; i++) snprintf(hex + 3 * i, 4, "%02x ", body[i]);
        report(valid ? "valid UTF-8 rejected" : "invalid UTF-8", hex, 0, &p, &r);
    }
    return ok;
}

/* Bytes allowed raw inside a JSON string. */
static bool body_byte(unsigned b) { return b >= 0x20 && b != '"' && b != '\\'; }

/* The JSONTestSuite files whose invalid UTF-8 the npm package replaced by
 * U+FFFD, as bytes (reconstructed from the suite's file names, which say
 * what they hold); every one must be rejected, by both readers alike. */
static const struct {
    const char *name, *bytes;
    size_t len;
} lost[] = {
#define L(name, lit) {name, lit, sizeof lit - 1}
    L("n_array_invalid_utf8", "[\xff]"),
    L("n_array_a_invalid_utf8", "[a\xe5]"),
    L("n_number_invalid-utf-8-in-bigger-int", "[123\xe5]"),
    L("n_number_invalid-utf-8-in-exponent", "[1e1\xe5]"),
    L("n_number_invalid-utf-8-in-int", "[0\xe5]"),
    L("n_number_real_with_invalid_utf8_after_e", "[1e\xe5]"),
    L("n_object_lone_continuation_byte_in_key_and_trailing_comma", "{\"\xb9\":\"0\",}"),
    L("n_string_invalid-utf-8-in-escape", "[\"\\u\xe5\"]"),
    L("n_string_invalid_utf8_after_escape", "[\"\\\xe5\"]"),
    L("n_structure_incomplete_UTF8_BOM", "\xef\xbb{}"),
    L("n_structure_lone-invalid-utf-8", "\xe5"),
    L("n_structure_single_eacute", "\xe9"),
    L("i_string_UTF-8_invalid_sequence", "[\"\xe6\x97\xa5\xd1\x88\xfa\"]"),
    L("i_string_UTF8_surrogate_U+D800", "[\"\xed\xa0\x80\"]"),
    L("i_string_invalid_utf-8", "[\"\xff\"]"),
    L("i_string_iso_latin_1", "[\"\xe9\"]"),
    L("i_string_lone_utf8_continuation_byte", "[\"\x81\"]"),
    L("i_string_not_in_unicode_range", "[\"\xf4\xbf\xbf\xbf\"]"),
    L("i_string_overlong_sequence_2_bytes", "[\"\xc0\xaf\"]"),
    L("i_string_overlong_sequence_6_bytes", "[\"\xfc\x83\xbf\xbf\xbf\xbf\"]"),
    L("i_string_overlong_sequence_6_bytes_null", "[\"\xfc\x80\x80\x80\x80\x80\"]"),
    L("i_string_truncated-utf-8", "[\"\xe0\xff\"]"),
    L("i_string_utf16BE_no_BOM", "\x00[\x00\"\x00\xe9\x00\"\x00]"),
    L("i_string_utf16LE_no_BOM", "[\x00\"\x00\xe9\x00\"\x00]\x00"),
    L("i_string_UTF-16LE_with_BOM", "\xff\xfe[\x00\"\x00\xe9\x00\"\x00]\x00"),
#undef L
};

TEST(invalid_utf8) {
    size_t cases = 0, bad = 0;
    uint8_t body[8];
    /* Every body of one and two bytes. */
    for (unsigned a = 0; a < 256; a++) {
        if (!body_byte(a)) continue;
        body[0] = (uint8_t)a;
        cases++, bad += !check_utf8_body(body, 1);
        for (unsigned b = 0; b < 256; b++) {
            if (!body_byte(b)) continue;
            body[1] = (uint8_t)b;
            cases++, bad += !check_utf8_body(body, 2);
        }
    }
    /* Three and four bytes: every lead byte from 0x80 on, continuations from
     * a grid of the bytes where validity changes, then a random tail. */
    static const uint8_t grid[] = {0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xf4, 0xff};
    enum { G = sizeof grid };
    for (unsigned a = 0x80; a < 256; a++)
        for (int i = 0; i < G; i++)
            for (int j = 0; j < G; j++) {
                body[0] = (uint8_t)a, body[1] = grid[i], body[2] = grid[j];
                cases++, bad += !check_utf8_body(body, 3);
                for (int k = 0; k < G; k += 2) {
                    body[3] = grid[k];
                    cases++, bad += !check_utf8_body(body, 4);
                }
            }
    uint64_t rng = 99;
    size_t nrand = scaled(100000);
    for (size_t i = 0; i < nrand; i++) {
        size_t n = 1 + (size_t)(test_rand(&rng) % 8);
        for (size_t k = 0; k < n; k++) {
            unsigned b;
            do b = (unsigned)(test_rand(&rng) & 0xff);
            while (!body_byte(b));
            body[k] = (uint8_t)b;
        }
        cases++, bad += !check_utf8_body(body, n);
    }
    CHECK_EQ_U64(bad, 0);
    /* The suite's files with invalid bytes, as bytes. */
    size_t lost_bad = 0;
    for (size_t i = 0; i < sizeof lost / sizeof *lost; i++) {
        outcome p = parse_outcome(lost[i].bytes, lost[i].len, NULL);
        outcome r = read_outcome(lost[i].bytes, lost[i].len, NULL);
        if (p.code == SDX_OK || !clean(&p, lost[i].bytes, lost[i].len) || !same_outcome(&p, &r)) {
            lost_bad++;
            report("suite file as bytes", lost[i].name, 0, &p, &r);
        }
    }
    CHECK_EQ_U64(lost_bad, 0);
    printf("  %zu string bodies against the UTF-8 reference (%zu random), %zu wrong; %zu suite "
           "files as bytes, %zu wrong\n",
           cases, nrand, bad, sizeof lost / sizeof *lost, lost_bad);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"invalid_utf8", invalid_utf8},
                                  {"deep_nesting", deep_nesting},
                                  {"truncate_reader", truncate_reader},
                                  {"truncate_parser", truncate_parser},
                                  {"mutants", mutants},
                                  {0}});
}
