/* The output buffer: growth, fixed buffers, streams, allocation failure. */
#define _POSIX_C_SOURCE 200809L
#include "sdx/buf.h"

#include "alloc_test.h"
#include "test.h"

/* Deterministic content: byte i of the output is pattern(i). */
static char pattern(size_t i) { return (char)('a' + (i * 7 + i / 13) % 26); }

/* Append bytes [from, from + n) of the pattern, alternating between
 * sdx_buf_write and reserve + commit. */
static sdx_err append(sdx_buf *b, size_t from, size_t n, int use_reserve) {
    if (use_reserve) {
        char *p = sdx_buf_reserve(b, n);
        if (!p) return sdx_buf_error(b);
        for (size_t i = 0; i < n; i++) p[i] = pattern(from + i);
        b->cur = p + n;
        return SDX_OK;
    }
    char tmp[4096];
    while (n) {
        size_t k = n < sizeof tmp ? n : sizeof tmp;
        for (size_t i = 0; i < k; i++) tmp[i] = pattern(from + i);
        sdx_err e = sdx_buf_write(b, tmp, k);
        if (e) return e;
        from += k;
        n -= k;
    }
    return SDX_OK;
}

static int check_pattern(const char *p, size_t n, size_t from) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(from + i)) {
            fprintf(stderr, "  byte %zu differs\n", from + i);
            return CHECK(0);
        }
    return 1;
}

TEST(inline_storage_needs_no_allocation) {
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_buf b;
    sdx_buf_init(&b, &a.iface);
    CHECK(append(&b, 0, SDX_BUF_INLINE, 1) == SDX_OK);
    CHECK_EQ_INT(a.calls, 0);
    CHECK_EQ_U64(sdx_buf_len(&b), SDX_BUF_INLINE);
    check_pattern(sdx_buf_data(&b), SDX_BUF_INLINE, 0);
    CHECK(append(&b, SDX_BUF_INLINE, 1, 0) == SDX_OK);
    CHECK_EQ_INT(a.calls, 1);
    check_pattern(sdx_buf_data(&b), SDX_BUF_INLINE + 1, 0);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
}

TEST(first_heap_allocation) {
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_buf b;
    sdx_buf_init(&b, &a.iface);
    /* Leaving the inline storage allocates SDX_BUF_FIRST_HEAP bytes at
     * once: filling them takes no second allocation. */
    for (size_t i = 0; i < SDX_BUF_FIRST_HEAP; i += 16)
        if (!CHECK(append(&b, i, 16, (int)(i & 16)) == SDX_OK)) break;
    CHECK_EQ_INT(a.calls, 1);
    CHECK(append(&b, SDX_BUF_FIRST_HEAP, 1, 1) == SDX_OK);
    CHECK_EQ_INT(a.calls, 2);
    check_pattern(sdx_buf_data(&b), SDX_BUF_FIRST_HEAP + 1, 0);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
    /* A first reservation larger than that gets what it asks for. */
    counting_alloc_init(&a, 0);
    sdx_buf_init(&b, &a.iface);
    CHECK(append(&b, 0, 3 * SDX_BUF_FIRST_HEAP, 1) == SDX_OK);
    CHECK_EQ_INT(a.calls, 1);
    check_pattern(sdx_buf_data(&b), 3 * SDX_BUF_FIRST_HEAP, 0);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
}

TEST(growth_is_geometric_and_keeps_content) {
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_buf b;
    sdx_buf_init(&b, &a.iface);
    uint64_t seed = 1;
    size_t total = 0;
    while (total < (4u << 20)) {
        size_t n = test_rand(&seed) % 3000;
        if (!CHECK(append(&b, total, n, (int)(n & 1)) == SDX_OK)) break;
        total += n;
    }
    CHECK_EQ_U64(sdx_buf_len(&b), total);
    CHECK_EQ_U64(sdx_buf_total(&b), total);
    check_pattern(sdx_buf_data(&b), total, 0);
    /* SDX_BUF_FIRST_HEAP bytes doubling to 4 MiB: about 11 steps. */
    CHECK(a.calls <= 12);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
    sdx_buf_destroy(&b); /* twice is harmless */
}

