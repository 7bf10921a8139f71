/*
 * Malformed input for every reference decoder: they read what libraries
 * under test wrote, so bad input must give an error with a message, never
 * a crash, an endless loop or a huge allocation. Run under AddressSanitizer
 * and UndefinedBehaviorSanitizer (-DSDX_SANITIZE=ON) this also checks that
 * no decoder reads a byte past the input (inputs are exact-size copies).
 *
 *   truncated     every proper prefix of valid encodings is an error
 *   flipped       random byte changes: an error or some hash, never a crash
 *   garbage       random bytes, and valid encodings with random bytes spliced in
 *   huge_lengths  declared lengths and counts far beyond the input fail fast
 *   deep          nesting far beyond REF_MAX_DEPTH is an error, not a stack overflow
 *
 * SDX_TEST_SCALE multiplies the number of random trials.
 */
#include <time.h>

#include "bench_test.h"

static char *encode_spec(const char *format, const char *spec, size_t *len, uint64_t *hash) {
    bt_node *t = bt_load_spec(spec);
    if (!t) return NULL;
    bt_adapt(format, t);
    *hash = tree_hash(t);
    char *data = ref_encode(format, t, len);
    bt_free(t);
    return data;
}

TEST(truncated) {
    const char *specs[] = {"gen:1", "gen:2"};
    for (int f = 0; ref_formats[f]; f++) {
        for (int s = 0; s < 2; s++) {
            size_t len;
            uint64_t want, got;
            char *data = encode_spec(ref_formats[f], specs[s], &len, &want);
            if (!CHECK(data != NULL)) continue;
            long accepted = 0;
            char err[256];
            for (size_t cut = 0; cut < len; cut++) {
                if (decode_exact(ref_formats[f], data, cut, &got, err, sizeof err) == 0) {
                    if (accepted++ < 3) fprintf(stderr, "  %s %s: prefix of %zu bytes accepted\n", ref_formats[f], specs[s], cut);
                }
            }
            CHECK_EQ_INT(accepted, 0);
            CHECK(decode_exact(ref_formats[f], data, len, &got, err, sizeof err) == 0 && got == want);
            free(data);
        }
    }
}

TEST(flipped) {
    uint64_t rng = 0x5eed;
    long trials = (long)(3000 * test_scale());
    for (int f = 0; ref_formats[f]; f++) {
        size_t len;
        uint64_t want, got;
        char *data = encode_spec(ref_formats[f], "gen:2", &len, &want);
        if (!CHECK(data != NULL)) continue;
        char *copy = malloc(len);
        long errors = 0, differ = 0, same = 0;
        char err[256];
        for (long t = 0; t < trials; t++) {
            memcpy(copy, data, len);
            int flips = 1 + (int)(test_rand(&rng) % 3);
            for (int k = 0; k < flips; k++) {
                size_t at = test_rand(&rng) % len;
                uint64_t how = test_rand(&rng) % 4;
                if (how == 0) copy[at] ^= (char)(1u << (test_rand(&rng) % 8)); /* one bit */
                else if (how == 1) copy[at] = (char)0xff;
                else if (how == 2) copy[at] = (char)0x7f;
                else copy[at] = (char)(1 + test_rand(&rng) % 255); /* any other byte (may be the same) */
            }
            if (decode_exact(ref_formats[f], copy, len, &got, err, sizeof err) != 0) {
                errors++;
                CHECK(err[0] != 0);
            } else if (got != want) {
                differ++;
            } else {
                same++; /* e.g. a byte replaced by itself, or JSON's 'e' by 'E' */
            }
        }
        printf("  %-7s %ld flipped inputs: %ld errors, %ld other hashes, %ld same hash\n", ref_formats[f], trials,
               errors, differ, same);
        CHECK(errors + differ >= trials * 9 / 10);
        free(copy);
        free(data);
    }
}

