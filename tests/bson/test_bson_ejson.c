/*
 * The Extended JSON side of the MongoDB BSON corpus (corpus_extjson.txt,
 * made by extract_corpus.py), through the mapping layer (map.h): BSON
 * reader -> sdx_map_to_json -> JSON writer, and JSON reader ->
 * sdx_map_from_json (SDX_MAP_TARGET_BSON) -> BSON writer.
 *
 * For every valid case, as the corpus's README (bson-corpus.md) lists:
 *   canonical_bson -> canonical Extended JSON   == canonical_extjson
 *   canonical_bson -> relaxed Extended JSON     == relaxed_extjson (if any)
 *   canonical_extjson -> BSON                   == canonical_bson (unless lossy)
 *   degenerate_extjson -> BSON                  == canonical_bson (unless lossy)
 *   degenerate_bson -> canonical Extended JSON  == canonical_extjson (if any)
 *   relaxed_extjson -> BSON -> relaxed JSON     == relaxed_extjson (if any)
 * and every parseErrors case is rejected on its way to BSON.
 *
 * JSON is compared as the README says, not byte for byte: both texts are
 * read and written again by sdx's JSON reader and writer (whitespace,
 * escapes and the spelling of numbers fall away: 1.2345678921232E+18 and
 * 1.2345678921232e18 are the same double), and so are the strings of
 * "$numberDouble" (the README: a double's text may differ between
 * implementations, its value may not). Key order and every type are
 * compared.
 *
 * Beyond the corpus: legacy and offset forms and malformed wrappers
 * (forms), $scope nesting to its bound, allocation failure at every point
 * both ways, every prefix and byte substitutions of a JSON document with
 * every type, byte substitutions of every canonical_bson.
 *
 * The parseErrors cases: the decimal128 files' as {"d": {"$numberDecimal":
 * S}} documents in corpus_extjson.txt, the other files' in
 * corpus_parse_errors.txt (file TAB description TAB JSON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_test.h"
#include "ejson_test.h"
#include "msgpack_util.h"
#include "num/num.h"
#include "sdx/sdx.h"
#include "test.h"

#ifndef SDX_BSON_DATA_DIR
#define SDX_BSON_DATA_DIR "tests/bson"
#endif

/* The allocator of the layer, readers and writers (NULL: the default). */
static const sdx_alloc *test_alloc;

static sdx_err bson_to_json(const unsigned char *in, size_t n, uint32_t flags, sdx_buf *out) {
    return ejson_from_bson(in, n, flags, test_alloc, out);
}

static sdx_err json_to_bson_n(const char *text, size_t n, sdx_buf *out) {
    return ejson_to_bson(text, n, test_alloc, out);
}

static sdx_err json_to_bson(const char *text, sdx_buf *out) { return json_to_bson_n(text, strlen(text), out); }

/* JSON text normalized for comparison (see the top); NULL if it is not
 * JSON. Free the result. */
static char *normalize(const char *text, size_t n) {
    sdx_json_reader *r = sdx_json_reader_new(text, n, NULL);
    sdx_buf out;
    sdx_buf_init(&out, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &out, NULL);
    sdx_event ev;
    int after_double_key = 0;
    char num[SDX_DTOA_RESERVE];
    while (sdx_json_reader_next(r, &ev)) {
        if (after_double_key && ev.kind == SDX_STR) {
            double d;
            const char *s = ev.v.str.ptr, *end = s + ev.v.str.len;
            if (s < end && sdx_parse_double(s, end, &d) == end) {
                ev.v.str.ptr = num;
                ev.v.str.len = (size_t)(sdx_dtoa_json(num, d) - num);
            }
        }
        after_double_key = ev.kind == SDX_KEY && ev.v.str.len == 13 && !memcmp(ev.v.str.ptr, "$numberDouble", 13);
        sdx_json_writer_put(&w, &ev);
    }
    sdx_err rc = sdx_json_reader_error(r, NULL);
    sdx_err wc = sdx_json_writer_finish(&w);
    sdx_json_reader_free(r);
    char *res = NULL;
    if (!rc && !wc) {
        res = malloc(sdx_buf_len(&out) + 1);
        memcpy(res, sdx_buf_data(&out), sdx_buf_len(&out));
        res[sdx_buf_len(&out)] = 0;
    }
    sdx_buf_destroy(&out);
    return res;
}

