/* The UBJSON / BJData pull reader and parser: every type in both dialects,
 * the Draft 12 examples, typed and counted containers, binary data,
 * N-dimensional arrays, limits, streams, and round trips through the
 * writer and the document. */
#include "ubjson_test.h"
#include "paths_test.h"
#include "ubjson/ubjson_internal.h"

#define BJ SDX_UBJSON_READ_BJDATA

/* Read a string literal's bytes (NULs included) and compare the event
 * text; on an error the text ends with "!<code>@<offset>". */
static void expect(const char *in, size_t n, uint32_t flags, const char *want, int line) {
    static evtext t;
    size_t off = 0;
    sdx_ubjson_read_opts o = {flags, 0, 0, NULL};
    sdx_err e = read_text(in, n, &o, &t, &off);
    if (e) evtext_add(&t, "%s!%d@%zu", t.n ? " " : "", (int)e, off);
    if (!test_mem_eq(__FILE__, line, t.s, t.n, want, strlen(want), "events"))
        fprintf(stderr, "  (input of %zu bytes)\n", n);
}
#define EXPECT(lit, flags, want) expect(lit, sizeof(lit) - 1, flags, want, __LINE__)

TEST(scalars) {
    EXPECT("Z", 0, "null");
    EXPECT("T", 0, "true");
    EXPECT("F", 0, "false");
    EXPECT("NNZN", 0, "null"); /* no-ops are never events */
    EXPECT("i\x80", 0, "-128");
    EXPECT("U\xff", 0, "255");
    EXPECT("I\x80\x00", 0, "-32768");
    EXPECT("l\xff\xff\xff\xfe", 0, "-2");
    EXPECT("L\x7f\xff\xff\xff\xff\xff\xff\xff", 0, "9223372036854775807");
    EXPECT("d\x3f\xc0\x00\x00", 0, "1.5_d");
    EXPECT("D\x3f\xb9\x99\x99\x99\x99\x99\x9a", 0, "0.10000000000000001");
    EXPECT("Ca", 0, "\"a\"");
    EXPECT("SU\x03h\xc3\xa9", 0, "\"h\\xc3\\xa9\"");
    EXPECT("SI\x00\x00", 0, "\"\"");
    EXPECT("HU\x16" "3.14159265358979323846", 0, "H\"3.14159265358979323846\"");
    EXPECT("HU\x05-1e99", 0, "H\"-1e99\"");
    /* integers above INT64_MAX that fit uint64: SDX_UINT; others raw */
    EXPECT("HU\x14" "18446744073709551615", 0, "18446744073709551615u");
    EXPECT("HU\x13" "9223372036854775808", 0, "9223372036854775808u");
    EXPECT("HU\x13" "9223372036854775807", 0, "H\"9223372036854775807\"");
    EXPECT("HU\x14" "18446744073709551616", 0, "H\"18446744073709551616\"");
    EXPECT("HU\x14" "09223372036854775808", 0, "!5@0"); /* not a JSON number */
    EXPECT("HU\x14" "-9223372036854775809", 0, "H\"-9223372036854775809\"");
    /* BJData: little-endian, u m M h B */
    EXPECT("I\x00\x80", BJ, "-32768");
    EXPECT("u\x00\x80", BJ, "32768");
    EXPECT("m\xff\xff\xff\xff", BJ, "4294967295");
    EXPECT("M\xff\xff\xff\xff\xff\xff\xff\xff", BJ, "18446744073709551615u");
    EXPECT("M\x01\x00\x00\x00\x00\x00\x00\x00", BJ, "1");
    EXPECT("h\x00\x3c", BJ, "1_h");
    EXPECT("h\x00\x7c", BJ, "inf_h");
    EXPECT("d\x00\x00\xc0\x3f", BJ, "1.5_d");
    EXPECT("B\xfe", BJ, "254");
    EXPECT("SU\x02hi", BJ, "\"hi\"");
    EXPECT("Su\x02\x00hi", BJ, "\"hi\"");
    /* BJData markers are unknown in UBJSON */
    EXPECT("u\x00\x80", 0, "!5@0");
    EXPECT("h\x00\x3c", 0, "!5@0");
    EXPECT("B\x01", 0, "!5@0");
}

/* The examples of the Draft 12 specification (ubjson.org), written out in
 * bytes. */
TEST(draft12_examples) {
    /* object with a string, an int8 key order kept */
    EXPECT("{U\x08username" "SU\x04" "andyU\x09imagedataSU\x03xyz}", 0,
           "{_ k\"username\" \"andy\" k\"imagedata\" \"xyz\" }");
    /* array example: [null, true, false, 4782345193, 153.132, "ham"] */
    EXPECT("[ZTFL\x00\x00\x00\x01\x1d\x0c\xcb\xe9" "d\x43\x19\x21\xcb" "SU\x03ham]", 0,
           "[_ null true false 4782345193 153.13200378417969_d \"ham\" }");
    /* optimized: [$i#U3 ... and {$i#U3 ... */
    EXPECT("[$i#U\x03\x01\x02\x03", 0, "i:[3 1 2 3 }");
    EXPECT("[#U\x03i\x01i\x02i\x03", 0, "[3 1 2 3 }");
    EXPECT("{$i#U\x03U\x03lat\x1dU\x04long\x1eU\x03" "alt\x64", 0,
           "i:{3 k\"lat\" 29 k\"long\" 30 k\"alt\" 100 }");
    EXPECT("{#U\x01U\x01" "aT", 0, "{1 k\"a\" true }");
    /* no-ops inside containers */
    EXPECT("[NU\x01NNU\x02N]", 0, "[_ 1 2 }");
    EXPECT("{NU\x01" "aNZN}", 0, "{_ k\"a\" null }");
    /* typed Z, T, F: no bytes per element */
    EXPECT("[$Z#U\x03", 0, "Z:[3 null null null }");
    EXPECT("[$T#i\x02", 0, "T:[2 true true }");
    EXPECT("[$F#U\x00", 0, "F:[0 }");
    /* typed containers of strings, chars, arrays and objects */
    EXPECT("[$S#U\x02U\x01" "aU\x00", 0, "S:[2 \"a\" \"\" }");
    EXPECT("[$C#U\x02xy", 0, "C:[2 \"x\" \"y\" }");
    EXPECT("[$[#U\x02]#U\x01Z", 0, "[:[2 [_ } [1 null } }");
    EXPECT("[${#U\x01U\x01" "aZ}", 0, "{:[1 {_ k\"a\" null } }");
    EXPECT("[$H#U\x01U\x01" "7", 0, "H:[1 H\"7\" }");
}

