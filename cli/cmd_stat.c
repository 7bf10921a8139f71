/*
 * sdx stat: counts of values by type, depth, bytes, and the size of the
 * data in every writable format — all in one streaming pass: every event
 * goes to the counters and to one writer per format, each writing into a
 * buffer that only counts bytes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "output.h"
#include "pump.h"

static const char stat_help[] =
    "Usage: sdx stat [OPTIONS] [IN]\n"
    "\n"
    "Read IN (default: stdin) once and print: the number of values of each\n"
    "type, map keys, the deepest nesting of containers (a scalar alone: 0; [1]:\n"
    "1), the bytes of text in strings and keys, the bytes of binary data, and\n"
    "the size the data would have in every format sdx writes (JSON minified,\n"
    "with a final newline). A format that cannot represent the data shows\n"
    "why; the mapping options below change that as they change convert.\n"
    "\n"
    "Options:\n"
    "  -f, --from FORMAT        input format (default: from IN's extension, else\n"
    "                           detected from the content)\n"
    "  --seq                    a sequence of values (sizes: as a sequence)\n"
    "  --json                   print the numbers as one JSON object\n"
    "  -h, --help               this help\n"
    "\n" CLI_HELP_MAPPINGS
    "\n"
    "Examples:\n"
    "  sdx stat data.json\n"
    "  sdx gen --size 4 | sdx stat --json\n"
    "\n" CLI_HELP_EXIT_CODES;

/* The counters. */
enum { N_KINDS = SDX_RAW + 1 };

typedef struct stat_frame {
    bool is_map, key_next;
} stat_frame;

typedef struct stats {
    uint64_t by_kind[N_KINDS]; /* values (keys not included) */
    uint64_t keys, tagged, top_values, string_bytes, binary_bytes, max_depth;
    stat_frame *frames;
    size_t depth, cap;
} stats;

static bool stats_put(stats *st, const sdx_event *ev) {
    if (ev->kind == SDX_END) {
        if (st->depth) st->depth--;
        return true;
    }
    if (ev->kind == SDX_TAG) return true; /* a further tag on the next value (counted once, there) */
    bool is_key = false;
    if (st->depth) {
        stat_frame *f = &st->frames[st->depth - 1];
        if (f->is_map) {
            is_key = f->key_next;
            f->key_next = !f->key_next;
        }
    } else {
        st->top_values++;
    }
    if (is_key) st->keys++;
    else if (ev->kind == SDX_NINT) st->by_kind[SDX_INT]++; /* an integer below int64 */
    else if (ev->kind < N_KINDS) st->by_kind[ev->kind]++;
    if (ev->tag_kind != SDX_TAG_NONE) st->tagged++;
    if (ev->kind == SDX_STR || ev->kind == SDX_KEY) st->string_bytes += ev->v.str.len;
    if (ev->kind == SDX_BIN) st->binary_bytes += ev->v.str.len;
    if (ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) {
        if (st->depth == st->cap) {
            size_t cap = st->cap ? 2 * st->cap : 32;
            stat_frame *fr = realloc(st->frames, cap * sizeof *fr);
            if (!fr) return false;
            st->frames = fr;
            st->cap = cap;
        }
        st->frames[st->depth].is_map = ev->kind == SDX_MAP;
        st->frames[st->depth].key_next = true;
        st->depth++;
        if (st->depth > st->max_depth) st->max_depth = st->depth;
    }
    return true;
}

/* One format's size: a writer into a buffer that only counts. */
typedef struct sizer {
    const cli_format *fmt;
    cli_writer w;
    sdx_buf counter;
    bool failed;
    char why[640];
} sizer;

static size_t count_only(void *ctx, const void *data, size_t len) {
    (void)ctx;
    (void)data;
    return len;
}

/* Its patch function: a patch changes bytes, not their number, so the
 * sizes need nothing; with it BSON and Binn let their bytes go instead of
 * holding a whole top-level value (sdx_buf_set_patch). */
static int count_only_patch(void *ctx, uint64_t at, const void *data, size_t len) {
    (void)ctx;
    (void)at;
    (void)data;
    (void)len;
    return 1;
}