TEST(fixed_buffer_overflow) {
    char mem[100 + 16];
    memset(mem, 0x5A, sizeof mem);
    sdx_buf b;
    sdx_buf_init_fixed(&b, mem, 100);
    CHECK(append(&b, 0, 60, 1) == SDX_OK);
    CHECK(append(&b, 60, 40, 0) == SDX_OK); /* exactly full */
    CHECK(sdx_buf_reserve(&b, 0) != NULL);
    CHECK(append(&b, 100, 1, 0) == SDX_ERR_OVERFLOW);
    CHECK(sdx_buf_error(&b) == SDX_ERR_OVERFLOW);
    /* Sticky: nothing fits any more. */
    CHECK(sdx_buf_reserve(&b, 1) == NULL);
    CHECK(sdx_buf_write(&b, "x", 0) == SDX_ERR_OVERFLOW);
    CHECK(sdx_buf_flush(&b) == SDX_ERR_OVERFLOW);
    CHECK_EQ_U64(sdx_buf_len(&b), 100);
    check_pattern(mem, 100, 0);
    for (size_t i = 100; i < sizeof mem; i++) CHECK(mem[i] == 0x5A);

    /* A reservation larger than the room left fails without writing. */
    memset(mem, 0x5A, sizeof mem);
    sdx_buf_init_fixed(&b, mem, 10);
    CHECK(append(&b, 0, 4, 1) == SDX_OK);
    CHECK(sdx_buf_reserve(&b, 7) == NULL);
    CHECK(sdx_buf_error(&b) == SDX_ERR_OVERFLOW);
    for (size_t i = 4; i < sizeof mem; i++) CHECK(mem[i] == 0x5A);
    sdx_buf_clear(&b);
    CHECK(sdx_buf_error(&b) == SDX_OK);
    CHECK(append(&b, 0, 10, 0) == SDX_OK);
    CHECK(sdx_buf_detach(&b, NULL) == NULL); /* not a memory buffer */

    /* A zero-size fixed buffer, and a NULL one. */
    sdx_buf_init_fixed(&b, mem, 0);
    CHECK(sdx_buf_write(&b, "x", 1) == SDX_ERR_OVERFLOW);
    sdx_buf_init_fixed(&b, NULL, 50);
    CHECK(sdx_buf_write(&b, "x", 1) == SDX_ERR_OVERFLOW);
}

/* A stream target that collects everything and can fail on demand. */
typedef struct collector {
    char *data;
    size_t len, cap;
    long calls;
    size_t largest;
    long fail_at; /* 1-based call that writes only part; 0 = never */
} collector;

static size_t collect(void *ctx, const void *data, size_t len) {
    collector *c = ctx;
    if (++c->calls == c->fail_at) return len / 2;
    if (c->len + len > c->cap) {
        c->cap = (c->len + len) * 2;
        c->data = realloc(c->data, c->cap);
    }
    memcpy(c->data + c->len, data, len);
    c->len += len;
    if (len > c->largest) c->largest = len;
    return len;
}

TEST(stream_flushes_in_chunks) {
    for (size_t chunk = 1; chunk <= 4096; chunk *= 4) {
        collector c = {0};
        counting_alloc a;
        counting_alloc_init(&a, 0);
        sdx_buf b;
        sdx_buf_init_stream(&b, collect, &c, chunk, &a.iface);
        uint64_t seed = chunk;
        size_t total = 0;
        for (int i = 0; i < 2000; i++) {
            size_t n = test_rand(&seed) % (i % 50 == 0 ? 20000 : 100);
            if (!CHECK(append(&b, total, n, (int)(i & 1)) == SDX_OK)) break;
            total += n;
            CHECK_EQ_U64(sdx_buf_total(&b), total);
        }
        CHECK(sdx_buf_flush(&b) == SDX_OK);
        CHECK_EQ_U64(c.len, total);
        check_pattern(c.data, c.len, 0);
        CHECK_EQ_U64(sdx_buf_len(&b), 0);
        /* Memory stays bounded: the chunk, grown at most to the largest
         * single reservation (19999 bytes here). */
        CHECK(a.live_bytes <= (chunk > 20000 ? chunk : 20000));
        sdx_buf_destroy(&b);
        CHECK_EQ_INT(a.live, 0);
        free(c.data);
    }
}

