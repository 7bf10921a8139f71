/*
 * The BSON side of the MongoDB BSON corpus (corpus_valid.txt and
 * corpus_decode_errors.txt, made by extract_corpus.py): every valid case's
 * canonical_bson is read and written back to the same bytes, by the memory
 * reader and by the stream reader fed one byte at a time; every
 * decodeErrors case is rejected by both. Each input is copied into an
 * allocation of exactly its size, so a sanitizer build sees any read past
 * it. Prints the counts. The Extended JSON cases come with that step.
 *
 * The data directory is SDX_BSON_DATA_DIR (CMakeLists.txt); the
 * environment variable SDX_BSON_DATA overrides it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"
#include "test.h"

#ifndef SDX_BSON_DATA_DIR
#define SDX_BSON_DATA_DIR "tests/bson"
#endif

/* Hex to bytes; returns the count. */
static size_t unhex_field(const char *h, unsigned char *out, size_t cap) {
    size_t n = 0;
    int hi = -1;
    for (; *h && *h != '\n' && *h != '\r'; h++) {
        int v;
        if (*h >= '0' && *h <= '9') v = *h - '0';
        else if (*h >= 'a' && *h <= 'f') v = *h - 'a' + 10;
        else if (*h >= 'A' && *h <= 'F') v = *h - 'A' + 10;
        else abort();
        if (hi < 0) {
            hi = v;
        } else {
            if (n == cap) abort();
            out[n++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    if (hi >= 0) abort();
    return n;
}

typedef struct trickle {
    const unsigned char *p;
    size_t n, at;
} trickle;

static size_t trickle_read(void *ctx, void *buf, size_t cap) {
    trickle *t = ctx;
    if (t->at == t->n || cap == 0) return 0;
    memcpy(buf, t->p + t->at++, 1);
    return 1;
}

/* Read with r and write back; the read error, or the writer's; the
 * output in *b. */
static sdx_err reread(sdx_bson_reader *r, sdx_buf *b) {
    sdx_bson_writer w;
    sdx_buf_init(b, NULL);
    sdx_bson_writer_init(&w, b, NULL);
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev))
        if (sdx_bson_writer_put(&w, &ev)) break;
    sdx_err rc = sdx_bson_reader_error(r, NULL);
    sdx_err wc = sdx_bson_writer_finish(&w);
    return rc ? rc : wc;
}

/* Run every case of one file; returns the number of cases. */
static long run_file(const char *name, int valid) {
    char path[4096];
    const char *dir = getenv("SDX_BSON_DATA");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : SDX_BSON_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) {
        fprintf(stderr, "  cannot open %s (set SDX_BSON_DATA)\n", path);
        return 0;
    }
    static char line[1 << 16];
    static unsigned char bytes[1 << 15];
    long cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        char *hex = tab ? strchr(tab + 1, '\t') : NULL;
        if (!CHECK(hex != NULL)) continue;
        size_t n = unhex_field(hex + 1, bytes, sizeof bytes);
        unsigned char *in = malloc(n ? n : 1);
        memcpy(in, bytes, n);
        cases++;
        for (int stream = 0; stream < 2; stream++) {
            trickle t = {in, n, 0};
            sdx_bson_reader *r = stream ? sdx_bson_reader_new_stream(trickle_read, &t, NULL)
                                        : sdx_bson_reader_new((const char *)in, n, NULL);
            sdx_buf b;
            sdx_err rc = reread(r, &b);
            int ok = valid ? rc == SDX_OK && sdx_buf_len(&b) == n && !memcmp(sdx_buf_data(&b), in, n)
                           : rc != SDX_OK;
            if (!CHECK(ok)) {
                *strchr(line, '\n') = 0;
                fprintf(stderr, "  %s reader, error %d: %.200s\n", stream ? "stream" : "memory", rc, line);
            }
            sdx_buf_destroy(&b);
            sdx_bson_reader_free(r);
        }
        free(in);
    }
    fclose(f);
    return cases;
}

TEST(valid) {
    long n = run_file("corpus_valid.txt", 1);
    printf("  valid cases: %ld\n", n);
    CHECK(n == 731);
}

TEST(decode_errors) {
    long n = run_file("corpus_decode_errors.txt", 0);
    printf("  decodeErrors cases: %ld\n", n);
    CHECK(n == 75);
}

int main(int argc, char **argv) {
    return test_run(argc, argv, (test_case[]){{"valid", valid}, {"decode_errors", decode_errors}, {0}});
}
