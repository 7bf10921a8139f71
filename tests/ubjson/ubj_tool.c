/*
 * The UBJSON differential test's helper (differential.py):
 *
 *   ubj_tool to-json [--bjdata] IN OUT    UBJSON -> JSON (binary data as
 *       base64 strings, H as its number text). The input is read three
 *       ways — memory reader, FILE* stream reader, tree parser — and the
 *       three JSON texts must be equal (exit 1 otherwise).
 *   ubj_tool from-json [--bjdata] IN OUT  JSON -> UBJSON (numbers beyond
 *       64 bits as H), through the pull reader and the writer.
 *
 * Exit status: 0 done, 1 the input was rejected or the readers disagree
 * (with a message on stderr), 2 usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *p = malloc(cap);
    for (;;) {
        if (len == cap) p = realloc(p, cap *= 2);
        size_t k = fread(p + len, 1, cap - len, f);
        if (k == 0) break;
        len += k;
    }
    fclose(f);
    *n = len;
    return p;
}

/* Every event of `src` as JSON into `out`; the first error's text in msg. */
static int to_json(sdx_source src, sdx_buf *out, char *msg, size_t msgcap) {
    sdx_json_writer w;
    sdx_json_write_opts wo = {SDX_JSON_WRITE_BIN_BASE64, 0, NULL};
    sdx_buf_init(out, NULL);
    sdx_json_writer_init(&w, out, &wo);
    sdx_error e;
    sdx_err rc = sdx_transcode(src, sdx_json_writer_sink(&w), &e);
    sdx_err fin = sdx_json_writer_finish(&w);
    if (rc || fin) {
        snprintf(msg, msgcap, "%s at byte %zu (%s)", sdx_strerror(rc ? rc : fin), e.offset,
                 e.msg ? e.msg : "");
        return 0;
    }
    return 1;
}

static int read_three(const char *path, uint32_t flags, FILE *outf) {
    size_t n;
    char *data = slurp(path, &n);
    if (!data) {
        fprintf(stderr, "ubj_tool: cannot read %s\n", path);
        return 2;
    }
    sdx_ubjson_read_opts o = {flags, 0, 0, NULL};
    char m1[256] = "", m2[256] = "", m3[256] = "";
    sdx_buf a, b, c;
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(data, n, &o);
    int ok1 = to_json(sdx_ubjson_reader_source(r), &a, m1, sizeof m1);
    sdx_ubjson_reader_free(r);
    FILE *f = fopen(path, "rb");
    r = sdx_ubjson_reader_new_file(f, &o);
    int ok2 = to_json(sdx_ubjson_reader_source(r), &b, m2, sizeof m2);
    sdx_ubjson_reader_free(r);
    fclose(f);
    sdx_error pe;
    sdx_doc *doc = sdx_ubjson_parse(data, n, &o, &pe);
    int ok3 = 0;
    sdx_buf_init(&c, NULL);
    if (doc) {
        sdx_json_writer w;
        sdx_json_write_opts wo = {SDX_JSON_WRITE_BIN_BASE64, 0, NULL};
        sdx_json_writer_init(&w, &c, &wo);
        sdx_err e1 = sdx_node_emit(sdx_doc_root(doc), sdx_json_writer_sink(&w));
        sdx_err e2 = sdx_json_writer_finish(&w);
        ok3 = !e1 && !e2;
        if (!ok3) snprintf(m3, sizeof m3, "%s", sdx_strerror(e1 ? e1 : e2));
        sdx_doc_free(doc);
    } else {
        snprintf(m3, sizeof m3, "%s at byte %zu", sdx_strerror(pe.code), pe.offset);
    }
    int rc = 0;
    if (!ok1 || !ok2 || !ok3) {
        fprintf(stderr, "ubj_tool: rejected: memory: %s; stream: %s; parser: %s\n", ok1 ? "ok" : m1,
                ok2 ? "ok" : m2, ok3 ? "ok" : m3);
        rc = 1;
    } else if (sdx_buf_len(&a) != sdx_buf_len(&b) || sdx_buf_len(&a) != sdx_buf_len(&c) ||
               memcmp(sdx_buf_data(&a), sdx_buf_data(&b), sdx_buf_len(&a)) ||
               memcmp(sdx_buf_data(&a), sdx_buf_data(&c), sdx_buf_len(&a))) {
        fprintf(stderr, "ubj_tool: the memory reader, the stream reader and the parser disagree\n");
        rc = 1;
    } else {
        fwrite(sdx_buf_data(&a), 1, sdx_buf_len(&a), outf);
    }
    sdx_buf_destroy(&a);
    sdx_buf_destroy(&b);
    sdx_buf_destroy(&c);
    free(data);
    return rc;
}

static int from_json(const char *path, uint32_t wflags, FILE *outf) {
    size_t n;
    char *data = slurp(path, &n);
    if (!data) {
        fprintf(stderr, "ubj_tool: cannot read %s\n", path);
        return 2;
    }
    sdx_json_read_opts ro = {SDX_JSON_READ_BIGNUM_RAW, 0, NULL};
    sdx_json_reader *r = sdx_json_reader_new(data, n, &ro);
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_write_opts wo = {wflags, NULL};
    sdx_ubjson_writer_init(&w, &out, &wo);
    sdx_error e;
    sdx_err rc = sdx_transcode(sdx_json_reader_source(r), sdx_ubjson_writer_sink(&w), &e);
    sdx_err fin = sdx_ubjson_writer_finish(&w);
    sdx_json_reader_free(r);
    int status = 0;
    if (rc || fin) {
        fprintf(stderr, "ubj_tool: %s at byte %zu\n", sdx_strerror(rc ? rc : fin), e.offset);
        status = 1;
    } else {
        fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), outf);
    }
    sdx_buf_destroy(&out);
    free(data);
    return status;
}

int main(int argc, char **argv) {
    int bj = argc == 5 && strcmp(argv[2], "--bjdata") == 0;
    if (argc != 4 + bj) {
        fprintf(stderr, "usage: ubj_tool to-json|from-json [--bjdata] IN OUT\n");
        return 2;
    }
    FILE *out = fopen(argv[3 + bj], "wb");
    if (!out) {
        fprintf(stderr, "ubj_tool: cannot write %s\n", argv[3 + bj]);
        return 2;
    }
    int rc;
    if (strcmp(argv[1], "to-json") == 0)
        rc = read_three(argv[2 + bj], bj ? SDX_UBJSON_READ_BJDATA : 0, out);
    else if (strcmp(argv[1], "from-json") == 0)
        rc = from_json(argv[2 + bj], bj ? SDX_UBJSON_WRITE_BJDATA : 0, out);
    else
        rc = 2;
    if (fclose(out) != 0 && rc == 0) rc = 2;
    return rc;
}
