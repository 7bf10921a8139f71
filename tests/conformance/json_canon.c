/*
 * The C side of the differential tests against Python's json module
 * (differential.py). Everything is exchanged as canonical dumps (one line
 * per event, see conf_util.h), which Python prints from json.loads too.
 *
 *   json_canon dump FILE      FILE holds JSON documents separated by the byte
 *                             0x1E. For each: the canonical dump of what the
 *                             tree parser read, then a line "---". The
 *                             in-place parser and the pull reader must give
 *                             the same events (else exit 1). A document that
 *                             is rejected prints "error <code> <offset>".
 *   json_canon write FILE     FILE holds canonical dumps, each ended by a
 *                             line "---". For each: the events are sent to
 *                             the minified JSON writer and its output is
 *                             printed on one line (minified JSON has no raw
 *                             newline).
 *   json_canon gen N SEED     N random documents from conf_gen (seeded):
 *                             for each, the writer's JSON on one line, the
 *                             generated events' dump, and "---".
 *
 * Exit status 0 on success, 1 on a failure (printed on stderr), 2 on usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_gen.h"
#include "conf_util.h"

/* ------------------------------------------------------------------------ */
/* dump                                                                      */
/* ------------------------------------------------------------------------ */

/* Dump one document read three ways; the three must agree. */
static int dump_doc(const char *data, size_t len, long index, cbuf *out) {
    cbuf dumps[3] = {{0}, {0}, {0}};
    sdx_err codes[3];
    sdx_error errs[3];
    const char *bad = NULL;
    for (int via = 0; via < 3; via++) {
        dump_sink d;
        dump_sink_init(&d, &dumps[via]);
        sdx_sink sink = dump_sink_sink(&d);
        if (via < 2) codes[via] = conf_parse_into(data, len, NULL, via == 1, &sink, &errs[via]);
        else codes[via] = conf_read_into(data, len, NULL, &sink, &errs[via]);
        if (d.bad) bad = d.bad;
    }
    int rc = 0;
    for (int via = 1; via < 3; via++) {
        bool agree = codes[via] == codes[0] &&
                     (codes[0] != SDX_OK ? errs[via].offset == errs[0].offset
                                         : dumps[via].len == dumps[0].len &&
                                               memcmp(dumps[via].p, dumps[0].p, dumps[0].len) == 0);
        if (!agree) {
            fprintf(stderr, "document %ld: the %s disagrees with the tree parser (%s", index,
                    via == 1 ? "insitu parser" : "reader", conf_error_str(codes[0], &errs[0]));
            fprintf(stderr, " vs %s)\n", conf_error_str(codes[via], &errs[via]));
            rc = 1;
        }
    }
    if (bad) {
        fprintf(stderr, "document %ld: malformed event stream: %s\n", index, bad);
        rc = 1;
    }
    if (codes[0] == SDX_OK) cbuf_put(out, dumps[0].p, dumps[0].len);
    else cbuf_printf(out, "error %d %zu\n", (int)codes[0], errs[0].offset);
    cbuf_puts(out, "---\n");
    for (int via = 0; via < 3; via++) cbuf_free(&dumps[via]);
    return rc;
}

static int cmd_dump(const char *path) {
    size_t len;
    char *data = conf_read_file(path, &len);
    if (!data) {
        fprintf(stderr, "json_canon: cannot read %s\n", path);
        return 1;
    }
    cbuf out = {0};
    int rc = 0;
    long index = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && data[i] != 0x1E) continue;
        rc |= dump_doc(data + start, i - start, index++, &out);
        start = i + 1;
        if (out.len > (1u << 20)) fwrite(out.p, 1, out.len, stdout), cbuf_clear(&out);
    }
    fwrite(out.p, 1, out.len, stdout);
    cbuf_free(&out);
    free(data);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* write                                                                     */
/* ------------------------------------------------------------------------ */

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decode `n` hex digits at p into b (cleared first); false if malformed. */
static bool unhex(const char *p, size_t n, cbuf *b) {
    cbuf_clear(b);
    if (n % 2) return false;
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_digit(p[i]), lo = hex_digit(p[i + 1]);
        if (hi < 0 || lo < 0) return false;
        char c = (char)(hi << 4 | lo);
        cbuf_put(b, &c, 1);
    }
    return true;
}

/* Parse one dump line (without its newline) into an event; strings go into
 * `bytes`. False if the line is not a dump line. */