TEST(garbage) {
    uint64_t rng = 0xbadc0de;
    long trials = (long)(3000 * test_scale());
    unsigned char buf[512];
    uint64_t got;
    char err[256];
    for (int f = 0; ref_formats[f]; f++) {
        long accepted = 0;
        for (long t = 0; t < trials; t++) {
            size_t n = test_rand(&rng) % sizeof buf;
            for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)test_rand(&rng);
            if (decode_exact(ref_formats[f], buf, n, &got, err, sizeof err) == 0) accepted++;
        }
        /* random bytes are rarely one complete value; a few scalars may be */
        printf("  %-7s %ld random inputs, %ld accepted\n", ref_formats[f], trials, accepted);
        CHECK(accepted < trials / 2);
        /* a valid encoding with a run of random bytes spliced in */
        size_t len;
        uint64_t want;
        char *data = encode_spec(ref_formats[f], "gen:1", &len, &want);
        if (!CHECK(data != NULL)) continue;
        char *spliced = malloc(len + 16);
        for (long t = 0; t < trials / 3; t++) {
            size_t at = test_rand(&rng) % len, k = 1 + test_rand(&rng) % 16;
            memcpy(spliced, data, at);
            for (size_t i = 0; i < k; i++) spliced[at + i] = (char)test_rand(&rng);
            memcpy(spliced + at + k, data + at, len - at);
            decode_exact(ref_formats[f], spliced, len + k, &got, err, sizeof err);
        }
        free(spliced);
        free(data);
    }
}

/* Decoding must fail, and fast (an input that declares 2^31 or 2^64
 * elements must not be walked element by element). */
