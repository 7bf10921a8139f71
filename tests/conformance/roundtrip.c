/*
 * Round trips through the JSON readers and the writer.
 *
 * corpus: twitter, citm_catalog and canada. "Minified" is defined as our own
 *   parse + write (sdx_node_emit into the minified writer) of the original;
 *   then parse + write of that must reproduce it byte for byte (a fixed
 *   point), and so must the pull reader's events piped straight into the
 *   writer (from the original and from the minified text, in memory and as a
 *   stream read in chunks of several sizes), the in-place parser, and a
 *   pretty-printed copy read back. (That the values are right is checked
 *   against Python's json by differential.py.)
 *
 * random: documents from conf_gen (every type, escapes, non-ASCII, nesting,
 *   boundary numbers, random double bit patterns), sent at once to the
 *   writer, the builder and a canonical dump. Then for each: the text parses
 *   into a tree equal to the built one (sdx_node_equal: doubles by bit
 *   pattern); writing that tree gives the same bytes; the in-place parser
 *   agrees; the pull reader gives the generated events (canonical dumps
 *   compared), also as a stream in random chunk sizes.
 *   The count is SDX_CONF_DOCS (default 1,000,000; set by CMake, lower under
 *   the sanitizers) times SDX_TEST_SCALE; the count run is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_gen.h"
#include "conf_util.h"
#include "test.h"

#ifndef SDX_CONF_DOCS
#define SDX_CONF_DOCS 1000000
#endif

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* A stream source over a memory buffer, handing out at most `chunk` bytes a
 * call (or a random 1..max_chunk when `vary`). */
typedef struct mem_stream {
    const char *p;
    size_t left;
    size_t chunk;
    uint64_t rng;
    bool vary;
} mem_stream;

static size_t mem_stream_read(void *ctx, void *buf, size_t cap) {
    mem_stream *s = ctx;
    size_t n = s->chunk;
    if (s->vary) n = 1 + (size_t)(test_rand(&s->rng) % s->chunk);
    if (n > cap) n = cap;
    if (n > s->left) n = s->left;
    memcpy(buf, s->p, n);
    s->p += n;
    s->left -= n;
    return n;
}

/* The minified JSON written from a stream reader over `data`, delivered in
 * pieces of `piece` bytes (random sizes up to it when `vary`) with reader
 * chunk size `chunk`. */
static sdx_err write_from_stream(const char *data, size_t len, size_t piece, bool vary,
                                 size_t chunk, uint64_t seed, cbuf *out) {
    mem_stream ms = {data, len, piece, seed, vary};
    sdx_json_reader *r = sdx_json_reader_new_stream(mem_stream_read, &ms, chunk, NULL);
    if (!r) return SDX_ERR_NOMEM;
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &buf, NULL);
    sdx_sink sink = sdx_json_writer_sink(&w);
    sdx_error err;
    sdx_err rc = conf_drain(r, &sink, &err);
    sdx_err fin = sdx_json_writer_finish(&w);
    cbuf_clear(out);
    cbuf_put(out, sdx_buf_data(&buf), sdx_buf_len(&buf));
    sdx_buf_destroy(&buf);
    sdx_json_reader_free(r);
    return rc != SDX_OK ? rc : fin;
}

/* The canonical dump of a stream reader's events (random piece sizes). */
static sdx_err dump_from_stream(const char *data, size_t len, size_t max_piece, uint64_t seed,
                                cbuf *out, const char **bad) {
    mem_stream ms = {data, len, max_piece, seed, true};
    sdx_json_reader *r = sdx_json_reader_new_stream(mem_stream_read, &ms, 0, NULL);
    if (!r) return SDX_ERR_NOMEM;
    dump_sink d;
    cbuf_clear(out);
    dump_sink_init(&d, out);
    sdx_sink sink = dump_sink_sink(&d);
    sdx_error err;
    sdx_err rc = conf_drain(r, &sink, &err);
    sdx_json_reader_free(r);
    *bad = d.bad;
    return rc;
}

/* Pretty-printed JSON of a tree. */
static sdx_err write_pretty(sdx_node n, uint32_t indent, cbuf *out) {
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {0, indent, NULL};
    sdx_json_writer_init(&w, &buf, &o);
    sdx_err rc = sdx_node_emit(n, sdx_json_writer_sink(&w));
    sdx_err fin = sdx_json_writer_finish(&w);
    cbuf_clear(out);
    cbuf_put(out, sdx_buf_data(&buf), sdx_buf_len(&buf));
    sdx_buf_destroy(&buf);
    return rc != SDX_OK ? rc : fin;
}

