/* Format names and content detection (sdx_detect_format, detect.h). */
#include "sdx/sdx.h"
#include "test.h"

static sdx_format detect(const void *p, size_t n, uint64_t size, uint32_t flags, bool *guessed) {
    sdx_format f = SDX_FORMAT__COUNT;
    bool g = true;
    CHECK_EQ_INT(sdx_detect_format(p, n, size, flags, &f, &g), SDX_OK);
    if (guessed) *guessed = g;
    return f;
}

#define DETECT(lit, want)                                                                   \
    do {                                                                                    \
        bool g_;                                                                            \
        CHECK_EQ_INT(detect(lit, sizeof(lit) - 1, sizeof(lit) - 1, 0, &g_), (want));      \
        CHECK(!g_);                                                                         \
    } while (0)

TEST(names) {
    static const char *want[] = {"unknown", "json", "msgpack", "cbor", "bson", "ubjson", "bjdata", "binn"};
    for (int i = 0; i < SDX_FORMAT__COUNT; i++) CHECK(strcmp(sdx_format_name((sdx_format)i), want[i]) == 0);
    CHECK(strcmp(sdx_format_name(SDX_FORMAT__COUNT), "unknown") == 0);
    CHECK(strcmp(sdx_format_name((sdx_format)-1), "unknown") == 0);
}

TEST(each_format) {
    DETECT("", SDX_FORMAT_JSON);
    DETECT("  \r\n[1, 2]", SDX_FORMAT_JSON);
    DETECT("\xef\xbb\xbf{\"a\":1}", SDX_FORMAT_JSON);
    DETECT("\"text\"", SDX_FORMAT_JSON);
    DETECT("\xd9\xd9\xf7\x01", SDX_FORMAT_CBOR);
    DETECT("\x0c\x00\x00\x00\x10" "a\x00\x01\x00\x00\x00\x00", SDX_FORMAT_BSON);
    DETECT("\x81\xa1" "a\x01", SDX_FORMAT_MSGPACK);
    DETECT("\xa2" "aa\x01" "ab\x82\x01\x02", SDX_FORMAT_CBOR); /* msgpack reads a 2-byte str, then fails */
    DETECT("{U\x01" "aU\x01}", SDX_FORMAT_UBJSON);
    DETECT("[$u#U\x02\x01\x00\x02\x00", SDX_FORMAT_BJDATA); /* BJData's uint16 marker */
    DETECT("\xe2\x11\x01\x05hello\xa0\x05world\x00", SDX_FORMAT_BINN);
}

TEST(bson_lengths) {
    static const char doc[] = "\x0c\x00\x00\x00\x10" "a\x00\x01\x00\x00\x00\x00";
    char two[24];
    memcpy(two, doc, 12);
    memcpy(two + 12, doc, 12);
    /* two documents: a sequence, or (without the flag) still BSON, whose
     * reader then reports the bytes after the first */
    CHECK_EQ_INT(detect(two, 24, 24, SDX_DETECT_SEQUENCE, NULL), SDX_FORMAT_BSON);
    CHECK_EQ_INT(detect(two, 24, 24, 0, NULL), SDX_FORMAT_BSON);
    /* a length that is not the input's size and no document after it */
    CHECK(detect(two, 13, 13, 0, NULL) != SDX_FORMAT_BSON);
    /* unknown size (a pipe) and a document longer than the look-ahead:
     * a plausible first element is enough */
    static const char head[] = "\x00\x01\x00\x00\x10" "a\x00\x01\x00\x00\x00";
    CHECK_EQ_INT(detect(head, 11, UINT64_MAX, 0, NULL), SDX_FORMAT_BSON);
    CHECK(detect(head, 11, 11, 0, NULL) != SDX_FORMAT_BSON); /* the input is shorter than it claims */
}

TEST(look_ahead) {
    /* A MessagePack array of 20000 integers (60 KB): the look-ahead ends
     * inside it, which is no failure when the input goes on. */
    static unsigned char big[3 + 20000 * 3];
    big[0] = 0xdc;
    big[1] = 20000 >> 8;
    big[2] = 20000 & 0xff;
    for (int i = 0; i < 20000; i++) {
        big[3 + 3 * i] = 0xcd;
        big[4 + 3 * i] = 0x12;
        big[5 + 3 * i] = 0x34;
    }
    CHECK_EQ_INT(detect(big, sizeof big, sizeof big, 0, NULL), SDX_FORMAT_MSGPACK);
    CHECK_EQ_INT(detect(big, SDX_DETECT_PEEK, sizeof big, 0, NULL), SDX_FORMAT_MSGPACK);
    CHECK_EQ_INT(detect(big, SDX_DETECT_PEEK, UINT64_MAX, 0, NULL), SDX_FORMAT_MSGPACK);
}

TEST(guesses_and_utf8) {
    bool g;
    CHECK_EQ_INT(detect("\xb8\xb8", 2, 2, 0, &g), SDX_FORMAT_JSON); /* nothing reads a byte: the first */
    CHECK(g);
    /* a MessagePack str that is not UTF-8: read furthest by... */
    static const char bad[] = "\x81\xa2\xc3\x28\x01";
    CHECK_EQ_INT(detect(bad, 5, 5, SDX_DETECT_NO_UTF8_CHECK, &g), SDX_FORMAT_MSGPACK);
    CHECK(!g);
}

/* Every byte value at every position of a text that is read eight bytes
 * at a time and then one by one: a control byte other than tab, newline
 * and carriage return (or DEL) means the text is not JSON. The input is
 * 't' and 20 bytes, which CBOR reads as a text string of 20 bytes (and
 * JSON as a bad literal): CBOR when the byte rules JSON out. */
TEST(control_bytes) {
    char text[21];
    for (int b = 0; b < 256; b++) {
        const bool allowed = b >= 0x80 || (b >= 0x20 && b != 0x7f) || b == '\t' || b == '\n' || b == '\r';
        for (size_t at = 1; at < sizeof text; at++) {
            memset(text, 'a', sizeof text);
            text[0] = 't';
            text[at] = (char)b;
            const sdx_format want = allowed ? SDX_FORMAT_JSON : SDX_FORMAT_CBOR;
            CHECK_EQ_INT(detect(text, sizeof text, sizeof text, 0, NULL), want);
        }
    }
}

TEST(arguments) {
    sdx_format f = SDX_FORMAT_JSON;
    CHECK_EQ_INT(sdx_detect_format("x", 1, 1, 0, NULL, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_detect_format(NULL, 1, 1, 0, &f, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(f, SDX_FORMAT_UNKNOWN);
    CHECK_EQ_INT(sdx_detect_format("x", 1, 1, 1u << 7, &f, NULL), SDX_ERR_INVALID_ARG);
    CHECK_EQ_INT(sdx_detect_format(NULL, 0, 0, 0, &f, NULL), SDX_OK);
    CHECK_EQ_INT(f, SDX_FORMAT_JSON);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"names", names},
                                  {"each_format", each_format},
                                  {"bson_lengths", bson_lengths},
                                  {"look_ahead", look_ahead},
                                  {"guesses_and_utf8", guesses_and_utf8},
                                  {"control_bytes", control_bytes},
                                  {"arguments", arguments},
                                  {0, 0}});
}
