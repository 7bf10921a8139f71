/* UTF-8 validation, maximal subparts, decoding and encoding, against an
 * independent reference written differently (decode, then range checks). */
#include "core/utf8.h"
#include "test.h"
#include "utf8_ref.h"

TEST(every_sequence_up_to_three_bytes) {
    uint8_t s[3];
    for (uint32_t v = 0; v < (1u << 24); v++) {
        s[0] = (uint8_t)(v >> 16), s[1] = (uint8_t)(v >> 8), s[2] = (uint8_t)v;
        size_t got = sdx_utf8_valid_prefix((const char *)s, 3);
        size_t want = ref_valid_prefix(s, 3);
        if (got != want) {
            CHECK_EQ_U64(got, want);
            fprintf(stderr, "  bytes %02x %02x %02x\n", s[0], s[1], s[2]);
            return;
        }
        if (v < 65536) {
            s[0] = (uint8_t)(v >> 8), s[1] = (uint8_t)v;
            if (!CHECK_EQ_U64(sdx_utf8_valid_prefix((const char *)s, 2), ref_valid_prefix(s, 2))) return;
        }
    }
}

TEST(four_byte_sequences) {
    uint8_t s[4];
    /* Every lead byte from 0xF0 with every second byte, random tails. */
    uint64_t seed = 7;
    for (int lead = 0xF0; lead <= 0xFF; lead++)
        for (int b1 = 0; b1 < 256; b1++)
            for (int r = 0; r < 64; r++) {
                uint64_t x = test_rand(&seed);
                s[0] = (uint8_t)lead, s[1] = (uint8_t)b1;
                s[2] = (uint8_t)(r & 1 ? 0x80 | (x & 0x3F) : x);
                s[3] = (uint8_t)(r & 2 ? 0x80 | (x >> 8 & 0x3F) : x >> 8);
                for (size_t n = 1; n <= 4; n++)
                    if (!CHECK_EQ_U64(sdx_utf8_valid_prefix((const char *)s, n), ref_valid_prefix(s, n)))
                        return;
            }
}

/* Random text: mostly ASCII with valid multi-byte characters and some
 * garbage, at every length up to 300, to exercise the ASCII fast path. */
TEST(random_text) {
    uint64_t seed = 99;
    uint8_t buf[300];
    long rounds = (long)(20000 * test_scale());
    for (long r = 0; r < rounds; r++) {
        size_t n = test_rand(&seed) % sizeof buf, i = 0;
        unsigned garbage = (unsigned)(test_rand(&seed) % 4);
        while (i < n) {
            uint64_t x = test_rand(&seed);
            if (x % 16 < 12) {
                buf[i++] = (uint8_t)(x >> 8 & 0x7F);
            } else if (x % 16 < 15 || !garbage) {
                uint32_t cp = (uint32_t)(x >> 16) % 0x10FFFF;
                if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
                uint8_t o[4];
                size_t len;
                ref_encode(cp, o, &len);
                for (size_t k = 0; k < len && i < n; k++) buf[i++] = o[k];
            } else {
                buf[i++] = (uint8_t)(x >> 24);
            }
        }
        size_t got = sdx_utf8_valid_prefix((const char *)buf, n);
        if (!CHECK_EQ_U64(got, ref_valid_prefix(buf, n))) return;
        if (got < n && !CHECK_EQ_U64(sdx_utf8_invalid_len((const char *)buf + got, n - got),
                                     ref_invalid_len(buf + got, n - got)))
            return;
    }
}

TEST(maximal_subparts_unicode_example) {
    /* Unicode 15 section 3.9, table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64
     * has the maximal subparts F1 80 80 | E1 80 | C2 | 80 | 80 | BF. */
    const char *s = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
    size_t n = 13, i = 0, got[16], k = 0;
    while (i < n) {
        size_t v = sdx_utf8_valid_prefix(s + i, n - i);
        i += v;
        if (i == n) break;
        got[k] = sdx_utf8_invalid_len(s + i, n - i);
        i += got[k++];
    }
    size_t want[] = {3, 2, 1, 1, 1, 1};
    if (CHECK_EQ_U64(k, 6))
        for (size_t j = 0; j < 6; j++) CHECK_EQ_U64(got[j], want[j]);
}

TEST(invalid_len_every_prefix) {
    uint8_t s[3];
    for (uint32_t v = 0x800000; v < (1u << 24); v++) {
        s[0] = (uint8_t)(v >> 16), s[1] = (uint8_t)(v >> 8), s[2] = (uint8_t)v;
        if (ref_seq_len(s, 3)) continue;
        for (size_t n = 1; n <= 3; n++) {
            if (ref_valid_prefix(s, n) != 0) continue;
            if (!CHECK_EQ_U64(sdx_utf8_invalid_len((const char *)s, n), ref_invalid_len(s, n))) {
                fprintf(stderr, "  bytes %02x %02x %02x, n=%zu\n", s[0], s[1], s[2], n);
                return;
            }
        }
    }
}

TEST(decode_encode_every_scalar_value) {
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        uint8_t want[4];
        size_t want_len, len;
        char got[4];
        ref_encode(cp, want, &want_len);
        char *end = sdx_utf8_encode(got, cp);
        if (!CHECK_MEM(got, (size_t)(end - got), want, want_len)) return;
        if (!CHECK_EQ_U64(sdx_utf8_decode((const char *)want, &len), cp) || !CHECK_EQ_U64(len, want_len))
            return;
        if (!CHECK_EQ_U64(sdx_utf8_valid_prefix((const char *)want, want_len), want_len)) return;
    }
}

int main(int argc, char **argv) {
    int rc = test_run(argc, argv,
                      (test_case[]){{"every_sequence_up_to_three_bytes", every_sequence_up_to_three_bytes},
                                    {"four_byte_sequences", four_byte_sequences},
                                    {"random_text", random_text},
                                    {"maximal_subparts_unicode_example", maximal_subparts_unicode_example},
                                    {"invalid_len_every_prefix", invalid_len_every_prefix},
                                    {"decode_encode_every_scalar_value", decode_encode_every_scalar_value},
                                    {0, 0}});
    utf8_ref_free();
    return rc;
}