static bool same(const cbuf *a, const cbuf *b) {
    return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/* ------------------------------------------------------------------------ */
/* Corpus                                                                    */
/* ------------------------------------------------------------------------ */

static void corpus_doc(const char *name, const char *data, size_t len) {
    sdx_error err;
    sdx_doc *doc0 = sdx_json_parse(data, len, NULL, &err);
    if (!CHECK(doc0 != NULL)) {
        fprintf(stderr, "  %s: %s\n", name, conf_error_str(err.code, &err));
        return;
    }
    cbuf mini = {0}, again = {0}, other = {0};
    CHECK_EQ_INT(conf_write_node(sdx_doc_root(doc0), &mini), SDX_OK);
    CHECK(mini.len > 0 && mini.len <= len);

    /* The minified text is a fixed point of parse + write. */
    sdx_doc *doc1 = sdx_json_parse(mini.p, mini.len, NULL, &err);
    if (CHECK(doc1 != NULL)) {
        CHECK(sdx_node_equal(sdx_doc_root(doc0), sdx_doc_root(doc1)));
        CHECK_EQ_INT(conf_write_node(sdx_doc_root(doc1), &again), SDX_OK);
        CHECK_MEM(again.p, again.len, mini.p, mini.len);
    }

    /* Reader events straight into the writer, from the original and the
     * minified text. */
    CHECK_EQ_INT(conf_write_from_reader(data, len, NULL, &other), SDX_OK);
    CHECK_MEM(other.p, other.len, mini.p, mini.len);
    CHECK_EQ_INT(conf_write_from_reader(mini.p, mini.len, NULL, &other), SDX_OK);
    CHECK_MEM(other.p, other.len, mini.p, mini.len);

    /* The stream reader, with tokens split across chunks everywhere. */
    static const size_t pieces[] = {1, 3, 64, 4093, 65536};
    static const size_t chunks[] = {16, 16, 64, 0, 0};
    for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        bool vary = i == 2;
        CHECK_EQ_INT(write_from_stream(data, len, pieces[i], vary, chunks[i], i, &other), SDX_OK);
        if (!CHECK_MEM(other.p, other.len, mini.p, mini.len))
            fprintf(stderr, "  stream pieces of %zu bytes, chunk %zu\n", pieces[i], chunks[i]);
    }

    /* The in-place parser. */
    char *copy = malloc(len + 1);
    if (!copy) abort();
    memcpy(copy, data, len);
    sdx_doc *doc2 = sdx_json_parse_insitu(copy, len, NULL, &err);
    if (CHECK(doc2 != NULL)) {
        CHECK(sdx_node_equal(sdx_doc_root(doc0), sdx_doc_root(doc2)));
        CHECK_EQ_INT(conf_write_node(sdx_doc_root(doc2), &other), SDX_OK);
        CHECK_MEM(other.p, other.len, mini.p, mini.len);
    }
    sdx_doc_free(doc2);
    free(copy);

    /* Pretty-printed and read back: the same values. */
    CHECK_EQ_INT(write_pretty(sdx_doc_root(doc0), 2, &other), SDX_OK);
    sdx_doc *doc3 = sdx_json_parse(other.p, other.len, NULL, &err);
    if (CHECK(doc3 != NULL)) CHECK(sdx_node_equal(sdx_doc_root(doc0), sdx_doc_root(doc3)));
    sdx_doc_free(doc3);

    printf("  %s: %zu bytes, minified %zu bytes: fixed point, reader, stream reader (5 chunkings), "
           "insitu and pretty agree\n", name, len, mini.len);
    sdx_doc_free(doc0);
    sdx_doc_free(doc1);
    cbuf_free(&mini);
    cbuf_free(&again);
    cbuf_free(&other);
}

TEST(corpus_roundtrip) {
    for (int i = 0; conf_corpus_names[i]; i++) {
        size_t len;
        char *data = conf_read_corpus(conf_corpus_names[i], &len);
        if (!CHECK(data != NULL)) continue;
        corpus_doc(conf_corpus_names[i], data, len);
        free(data);
    }
}

/* ------------------------------------------------------------------------ */
/* Random documents                                                          */
/* ------------------------------------------------------------------------ */

typedef struct rt_state {
    cbuf text, gen_dump, dump, again;
    long failures;
} rt_state;

/* Report a failing document (the first few only). */
static void rt_fail(rt_state *s, uint64_t seed, const char *what) {
    if (++s->failures > 10) return;
    fprintf(stderr, "  document seed %" PRIu64 ": %s\n  text: %.*s\n", seed, what,
            (int)(s->text.len < 600 ? s->text.len : 600), s->text.p ? s->text.p : "");
}

enum { VIA_INSITU, VIA_READER, VIA_STREAM };