TEST(binary_data) {
    EXPECT("[$U#U\x03\x00\xff\x10", 0, "b\"\\x00\\xff\\x10\"");
    EXPECT("[$U#U\x00", 0, "b\"\"");
    EXPECT("[$U#U\x02\x01\x02", SDX_UBJSON_READ_BYTE_ARRAYS, "U:[2 1 2 }");
    EXPECT("[$B#U\x02\x01\x02", BJ, "b\"\\x01\\x02\"");
    EXPECT("[$U#U\x02\x01\x02", BJ, "U:[2 1 2 }"); /* in BJData, B is binary */
    EXPECT("[$B#U\x01\x01", 0, "!5@2");
}

TEST(nd_arrays) {
    /* a 2x3 array of uint8, dimension vector typed and counted */
    EXPECT("[$U#[$U#U\x02\x02\x03\x01\x02\x03\x04\x05\x06", BJ,
           "[2 U:[3 1 2 3 } U:[3 4 5 6 } }");
    /* the plain dimension vector, int16 little-endian elements */
    EXPECT("[$I#[U\x02U\x01]\x01\x00\xff\xff", BJ, "[2 I:[1 1 } I:[1 -1 } }");
    /* a zero dimension: empty arrays, within max_empty */
    EXPECT("[$U#[U\x02U\x00]", BJ, "[2 U:[0 } U:[0 } }");
    EXPECT("[$U#[l\x00\x00\x00\x7fU\x00]", BJ, "!14@0");
    /* lying element count */
    EXPECT("[$D#[U\x02U\x02]\x00", BJ, "!6@0");
    EXPECT("[$U#[[U\x01]]", BJ, "!10@4");
    EXPECT("[$U#[]", BJ, "!5@4");
    EXPECT("[$U#[i\xff]", BJ, "!5@4");
    EXPECT("[${#U\x01", BJ, "!10@2");
    EXPECT("[$i#[$U#U\x01\x02\xff\x01", BJ, "i:[2 -1 1 }");
    EXPECT("[$i#[$U#U\x03\x01\x01\x02\xff\x01", BJ, "[1 [1 i:[2 -1 1 } } }");
    /* read and written again: nested typed arrays, the same events */
    static const char nd[] = "[$u#[U\x02U\x02]\x01\x00\x02\x00\x03\x00\x04\x00";
    sdx_ubjson_read_opts o = {BJ, 0, 0, NULL};
    sdx_ubjson_write_opts wo = {SDX_UBJSON_WRITE_BJDATA, NULL};
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(nd, sizeof nd - 1, &o);
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &b, &wo);
    CHECK_EQ_INT(sdx_transcode(sdx_ubjson_reader_source(r), sdx_ubjson_writer_sink(&w), NULL), SDX_OK);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    sdx_ubjson_reader_free(r);
    CHECK_BYTES(&b, "[#U\x02[$u#U\x02\x01\x00\x02\x00[$u#U\x02\x03\x00\x04\x00");
    expect(sdx_buf_data(&b), sdx_buf_len(&b), BJ, "[2 u:[2 1 2 } u:[2 3 4 } }", __LINE__);
    sdx_buf_destroy(&b);
}

