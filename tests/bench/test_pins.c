/*
 * Pins the benchmark's generator and value hash (bench/harness/SPEC.md):
 * the hash of every generated size for the default seed and of size 2 for
 * two more seeds, of the standard and of the extended data; the values
 * each variant may and must have; the spec syntax gen:SIZE[:SEED[:extended]];
 * the byte-hash vectors of vectors.txt (shared with the Rust runner's
 * tests; path in SDX_BENCH_VECTORS); and the rules of the value hash (an
 * integer hashes by value, a double by its bits).
 * A change to gen.c or hash.c that changes a single byte fails here.
 */
#include <math.h>

#include "gen.h"
#include "hash.h"
#include "test.h"
#include "tree.h"

/* The hash of a tree, which it frees; 0 for NULL. */
static uint64_t hash_and_free(bt_node *t) {
    if (!t) return 0;
    sbh h;
    sbh_init(&h);
    bt_hash(t, &h);
    bt_free(t);
    return sbh_final(&h);
}

static uint64_t gen_hash(int size, uint64_t seed, gen_variant variant) {
    return hash_and_free(gen_tree(size, seed, variant));
}

/* The hash of a spec's tree; 0 if bt_from_spec rejects it. */
static uint64_t spec_hash(const char *spec) { return hash_and_free(bt_from_spec(spec)); }

/* Obtained once from the generator; tests/bench/spec_check.py confirms the
 * same values from an independent port of SPEC.md, and the Rust runner pins
 * them too (bench/rust/tests/vectors.rs, which also reads both tables from
 * this file). gen_pins: the standard data, gen:SIZE:SEED. */
typedef struct gen_pin {
    int size;
    uint64_t seed, hash;
} gen_pin;

static const gen_pin gen_pins[] = {
    {1, 1, 0xda01796d3a20cb9bull}, {2, 1, 0x06c6329dcaa51d94ull}, {3, 1, 0xf51060296b575bf9ull},
    {4, 1, 0x01e1e3fc2b8990e2ull}, {5, 1, 0xbf06aa9f7e456938ull}, {2, 2, 0x4c8f65fb7f2a24cbull},
    {2, 3, 0x1a4462735ad9239aull},
};

/* The extended data, gen:SIZE:SEED:extended (size 1 has no value of the
 * branch where it differs: the same hash as the standard data). */
static const gen_pin gen_extended_pins[] = {
    {1, 1, 0xda01796d3a20cb9bull}, {2, 1, 0x49e270609e01950aull}, {3, 1, 0x26efc9c574cbd913ull},
    {4, 1, 0x86cab626079852f7ull}, {5, 1, 0x844f9f1421a3ccaaull}, {2, 2, 0xae7408a7746a2ee7ull},
    {2, 3, 0x7623f97fa5d4b220ull},
};

static void check_pins(const gen_pin *pins, size_t n, gen_variant variant) {
    for (size_t i = 0; i < n; i++) {
        uint64_t got = gen_hash(pins[i].size, pins[i].seed, variant);
        if (!CHECK_EQ_U64(got, pins[i].hash))
            fprintf(stderr, "  gen:%d:%llu%s\n", pins[i].size, (unsigned long long)pins[i].seed,
                    variant == GEN_EXTENDED ? ":extended" : "");
    }
}

TEST(generator_pins) {
    check_pins(gen_pins, sizeof gen_pins / sizeof gen_pins[0], GEN_STANDARD);
    check_pins(gen_extended_pins, sizeof gen_extended_pins / sizeof gen_extended_pins[0], GEN_EXTENDED);
}

/* What the standard data must not have and the extended data must: values
 * of type BT_UINT, and doubles that are not finite and normal; and how
 * often each of the extended data's extreme values occurs (SPEC.md's list:
 * UINT64_MAX, INT64_MIN, INT64_MAX, then the doubles by their bits). */
typedef struct census {
    size_t uints, abnormal_doubles, extremes[8];
} census;

static void take_census(const bt_node *n, census *c) {
    static const uint64_t double_bits[5] = {0x8000000000000000ull, 0x0000000000000001ull, 0x000FFFFFFFFFFFFFull,
                                            0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull};
    switch (n->type) {
    case BT_UINT:
        c->uints++;
        if (n->v.u == UINT64_MAX) c->extremes[0]++;
        break;
    case BT_INT:
        if (n->v.i == INT64_MIN) c->extremes[1]++;
        if (n->v.i == INT64_MAX) c->extremes[2]++;
        break;
    case BT_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &n->v.d, 8);
        if (!isnormal(n->v.d)) c->abnormal_doubles++;
        for (int i = 0; i < 5; i++) c->extremes[3 + i] += bits == double_bits[i];
        break;
    }
    case BT_ARRAY:
    case BT_MAP: {
        size_t k = n->type == BT_MAP ? 2 * n->v.c.count : n->v.c.count;
        for (size_t i = 0; i < k; i++) take_census(&n->v.c.items[i], c);
        break;
    }
    default: break;
    }
}

static census census_of(int size, uint64_t seed, gen_variant variant) {
    census c = {0};
    bt_node *t = gen_tree(size, seed, variant);
    take_census(t, &c);
    bt_free(t);
    return c;
}