TEST(stream_write_failure_is_sticky) {
    collector c = {0};
    c.fail_at = 3;
    sdx_buf b;
    sdx_buf_init_stream(&b, collect, &c, 64, NULL);
    sdx_err e = SDX_OK;
    size_t total = 0;
    for (int i = 0; i < 100 && !e; i++, total += 50) e = append(&b, total, 50, i & 1);
    CHECK(e == SDX_ERR_IO);
    CHECK(sdx_buf_error(&b) == SDX_ERR_IO);
    CHECK(sdx_buf_flush(&b) == SDX_ERR_IO);
    CHECK(sdx_buf_write(&b, "x", 1) == SDX_ERR_IO);
    CHECK_EQ_INT(c.calls, 3);
    sdx_buf_destroy(&b);
    free(c.data);

    /* A failing final flush. */
    collector d = {0};
    d.fail_at = 1;
    sdx_buf_init_stream(&b, collect, &d, 64, NULL);
    CHECK(sdx_buf_write(&b, "hello", 5) == SDX_OK);
    CHECK(sdx_buf_flush(&b) == SDX_ERR_IO);
    sdx_buf_destroy(&b);
    free(d.data);
}

/* The collector's patch function: rewrite bytes it was given; fails on
 * demand (fail_at counts patch calls too) and, for the test of misuse,
 * on a range it does not hold. */
static int collect_patch(void *ctx, uint64_t at, const void *data, size_t len) {
    collector *c = ctx;
    if (++c->calls == c->fail_at || at > c->len || len > c->len - at) return 0;
    memcpy(c->data + at, data, len);
    return 1;
}