TEST(limits_and_errors) {
    /* a typed container of nulls asking for 2^31 elements: 10 bytes */
    EXPECT("[$Z#l\x7f\xff\xff\xff", 0, "!14@0");
    EXPECT("[$T#L\x7f\xff\xff\xff\xff\xff\xff\xff", 0, "!14@0");
    sdx_ubjson_read_opts o = {0, 0, 2, NULL};
    evtext *t = malloc(sizeof *t);
    size_t off = 0;
    CHECK_EQ_INT(read_text("[$Z#U\x03", 6, &o, t, &off), SDX_ERR_LIMIT);
    CHECK_EQ_INT(read_text("[$Z#U\x02", 6, &o, t, &off), SDX_OK);
    /* counts and lengths beyond the input: truncated at the header */
    EXPECT("[#l\x7f\xff\xff\xff", 0, "!6@0");
    EXPECT("{#U\x02U\x01" "aZ", 0, "!6@0");
    EXPECT("[$I#U\x02\x00\x01\x00", 0, "!6@0");
    EXPECT("SL\x7f\xff\xff\xff\xff\xff\xff\xff", 0, "!6@0");
    EXPECT("[#U\x02ZZZ", 0, "[2 null null } !5@6");
    /* negative counts and lengths, bad length markers */
    EXPECT("[#i\xff", 0, "!5@2");
    EXPECT("Si\xfe", 0, "!5@1");
    EXPECT("SZ", 0, "!5@1");
    EXPECT("SD\x00\x00\x00\x00\x00\x00\x00\x00", 0, "!5@1");
    /* '$' without '#', types not allowed after '$' */
    EXPECT("[$iU\x01]", 0, "!5@3");
    EXPECT("[$N#U\x01", 0, "!5@2");
    EXPECT("[$Z#U\x01", BJ, "!5@2");
    EXPECT("[$S#U\x01", BJ, "!5@2");
    /* chars above 127, bad high-precision numbers, bad UTF-8 */
    EXPECT("C\x80", 0, "!5@0");
    EXPECT("HU\x02" "1.", 0, "!5@0");
    EXPECT("HU\x03" "0x1", 0, "!5@0");
    EXPECT("HU\x00", 0, "!5@0");
    EXPECT("SU\x01\xc3", 0, "!8@0");
    EXPECT("SU\x01\xc3", SDX_UBJSON_READ_NO_UTF8_CHECK, "\"\\xc3\"");
    EXPECT("{U\x01\xff" "Z}", 0, "{_ !8@1");
    /* structure: wrong closers, unknown markers, bytes after the value */
    EXPECT("[}", 0, "[_ !5@1");
    EXPECT("{U\x01" "a}", 0, "{_ k\"a\" !5@4");
    EXPECT("]", 0, "!5@0");
    EXPECT("x", 0, "!5@0");
    EXPECT("ZZ", 0, "null !5@1");
    EXPECT("ZNN", 0, "null");
    EXPECT("", 0, "!6@0");
    EXPECT("NN", 0, "!6@2");
    EXPECT("[", 0, "!6@0");
    EXPECT("[Z", 0, "[_ null !6@2");
    EXPECT("[#U\x01", 0, "!6@0");
    EXPECT("{#U\x01U\x01", 0, "!6@0");
    /* a sequence */
    EXPECT("ZNU\x01[]", SDX_UBJSON_READ_STOP_AFTER_VALUE, "null 1 [_ }");
    free(t);
}

TEST(depth) {
    char deep[3000];
    memset(deep, '[', 1500);
    memset(deep + 1500, ']', 1500);
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(deep, sizeof deep, NULL);
    sdx_event ev;
    uint32_t maxd = 0;
    while (sdx_ubjson_reader_next(r, &ev))
        if (ev.depth > maxd) maxd = ev.depth;
    sdx_error e;
    CHECK_EQ_INT(sdx_ubjson_reader_error(r, &e), SDX_ERR_DEPTH);
    CHECK_EQ_U64(e.offset, 1024);
    CHECK_EQ_U64(maxd, 1023);
    sdx_ubjson_reader_free(r);
    sdx_ubjson_read_opts o = {0, 2000, 0, NULL};
    r = sdx_ubjson_reader_new(deep, sizeof deep, &o);
    size_t n = 0;
    while (sdx_ubjson_reader_next(r, &ev)) n++;
    CHECK_EQ_INT(sdx_ubjson_reader_error(r, NULL), SDX_OK);
    CHECK_EQ_U64(n, 3000);
    sdx_ubjson_reader_free(r);
}

/* The event text of a stream reader over the same bytes, `step` bytes per
 * read, with a chunk of `chunk`. */
static sdx_err stream_text(const void *in, size_t n, size_t step, size_t chunk,
                           const sdx_ubjson_read_opts *o, evtext *t, size_t *off) {
    trickle tr = {in, n, step};
    evtext_clear(t);
    sdx_ubjson_reader *r = sdx_ubjson_reader_new_stream(trickle_read, &tr, chunk, o);
    if (!r) return SDX_ERR_NOMEM;
    sdx_err rc = read_events(r, t, off);
    evtext_trim(t);
    return rc;
}

/* A document with every kind of value, written by the writer. */
static size_t sample(sdx_buf *b, uint32_t wflags) {
    sdx_buf_init(b, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_write_opts o = {wflags, NULL};
    sdx_ubjson_writer_init(&w, b, &o);
    char big[700];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    sdx_ubjson_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_key(&w, "ints", 4);
    sdx_ubjson_writer_begin_array(&w, 9);
    int64_t ints[] = {0, -1, 200, -200, 40000, -40000, 3000000000, INT64_MIN};
    for (size_t i = 0; i < 8; i++) sdx_ubjson_writer_int(&w, ints[i]);
    sdx_ubjson_writer_uint(&w, UINT64_MAX);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "floats", 6);
    sdx_ubjson_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
    sdx_ubjson_writer_double(&w, 0.1);
    sdx_ubjson_writer_float(&w, 2.5f);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "\xc3\xa9t\xc3\xa9", 6);
    sdx_ubjson_writer_string(&w, big, sizeof big);
    sdx_ubjson_writer_key(&w, "", 0);
    sdx_ubjson_writer_begin_map(&w, 3);
    sdx_ubjson_writer_key(&w, "c", 1);
    sdx_ubjson_writer_char(&w, 'c');
    sdx_ubjson_writer_key(&w, "h", 1);
    sdx_ubjson_writer_high_precision(&w, "123456789012345678901234567890", 30);
    sdx_ubjson_writer_key(&w, "b", 1);
    sdx_ubjson_writer_bin(&w, big, 300);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "typed", 5);
    sdx_ubjson_writer_begin_typed_array(&w, 'I', 2);
    sdx_ubjson_writer_int(&w, -5);
    sdx_ubjson_writer_int(&w, 300);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "tmap", 4);
    sdx_ubjson_writer_begin_typed_map(&w, 'D', 1);
    sdx_ubjson_writer_key(&w, "x", 1);
    sdx_ubjson_writer_double(&w, -0.0);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_key(&w, "misc", 4);
    sdx_ubjson_writer_begin_array(&w, 3);
    sdx_ubjson_writer_null(&w);
    sdx_ubjson_writer_bool(&w, true);
    sdx_ubjson_writer_bool(&w, false);
    sdx_ubjson_writer_end(&w);
    sdx_ubjson_writer_end(&w);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    return sdx_buf_len(b);
}