static int json_equal(const char *a, size_t an, const char *b) {
    char *x = normalize(a, an), *y = normalize(b, strlen(b));
    int eq = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return eq;
}

static unsigned char *unhex_alloc(const char *hex, size_t *n) {
    size_t cap = strlen(hex) / 2 + 1;
    unsigned char *b = malloc(cap);
    *n = mp_unhex(hex, b, cap);
    return b;
}

/* Counts, printed at the end. */
static long to_canonical, to_relaxed, from_canonical, from_degenerate, from_degenerate_bson, relaxed_round,
    parse_rejected, valid_cases;

/* BSON (hex) -> JSON in `flags` mode equals `want`. */
static int check_to_json(const char *hex, uint32_t flags, const char *want, const char *what, const char *desc) {
    size_t n;
    unsigned char *b = unhex_alloc(hex, &n);
    sdx_buf out;
    sdx_err rc = bson_to_json(b, n, flags, &out);
    int ok = rc == SDX_OK && json_equal(sdx_buf_data(&out), sdx_buf_len(&out), want);
    if (!CHECK(ok))
        fprintf(stderr, "  %s: %s: error %d, got %.*s\n    want %s\n", desc, what, rc, (int)sdx_buf_len(&out),
                sdx_buf_data(&out), want);
    sdx_buf_destroy(&out);
    free(b);
    return ok;
}

/* JSON -> BSON equals the hex bytes. */
static int check_to_bson(const char *json, const char *hex, const char *what, const char *desc) {
    size_t n;
    unsigned char *want = unhex_alloc(hex, &n);
    sdx_buf out;
    sdx_err rc = json_to_bson(json, &out);
    int ok = rc == SDX_OK && sdx_buf_len(&out) == n && !memcmp(sdx_buf_data(&out), want, n);
    if (!CHECK(ok)) {
        fprintf(stderr, "  %s: %s: error %d, got ", desc, what, rc);
        for (size_t i = 0; i < sdx_buf_len(&out); i++) fprintf(stderr, "%02X", (unsigned char)sdx_buf_data(&out)[i]);
        fprintf(stderr, "\n    want %s\n", hex);
    }
    sdx_buf_destroy(&out);
    free(want);
    return ok;
}

static int present(const char *f) { return strcmp(f, "-") != 0; }

static void valid_case(char **f) {
    const char *file = f[1], *desc = f[2], *cb = f[3], *cej = f[4], *rej = f[5], *dej = f[6], *db = f[7];
    int lossy = f[8][0] == '1';
    valid_cases++;
    to_canonical += check_to_json(cb, SDX_MAP_EJSON_CANONICAL, cej, "cB -> cEJ", desc);
    if (present(rej)) to_relaxed += check_to_json(cb, SDX_MAP_EJSON_RELAXED, rej, "cB -> rEJ", desc);
    if (!lossy) from_canonical += check_to_bson(cej, cb, "cEJ -> cB", desc);
    if (present(dej) && !lossy) from_degenerate += check_to_bson(dej, cb, "dEJ -> cB", desc);
    if (present(db)) from_degenerate_bson += check_to_json(db, SDX_MAP_EJSON_CANONICAL, cej, "dB -> cEJ", desc);
    if (present(rej)) { /* rEJ -> BSON -> rEJ */
        sdx_buf b;
        sdx_err rc = json_to_bson(rej, &b);
        sdx_buf j;
        sdx_err rc2 = rc ? rc
                         : bson_to_json((const unsigned char *)sdx_buf_data(&b), sdx_buf_len(&b),
                                        SDX_MAP_EJSON_RELAXED, &j);
        int ok = !rc && !rc2 && json_equal(sdx_buf_data(&j), sdx_buf_len(&j), rej);
        if (!CHECK(ok)) fprintf(stderr, "  %s %s: rEJ -> BSON -> rEJ: error %d/%d\n", file, desc, rc, rc2);
        relaxed_round += ok;
        if (!rc) sdx_buf_destroy(&j);
        sdx_buf_destroy(&b);
    }
}