TEST(stream_patch) {
    /* Patches of every length at every offset of a stream of small chunks,
     * against the same patches on a memory buffer: held bytes, flushed
     * bytes, and ranges across the boundary between them. */
    for (size_t chunk = 1; chunk <= 256; chunk *= 4) {
        collector c = {0};
        sdx_buf b, m;
        sdx_buf_init_stream(&b, collect, &c, chunk, NULL);
        CHECK(!sdx_buf_patchable(&b));
        CHECK(sdx_buf_set_patch(&b, collect_patch) == SDX_OK);
        CHECK(sdx_buf_patchable(&b));
        sdx_buf_init(&m, NULL);
        uint64_t seed = 77 + chunk;
        size_t total = 0;
        for (int i = 0; i < 600; i++) {
            size_t n = test_rand(&seed) % 40;
            CHECK(append(&b, total, n, i & 1) == SDX_OK);
            CHECK(append(&m, total, n, i & 1) == SDX_OK);
            total += n;
            if (total == 0) continue;
            uint64_t at = test_rand(&seed) % total;
            size_t len = (size_t)(test_rand(&seed) % (total - at + 1));
            if (len > 24) len = 24;
            char bytes[24];
            for (size_t k = 0; k < len; k++) bytes[k] = (char)('A' + (i + k) % 26);
            if (!CHECK(sdx_buf_patch(&b, at, bytes, len) == SDX_OK)) break;
            CHECK(sdx_buf_patch(&m, at, bytes, len) == SDX_OK);
        }
        CHECK(sdx_buf_flush(&b) == SDX_OK);
        CHECK_MEM(c.data, c.len, sdx_buf_data(&m), sdx_buf_len(&m));
        /* Beyond what was written: a usage error, sticky. */
        CHECK(sdx_buf_patch(&b, total, "x", 1) == SDX_ERR_USAGE);
        CHECK(sdx_buf_write(&b, "x", 1) == SDX_ERR_USAGE);
        sdx_buf_destroy(&b);
        sdx_buf_destroy(&m);
        free(c.data);
    }

    /* A flushed byte without a patch function: a usage error. */
    collector c = {0};
    sdx_buf b;
    sdx_buf_init_stream(&b, collect, &c, 8, NULL);
    for (size_t k = 0; k < 100; k += 10) CHECK(append(&b, k, 10, 1) == SDX_OK);
    CHECK(sdx_buf_patch(&b, 99, "y", 1) == SDX_OK); /* still held */
    CHECK(sdx_buf_patch(&b, 0, "y", 1) == SDX_ERR_USAGE);
    sdx_buf_destroy(&b);
    free(c.data);

    /* A failing patch function: an I/O error, sticky. */
    collector d = {0};
    sdx_buf_init_stream(&b, collect, &d, 8, NULL);
    sdx_buf_set_patch(&b, collect_patch);
    CHECK(append(&b, 0, 100, 0) == SDX_OK);
    d.fail_at = d.calls + 1;
    CHECK(sdx_buf_patch(&b, 0, "y", 1) == SDX_ERR_IO);
    CHECK(sdx_buf_error(&b) == SDX_ERR_IO);
    sdx_buf_destroy(&b);
    free(d.data);

    /* Clearing a stream forgets its patch function too (the total starts
     * again at 0, which the function's offsets no longer match). */
    collector e = {0};
    sdx_buf_init_stream(&b, collect, &e, 8, NULL);
    sdx_buf_set_patch(&b, collect_patch);
    sdx_buf_clear(&b);
    CHECK(!sdx_buf_patchable(&b));
    sdx_buf_destroy(&b);
    free(e.data);

    /* Only streams take a patch function; memory and fixed buffers patch
     * in place. */
    sdx_buf_init(&b, NULL);
    CHECK(sdx_buf_set_patch(&b, collect_patch) == SDX_ERR_INVALID_ARG);
    CHECK(sdx_buf_error(&b) == SDX_OK);
    CHECK(sdx_buf_write(&b, "abc", 3) == SDX_OK);
    CHECK(sdx_buf_patch(&b, 1, "X", 1) == SDX_OK);
    CHECK_MEM(sdx_buf_data(&b), sdx_buf_len(&b), "aXc", 3);
    sdx_buf_destroy(&b);
}

TEST(file_stream) {
    FILE *f = tmpfile();
    if (!CHECK(f != NULL)) return;
    sdx_buf b;
    sdx_buf_init_file(&b, f, 1000, NULL);
    size_t total = 0;
    for (int i = 0; i < 300; i++, total += 37) CHECK(append(&b, total, 37, i & 1) == SDX_OK);
    CHECK(sdx_buf_flush(&b) == SDX_OK);
    sdx_buf_destroy(&b);
    rewind(f);
    char *back = malloc(total + 1);
    CHECK_EQ_U64(fread(back, 1, total + 1, f), total);
    check_pattern(back, total, 0);
    free(back);
    fclose(f);
}