TEST(streams_agree_with_memory) {
    static evtext a, s;
    for (int bj = 0; bj < 2; bj++) {
        sdx_buf b;
        size_t n = sample(&b, bj ? SDX_UBJSON_WRITE_BJDATA : 0);
        sdx_ubjson_read_opts o = {bj ? BJ : 0, 0, 0, NULL};
        size_t off1 = 0, off2 = 0;
        CHECK_EQ_INT(read_text(sdx_buf_data(&b), n, &o, &a, &off1), SDX_OK);
        CHECK(strstr(a.s, "H\"123456789012345678901234567890\"") != NULL);
        CHECK(strstr(a.s, "18446744073709551615u") != NULL);
        size_t steps[] = {1, 3, 64, 100000};
        for (size_t i = 0; i < 4; i++) {
            CHECK_EQ_INT(stream_text(sdx_buf_data(&b), n, steps[i], 16, &o, &s, &off2), SDX_OK);
            CHECK_MEM(s.s, s.n, a.s, a.n);
        }
        sdx_buf_destroy(&b);
    }
    /* FILE* */
    sdx_buf b;
    size_t n = sample(&b, 0);
    FILE *f = tmpfile();
    if (CHECK(f != NULL)) {
        fwrite(sdx_buf_data(&b), 1, n, f);
        rewind(f);
        sdx_ubjson_reader *r = sdx_ubjson_reader_new_file(f, NULL);
        sdx_event ev;
        size_t events = 0;
        while (sdx_ubjson_reader_next(r, &ev)) events++;
        CHECK_EQ_INT(sdx_ubjson_reader_error(r, NULL), SDX_OK);
        CHECK_EQ_U64(sdx_ubjson_reader_offset(r), n);
        CHECK(events > 40);
        sdx_ubjson_reader_free(r);
        fclose(f);
    }
    sdx_buf_destroy(&b);
}

/* reader -> writer gives back the bytes, in both dialects (the sample uses
 * the smallest encodings); so does parse -> emit -> writer. */
TEST(round_trips) {
    for (int bj = 0; bj < 2; bj++) {
        sdx_buf b, out;
        size_t n = sample(&b, bj ? SDX_UBJSON_WRITE_BJDATA : 0);
        sdx_ubjson_read_opts o = {bj ? BJ : 0, 0, 0, NULL};
        sdx_ubjson_write_opts wo = {bj ? SDX_UBJSON_WRITE_BJDATA : 0, NULL};
        sdx_ubjson_reader *r = sdx_ubjson_reader_new(sdx_buf_data(&b), n, &o);
        sdx_buf_init(&out, NULL);
        sdx_ubjson_writer w;
        sdx_ubjson_writer_init(&w, &out, &wo);
        sdx_error e;
        CHECK_EQ_INT(sdx_transcode(sdx_ubjson_reader_source(r), sdx_ubjson_writer_sink(&w), &e),
                     SDX_OK);
        CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
        CHECK_MEM(sdx_buf_data(&out), sdx_buf_len(&out), sdx_buf_data(&b), n);
        sdx_ubjson_reader_free(r);
        sdx_buf_destroy(&out);

        sdx_doc *doc = sdx_ubjson_parse(sdx_buf_data(&b), n, &o, &e);
        if (CHECK(doc != NULL)) {
            CHECK_EQ_U64(sdx_doc_consumed(doc), n);
            sdx_node root = sdx_doc_root(doc);
            size_t len = 0;
            CHECK(sdx_node_type(sdx_node_get(sdx_node_getz(root, ""), "h", 1)) == SDX_TYPE_RAW);
            const char *c = sdx_node_str(sdx_node_get(sdx_node_getz(root, ""), "c", 1), &len);
            CHECK(len == 1 && c && c[0] == 'c');
            /* the document written and parsed again is the same document
             * (its containers are counted now: the document knows counts) */
            sdx_buf_init(&out, NULL);
            sdx_ubjson_writer_init(&w, &out, &wo);
            CHECK_EQ_INT(sdx_node_emit(root, sdx_ubjson_writer_sink(&w)), SDX_OK);
            CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
            CHECK(sdx_buf_len(&out) > n); /* the '#' counts */
            sdx_doc *again = sdx_ubjson_parse(sdx_buf_data(&out), sdx_buf_len(&out), &o, &e);
            CHECK(again && sdx_node_equal(root, sdx_doc_root(again)));
            sdx_doc_free(again);
            sdx_buf_destroy(&out);
            sdx_doc_free(doc);
        }
        sdx_buf_destroy(&b);
    }
    /* parse errors carry the reader's offset */
    sdx_error e;
    CHECK(sdx_ubjson_parse("[ZZx]", 5, NULL, &e) == NULL);
    CHECK_EQ_INT(e.code, SDX_ERR_SYNTAX);
    CHECK_EQ_U64(e.offset, 3);
    /* STOP_AFTER_VALUE: the first value, and where it ended */
    sdx_ubjson_read_opts so = {SDX_UBJSON_READ_STOP_AFTER_VALUE, 0, 0, NULL};
    sdx_doc *doc = sdx_ubjson_parse("[U\x01]xx", 6, &so, &e);
    if (CHECK(doc != NULL)) {
        CHECK_EQ_U64(sdx_doc_consumed(doc), 4);
        CHECK_EQ_INT(sdx_node_int(sdx_node_index(sdx_doc_root(doc), 0)), 1);
        sdx_doc_free(doc);
    }
}