static void parse_error_case(char **f) {
    sdx_buf out;
    sdx_err rc = json_to_bson(f[3], &out);
    if (!CHECK(rc != SDX_OK)) fprintf(stderr, "  %s %s: accepted: %s\n", f[1], f[2], f[3]);
    else parse_rejected++;
    sdx_buf_destroy(&out);
}

/* Open a data file; NULL after a failed check. */
static FILE *open_data(const char *name) {
    char path[4096];
    const char *dir = getenv("SDX_BSON_DATA");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : SDX_BSON_DATA_DIR, name);
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) fprintf(stderr, "  cannot open %s (set SDX_BSON_DATA)\n", path);
    return f;
}

/* Split a line at tabs (in place) into at most `max` fields; returns their
 * number. */
static int split(char *line, char **fields, int max) {
    int nf = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; nf < max;) {
        fields[nf++] = p;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    return nf;
}

TEST(corpus) {
    static char line[1 << 16];
    char *fields[10];
    long parse_cases = 0;
    FILE *f = open_data("corpus_extjson.txt");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        int nf = split(line, fields, 10);
        if (fields[0][0] == 'V' && CHECK(nf == 9)) valid_case(fields);
        if (fields[0][0] == 'P' && CHECK(nf == 4)) {
            parse_cases++;
            parse_error_case(fields);
        }
    }
    fclose(f);
    f = open_data("corpus_parse_errors.txt");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        /* file TAB description TAB json: shift to parse_error_case's P line */
        int nf = split(line, fields + 1, 9);
        if (!CHECK(nf == 3)) continue;
        parse_cases++;
        parse_error_case(fields);
    }
    fclose(f);
    printf("  valid cases: %ld\n", valid_cases);
    printf("    cB -> canonical Extended JSON:   %ld\n", to_canonical);
    printf("    cB -> relaxed Extended JSON:     %ld\n", to_relaxed);
    printf("    canonical Extended JSON -> cB:   %ld\n", from_canonical);
    printf("    degenerate Extended JSON -> cB:  %ld\n", from_degenerate);
    printf("    degenerate BSON -> canonical:    %ld\n", from_degenerate_bson);
    printf("    relaxed -> BSON -> relaxed:      %ld\n", relaxed_round);
    printf("  parseErrors rejected: %ld of %ld\n", parse_rejected, parse_cases);
    /* the corpus of pymongo 4.20.0: 731 valid cases, 180 parseErrors */
    CHECK(valid_cases == 731);
    CHECK(parse_cases == 180);
}

/* JSON -> BSON gives the error `want` (SDX_OK: the bytes `hex`). */
static void expect_bson(const char *json, sdx_err want, const char *hex, int line) {
    sdx_buf out;
    sdx_err rc = json_to_bson(json, &out);
    int ok = rc == want;
    if (ok && hex) {
        size_t n;
        unsigned char *b = unhex_alloc(hex, &n);
        ok = sdx_buf_len(&out) == n && !memcmp(sdx_buf_data(&out), b, n);
        free(b);
    }
    if (!CHECK(ok)) fprintf(stderr, "  line %d: %s: error %d, want %d\n", line, json, rc, want);
    sdx_buf_destroy(&out);
}
#define EXPECT_BSON(json, hex) expect_bson(json, SDX_OK, hex, __LINE__)
#define EXPECT_FAIL(json, err) expect_bson(json, err, NULL, __LINE__)

