/*
 * Fuzz target for the JSON readers (tests/fuzz/README.md).
 *
 * The first input byte is the read flags (sdx_json_read_flag, the low 7
 * bits: comments, trailing commas, NaN/Infinity, BOM, sequences, big
 * numbers as raw text, copy input), the rest is the JSON text. Checks
 * (fuzz.h fz_check_reader): memory reader == stream reader fed 1..7 bytes
 * per read (events, error code, offset, line and column); tree parser ==
 * reader (accept/reject, code, offset); parsed document -> JSON writer ->
 * parser gives an equal document (NaN and infinities, which the writer
 * refuses with SDX_ERR_RANGE, excepted); and the in-place parser
 * (sdx_json_parse_insitu, on a copy) gives the same document or error. The JSON reader documents that
 * memory and stream input fail alike, so no early-truncation difference is
 * allowed. The tree parser's two paths (the one-pass parser and, on CPUs
 * that run it, the two-stage parse with structural indexing) give the same
 * document, or the same error with the same offset, line and column, and
 * the two-stage path declines no text the one-pass parser accepts.
 */
#include "fuzz.h"
#include "json/parse_internal.h"

/* Two parses of the same text (`what` names the second) have the same
 * outcome: both fail with the same code and offset (and line and column
 * when `lines`), or give the same document having consumed as much. */
static void same_outcome(sdx_doc *d1, const sdx_error *e1, sdx_doc *d2,
                         const sdx_error *e2, int lines, const char *what) {
    char msg[160];
    if ((d1 == NULL) != (d2 == NULL) ||
        (!d1 && (e1->code != e2->code || e1->offset != e2->offset ||
                 (lines && (e1->line != e2->line || e1->column != e2->column))))) {
        snprintf(msg, sizeof msg, "%s and the parser disagree", what);
        fz_fail(msg, "json");
    }
    if (d1) {
        fz_rec r1, r2;
        fz_rec_doc(&r1, d1, 0);
        fz_rec_doc(&r2, d2, 0);
        if (!fz_rec_same(&r1, &r2) || sdx_doc_consumed(d1) != sdx_doc_consumed(d2)) {
            snprintf(msg, sizeof msg, "%s gives another document", what);
            fz_fail(msg, "json");
        }
        free(r1.p);
        free(r2.p);
    }
}

/* The tree parser by each path: the same outcome, and no text the
 * one-pass parser accepts declined by the two stages. */
static void check_paths(const uint8_t *text, size_t n, const sdx_json_read_opts *o) {
    sdx_error e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    sdx__json_parse_force_path(SDX_JSON_PATH_ONE_PASS);
    sdx_doc *d1 = sdx_json_parse((const char *)text, n, o, &e1);
    sdx__json_parse_force_path(SDX_JSON_PATH_TWO_STAGE);
    const unsigned long declined = sdx__json_parse_declines();
    sdx_doc *d2 = sdx_json_parse((const char *)text, n, o, &e2);
    const int did_decline = sdx__json_parse_declines() != declined;
    sdx__json_parse_force_path(SDX_JSON_PATH_AUTO);
    same_outcome(d1, &e1, d2, &e2, 1, "the two-stage parse");
    if (d1 && did_decline && !(o->flags & ~(uint32_t)(SDX_JSON_READ_BOM | SDX_JSON_READ_BIGNUM_RAW)))
        fz_fail("the two-stage parse declined a text the one-pass parser accepts", "json");
    sdx_doc_free(d1);
    sdx_doc_free(d2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    fz_ropts o = fz_ropts_make(FZ_JSON, data[0] & 0x7fu);
    static const fz_rules rules = {0, 0, 0, 0};
    sdx_doc *d = fz_check_reader(&o, data + 1, size - 1, fz_seed(data, size), &rules);
    /* the in-place parser on a copy: the same document or the same error */
    char *copy = malloc(size);
    if (!copy) abort();
    memcpy(copy, data + 1, size - 1);
    sdx_error e1, e2;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    sdx_doc *d2 = sdx_json_parse_insitu(copy, size - 1, &o.json, &e2);
    if (!d) sdx_json_parse((const char *)data + 1, size - 1, &o.json, &e1);
    same_outcome(d, &e1, d2, &e2, 0, "the in-place parser");
    sdx_doc_free(d2);
    free(copy);
    sdx_doc_free(d);
    check_paths(data + 1, size - 1, &o.json);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\ud83d\\ude00\"]}"),
    FZ_SEED("\x07[1,/* c */ 2,// d\n NaN, -Infinity,]"),
    FZ_SEED("\x10 1 2 [3] {\"k\":{}}\n\"s\""),
    FZ_SEED("\x20[18446744073709551616, -9223372036854775809, 1e400]"),
    FZ_SEED("\x08\xef\xbb\xbf{\"\\\"\\\\\\/\\b\\f\\n\\r\\t\":0}"),
    FZ_SEED("\x00[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]"),
    FZ_SEED("\x00\"\xc3\x28\""),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "{}[],:\"\\ntrufalsenul0123456789-+.eE/* \n\t\xc3\xa9";
    return fz_smoke_main("fuzz_json_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 200000);
}
#endif
