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

#ifndef SDX_BSON_DATA_DIR
#define SDX_BSON_DATA_DIR "tests/bson"
#endif

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
        hex[strcspn(hex, "\r\n")] = 0;
        size_t n = mp_unhex(hex + 1, bytes, sizeof bytes);
        unsigned char *in = malloc(n ? n : 1);
        memcpy(in, bytes, n);
        cases++;
        for (int stream = 0; stream < 2; stream++) {
            trickle t = {in, n, 0};
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