/* The forms the corpus does not show, and malformed wrappers. */
TEST(forms) {
    /* legacy binary and regex, keys either way round */
    const char *bin80 = "0F0000000578000200000080FFFF00";
    EXPECT_BSON("{\"x\":{\"$binary\":\"//8=\",\"$type\":\"80\"}}", bin80);
    EXPECT_BSON("{\"x\":{\"$type\":\"80\",\"$binary\":\"//8=\"}}", bin80);
    EXPECT_BSON("{\"x\":{\"$binary\":{\"base64\":\"//8=\",\"subType\":\"80\"}}}", bin80);
    const char *re = "0F0000000B780061626300696D0000";
    EXPECT_BSON("{\"x\":{\"$regex\":\"abc\",\"$options\":\"mi\"}}", re);
    EXPECT_BSON("{\"x\":{\"$options\":\"mi\",\"$regex\":\"abc\"}}", re);
    /* dates: Z, offsets, fractions (milliseconds kept, beyond dropped) */
    EXPECT_BSON("{\"x\":{\"$date\":\"1970-01-01T00:00:00Z\"}}", "10000000097800000000000000000000");
    EXPECT_BSON("{\"x\":{\"$date\":\"1970-01-01T01:00:00.0019+01:00\"}}", "10000000097800010000000000000000");
    EXPECT_BSON("{\"x\":{\"$date\":\"1970-01-01T00:00:00.001-0000\"}}", "10000000097800010000000000000000");
    EXPECT_FAIL("{\"x\":{\"$date\":\"2013-02-29T00:00:00Z\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$date\":\"1970-01-01T00:00:00\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$date\":\"1970-01-01T00:00:00.Z\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$date\":{\"$numberLong\":\"1\",\"y\":1}}}", SDX_ERR_SYNTAX);
    /* query operators stay maps ({"$regex": "a"} alone included) */
    EXPECT_BSON("{\"x\":{\"$regex\":\"a\"}}", "1B0000000378001300000002247265676578000200000061000000");
    /* numbers out of range or not numbers */
    EXPECT_FAIL("{\"x\":{\"$numberInt\":\"2147483648\"}}", SDX_ERR_SYNTAX);
    EXPECT_BSON("{\"x\":{\"$numberInt\":\"-2147483648\"}}", "0C0000001078000000008000");
    EXPECT_FAIL("{\"x\":{\"$numberInt\":\"1.0\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberInt\":\"\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberLong\":\"9223372036854775808\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberLong\":\"-9223372036854775809\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberLong\":\"12345678901234567890123\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberDouble\":\"1.0x\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberDouble\":\"\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberDecimal\":\"1.2.3\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$numberDecimal\":\"12345678901234567890123456789012345\"}}", SDX_ERR_RANGE);
    EXPECT_FAIL("{\"x\":{\"$numberDecimal\":1}}", SDX_ERR_SYNTAX);
    /* other malformed wrappers */
    EXPECT_FAIL("{\"x\":{\"$oid\":\"56e1fc72e0c917e9c471416z\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$oid\":\"56e1fc72e0c917e9c47141\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$scope\":{}}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$scope\":{},\"$code\":\"\",\"y\":1}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$binary\":{\"base64\":\"//8\",\"subType\":\"00\"}}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$binary\":{\"base64\":\"//8=\",\"subType\":\"100\"}}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$binary\":{\"base64\":\"//8=\",\"subType\":\"0g\"}}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$timestamp\":{\"t\":-1,\"i\":0}}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$timestamp\":{\"t\":4294967296,\"i\":0}}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$dbPointer\":{\"$ref\":\"a\",\"$id\":{\"$oid\":\"56e1fc72e0c917e9c4714161\",\"y\":1}}}}",
                SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$undefined\":false}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$uuid\":\"73ffd264-44b3-4c69-90e8-e7d1dfc035zz\"}}", SDX_ERR_SYNTAX);
    EXPECT_FAIL("{\"x\":{\"$regex\":\"a\",\"$options\":\"\",\"y\":1}}", SDX_ERR_SYNTAX);
    /* a wrapper inside a plain map that began like a query operator */
    EXPECT_BSON("{\"x\":{\"$type\":{\"$numberLong\":\"2\"}}}",
                "1C000000037800140000001224747970650002000000000000000000");
    /* the input ends inside a wrapper */
    EXPECT_FAIL("{\"x\":{\"$oid\":", SDX_ERR_TRUNCATED);
}

