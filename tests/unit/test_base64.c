/* Base64 encoding (RFC 4648). */
#include "core/base64.h"
#include "test.h"

static void check_b64(const char *in, size_t n, const char *want) {
    char out[64];
    memset(out, 0x55, sizeof out);
    char *end = sdx_base64_encode(out, in, n);
    CHECK_EQ_U64((size_t)(end - out), sdx_base64_len(n));
    CHECK_STR(out, (size_t)(end - out), want);
    CHECK((unsigned char)out[sdx_base64_len(n)] == 0x55);
}

TEST(rfc4648_vectors) {
    /* RFC 4648 section 10. */
    check_b64("", 0, "");
    check_b64("f", 1, "Zg==");
    check_b64("fo", 2, "Zm8=");
    check_b64("foo", 3, "Zm9v");
    check_b64("foob", 4, "Zm9vYg==");
    check_b64("fooba", 5, "Zm9vYmE=");
    check_b64("foobar", 6, "Zm9vYmFy");
}

TEST(every_byte) {
    /* Bytes 0xFB 0xFF use the last two alphabet characters. */
    check_b64("\xfb\xff\xbf", 3, "+/+/");
    check_b64("\x00\x00\x00", 3, "AAAA");
    check_b64("\xff\xff\xff", 3, "////");
    /* Decode our own output with an independent decoder for all single
     * bytes and pairs. */
    static const char *alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int a = 0; a < 256; a++) {
        for (int b = 0; b < 256; b += 7) {
            unsigned char in[2] = {(unsigned char)a, (unsigned char)b};
            char out[4];
            sdx_base64_encode(out, in, 2);
            unsigned v = 0;
            for (int i = 0; i < 3; i++) v = v << 6 | (unsigned)(strchr(alpha, out[i]) - alpha);
            CHECK(out[3] == '=');
            CHECK_EQ_INT(v >> 10, a);
            CHECK_EQ_INT((v >> 2) & 0xFF, b);
        }
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"rfc4648_vectors", rfc4648_vectors}, {"every_byte", every_byte}, {0, 0}});
}
