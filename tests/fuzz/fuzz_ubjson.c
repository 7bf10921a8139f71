/*
 * Fuzz target for the UBJSON and BJData readers (tests/fuzz/README.md;
 * it was tests/ubjson/fuzz_ubjson.c, whose checks it keeps).
 *
 * The first input byte is the read flags (sdx_ubjson_read_flag, low 4
 * bits: BJData, no UTF-8 check, sequence, byte arrays): bit 0 picks the
 * BJData dialect. The rest is the input. Checks (fuzz.h fz_check_reader):
 * memory reader == stream reader fed 1..7 bytes per read; tree parser ==
 * reader; parsed document -> writer of the same dialect -> parser gives an
 * document with the same events (in BJData but for the float flags: h
 * values come back as D).
 *
 * The documented difference: the memory reader rejects a count or length
 * beyond the input left at its header (SDX_ERR_TRUNCATED there), which a
 * stream reader cannot know; then the stream must give the same events as
 * far as memory went and fail at or after that offset.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint32_t flags = data[0] & 0x0fu;
    fz_ropts o = fz_ropts_make(flags & SDX_UBJSON_READ_BJDATA ? FZ_BJDATA : FZ_UBJSON, flags);
    fz_rules rules = {1, 0, 0, flags & SDX_UBJSON_READ_BJDATA ? FZ_N_FLAGS : 0};
    sdx_doc *d = fz_check_reader(&o, data + 1, size - 1, fz_seed(data, size), &rules);
    sdx_doc_free(d);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00{U\x01" "a[$i#U\x02\x01\x02}"),
    FZ_SEED("\x01[$U#[U\x02U\x02]\x01\x02\x03\x04"),
    FZ_SEED("\x00[CaSU\x02hiHU\x01" "1d\x00\x00\x00\x00]"),
    FZ_SEED("\x04ZNU\x01[]{#U\x01U\x00T"),
    FZ_SEED("\x01[$h#U\x02\x00\x3c\x00\xc0[$B#U\x01\x07"),
    FZ_SEED("\x00[$[#U\x02]#U\x01Z[$Z#U\x05"),
    /* regression (libFuzzer): a BJData N-dimensional array of bytes read
     * its innermost arrays as tagged integer arrays, which the writer
     * writes as [$B#n, read back as binary: the round trip changed it */
    FZ_SEED("\x81[$B#[UVU\x00]"),
    FZ_SEED("\x01[$B#[U\x02U\x02]\x01\x02\x03\x04"),
    FZ_SEED("\x01[$B#[U\x02]\x01\x02"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "[]{}$#ZNTFiUIlLdDHCSumMhB\x01\x02";
    return fz_smoke_main("fuzz_ubjson_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 200000);
}
#endif
