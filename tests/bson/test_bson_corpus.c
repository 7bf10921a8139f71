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

#include "bson_test.h"
#include "msgpack_util.h"
#include "sdx/sdx.h"
#include "test.h"

/* Both readers over one case: a valid one reads and writes back to the
 * same bytes, an invalid one fails. */
static void run_case(const unsigned char *in, size_t n, const char *line, void *ctx) {
    const int valid = *(const int *)ctx;
    for (int stream = 0; stream < 2; stream++) {
        trickle t = {in, n, 1};
        sdx_bson_reader *r = stream ? sdx_bson_reader_new_stream(trickle_read, &t, NULL)
                                    : sdx_bson_reader_new((const char *)in, n, NULL);
        sdx_buf b;
        sdx_err rc = reread(r, &b, 0);
        int ok = valid ? rc == SDX_OK && sdx_buf_len(&b) == n && !memcmp(sdx_buf_data(&b), in, n)
                       : rc != SDX_OK;
        if (!CHECK(ok)) {
            fprintf(stderr, "  %s reader, error %d: %.200s\n", stream ? "stream" : "memory", rc, line);
        }
        sdx_buf_destroy(&b);
        sdx_bson_reader_free(r);
    }
}

static long run_file(const char *name, int valid) { return corpus_each(name, run_case, &valid); }

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