/* Code with scope nested: the $scope documents are encoded through the
 * layer, up to SDX_BSON_MAX_SCOPE_NESTING deep. */
TEST(scope_nesting) {
    for (int depth = 1; depth <= SDX_BSON_MAX_SCOPE_NESTING + 1; depth++) {
        char json[2048] = "{\"a\":", *p = json + strlen(json);
        for (int i = 0; i < depth; i++) p += sprintf(p, "{\"$code\":\"c%d\",\"$scope\":{\"x\":", i);
        p += sprintf(p, "{\"$numberLong\":\"7\"}");
        for (int i = 0; i < depth; i++) p += sprintf(p, "}}");
        sprintf(p, "}");
        sdx_buf b;
        sdx_err rc = json_to_bson(json, &b);
        if (depth > SDX_BSON_MAX_SCOPE_NESTING) {
            CHECK_EQ_INT(rc, SDX_ERR_DEPTH);
        } else if (CHECK_EQ_INT(rc, SDX_OK)) { /* and back, canonical */
            sdx_buf j;
            if (CHECK_EQ_INT(bson_to_json((const unsigned char *)sdx_buf_data(&b), sdx_buf_len(&b),
                                          SDX_MAP_EJSON_CANONICAL, &j),
                             SDX_OK))
                CHECK(json_equal(sdx_buf_data(&j), sdx_buf_len(&j), json));
            sdx_buf_destroy(&j);
        }
        sdx_buf_destroy(&b);
    }
}

/* A document with every type, canonical Extended JSON. */
static const char every_type[] =
    "{\"_id\":{\"$oid\":\"57e193d7a9cc81b4027498b5\"},\"Symbol\":{\"$symbol\":\"symbol\"},\"String\":\"string\","
    "\"Int32\":{\"$numberInt\":\"42\"},\"Int64\":{\"$numberLong\":\"42\"},\"Double\":{\"$numberDouble\":\"-1.0\"},"
    "\"Inf\":{\"$numberDouble\":\"-Infinity\"},\"Dec\":{\"$numberDecimal\":\"1.5E+3\"},"
    "\"Binary\":{\"$binary\":{\"base64\":\"o0w498Or7cijeBSpkquNtg==\",\"subType\":\"03\"}},"
    "\"Old\":{\"$binary\":{\"base64\":\"//8=\",\"subType\":\"02\"}},\"Code\":{\"$code\":\"function() {}\"},"
    "\"CodeWithScope\":{\"$code\":\"function() {}\",\"$scope\":{\"d\":{\"$date\":{\"$numberLong\":\"5\"}},"
    "\"s\":{\"$code\":\"x\",\"$scope\":{}}}},\"Subdocument\":{\"foo\":\"bar\"},"
    "\"Array\":[{\"$numberInt\":\"1\"},{\"$numberInt\":\"2\"}],\"Timestamp\":{\"$timestamp\":{\"t\":42,\"i\":1}},"
    "\"Regex\":{\"$regularExpression\":{\"pattern\":\"pattern\",\"options\":\"ix\"}},"
    "\"DatetimeNegative\":{\"$date\":{\"$numberLong\":\"-2147483648\"}},\"True\":true,\"False\":false,"
    "\"DBPointer\":{\"$dbPointer\":{\"$ref\":\"collection\",\"$id\":{\"$oid\":\"57e193d7a9cc81b4027498b1\"}}},"
    "\"DBRef\":{\"$ref\":\"collection\",\"$id\":{\"$oid\":\"57fd71e96e32ab4225b723fb\"},\"$db\":\"database\"},"
    "\"Minkey\":{\"$minKey\":1},\"Maxkey\":{\"$maxKey\":1},\"Null\":null,\"Undefined\":{\"$undefined\":true}}";

/* Every allocation of either direction failing in turn: SDX_ERR_NOMEM or
 * success, and nothing left allocated. */
