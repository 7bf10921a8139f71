/*
 * Round trips through the reference codecs: for every format, a tree (the
 * generator's gen:1 to gen:4, standard and extended, the corpus documents)
 * adapted to the format, encoded, then decoded gives the tree's hash: every
 * value exactly, -0.0, subnormals and the 64-bit extremes included. The
 * encoding is padded with 64 zero bytes and deterministic.
 *
 *   test_roundtrip generated      gen:1 .. gen:4, gen:2 .. gen:4 extended
 *   test_roundtrip corpus         SDX_CORPUS_DIR/{twitter,citm_catalog,canada}.json
 *                                 (always there: the build unpacks a bundled copy)
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/stat.h>

#include "bench_test.h"

static void roundtrip(const char *spec) {
    for (int f = 0; ref_formats[f]; f++) {
        const char *format = ref_formats[f];
        bt_node *t = bt_load_spec(spec);
        if (!CHECK(t != NULL)) return;
        bt_adapt(format, t);
        uint64_t want = tree_hash(t);
        size_t len = 0, len2 = 0;
        char *data = ref_encode(format, t, &len);
        char *again = ref_encode(format, t, &len2);
        bt_free(t);
        if (!CHECK(data != NULL && again != NULL)) {
            fprintf(stderr, "  %s %s: cannot encode\n", format, spec);
            free(data);
            free(again);
            continue;
        }
        CHECK_MEM(data, len, again, len2); /* deterministic */
        int zeros = 1;
        for (size_t i = 0; i < 64; i++) zeros &= data[len + i] == 0;
        CHECK(zeros);
        uint64_t got = 0;
        char err[256] = "";
        int rc = decode_exact(format, data, len, &got, err, sizeof err);
        if (!CHECK(rc == 0) || !CHECK_EQ_U64(got, want)) fprintf(stderr, "  %s %s: %s\n", format, spec, err);
        free(data);
        free(again);
    }
}

TEST(generated) {
    roundtrip("gen:1");
    roundtrip("gen:2");
    roundtrip("gen:3");
    roundtrip("gen:4");
    roundtrip("gen:2:2");
    roundtrip("gen:2:3");
    roundtrip("gen:2:1:extended");
    roundtrip("gen:3:1:extended");
    roundtrip("gen:4:1:extended");
    roundtrip("gen:2:2:extended");
    roundtrip("gen:2:3:extended");
}

static const char *corpus_dir(void) { return getenv("SDX_CORPUS_DIR"); }

TEST(corpus) {
    static const char *const docs[] = {"twitter.json", "citm_catalog.json", "canada.json"};
    for (int i = 0; i < 3; i++) {
        char spec[4096];
        snprintf(spec, sizeof spec, "json:%s/%s", corpus_dir(), docs[i]);
        roundtrip(spec);
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "corpus") != 0) continue;
        struct stat st;
        const char *dir = corpus_dir();
        if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            printf("FAIL corpus round trips: corpus directory '%s' not found "
                   "(configure with -DSDX_CORPUS_DIR=...)\n",
                   dir ? dir : "(SDX_CORPUS_DIR unset)");
            return 1;
        }
    }
    return test_run(argc, argv, (test_case[]){{"generated", generated}, {"corpus", corpus}, {0}});
}