TEST(generator_variants) {
    for (int size = GEN_MIN_SIZE; size <= GEN_MAX_SIZE; size++) {
        /* standard: integers within int64, finite normal doubles only */
        census c = census_of(size, 1, GEN_STANDARD);
        if (!CHECK(c.uints == 0 && c.abnormal_doubles == 0)) fprintf(stderr, "  gen:%d\n", size);
    }
    /* extended: gen:3:1:extended has every extreme value, and other
     * integers above INT64_MAX */
    census c = census_of(3, 1, GEN_EXTENDED);
    CHECK(c.uints > c.extremes[0]);
    for (int i = 0; i < 8; i++)
        if (!CHECK(c.extremes[i] > 0)) fprintf(stderr, "  extreme value %d missing\n", i);
}

TEST(generator_shape) {
    /* sizes and targets as SPEC.md gives them */
    CHECK_EQ_U64(gen_target_values(1), 30);
    CHECK_EQ_U64(gen_target_values(5), 300000);
    CHECK(gen_tree(0, 1, GEN_STANDARD) == NULL);
    CHECK(gen_tree(6, 1, GEN_EXTENDED) == NULL);
    bt_node *t = gen_tree(2, 1, GEN_STANDARD);
    if (!CHECK(t != NULL)) return;
    CHECK(t->type == BT_ARRAY || t->type == BT_MAP);
    bt_free(t);
    /* the spec syntax: gen:SIZE[:SEED[:extended]], the default seed 1 */
    CHECK(spec_hash("gen:3") != 0);
    CHECK_EQ_U64(spec_hash("gen:3"), spec_hash("gen:3:1"));
    CHECK_EQ_U64(spec_hash("gen:3"), gen_hash(3, 1, GEN_STANDARD));
    CHECK_EQ_U64(spec_hash("gen:3:1:extended"), gen_hash(3, 1, GEN_EXTENDED));
    CHECK_EQ_U64(spec_hash("gen:2:7:extended"), gen_hash(2, 7, GEN_EXTENDED));
    CHECK_EQ_U64(spec_hash("gen:2:7"), gen_hash(2, 7, GEN_STANDARD));
    static const char *const bad[] = {
        "gen:2:",           "gen:2::extended", "gen:2:extended",    "gen:2:1:",           "gen:2:1:Extended",
        "gen:2:1:ext",      "gen:2:1:extended:", "gen:2:1:extended:1", "gen:2:1:standard", "gen:2:1 ",
        "gen:6:1:extended",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!CHECK_EQ_U64(spec_hash(bad[i]), 0)) fprintf(stderr, "  accepted '%s'\n", bad[i]);
}

TEST(byte_vectors) {
    const char *path = getenv("SDX_BENCH_VECTORS");
    if (!CHECK(path != NULL)) return;
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) return;
    unsigned char bytes[4096];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 31 + 7);
    char line[256];
    int vectors = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        unsigned long n;
        char hex[32];
        if (!CHECK(sscanf(line, "%lu %31s", &n, hex) == 2) || !CHECK(n <= sizeof bytes)) continue;
        uint64_t want = strtoull(hex, NULL, 16);
        if (!CHECK_EQ_U64(sbh_of_bytes(bytes, n), want)) fprintf(stderr, "  vector of %lu bytes\n", n);
        vectors++;
    }
    fclose(f);
    CHECK(vectors >= 41);
}

static uint64_t one(void (*fn)(sbh *, const void *), const void *arg) {
    sbh h;
    sbh_init(&h);
    fn(&h, arg);
    return sbh_final(&h);
}

static void h_int(sbh *h, const void *a) { sbh_int(h, *(const int64_t *)a); }
static void h_uint(sbh *h, const void *a) { sbh_uint(h, *(const uint64_t *)a); }
static void h_double(sbh *h, const void *a) { sbh_double(h, *(const double *)a); }
static void h_str(sbh *h, const void *a) { sbh_str(h, (const char *)a, strlen((const char *)a)); }
static void h_key(sbh *h, const void *a) { sbh_key(h, (const char *)a, strlen((const char *)a)); }

TEST(value_rules) {
    int64_t i5 = 5, im1 = -1;
    uint64_t u5 = 5, umax = UINT64_MAX;
    double d5 = 5.0, dm0 = -0.0, d0 = 0.0;
    int64_t i0 = 0;
    CHECK_EQ_U64(one(h_int, &i5), one(h_uint, &u5)); /* an integer hashes by value */
    CHECK(one(h_int, &im1) != one(h_uint, &umax));    /* -1 is not 2^64-1 */
    CHECK(one(h_double, &d5) != one(h_int, &i5));     /* 5.0 is not 5 */
    CHECK(one(h_double, &d0) != one(h_double, &dm0)); /* doubles by their bits */
    CHECK(one(h_double, &d0) != one(h_int, &i0));
    CHECK(one(h_str, "ab") != one(h_key, "ab"));
    /* containers hash by marks, not counts: [] then 1 differs from [1] */
    sbh a, b;
    sbh_init(&a);
    sbh_init(&b);
    sbh_array(&a);
    sbh_end(&a);
    sbh_uint(&a, 1);
    sbh_array(&b);
    sbh_uint(&b, 1);
    sbh_end(&b);
    CHECK(sbh_final(&a) != sbh_final(&b));
    /* the SPEC's word values */
    sbh_init(&a);
    CHECK_EQ_U64(a.h, 0x243F6A8885A308D3ull);
    sbh_word(&a, 0);
    CHECK_EQ_U64(a.h, ((0x243F6A8885A308D3ull * 0x9E3779B97F4A7C15ull) ^
                       ((0x243F6A8885A308D3ull * 0x9E3779B97F4A7C15ull) >> 29)));
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"generator_pins", generator_pins},
                                  {"generator_variants", generator_variants},
                                  {"generator_shape", generator_shape},
                                  {"byte_vectors", byte_vectors},
                                  {"value_rules", value_rules},
                                  {0}});
}