static const char *const kind_names[N_KINDS] = {
    [SDX_NULL] = "null",   [SDX_BOOL] = "bool",     [SDX_INT] = "int",      [SDX_UINT] = "uint",
    [SDX_DOUBLE] = "double", [SDX_STR] = "string",  [SDX_BIN] = "binary",   [SDX_ARRAY] = "array",
    [SDX_MAP] = "map",     [SDX_KEY] = NULL,        [SDX_END] = NULL,       [SDX_RAW] = "bignum",
};

static uint64_t total_values(const stats *st) {
    uint64_t n = 0;
    for (int k = 0; k < N_KINDS; k++) n += st->by_kind[k];
    return n;
}

static void print_table(const cli_input *in, const stats *st, const sizer *sz, size_t n_sz) {
    printf("%-16s %s (%s)\n", "input", in->name, in->fmt->name);
    printf("%-16s %" PRIu64 "\n", "bytes", in->total);
    if (st->top_values != 1) printf("%-16s %" PRIu64 "\n", "top-level values", st->top_values);
    printf("%-16s %" PRIu64 "\n", "values", total_values(st));
    for (int k = 0; k < N_KINDS; k++)
        if (kind_names[k]) printf("  %-14s %" PRIu64 "\n", kind_names[k], st->by_kind[k]);
    printf("%-16s %" PRIu64 "\n", "keys", st->keys);
    if (st->tagged) printf("%-16s %" PRIu64 "\n", "tagged values", st->tagged);
    printf("%-16s %" PRIu64 "\n", "max depth", st->max_depth);
    printf("%-16s %" PRIu64 "\n", "string bytes", st->string_bytes);
    printf("%-16s %" PRIu64 "\n", "binary bytes", st->binary_bytes);
    printf("size as\n");
    for (size_t i = 0; i < n_sz; i++) {
        if (sz[i].failed) printf("  %-14s - (%s)\n", sz[i].fmt->name, sz[i].why);
        else printf("  %-14s %" PRIu64 "\n", sz[i].fmt->name, sdx_buf_total(&sz[i].counter));
    }
}