/* MessagePack bin -> UBJSON -> MessagePack keeps the bytes. */
TEST(binary_through_msgpack) {
    const char mp[] = "\x92\xc4\x03\x00\x01\xff\xa1x";
    sdx_buf u, m;
    sdx_buf_init(&u, NULL);
    sdx_ubjson_writer w;
    sdx_ubjson_writer_init(&w, &u, NULL);
    sdx_msgpack_reader *mr = sdx_msgpack_reader_new(mp, sizeof mp - 1, NULL);
    CHECK_EQ_INT(sdx_transcode(sdx_msgpack_reader_source(mr), sdx_ubjson_writer_sink(&w), NULL),
                 SDX_OK);
    CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK);
    sdx_msgpack_reader_free(mr);
    CHECK_BYTES(&u, "[#U\x02[$U#U\x03\x00\x01\xff" "Cx");
    sdx_buf_init(&m, NULL);
    sdx_msgpack_writer mw;
    sdx_msgpack_writer_init(&mw, &m, NULL);
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(sdx_buf_data(&u), sdx_buf_len(&u), NULL);
    CHECK_EQ_INT(sdx_transcode(sdx_ubjson_reader_source(r), sdx_msgpack_writer_sink(&mw), NULL),
                 SDX_OK);
    CHECK_EQ_INT(sdx_msgpack_writer_finish(&mw), SDX_OK);
    sdx_ubjson_reader_free(r);
    CHECK_MEM(sdx_buf_data(&m), sdx_buf_len(&m), mp, sizeof mp - 1);
    sdx_buf_destroy(&u);
    sdx_buf_destroy(&m);
}

/* Through the mapping layer into JSON (what the sdx command does): a char
 * and typed containers are their plain values. */
TEST(mapping_to_json) {
    static const char in[] = "[#U\x03" "Ca[$i#U\x02\x01\xff{$Z#U\x01U\x01k";
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_json_writer jw;
    sdx_json_writer_init(&jw, &out, NULL);
    sdx_map_to_json m;
    CHECK_EQ_INT(sdx_map_to_json_init(&m, sdx_json_writer_sink(&jw), NULL), SDX_OK);
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(in, sizeof in - 1, NULL);
    CHECK_EQ_INT(sdx_transcode(sdx_ubjson_reader_source(r), sdx_map_to_json_sink(&m), NULL), SDX_OK);
    CHECK_EQ_INT(sdx_sink_finish(sdx_map_to_json_sink(&m)), SDX_OK);
    sdx_ubjson_reader_free(r);
    CHECK_BYTES(&out, "[\"a\",[1,-1],{\"k\":null}]");
    sdx_buf_destroy(&out);
}

TEST(skip) {
    const char in[] = "[#U\x03[U\x01{U\x01" "aZ}]SU\x01xZ";
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(in, sizeof in - 1, NULL);
    sdx_event ev;
    CHECK(sdx_ubjson_reader_next(r, &ev) && ev.kind == SDX_ARRAY);
    CHECK(sdx_ubjson_reader_next(r, &ev) && ev.kind == SDX_ARRAY);
    CHECK(sdx_ubjson_reader_skip(r));
    CHECK(sdx_ubjson_reader_next(r, &ev) && ev.kind == SDX_STR);
    CHECK(sdx_ubjson_reader_skip(r));
    CHECK(sdx_ubjson_reader_next(r, &ev) && ev.kind == SDX_NULL);
    CHECK(sdx_ubjson_reader_next(r, &ev) && ev.kind == SDX_END && ev.depth == 0);
    CHECK(!sdx_ubjson_reader_next(r, &ev));
    CHECK_EQ_INT(sdx_ubjson_reader_error(r, NULL), SDX_OK);
    sdx_ubjson_reader_free(r);
}

/* A random document with every value the inline path of ubjson.h takes and
 * many it hands on: integers of every width and sign, float32 and float64,
 * ASCII and non-ASCII strings of every length class, chars, high-precision
 * numbers, binary, typed and N-dimensional arrays, plain and counted
 * containers of small and large counts, nesting; `rng` a seed. */
/* A random value; `common`: of the common form only (what sdx_ubjson_parse
 * reads directly: no H, binaries or typed containers). */
