/*
 * The bound beside every Tree and Incremental table: UTF-8 validation of
 * the input with sdx's kernel (the widest the CPU runs, as the parsers use).
 * For JSON the input is the document itself, all of which a parser must
 * validate; for the binary formats it is the concatenation of every string
 * and key of the data (`bench_tool strings`), the part of the input that a
 * validating parser must check byte by byte. Compiled once per format and
 * test with -DBOUND_FMT=<name> -DBOUND_TEST=<tree|incremental>.
 *
 * The result is not a value hash (it absorbs only the length); bench/run.py
 * knows this row and checks only that the kernel accepted every byte.
 */
#include "adapter.h"
#include "simd/simd.h"

#define BOUND_STR_(x) #x
#define BOUND_STR(x) BOUND_STR_(x)

static int validate(const char *data, size_t len, sbh *h) {
    size_t valid = sdx_simd_active()->utf8_valid_prefix(data, len);
    if (valid != len) {
        bench_error("invalid UTF-8 at byte %zu", valid);
        return 1;
    }
    sbh_word(h, (uint64_t)len);
    return 0;
}

const bench_adapter bench_adapter_def = {
    "utf8-validate", "C", BOUND_STR(BOUND_FMT), BOUND_STR(BOUND_TEST), NULL, validate, NULL, NULL, NULL, 0};