/* The numbers as JSON, written with the library's JSON writer. */
static int print_json(const cli_input *in, const stats *st, const sizer *sz, size_t n_sz) {
    sdx_buf b;
    sdx_buf_init_file(&b, stdout, 0, NULL);
    sdx_json_writer w;
    sdx_json_write_opts o = {SDX_JSON_WRITE_SEQUENCE, 2, NULL};
    sdx_json_writer_init(&w, &b, &o);
#define KEY(s) sdx_json_writer_key(&w, s, strlen(s))
    sdx_json_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    KEY("input");
    sdx_json_writer_string(&w, in->name, strlen(in->name));
    KEY("format");
    sdx_json_writer_string(&w, in->fmt->name, strlen(in->fmt->name));
    KEY("bytes");
    sdx_json_writer_uint(&w, in->total);
    KEY("top_level_values");
    sdx_json_writer_uint(&w, st->top_values);
    KEY("values");
    sdx_json_writer_uint(&w, total_values(st));
    for (int k = 0; k < N_KINDS; k++) {
        if (!kind_names[k]) continue;
        KEY(kind_names[k]);
        sdx_json_writer_uint(&w, st->by_kind[k]);
    }
    KEY("keys");
    sdx_json_writer_uint(&w, st->keys);
    KEY("tagged");
    sdx_json_writer_uint(&w, st->tagged);
    KEY("max_depth");
    sdx_json_writer_uint(&w, st->max_depth);
    KEY("string_bytes");
    sdx_json_writer_uint(&w, st->string_bytes);
    KEY("binary_bytes");
    sdx_json_writer_uint(&w, st->binary_bytes);
    KEY("sizes");
    sdx_json_writer_begin_map(&w, n_sz);
    for (size_t i = 0; i < n_sz; i++) {
        KEY(sz[i].fmt->name);
        if (sz[i].failed) sdx_json_writer_null(&w);
        else sdx_json_writer_uint(&w, sdx_buf_total(&sz[i].counter));
    }
    sdx_json_writer_end(&w);
    KEY("errors");
    sdx_json_writer_begin_map(&w, SDX_COUNT_UNKNOWN);
    for (size_t i = 0; i < n_sz; i++) {
        if (!sz[i].failed) continue;
        KEY(sz[i].fmt->name);
        sdx_json_writer_string(&w, sz[i].why, strlen(sz[i].why));
    }
    sdx_json_writer_end(&w);
    sdx_json_writer_end(&w);
#undef KEY
    sdx_err e = sdx_json_writer_finish(&w);
    sdx_buf_destroy(&b);
    if (e) {
        cli_message("cannot write <stdout>: %s", sdx_strerror(e));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

/* Feed one event to every sizer that has not failed yet. */
static void sizers_put(sizer *sz, size_t n_sz, const cli_input *in, uint64_t before, const sdx_event *ev) {
    for (size_t i = 0; i < n_sz; i++) {
        if (sz[i].failed) continue;
        sdx_err e = sdx_sink_put(cli_writer_sink(&sz[i].w), ev);
        if (!e) continue;
        sz[i].failed = true;
        char where[300], text[300];
        cli_input_where(in, before, true, where, sizeof where);
        cli_sink_error_text(e, ev, sz[i].fmt, NULL, text, sizeof text);
        snprintf(sz[i].why, sizeof sz[i].why, "%s, at %s", text, where);
    }
}

int cli_cmd_stat(int argc, char **argv) {
    cli_args a;
    cli_args_init(&a, "stat", argc, argv);
    cli_opts o = {0};
    const char *in_path = NULL;
    bool json = false;
    const char *arg;
    int kind;
    while ((kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) {
            if (in_path) return cli_usage_error("stat", "too many operands: '%s'", arg);
            in_path = arg;
            continue;
        }
        int m = cli_parse_option(&a, CLI_OPT_FROM | CLI_OPT_SEQ | CLI_OPT_MAPPINGS, &o);
        if (m < 0) return CLI_EXIT_USAGE;
        if (m > 0) continue;
        if (cli_args_is(&a, "--json", NULL)) {
            if (!cli_args_flag(&a)) return CLI_EXIT_USAGE;
            json = true;
        } else if (cli_args_is(&a, "--help", "-h")) {
            fputs(stat_help, stdout);
            return CLI_EXIT_OK;
        } else {
            return cli_usage_error("stat", "unknown option '%s'", a.opt);
        }
    }

    size_t n_sz = 0;
    sizer sz[16];
    for (int i = 0; cli_formats[i] && n_sz < sizeof sz / sizeof sz[0]; i++) {
        if (!cli_format_writable(cli_formats[i])) continue;
        sizer *s = &sz[n_sz++];
        memset(s, 0, sizeof *s);
        s->fmt = cli_formats[i];
        sdx_buf_init_stream(&s->counter, count_only, NULL, 0, NULL);
        sdx_buf_set_patch(&s->counter, count_only_patch);
        if (cli_writer_init(&s->w, s->fmt, &o.write, &s->counter) != SDX_OK) s->failed = true;
    }
    o.read.mapping_hints = true;
    for (size_t i = 0; i < n_sz; i++) o.read.counts |= sz[i].fmt->counts_first && !o.read.seq;
    stats st;
    memset(&st, 0, sizeof st);
    cli_input in;
    int rc = cli_input_open(&in, in_path, o.from, &o.read);
    if (!rc) {
        sdx_event ev = {0}; /* fields a reader leaves alone stay zero */
        uint64_t before = 0;
        while (!rc && cli_input_next(&in, &ev)) {
            if (!stats_put(&st, &ev)) {
                cli_message("out of memory");
                rc = CLI_EXIT_IO;
            }
            sizers_put(sz, n_sz, &in, before, &ev);
            before = cli_input_offset(&in);
        }
        if (!rc) rc = cli_exit_for(cli_input_report(&in));
        for (size_t i = 0; !rc && i < n_sz; i++) {
            if (sz[i].failed) continue;
            sdx_err e = sdx_sink_finish(cli_writer_sink(&sz[i].w));
            if (e) {
                sz[i].failed = true;
                cli_sink_error_text(e, NULL, sz[i].fmt, NULL, sz[i].why, sizeof sz[i].why);
            }
        }
        if (!rc) rc = json ? print_json(&in, &st, sz, n_sz) : (print_table(&in, &st, sz, n_sz), CLI_EXIT_OK);
        if (!rc && fflush(stdout) != 0) {
            cli_message("cannot write <stdout>");
            rc = CLI_EXIT_IO;
        }
        cli_input_close(&in);
    }
    for (size_t i = 0; i < n_sz; i++) {
        cli_writer_destroy(&sz[i].w);
        sdx_buf_destroy(&sz[i].counter);
    }
    free(st.frames);
    return rc;
}
