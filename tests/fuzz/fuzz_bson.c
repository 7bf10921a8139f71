/*
 * Fuzz target for the BSON readers (tests/fuzz/README.md).
 *
 * The first input byte is the read flags (sdx_bson_read_flag: no UTF-8
 * check, sequence of documents, copy input in bits 0-2, keep array keys in
 * bit 4), the rest is the BSON input.
 * Checks (fuzz.h fz_check_reader): memory reader == stream reader fed 1..7
 * bytes per read; tree parser == reader; parsed document -> BSON writer ->
 * parser gives an equal document.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    /* the flags: no UTF-8 check, sequence, copy input (sdx_bson_read_flag),
     * and from bit 4 keep array keys */
    fz_ropts o = fz_ropts_make(FZ_BSON, (data[0] & 0x07u) |
                                            (data[0] & 0x10 ? SDX_BSON_READ_KEEP_ARRAY_KEYS : 0));
    /* bit 3: a stream's max_document of 64 bytes (SDX_ERR_LIMIT for a
     * longer root document, which memory input does not have), else the
     * largest BSON document, so that streams and memory agree */
    int small = (data[0] & 0x08) != 0;
    o.bson.max_document = small ? 64 : SDX_BSON_MAX_SIZE;
    /* the stream reader looks for bytes after a root document before it
     * delivers the document's END, the memory reader after: withhold */
    fz_rules rules = {0, 1, small, 0};
    sdx_doc *d = fz_check_reader(&o, data + 1, size - 1, fz_seed(data, size), &rules);
    sdx_doc_free(d);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00\x0c\x00\x00\x00\x10\x61\x00\x01\x00\x00\x00\x00"),
    FZ_SEED("\x00\x1b\x00\x00\x00\x04\x61\x00\x13\x00\x00\x00\x02\x30\x00\x02\x00\x00\x00\x78\x00\x08\x31\x00\x01\x00\x00"),
    /* an array with the keys "1" and "0", by default and keeping keys */
    FZ_SEED("\x00\x17\x00\x00\x00\x04\x61\x00\x0f\x00\x00\x00\x0a\x31\x00\x10\x30\x00\x07\x00\x00\x00\x00\x00"),
    FZ_SEED("\x10\x17\x00\x00\x00\x04\x61\x00\x0f\x00\x00\x00\x0a\x31\x00\x10\x30\x00\x07\x00\x00\x00\x00\x00"),
    FZ_SEED("\x02\x05\x00\x00\x00\x00\x05\x00\x00\x00\x00"),
    FZ_SEED("\x00\x1a\x00\x00\x00\x05\x62\x00\x05\x00\x00\x00\x80\x01\x02\x03\x04\x05\x0b\x72\x00\x61\x00\x69\x00\x00"),
    FZ_SEED("\x00\x20\x00\x00\x00\x12\x69\x00\x01\x00\x00\x00\x00\x00\x00\x00\x09\x64\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x6d\x00\x7f\x78\x00\x00"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x7f\xff\x05\x0c\x10\x20\x30\x61";
    return fz_smoke_main("fuzz_bson_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 200000);
}
#endif
