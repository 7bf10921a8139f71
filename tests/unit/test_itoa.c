/* Integer formatting: boundaries and random values, compared with snprintf. */
#include "num/num.h"
#include "test.h"

/* Format with sdx and with snprintf; compare, and check that nothing is
 * stored beyond the documented reservation. */
static int check_u64(uint64_t v) {
    char buf[SDX_ITOA_RESERVE + 8], ref[32];
    memset(buf, 0x55, sizeof buf);
    char *end = sdx_u64_to_dec(buf, v);
    int n = snprintf(ref, sizeof ref, "%" PRIu64, v);
    int ok = CHECK_MEM(buf, (size_t)(end - buf), ref, (size_t)n);
    for (size_t i = SDX_ITOA_RESERVE; i < sizeof buf; i++) ok &= CHECK(buf[i] == 0x55);
    return ok;
}

static int check_i64(int64_t v) {
    char buf[SDX_ITOA_RESERVE + 8], ref[32];
    memset(buf, 0x55, sizeof buf);
    char *end = sdx_i64_to_dec(buf, v);
    int n = snprintf(ref, sizeof ref, "%" PRId64, v);
    int ok = CHECK_MEM(buf, (size_t)(end - buf), ref, (size_t)n);
    for (size_t i = SDX_ITOA_RESERVE; i < sizeof buf; i++) ok &= CHECK(buf[i] == 0x55);
    return ok;
}

TEST(boundaries) {
    check_u64(0);
    check_u64(1);
    check_u64(UINT64_MAX);
    check_u64(UINT64_MAX - 1);
    check_i64(0);
    check_i64(1);
    check_i64(-1);
    check_i64(INT64_MAX);
    check_i64(INT64_MIN);
    check_i64(INT64_MIN + 1);
    /* Every power of ten and its neighbours, both signs. */
    uint64_t p = 1;
    for (int e = 0; e <= 19; e++, p *= 10) {
        check_u64(p);
        check_u64(p - 1);
        check_u64(p + 1);
        if (p <= (uint64_t)INT64_MAX) {
            check_i64((int64_t)p);
            check_i64(-(int64_t)p);
            check_i64((int64_t)p - 1);
            check_i64(-(int64_t)p + 1);
            if (p < (uint64_t)INT64_MAX) check_i64((int64_t)p + 1), check_i64(-(int64_t)p - 1);
        }
    }
    /* Every power of two and its neighbours. */
    for (int b = 0; b < 64; b++) {
        uint64_t v = 1ull << b;
        check_u64(v);
        check_u64(v - 1);
        check_u64(v + 1);
        check_i64((int64_t)(v - 1));
        check_i64(-(int64_t)(v - 1));
    }
}

TEST(every_small_value) {
    for (uint64_t v = 0; v < 1000000; v++)
        if (!check_u64(v)) return;
    for (int64_t v = -1000000; v < 0; v++)
        if (!check_i64(v)) return;
}

TEST(random_values) {
    uint64_t seed = 12345;
    long n = (long)(2000000 * test_scale());
    for (long i = 0; i < n; i++) {
        uint64_t r = test_rand(&seed);
        /* Spread over every digit count: shift by a random amount. */
        uint64_t v = r >> (test_rand(&seed) % 64);
        if (!check_u64(v) || !check_i64((int64_t)v) || !check_i64(-(int64_t)(v >> 1))) return;
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"boundaries", boundaries},
                                  {"every_small_value", every_small_value},
                                  {"random_values", random_values},
                                  {0, 0}});
}