TEST(allocation_failure_leaves_clean_error) {
    /* Fail each allocation in turn; the buffer must report NOMEM, keep what
     * was written before, and leak nothing. */
    for (long fail_at = 1; fail_at <= 20; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        sdx_buf b;
        sdx_buf_init(&b, &a.iface);
        size_t total = 0;
        sdx_err e = SDX_OK;
        while (total < 200000 && !e) {
            e = append(&b, total, 1000, (int)(total & 1));
            if (!e) total += 1000;
        }
        if (a.calls >= fail_at) {
            CHECK(e == SDX_ERR_NOMEM);
            CHECK(sdx_buf_error(&b) == SDX_ERR_NOMEM);
            CHECK(sdx_buf_reserve(&b, 1) == NULL);
            CHECK_EQ_U64(sdx_buf_len(&b), total);
            check_pattern(sdx_buf_data(&b), sdx_buf_len(&b), 0);
        } else {
            CHECK(e == SDX_OK);
        }
        sdx_buf_destroy(&b);
        CHECK_EQ_INT(a.live, 0);
    }
    /* The same for a stream's chunk. */
    for (long fail_at = 1; fail_at <= 3; fail_at++) {
        counting_alloc a;
        counting_alloc_init(&a, fail_at);
        collector c = {0};
        sdx_buf b;
        sdx_buf_init_stream(&b, collect, &c, 128, &a.iface);
        sdx_err e = SDX_OK;
        for (size_t total = 0; total < 10000 && !e; total += 100) e = append(&b, total, 100, 0);
        if (a.calls >= fail_at) CHECK(e == SDX_ERR_NOMEM);
        sdx_buf_destroy(&b);
        CHECK_EQ_INT(a.live, 0);
        free(c.data);
    }
}

TEST(detach_and_clear) {
    counting_alloc a;
    counting_alloc_init(&a, 0);
    sdx_buf b;
    sdx_buf_init(&b, &a.iface);
    size_t len;
    /* Inline content is copied out. */
    CHECK(append(&b, 0, 10, 0) == SDX_OK);
    char *p = sdx_buf_detach(&b, &len);
    CHECK(p != NULL);
    CHECK_EQ_U64(len, 10);
    check_pattern(p, 10, 0);
    CHECK_EQ_U64(sdx_buf_len(&b), 0);
    a.iface.free(a.iface.ctx, p);
    /* Heap content is handed over. */
    CHECK(append(&b, 0, 5000, 1) == SDX_OK);
    p = sdx_buf_detach(&b, &len);
    CHECK_EQ_U64(len, 5000);
    check_pattern(p, 5000, 0);
    a.iface.free(a.iface.ctx, p);
    /* Empty buffer gives a valid allocation. */
    p = sdx_buf_detach(&b, &len);
    CHECK(p != NULL);
    CHECK_EQ_U64(len, 0);
    a.iface.free(a.iface.ctx, p);
    /* Clear keeps the storage. */
    CHECK(append(&b, 0, 3000, 1) == SDX_OK);
    long calls = a.calls;
    sdx_buf_clear(&b);
    CHECK_EQ_U64(sdx_buf_len(&b), 0);
    CHECK(append(&b, 0, 3000, 0) == SDX_OK);
    CHECK_EQ_INT(a.calls, calls);
    check_pattern(sdx_buf_data(&b), 3000, 0);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
    /* Detach after an allocation failure of the copy. */
    counting_alloc_init(&a, 1);
    sdx_buf_init(&b, &a.iface);
    CHECK(append(&b, 0, 10, 0) == SDX_OK);
    CHECK(sdx_buf_detach(&b, &len) == NULL);
    CHECK(sdx_buf_error(&b) == SDX_ERR_NOMEM);
    sdx_buf_destroy(&b);
    CHECK_EQ_INT(a.live, 0);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){
                        {"inline_storage_needs_no_allocation", inline_storage_needs_no_allocation},
                        {"first_heap_allocation", first_heap_allocation},
                        {"growth_is_geometric_and_keeps_content", growth_is_geometric_and_keeps_content},
                        {"fixed_buffer_overflow", fixed_buffer_overflow},
                        {"stream_flushes_in_chunks", stream_flushes_in_chunks},
                        {"stream_write_failure_is_sticky", stream_write_failure_is_sticky},
                        {"stream_patch", stream_patch},
                        {"file_stream", file_stream},
                        {"allocation_failure_leaves_clean_error", allocation_failure_leaves_clean_error},
                        {"detach_and_clear", detach_and_clear},
                        {0, 0}});
}