static bool parse_line(const char *line, size_t n, sdx_event *ev, cbuf *bytes) {
    memset(ev, 0, sizeof *ev);
    const char *sp = memchr(line, ' ', n);
    size_t word = sp ? (size_t)(sp - line) : n;
    const char *arg = sp ? sp + 1 : line + n;
    size_t argn = sp ? n - word - 1 : 0;
    char num[64];
    if (argn < sizeof num) memcpy(num, arg, argn), num[argn] = 0;
    else num[0] = 0;
    char *end = NULL;
    errno = 0;
#define IS(w) (word == sizeof(w) - 1 && memcmp(line, w, word) == 0)
    if (IS("null")) ev->kind = SDX_NULL;
    else if (IS("true") || IS("false")) ev->kind = SDX_BOOL, ev->v.b = IS("true");
    else if (IS("array")) ev->kind = SDX_ARRAY, ev->v.count = SDX_COUNT_UNKNOWN;
    else if (IS("map")) ev->kind = SDX_MAP, ev->v.count = SDX_COUNT_UNKNOWN;
    else if (IS("end")) ev->kind = SDX_END;
    else if (IS("int")) ev->kind = SDX_INT, ev->v.i = strtoll(num, &end, 10);
    else if (IS("uint")) ev->kind = SDX_UINT, ev->v.u = strtoull(num, &end, 10);
    else if (IS("double")) {
        uint64_t bits = strtoull(num, &end, 16);
        ev->kind = SDX_DOUBLE;
        memcpy(&ev->v.d, &bits, sizeof bits);
    } else if (IS("str") || IS("key")) {
        if (!unhex(arg, argn, bytes)) return false;
        ev->kind = IS("str") ? SDX_STR : SDX_KEY;
        ev->v.str.ptr = bytes->p ? bytes->p : "";
        ev->v.str.len = bytes->len;
    } else return false;
#undef IS
    if (end && (end == num || *end || errno)) return false;
    return true;
}

/* Write one dump (lines [p, p+n)) as minified JSON on a line of `out`. */
static int write_doc(const char *p, size_t n, long index, cbuf *out) {
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &buf, NULL);
    cbuf bytes = {0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t ln = nl ? (size_t)(nl - (p + i)) : n - i;
        sdx_event ev;
        if (!parse_line(p + i, ln, &ev, &bytes)) {
            fprintf(stderr, "dump %ld: bad line: %.*s\n", index, (int)(ln < 100 ? ln : 100), p + i);
            rc = 1;
        } else {
            sdx_json_writer_put(&w, &ev);
        }
        i += ln + 1;
    }
    sdx_err err = sdx_json_writer_finish(&w);
    if (rc == 0 && err != SDX_OK) {
        fprintf(stderr, "dump %ld: the writer failed: %s\n", index, sdx_strerror(err));
        rc = 1;
    }
    cbuf_put(out, sdx_buf_data(&buf), sdx_buf_len(&buf));
    cbuf_puts(out, "\n");
    sdx_buf_destroy(&buf);
    cbuf_free(&bytes);
    return rc;
}

static int cmd_write(const char *path) {
    size_t len;
    char *data = conf_read_file(path, &len);
    if (!data) {
        fprintf(stderr, "json_canon: cannot read %s\n", path);
        return 1;
    }
    cbuf out = {0};
    int rc = 0;
    long index = 0;
    size_t start = 0, i = 0;
    while (i < len) {
        const char *nl = memchr(data + i, '\n', len - i);
        size_t ln = nl ? (size_t)(nl - (data + i)) : len - i;
        if (ln == 3 && memcmp(data + i, "---", 3) == 0) {
            rc |= write_doc(data + start, i - start, index++, &out);
            start = i + ln + 1;
            if (out.len > (1u << 20)) fwrite(out.p, 1, out.len, stdout), cbuf_clear(&out);
        }
        i += ln + 1;
    }
    fwrite(out.p, 1, out.len, stdout);
    cbuf_free(&out);
    free(data);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* gen                                                                       */
/* ------------------------------------------------------------------------ */

static int cmd_gen(long count, uint64_t seed) {
    cbuf out = {0}, dump = {0};
    int rc = 0;
    conf_gen g;
    conf_gen_init(&g, seed);
    for (long i = 0; i < count; i++) {
        sdx_buf buf;
        sdx_buf_init(&buf, NULL);
        sdx_json_writer w;
        sdx_json_writer_init(&w, &buf, NULL);
        dump_sink d;
        cbuf_clear(&dump);
        dump_sink_init(&d, &dump);
        tee_sink t = {{sdx_json_writer_sink(&w), dump_sink_sink(&d)}, 2};
        sdx_err grc = conf_gen_doc(&g, tee_sink_sink(&t));
        sdx_err wrc = sdx_json_writer_finish(&w);
        if (grc != SDX_OK || wrc != SDX_OK || d.bad) {
            fprintf(stderr, "document %ld: generating or writing failed (%s)\n", i,
                    d.bad ? d.bad : sdx_strerror(grc != SDX_OK ? grc : wrc));
            rc = 1;
        }
        cbuf_put(&out, sdx_buf_data(&buf), sdx_buf_len(&buf));
        cbuf_puts(&out, "\n");
        cbuf_put(&out, dump.p, dump.len);
        cbuf_puts(&out, "---\n");
        sdx_buf_destroy(&buf);
        if (out.len > (1u << 20)) fwrite(out.p, 1, out.len, stdout), cbuf_clear(&out);
    }
    fwrite(out.p, 1, out.len, stdout);
    cbuf_free(&out);
    cbuf_free(&dump);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "dump") == 0) return cmd_dump(argv[2]);
    if (argc == 3 && strcmp(argv[1], "write") == 0) return cmd_write(argv[2]);
    if (argc == 4 && strcmp(argv[1], "gen") == 0)
        return cmd_gen(atol(argv[2]), strtoull(argv[3], NULL, 10));
    fprintf(stderr, "usage: json_canon dump FILE | write FILE | gen N SEED\n");
    return 2;
}