/* Do the events of s->text, read one way, match the generated ones? */
static bool events_match(rt_state *s, uint64_t seed, int via) {
    static const char *const what[] = {"the insitu parser's", "the reader's", "the stream reader's"};
    dump_sink d;
    cbuf_clear(&s->dump);
    dump_sink_init(&d, &s->dump);
    sdx_sink sink = dump_sink_sink(&d);
    sdx_error err;
    memset(&err, 0, sizeof err);
    const char *bad = NULL;
    sdx_err rc;
    if (via == VIA_INSITU) rc = conf_parse_into(s->text.p, s->text.len, NULL, true, &sink, &err);
    else if (via == VIA_READER) rc = conf_read_into(s->text.p, s->text.len, NULL, &sink, &err);
    else rc = dump_from_stream(s->text.p, s->text.len, 1 + (seed >> 2) % 40, seed, &s->dump, &bad);
    if (rc == SDX_OK && !d.bad && !bad && same(&s->dump, &s->gen_dump)) return true;
    char msg[300];
    snprintf(msg, sizeof msg, "%s events differ from the generated ones (%s%s%s)", what[via],
             conf_error_str(rc, &err), d.bad || bad ? "; " : "", d.bad ? d.bad : bad ? bad : "");
    rt_fail(s, seed, msg);
    return false;
}

/* Generate one document and check every round trip; returns false if any
 * check failed. */
static bool rt_one(rt_state *s, uint64_t seed) {
    conf_gen g;
    conf_gen_init(&g, seed);
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &buf, NULL);
    sdx_doc_builder b;
    sdx_doc_builder_init(&b, NULL);
    dump_sink d;
    cbuf_clear(&s->gen_dump);
    dump_sink_init(&d, &s->gen_dump);
    tee_sink t = {{sdx_json_writer_sink(&w), sdx_doc_builder_sink(&b), dump_sink_sink(&d)}, 3};
    sdx_err grc = conf_gen_doc(&g, tee_sink_sink(&t));
    sdx_err wrc = sdx_json_writer_finish(&w);
    sdx_err brc = SDX_OK;
    sdx_doc *built = sdx_doc_builder_finish(&b, &brc);
    cbuf_clear(&s->text);
    cbuf_put(&s->text, sdx_buf_data(&buf), sdx_buf_len(&buf));
    sdx_buf_destroy(&buf);
    bool ok = false;
    if (grc != SDX_OK || wrc != SDX_OK || !built || d.bad) {
        rt_fail(s, seed, d.bad ? d.bad : "generating, writing or building failed");
        sdx_doc_free(built);
        return false;
    }

    /* text -> tree: equal to the built tree; tree -> text: the same bytes. */
    sdx_error err;
    sdx_doc *parsed = sdx_json_parse(s->text.p, s->text.len, NULL, &err);
    if (!parsed) rt_fail(s, seed, conf_error_str(err.code, &err));
    else if (!sdx_node_equal(sdx_doc_root(built), sdx_doc_root(parsed)))
        rt_fail(s, seed, "parsed tree differs from the generated one");
    else if (conf_write_node(sdx_doc_root(parsed), &s->again) != SDX_OK || !same(&s->again, &s->text))
        rt_fail(s, seed, "writing the parsed tree gives other bytes");
    else ok = true;
    sdx_doc_free(parsed);

    /* The in-place parser and the pull reader (in memory and as a stream)
     * give the generated events. */
    if (ok) ok = events_match(s, seed, VIA_INSITU) && events_match(s, seed, VIA_READER);
    if (ok && (seed & 3) == 0) ok = events_match(s, seed, VIA_STREAM);
    sdx_doc_free(built);
    return ok;
}

TEST(random_roundtrip) {
    const char *env = getenv("SDX_CONF_DOCS");
    long base = env && *env ? atol(env) : SDX_CONF_DOCS;
    long count = (long)(base * test_scale());
    rt_state s;
    memset(&s, 0, sizeof s);
    size_t bytes = 0;
    long good = 0;
    for (long i = 0; i < count; i++) {
        good += rt_one(&s, (uint64_t)i * 0x9e3779b97f4a7c15ull + 12345);
        bytes += s.text.len;
    }
    CHECK_EQ_INT(good, count);
    printf("  random documents: %ld run, %ld passed, %zu bytes of JSON (write -> parse -> equal "
           "tree -> same bytes; insitu, reader, stream reader events)\n",
           count, good, bytes);
    cbuf_free(&s.text);
    cbuf_free(&s.gen_dump);
    cbuf_free(&s.dump);
    cbuf_free(&s.again);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"corpus_roundtrip", corpus_roundtrip},
                                  {"random_roundtrip", random_roundtrip},
                                  {0}});
}