static void gen_value(sdx_ubjson_writer *w, unsigned *rng, int depth, int bj, int common) {
    const char *text = evtext_sample_ascii(), *utf8 = evtext_sample_utf8();
    unsigned c = evtext_rand(rng) % (depth < 4 ? 20 : 14);
    if (common && (c == 3 || c == 11 || c == 12)) c = 7;
    int64_t big = (int64_t)((uint64_t)evtext_rand(rng) << 40 | evtext_rand(rng));
    switch (c) {
    case 0: sdx_ubjson_writer_int(w, (int64_t)(evtext_rand(rng) % 600) - 300); break;
    case 1: sdx_ubjson_writer_int(w, (int64_t)(evtext_rand(rng) % 140000) - 70000); break;
    case 2: sdx_ubjson_writer_int(w, evtext_rand(rng) & 1 ? big : -big); break;
    case 3: sdx_ubjson_writer_uint(w, UINT64_MAX - evtext_rand(rng)); break;
    case 4: sdx_ubjson_writer_double(w, (double)big / 7.0); break;
    case 5: sdx_ubjson_writer_float(w, (float)((double)big / 3.0)); break;
    case 6: sdx_ubjson_writer_string(w, text, evtext_rand(rng) % 300); break;
    case 7: sdx_ubjson_writer_string(w, text, evtext_rand(rng) % 20); break;
    case 8: {
        static const size_t cut[] = {0, 2, 4, 7, 16, 20, 29};
        sdx_ubjson_writer_string(w, utf8, cut[evtext_rand(rng) % 7]);
        break;
    }
    case 9: sdx_ubjson_writer_bool(w, evtext_rand(rng) & 1); break;
    case 10: sdx_ubjson_writer_null(w); break;
    case 11:
        if (evtext_rand(rng) & 1) sdx_ubjson_writer_bin(w, text, evtext_rand(rng) % 40);
        else if (bj) sdx_ubjson_writer_char(w, 'q');
        else sdx_ubjson_writer_high_precision(w, "-12.5e300", 9);
        break;
    case 12: { /* typed: D, or N-dimensional in BJData */
        uint64_t dims[2] = {2, 1 + evtext_rand(rng) % 3};
        if (bj && evtext_rand(rng) & 1) sdx_ubjson_writer_begin_nd_array(w, 'D', dims, 2);
        else sdx_ubjson_writer_begin_typed_array(w, 'D', dims[0] * dims[1]);
        for (uint64_t i = 0; i < dims[0] * dims[1]; i++)
            sdx_ubjson_writer_double(w, 0.25 * (double)i);
        sdx_ubjson_writer_end(w);
        break;
    }
    case 13: sdx_ubjson_writer_double(w, 0.5 * (evtext_rand(rng) % 9)); break;
    default: {
        int map = c >= 17;
        /* counts of I (above 255) now and then, near the top */
        uint64_t n = evtext_rand(rng) % 6;
        if (depth == 2 && evtext_rand(rng) % 3 == 0) n = 250 + evtext_rand(rng) % 30;
        uint64_t declared = c == 16 || c == 19 ? SDX_COUNT_UNKNOWN : n;
        if (map) sdx_ubjson_writer_begin_map(w, declared);
        else sdx_ubjson_writer_begin_array(w, declared);
        for (uint64_t i = 0; i < n; i++) {
            if (map) {
                char key[24];
                int kn = snprintf(key, sizeof key, "%.*sk%u", (int)(evtext_rand(rng) % 20), text,
                                  evtext_rand(rng) % 1000);
                sdx_ubjson_writer_key(w, key, (size_t)kn);
            }
            gen_value(w, rng, depth + 1, bj, common);
        }
        sdx_ubjson_writer_end(w);
        break;
    }
    }
}

typedef struct read_log {
    sdx_event ev[60000];
    uint64_t off[60000]; /* sdx_ubjson_reader_offset after each event */
    size_t n;
    sdx_err rc;
    uint64_t err_off;
} read_log;

/* Read the input to its end (skipping the value of the event numbered
 * skip_at), with the inline path (the macro sdx_ubjson_reader_next) or
 * only the exported function, from memory (chunk 0) or a stream of
 * `chunk` bytes a read. */
static void read_all(const unsigned char *in, size_t n, uint32_t flags, int use_inline,
                     size_t skip_at, size_t chunk, read_log *g) {
    sdx_ubjson_read_opts o = {flags, 0, 0, NULL};
    trickle tr = {in, n, chunk};
    sdx_ubjson_reader *r = chunk ? sdx_ubjson_reader_new_stream(trickle_read, &tr, 16, &o)
                                 : sdx_ubjson_reader_new((const char *)in, n, &o);
    size_t k = 0, max = sizeof g->off / sizeof g->off[0];
    while (k < max && (use_inline ? sdx_ubjson_reader_next(r, &g->ev[k])
                                  : (sdx_ubjson_reader_next)(r, &g->ev[k]))) {
        g->off[k] = sdx_ubjson_reader_offset(r);
        if (k++ == skip_at) {
            if (!sdx_ubjson_reader_skip(r)) break;
            g->off[k - 1] = sdx_ubjson_reader_offset(r);
        }
    }
    g->n = k;
    sdx_error e;
    g->rc = sdx_ubjson_reader_error(r, &e);
    g->err_off = g->rc ? e.offset : 0;
    sdx_ubjson_reader_free(r);
}

/* Whether two reads gave the same events, offsets and error; `deep`
 * compares the events' values too (a stream's strings point elsewhere). */
static int same_log(const read_log *a, const read_log *b, int deep) {
    if (a->n != b->n || a->rc != b->rc || a->err_off != b->err_off) return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->off[i] != b->off[i] || a->ev[i].kind != b->ev[i].kind ||
            a->ev[i].depth != b->ev[i].depth)
            return 0;
        if (deep && !evtext_same_event(&a->ev[i], &b->ev[i])) return 0;
    }
    return 1;
}

/* One to three bytes set to a marker or any value. */
static void ubj_mutate(char *x, size_t n, void *ctx) {
    static const unsigned char markers[] = "[]{}#$NZTFiUIlLdDSCHumMhB";
    unsigned *rng = ctx;
    for (unsigned k = 0, nk = 1 + evtext_rand(rng) % 3; k < nk; k++) {
        size_t at = evtext_rand(rng) % n;
        x[at] = (char)(evtext_rand(rng) & 1 ? markers[evtext_rand(rng) % (sizeof markers - 1)]
                                            : (unsigned char)evtext_rand(rng));
    }
}