static void expect_fast_error(const char *format, const char *hex) {
    unsigned char buf[256];
    size_t n = 0;
    int half = -1;
    for (const char *p = hex; *p; p++) {
        int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
        if (v < 0) continue;
        if (half < 0) half = v;
        else buf[n++] = (unsigned char)(half << 4 | v), half = -1;
    }
    uint64_t got;
    char err[256] = "";
    clock_t t0 = clock();
    int rc = decode_exact(format, buf, n, &got, err, sizeof err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (!CHECK(rc != 0)) fprintf(stderr, "  %s %s accepted\n", format, hex);
    if (!CHECK(secs < 0.5)) fprintf(stderr, "  %s %s took %.2f s\n", format, hex, secs);
}

TEST(huge_lengths) {
    static const struct {
        const char *format, *hex;
    } cases[] = {
        {"json", "5b"},
        {"msgpack", "dd ffffffff c0"},
        {"msgpack", "df ffffffff c0 c0"},
        {"msgpack", "db ffffffff 61"},
        {"msgpack", "c6 ffffffff 61"},
        {"msgpack", "91 dd 7fffffff 00"},
        {"cbor", "9b ffffffffffffffff f6"},
        {"cbor", "bb ffffffffffffffff f6 f6"},
        {"cbor", "9b 00000000ffffffff f6"},
        {"cbor", "7b ffffffffffffffff 61"},
        {"cbor", "5b 7fffffffffffffff 61"},
        {"cbor", "7f 7b ffffffffffffffff 61 ff"},
        {"cbor", "c2 5b ffffffffffffffff 01"},
        {"bson", "ffffff7f 00"},
        {"bson", "0d000000 02 6100 ffffff7f 00 00"},
        {"bson", "0d000000 05 6100 ffffff7f 00 00"},
        {"bson", "0d000000 03 6100 ffffff7f 00 00"},
        {"bson", "00000080 00"},
        {"ubjson", "5b 23 4c 7fffffffffffffff 5a"},
        {"ubjson", "5b 24 5a 23 4c 7fffffffffffffff"},
        {"ubjson", "5b 24 54 23 6c 7fffffff"},
        {"ubjson", "7b 24 5a 23 4c 7fffffffffffffff 690161"},
        {"ubjson", "7b 23 6c 7fffffff 690161 5a"},
        {"ubjson", "53 4c 7fffffffffffffff 61"},
        {"ubjson", "48 6c 7fffffff 31"},
        {"ubjson", "5b 24 5b 23 6c 7fffffff 23 6c 7fffffff"},
        {"binn", "e0 ffffffff ffffffff 00"},
        {"binn", "e0 0a ffffffff 00000000"},
        {"binn", "e2 0a ffffffff 00000000"},
        {"binn", "e1 0a ffffffff 00000000"},
        {"binn", "a0 ffffffff 61 00"},
        {"binn", "c0 ffffffff 61"},
        {"binn", "e0 80000009 01 e0 ffffffff 00"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) expect_fast_error(cases[i].format, cases[i].hex);
    /* a typed UBJSON array of 2^24 nulls is the most the decoder walks; it is valid */
    uint64_t got;
    char err[256];
    CHECK(decode_exact("ubjson", "[$Z#l\x01\x00\x00\x00", 9, &got, err, sizeof err) == 0);
    CHECK(decode_exact("ubjson", "[$Z#l\x01\x00\x00\x01", 9, &got, err, sizeof err) != 0);
}

/* An input nested `levels` deep, or NULL. */
static unsigned char *nested(const char *format, size_t levels, size_t *len) {
    size_t cap = levels * 16 + 64;
    unsigned char *p = calloc(cap, 1);
    size_t n = 0;
    if (strcmp(format, "json") == 0 || strcmp(format, "ubjson") == 0) {
        for (size_t i = 0; i < levels; i++) p[n++] = '[';
        for (size_t i = 0; i < levels; i++) p[n++] = ']';
    } else if (strcmp(format, "msgpack") == 0 || strcmp(format, "cbor") == 0) {
        for (size_t i = 0; i < levels; i++) p[n++] = strcmp(format, "cbor") == 0 ? 0x81 : 0x91;
        p[n++] = strcmp(format, "cbor") == 0 ? 0xf6 : 0xc0;
    } else if (strcmp(format, "bson") == 0) {
        /* level k: int32 length, 03 "a" 00, level k+1, 00; the innermost is empty */
        size_t lens[4096];
        if (levels > 4096) {
            free(p);
            return NULL;
        }
        lens[levels - 1] = 5; /* each outer one is 4 + 3 + inner + 1 bytes */
        for (size_t i = levels - 1; i-- > 0;) lens[i] = 4 + 3 + lens[i + 1] + 1;
        for (size_t i = 0; i < levels; i++) {
            for (int b = 0; b < 4; b++) p[n++] = (unsigned char)(lens[i] >> (8 * b));
            if (i + 1 < levels) p[n++] = 0x03, p[n++] = 'a', p[n++] = 0;
        }
        for (size_t i = 0; i < levels; i++) p[n++] = 0;
    } else { /* binn: lists with 4-byte sizes, each holding the next */
        if (levels > 4096) {
            free(p);
            return NULL;
        }
        size_t inner = 3; /* the innermost: e0 03 00 */
        size_t sizes[4096];
        sizes[levels - 1] = inner;
        for (size_t i = levels - 1; i-- > 0;) sizes[i] = 1 + 4 + 1 + sizes[i + 1];
        for (size_t i = 0; i + 1 < levels; i++) {
            p[n++] = 0xe0;
            uint32_t s = (uint32_t)sizes[i] | 0x80000000u;
            for (int b = 3; b >= 0; b--) p[n++] = (unsigned char)(s >> (8 * b));
            p[n++] = 1;
        }
        p[n++] = 0xe0, p[n++] = 3, p[n++] = 0;
    }
    *len = n;
    return p;
}

TEST(deep) {
    for (int f = 0; ref_formats[f]; f++) {
        size_t depths[] = {512, 513, 4000};
        for (int k = 0; k < 3; k++) {
            size_t len;
            unsigned char *p = nested(ref_formats[f], depths[k], &len);
            if (!CHECK(p != NULL)) continue;
            uint64_t got;
            char err[256] = "";
            int rc = decode_exact(ref_formats[f], p, len, &got, err, sizeof err);
            if (!CHECK_EQ_INT(rc != 0, depths[k] > 512))
                fprintf(stderr, "  %s nested %zu deep: %s\n", ref_formats[f], depths[k], err);
            free(p);
        }
    }
    /* JSON and UBJSON a million levels deep: an error, the stack untouched */
    size_t n = 1000000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    uint64_t got;
    char err[256];
    CHECK(decode_exact("json", deep, n, &got, err, sizeof err) != 0);
    CHECK(decode_exact("ubjson", deep, n, &got, err, sizeof err) != 0);
    memset(deep, 0x91, n);
    CHECK(decode_exact("msgpack", deep, n, &got, err, sizeof err) != 0);
    memset(deep, 0x9f, n);
    CHECK(decode_exact("cbor", deep, n, &got, err, sizeof err) != 0);
    memset(deep, 0xd9, n); /* d9 d9 d9 ...: tags 0xd9d9, an error at the first */
    CHECK(decode_exact("cbor", deep, n, &got, err, sizeof err) != 0);
    for (size_t i = 0; i + 2 < n; i += 3) deep[i] = (char)0xd9, deep[i + 1] = (char)0xd9, deep[i + 2] = (char)0xf7;
    CHECK(decode_exact("cbor", deep, n - n % 3, &got, err, sizeof err) != 0); /* 55799 tags nested */
    free(deep);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"truncated", truncated},
                                  {"flipped", flipped},
                                  {"garbage", garbage},
                                  {"huge_lengths", huge_lengths},
                                  {"deep", deep},
                                  {0}});
}
