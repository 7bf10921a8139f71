/*
 * Fuzz target for the Binn readers (tests/fuzz/README.md).
 *
 * The first input byte is the read flags (sdx_binn_read_flag: no UTF-8
 * check, sequence, copy input), the rest is the Binn input. Checks
 * (fuzz.h fz_check_reader): memory reader == stream reader fed 1..7 bytes
 * per read; tree parser == reader; parsed document -> Binn writer ->
 * parser gives an equal document.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    /* the flags: no UTF-8 check, sequence, copy input (sdx_binn_read_flag) */
    fz_ropts o = fz_ropts_make(FZ_BINN, data[0] & 0x07u);
    static const fz_rules rules = {0, 0, 0, 0};
    sdx_doc *d = fz_check_reader(&o, data + 1, size - 1, fz_seed(data, size), &rules);
    sdx_doc_free(d);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00\xe2\x0b\x01\x01\x61\x20\x2a\x03\x00"),
    FZ_SEED("\x00\xe0\x0e\x03\x01\x02\x03\x41\x01\x00\xa0\x02\x68\x69\x00"),
    FZ_SEED("\x00\xe1\x0e\x01\x00\x00\x00\x05\x80\x00\x00\x00\x01"),
    FZ_SEED("\x02\x01\x02\x03\x00"),
    FZ_SEED("\x00\x82\x40\x09\x21\xfb\x54\x44\x2d\x18\x00"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "\x00\x01\x02\x03\x20\x21\x40\x41\x60\x61\x62\x80\x81\x82\x83\xa0\xc0\xd0\xe0\xe1\xe2\xf0\x80\x00";
    return fz_smoke_main("fuzz_binn_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 200000);
}
#endif
