/*
 * A fuzz target for the UBJSON / BJData readers, and its smoke run.
 *
 * LLVMFuzzerTestOneInput takes the first byte as reader flags (BJData, no
 * UTF-8 check, sequence, byte arrays) and the rest as input, and aborts on
 * any disagreement: the memory reader and a stream reader fed 3 bytes at
 * a time give the same events and error (except where the memory reader
 * rejected a count beyond the input at its header, which a stream cannot
 * know), the parser fails exactly when the reader does, and a parsed
 * document written by the writer parses again (to an equal document in
 * UBJSON; BJData's h values come back as D). Sanitizers catch the rest.
 *
 * Built two ways (tests/ubjson/CMakeLists.txt):
 *   ubjson_fuzz_smoke   this file's main: the seeds below and 20000 inputs
 *                       made of markers and random bytes (deterministic),
 *                       a ctest test in every build tree;
 *   ubjson_fuzz         with -DSDX_UBJSON_LIBFUZZER=ON and clang: a
 *                       libFuzzer binary, e.g.
 *                       build/<tree>/tests/ubjson/ubjson_fuzz -max_total_time=600
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"
#include "trickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    sdx_ubjson_read_opts o = {(uint32_t)(data[0] & 0x0f), 64, 1000, NULL};
    data++;
    size--;
    sdx_event ev;
    sdx_ubjson_reader *r = sdx_ubjson_reader_new((const char *)data, size, &o);
    if (!r) abort();
    size_t n1 = 0, n2 = 0;
    while (sdx_ubjson_reader_next(r, &ev)) n1++;
    sdx_error e1, e2;
    sdx_err c1 = sdx_ubjson_reader_error(r, &e1);
    sdx_ubjson_reader_free(r);
    trickle t = {data, size, 3};
    r = sdx_ubjson_reader_new_stream(trickle_read, &t, 16, &o);
    if (!r) abort();
    while (sdx_ubjson_reader_next(r, &ev)) n2++;
    sdx_err c2 = sdx_ubjson_reader_error(r, &e2);
    sdx_ubjson_reader_free(r);
    if (c1 == SDX_ERR_TRUNCATED ? (c2 == SDX_OK || n2 < n1)
                                : (c1 != c2 || n1 != n2 || e1.offset != e2.offset))
        abort();
    sdx_error pe;
    sdx_doc *d = sdx_ubjson_parse((const char *)data, size, &o, &pe);
    if (!(o.flags & SDX_UBJSON_READ_STOP_AFTER_VALUE) && (d == NULL) != (c1 != SDX_OK)) abort();
    if (!d) return 0;
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_write_opts wo = {0, NULL};
    if (o.flags & SDX_UBJSON_READ_BJDATA) wo.flags |= SDX_UBJSON_WRITE_BJDATA;
    if (o.flags & SDX_UBJSON_READ_NO_UTF8_CHECK) wo.flags |= SDX_UBJSON_WRITE_NO_UTF8_CHECK;
    sdx_ubjson_writer_init(&w, &b, &wo);
    sdx_err we = sdx_node_emit(sdx_doc_root(d), sdx_ubjson_writer_sink(&w));
    sdx_err wf = sdx_ubjson_writer_finish(&w);
    if (we || wf) abort(); /* whatever was read can be written */
    sdx_doc *d2 = sdx_ubjson_parse(sdx_buf_data(&b), sdx_buf_len(&b), &o, &pe);
    if (!d2) abort();
    if (!(o.flags & SDX_UBJSON_READ_BJDATA) && !sdx_node_equal(sdx_doc_root(d), sdx_doc_root(d2)))
        abort();
    sdx_doc_free(d2);
    sdx_buf_destroy(&b);
    sdx_doc_free(d);
    return 0;
}

#ifndef SDX_UBJSON_LIBFUZZER
#define SEED(flags, lit) {flags lit, sizeof(flags lit) - 1}
static const struct {
    const char *p;
    size_t n;
} seeds[] = {
    SEED("\x00", "{U\x01" "a[$i#U\x02\x01\x02}"),
    SEED("\x01", "[$U#[U\x02U\x02]\x01\x02\x03\x04"),
    SEED("\x00", "[CaSU\x02hiHU\x01" "1d\x00\x00\x00\x00]"),
    SEED("\x04", "ZNU\x01[]{#U\x01U\x00T"),
    SEED("\x01", "[$h#U\x02\x00\x3c\x00\xc0[$B#U\x01\x07"),
    SEED("\x00", "[$[#U\x02]#U\x01Z[$Z#U\x05"),
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void) {
    static const char markers[] = "[]{}$#ZNTFiUIlLdDHCSumMhB";
    uint8_t buf[96];
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        LLVMFuzzerTestOneInput((const uint8_t *)seeds[i].p, seeds[i].n);
    for (long i = 0; i < 20000; i++) {
        size_t n = 1 + (size_t)(next_rand() % sizeof buf);
        for (size_t k = 0; k < n; k++) {
            uint64_t x = next_rand();
            buf[k] = x % 3 ? (uint8_t)markers[(x >> 8) % (sizeof markers - 1)] : (uint8_t)(x >> 16);
        }
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("ubjson_fuzz_smoke: %zu seeds and 20000 generated inputs, no disagreement\n",
           sizeof seeds / sizeof seeds[0]);
    return 0;
}
#endif
