/*
 * Fuzz target for the MessagePack readers (tests/fuzz/README.md).
 *
 * The first input byte is the read flags (sdx_msgpack_read_flag: no UTF-8
 * check, sequence, copy input), the rest is the MessagePack input. Checks
 * (fuzz.h fz_check_reader): memory reader == stream reader fed 1..7 bytes
 * per read; tree parser == reader; parsed document -> MessagePack writer
 * -> parser gives an equal document.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    fz_ropts o = fz_ropts_make(FZ_MSGPACK, data[0] & 0x07u);
    /* a count or length beyond the input left is SDX_ERR_TRUNCATED at its
     * header in memory (msgpack.h), which a stream cannot know */
    static const fz_rules rules = {1, 0, 0, 0};
    sdx_doc *d = fz_check_reader(&o, data + 1, size - 1, fz_seed(data, size), &rules);
    sdx_doc_free(d);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00\x82\xa1\x61\x93\x01\xff\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18\xa1\x62\xc4\x02\x00\x01"),
    FZ_SEED("\x02\xc0\xc2\xc3\xcf\xff\xff\xff\xff\xff\xff\xff\xff\xd3\x80\x00\x00\x00\x00\x00\x00\x00"),
    FZ_SEED("\x00\xd6\xff\x00\x00\x00\x01"),
    FZ_SEED("\x00\xc7\x0c\xff\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02"),
    FZ_SEED("\x00\xdc\x00\x02\xca\x3f\x80\x00\x00\xd9\x03\x61\x62\x63"),
    FZ_SEED("\x00\xdf\x00\x00\x00\x01\xa1\xff\xc0"),
    FZ_SEED("\x01\xa2\xc3\x28"),
    /* regression: a 16-byte str 16 with 15 bytes left was read one byte
     * past the input by the inline path */
    FZ_SEED("\x00\x91\xda\x00\x10" "abcdefghijklmno"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "\x00\x01\x7f\x80\x81\x8f\x90\x91\x9f\xa0\xa1\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xff";
    return fz_smoke_main("fuzz_msgpack_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 200000);
}
#endif