TEST(alloc_failures) {
    sdx_buf ref;
    if (!CHECK_EQ_INT(json_to_bson(every_type, &ref), SDX_OK)) return;
    for (int dir = 0; dir < 2; dir++) {
        for (long fail_at = 1;; fail_at++) {
            counting_alloc a;
            counting_alloc_init(&a, fail_at);
            test_alloc = &a.iface;
            sdx_buf out;
            sdx_err rc = dir ? bson_to_json((const unsigned char *)sdx_buf_data(&ref), sdx_buf_len(&ref),
                                            SDX_MAP_EJSON_CANONICAL, &out)
                             : json_to_bson(every_type, &out);
            int equal = dir ? json_equal(sdx_buf_data(&out), sdx_buf_len(&out), every_type)
                            : sdx_buf_len(&out) == sdx_buf_len(&ref) &&
                                  !memcmp(sdx_buf_data(&out), sdx_buf_data(&ref), sdx_buf_len(&ref));
            sdx_buf_destroy(&out);
            test_alloc = NULL;
            CHECK(a.live == 0);
            if (rc == SDX_OK) {
                CHECK(equal);
                CHECK(fail_at > 1);
                break;
            }
            if (!CHECK_EQ_INT(rc, SDX_ERR_NOMEM) || !CHECK(fail_at < 1000)) break;
        }
    }
    sdx_buf_destroy(&ref);
}

/* Every prefix of the JSON, and each byte replaced by a few others: an
 * error or a result, never a crash (ASan), and nothing leaked. */
TEST(truncation_and_flips) {
    size_t n = strlen(every_type);
    for (size_t k = 0; k < n; k++) {
        sdx_buf out;
        CHECK(json_to_bson_n(every_type, k, &out) != SDX_OK);
        sdx_buf_destroy(&out);
    }
    char *m = malloc(n + 1);
    static const char subst[] = "\"{}[]:,0$ax\\";
    for (size_t k = 0; k < n; k++) {
        for (const char *c = subst; *c; c++) {
            memcpy(m, every_type, n + 1);
            m[k] = *c;
            sdx_buf out;
            sdx_err rc = json_to_bson_n(m, n, &out);
            (void)rc;
            sdx_buf_destroy(&out);
        }
    }
    free(m);
}

/* Every corpus canonical_bson with each byte replaced by a few others, to
 * Extended JSON in both modes: an error or a result, never a crash (ASan),
 * nothing leaked; and whatever converts reads back as JSON. */
TEST(bson_flips) {
    static char line[1 << 16];
    char *fields[10];
    FILE *f = open_data("corpus_extjson.txt");
    if (!f) return;
    long converted = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] != 'V' || split(line, fields, 10) != 9) continue;
        size_t n;
        unsigned char *b = unhex_alloc(fields[3], &n);
        static const unsigned char subst[] = {0x00, 0x01, 0x7f, 0xff, 0x02, 0x0b};
        for (size_t k = 4; k < n; k++) {
            unsigned char keep = b[k];
            for (size_t s = 0; s < sizeof subst; s++) {
                b[k] = subst[s];
                for (int mode = 0; mode < 2; mode++) {
                    sdx_buf out;
                    uint32_t flags = mode ? SDX_MAP_EJSON_CANONICAL : SDX_MAP_EJSON_RELAXED;
                    if (bson_to_json(b, n, flags, &out) == SDX_OK) {
                        char *t = normalize(sdx_buf_data(&out), sdx_buf_len(&out));
                        CHECK(t != NULL);
                        free(t);
                        converted++;
                    }
                    sdx_buf_destroy(&out);
                }
            }
            b[k] = keep;
        }
        free(b);
    }
    fclose(f);
    CHECK(converted > 0);
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"corpus", corpus},
                                  {"forms", forms},
                                  {"scope_nesting", scope_nesting},
                                  {"alloc_failures", alloc_failures},
                                  {"truncation_and_flips", truncation_and_flips},
                                  {"bson_flips", bson_flips},
                                  {0}});
}
