/*
 * Fuzz target for the CBOR readers (tests/fuzz/README.md).
 *
 * The first input byte is the read flags (sdx_cbor_read_flag: no UTF-8
 * check, sequence, copy input, reject duplicate keys, deterministic, keep
 * chunks), the rest is the CBOR input. Checks (fuzz.h fz_check_reader):
 * memory reader == stream reader fed 1..7 bytes per read; tree parser ==
 * reader; parsed document -> CBOR writer -> parser gives an equal document.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    /* the flags: no UTF-8 check, sequence, copy input, duplicate keys,
     * deterministic, chunks (sdx_cbor_read_flag) */
    fz_ropts o = fz_ropts_make(FZ_CBOR, data[0] & 0x3fu);
    /* the writer uses preferred serialization (the shortest float width, NaN
     * as f9 7e 00, definite-length strings), so float widths, NaN payloads
     * and indefinite-string marks may change in the round trip */
    /* the memory reader, meeting a count the bytes left cannot meet, looks
     * ahead for an earlier error (cbor.h: the first error in reading order)
     * and reports it without delivering the container's begin event, which
     * the stream has delivered: withhold. A chunk of an indefinite-length
     * string declared longer than max_string is SDX_ERR_LIMIT in a stream
     * but SDX_ERR_TRUNCATED in memory when the input cannot hold it:
     * stream_limit */
    static const fz_rules rules = {0, 1, 1, FZ_N_FLAGS};
    sdx_doc *d = fz_check_reader(&o, data + 1, size - 1, fz_seed(data, size), &rules);
    sdx_doc_free(d);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00\xa2\x61\x61\x83\x01\x20\xf9\x3c\x00\x61\x62\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00"),
    FZ_SEED("\x00\x9f\x5f\x41\x01\x42\x02\x03\xff\x7f\x61\x61\xff\xbf\x01\x02\xff\xff"),
    FZ_SEED("\x10\xa2\x01\x02\x61\x61\x03"),
    FZ_SEED("\x08\xa2\x01\x02\x01\x03"),
    FZ_SEED("\x02\x01\x02\x83\xf4\xf5\xf6\xf7\xf8\x20"),
    FZ_SEED("\x00\x3b\xff\xff\xff\xff\xff\xff\xff\xff"),
    FZ_SEED("\x20\x5f\x41\x01\x41\x02\xff"),
    FZ_SEED("\x00\xd8\x18\xd8\x20\xfb\x7f\xf8\x00\x00\x00\x00\x00\x00"),
    /* regression (libFuzzer, clang UBSan): an empty map checked for
     * duplicate keys computed NULL + 0 before any key was listed */
    FZ_SEED("\x4d\xa0\xa0\x2b"),
    /* regression: a 16-byte text string in a 3-byte head with 15 bytes
     * left was read one byte past the input by the inline path */
    FZ_SEED("\x00\x81\x79\x00\x10" "abcdefghijklmno"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "\x00\x01\x17\x18\x19\x1a\x1b\x1f\x20\x37\x38\x40\x41\x58\x5f\x60\x61\x78\x7f\x80\x81\x98\x9f\xa0\xa1\xb8\xbf\xc0\xc1\xc2\xc3\xd8\xd9\xe0\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xff";
    return fz_smoke_main("fuzz_cbor_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 200000);
}
#endif