/* The inline path of ubjson.h gives exactly what the exported function
 * gives: the same events (fields, string views), offsets after each,
 * skips, errors and their offsets, on random documents of both dialects
 * with and without UTF-8 checks, from memory and from streams, and on
 * 4000 mutated copies of each (bytes set to markers or random values),
 * where the inline path must hand every malformed value on. */
TEST(inline_path) {
    static read_log a, b;
    for (unsigned seed = 1; seed <= 8; seed++) {
        int bj = seed & 1;
        uint32_t flags = (bj ? SDX_UBJSON_READ_BJDATA : 0) |
                         (seed & 2 ? SDX_UBJSON_READ_NO_UTF8_CHECK : 0);
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_ubjson_writer w;
        sdx_ubjson_write_opts wo = {bj ? SDX_UBJSON_WRITE_BJDATA : 0, NULL};
        sdx_ubjson_writer_init(&w, &out, &wo);
        unsigned rng = seed;
        sdx_ubjson_writer_begin_array(&w, seed & 4 ? SDX_COUNT_UNKNOWN : 60);
        for (int i = 0; i < 60; i++) gen_value(&w, &rng, 1, bj, 0);
        sdx_ubjson_writer_end(&w);
        if (!CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK)) break;
        unsigned char *in = malloc(sdx_buf_len(&out));
        size_t n = sdx_buf_len(&out);
        memcpy(in, sdx_buf_data(&out), n);
        sdx_buf_destroy(&out);
        read_all(in, n, flags, 1, SIZE_MAX, 0, &a);
        read_all(in, n, flags, 0, SIZE_MAX, 0, &b);
        CHECK(a.n > 300);
        CHECK_EQ_INT(a.rc, SDX_OK);
        if (!CHECK(same_log(&a, &b, 1))) fprintf(stderr, "  seed %u\n", seed);
        /* skip after each of the first 500 events */
        size_t bad = 0;
        for (size_t at = 0; at < a.n && at < 500; at++) {
            read_all(in, n, flags, 1, at, 0, &a);
            read_all(in, n, flags, 0, at, 0, &b);
            bad += !same_log(&a, &b, 1);
        }
        CHECK_EQ_U64(bad, 0);
        /* streams: the window moves under the inline path */
        read_all(in, n, flags, 0, SIZE_MAX, 0, &b);
        for (size_t chunk = 1; chunk <= 64; chunk = chunk * 3 + 1) {
            read_all(in, n, flags, 1, SIZE_MAX, chunk, &a);
            bad += !same_log(&a, &b, 0) || a.rc != SDX_OK;
        }
        CHECK_EQ_U64(bad, 0);
        /* mutations: one to three bytes set to a marker or any value */
        for (int m = 0; m < 4000; m++) {
            unsigned char *x = malloc(n);
            memcpy(x, in, n);
            ubj_mutate((char *)x, n, &rng);
            read_all(x, n, flags, 1, SIZE_MAX, 0, &a);
            read_all(x, n, flags, 0, SIZE_MAX, 0, &b);
            if (!same_log(&a, &b, 1)) {
                bad++;
                if (bad < 4)
                    fprintf(stderr, "  seed %u mutation %d: %zu/%zu events, rc %d/%d\n", seed, m,
                            a.n, b.n, a.rc, b.rc);
            }
            free(x);
        }
        CHECK_EQ_U64(bad, 0);
        free(in);
    }
    /* the edges of what the inline path takes, each inside a plain array
     * and followed by 40000 bytes of nulls (a window it runs in): negative
     * and large lengths and counts of every marker, strings of 128 and
     * 129 bytes, non-ASCII text, float32 infinities and NaNs, no-ops,
     * closing markers in the wrong place, typed and N-dimensional arrays */
    static const struct { const char *s; size_t n; } edge[] = {
#define E(lit) {lit, sizeof lit - 1}
        E("[#i\x80"), E("[#i\x05ZZZZZ"), E("[#I\x80\x00"), E("[#I\x00\x80"),
        E("[#I\x01\x00"), E("[#U\xff"), E("[#U\x05ZZZZZ"), E("[#l\x00\x00\x00\x02ZZ"),
        E("{#U\x01i\x03" "abcZ"), E("{#i\xffi\x01" "aZ"), E("{#U\x02U\x01" "aZ"), E("{i\x80"),
        E("{U\x80"), E("{U\x81"), E("{I\x00\x02" "abZ}"), E("{NU\x01" "aZ}"), E("{U\x01" "a]"),
        E("{U\x01" "aNZ}"), E("[}"), E("[N]"), E("Si\x80"), E("SU\x80"), E("SU\x81"),
        E("Si\x7f"), E("SU\x05" "ab\xc3\xa9" "c"), E("SU\x03" "a\xff" "c"), E("SI\x00\x03" "abc"),
        E("d\x7f\x80\x00\x00"), E("d\x7f\xc0\x00\x01"), E("d\xff\x80\x00\x01"),
        E("d\x00\x00\x00\x01"),
        E("d\x80\x00\x00\x00"), E("D\x7f\xf0\x00\x00\x00\x00\x00\x01"), E("C\x41"),
        E("C\xc1"), E("HU\x02" "12"), E("[$D#U\x01\x3f\xf0\x00\x00\x00\x00\x00\x00"),
        E("[$U#U\x02" "ab"), E("[$Z#U\x03"), E("[$D#[U\x01U\x01]\x3f\xf0\0\0\0\0\0\0"),
        E("{$Z#U\x01U\x01" "a"), E("uU\x01"), E("mZZZZ"), E("MZZZZZZZZ"), E("hZZ"), E("BZ"),
        E("L\x80\0\0\0\0\0\0\0"), E("l\xff\xff\xff\xff"), E("I\x80\x00"), E("i\x80"),
        E("U\xff"), E("T"), E("F"), E("Z"), E("N"), E("]"), E("}"), E("X"), E("\0"),
#undef E
    };
    size_t bad = 0;
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        static unsigned char x[40512];
        x[0] = '[';
        memcpy(x + 1, edge[i].s, edge[i].n);
        size_t n = 1 + edge[i].n;
        memset(x + n, 'Z', 40000);
        n += 40000;
        for (int k = 0; k < 4; k++) x[n++] = ']';
        for (int dialect = 0; dialect < 2; dialect++) {
            for (int utf8 = 0; utf8 < 2; utf8++) {
                uint32_t flags = (dialect ? SDX_UBJSON_READ_BJDATA : 0) |
                                 (utf8 ? SDX_UBJSON_READ_NO_UTF8_CHECK : 0);
                read_all(x, n, flags, 1, SIZE_MAX, 0, &a);
                read_all(x, n, flags, 0, SIZE_MAX, 0, &b);
                if (!same_log(&a, &b, 1)) {
                    bad++;
                    fprintf(stderr, "  edge %zu, bjdata %d: %zu/%zu events, rc %d/%d\n", i, dialect,
                            a.n, b.n, a.rc, b.rc);
                }
            }
        }
    }
    CHECK_EQ_U64(bad, 0);
}

/* sdx_ubjson_parse's paths for paths_check (tests/unit/paths_test.h). */
static int ubj_direct(const char *d, size_t n, const void *o, sdx_doc **out) {
    return sdx_ubjson_parse_direct_(d, n, o, out);
}
static sdx_doc *ubj_events(const char *d, size_t n, const void *o, sdx_error *e) {
    return sdx_ubjson_parse_events_(d, n, o, e);
}
static sdx_doc *ubj_parse(const char *d, size_t n, const void *o, sdx_error *e) {
    return sdx_ubjson_parse(d, n, o, e);
}
static const paths_fmt ubj_paths = {ubj_direct, ubj_events, ubj_parse};

/* sdx_ubjson_parse reads the common form directly and leaves the rest to
 * the reader's events into the builder: on random documents of the common
 * form the direct parse takes them and gives the builder's slots; on 3000
 * mutated copies of each it either gives the builder's slots or declines,
 * never accepting what the reader refuses, and sdx_ubjson_parse returns
 * the reader's error and offset; typed containers, H, no-ops and bytes
 * after the value are declined. */
TEST(parse_paths_agree) {
    paths_tally t = {0, 0, 0};
    for (unsigned seed = 1; seed <= 6; seed++) {
        uint32_t flags = seed & 2 ? SDX_UBJSON_READ_NO_UTF8_CHECK : 0;
        sdx_ubjson_read_opts o = {flags, 0, 0, NULL};
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        sdx_ubjson_writer w;
        sdx_ubjson_writer_init(&w, &out, NULL);
        unsigned rng = seed;
        sdx_ubjson_writer_begin_map(&w, seed & 1 ? SDX_COUNT_UNKNOWN : 40);
        for (int i = 0; i < 40; i++) {
            sdx_ubjson_writer_key(&w, "k", 1);
            gen_value(&w, &rng, 1, 0, 1);
        }
        sdx_ubjson_writer_end(&w);
        if (!CHECK_EQ_INT(sdx_ubjson_writer_finish(&w), SDX_OK)) break;
        size_t n = sdx_buf_len(&out);
        unsigned char *in = malloc(n);
        memcpy(in, sdx_buf_data(&out), n);
        sdx_buf_destroy(&out);
        paths_check(&ubj_paths, &o, (const char *)in, n, 3000, ubj_mutate, &rng, &t);
        free(in);
    }
    CHECK(t.direct > 1000);
    CHECK(t.declined > 1000);
    CHECK(t.refused > 1000);
    /* declined, each inside a plain array: the general path's forms */
    static const struct { const char *s; size_t n; } other[] = {
#define E(lit) {lit, sizeof lit - 1}
        E("[$D#U\x01\x3f\xf0\0\0\0\0\0\0]"), E("[C\xc1]"), E("[HU\x02" "12]"), E("[NZ]"),
        E("[Z]N"), E("[Z]Z"), E("[#U\x01$]"), E("[#U\x02Z]"),
#undef E
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        sdx_doc *d = NULL;
        CHECK_EQ_INT(sdx_ubjson_parse_direct_(other[i].s, other[i].n, NULL, &d), 0);
        CHECK(d == NULL);
    }
    /* BJData is the general path's too */
    sdx_ubjson_read_opts bj = {BJ, 0, 0, NULL};
    sdx_doc *d = NULL;
    CHECK_EQ_INT(sdx_ubjson_parse_direct_("[Z]", 3, &bj, &d), 0);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"scalars", scalars},
                                  {"draft12_examples", draft12_examples},
                                  {"binary_data", binary_data},
                                  {"nd_arrays", nd_arrays},
                                  {"limits_and_errors", limits_and_errors},
                                  {"depth", depth},
                                  {"streams_agree_with_memory", streams_agree_with_memory},
                                  {"round_trips", round_trips},
                                  {"binary_through_msgpack", binary_through_msgpack},
                                  {"mapping_to_json", mapping_to_json},
                                  {"skip", skip},
                                  {"inline_path", inline_path},
                                  {"parse_paths_agree", parse_paths_agree},
                                  {0, 0}});
}
