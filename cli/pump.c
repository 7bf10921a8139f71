/*
 * The per-value writer, the event pump and sink error messages (pump.h).
 */
#include "pump.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ------------------------------------------------------------------------ */
/* The per-value writer                                                      */
/* ------------------------------------------------------------------------ */

static sdx_err end_value(cli_writer *w) {
    sdx_err e = sdx_sink_finish(w->inner);
    w->open = false;
    if (e) w->err = e;
    else w->values++;
    return e;
}

static sdx_err writer_put(void *ctx, const sdx_event *ev) {
    cli_writer *w = ctx;
    if (w->err) return w->err;
    if (!w->open) {
        sdx_err e = w->fmt->writer_init(w->mem, w->out, &w->opts);
        w->inner = w->fmt->writer_sink(w->mem);
        w->open = true;
        w->depth = 0;
        if (e) {
            w->err = e;
            sdx_sink_finish(w->inner);
            w->open = false;
            return e;
        }
    }
    sdx_err e = sdx_sink_put(w->inner, ev);
    if (e) {
        w->err = e;
        sdx_sink_finish(w->inner);
        w->open = false;
        return e;
    }
    if (ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) w->depth++;
    else if (ev->kind == SDX_END && w->depth) w->depth--;
    /* A key, or a tag (SDX_TAG: one more tag on the item that follows),
     * does not complete a value. */
    if (w->depth == 0 && ev->kind != SDX_KEY && ev->kind != SDX_TAG) return end_value(w);
    return SDX_OK;
}

static sdx_err writer_finish(void *ctx) {
    cli_writer *w = ctx;
    if (w->open) return end_value(w); /* reports the incomplete value */
    return w->err;
}

static const sdx_sink_vt writer_vt = {writer_put, writer_finish};

sdx_err cli_writer_init(cli_writer *w, const cli_format *fmt, const cli_write_opts *opts, sdx_buf *out) {
    memset(w, 0, sizeof *w);
    w->fmt = fmt;
    w->opts = *opts;
    w->out = out;
    w->mem = malloc(fmt->writer_size);
    if (!w->mem) w->err = SDX_ERR_NOMEM;
    return w->err;
}

sdx_sink cli_writer_sink(cli_writer *w) {
    sdx_sink s = {&writer_vt, w};
    return s;
}

void cli_writer_destroy(cli_writer *w) {
    if (w->open) sdx_sink_finish(w->inner);
    w->open = false;
    free(w->mem);
    w->mem = NULL;
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

const char *cli_kind_name(const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: return "null";
    case SDX_BOOL: return "boolean";
    case SDX_INT:
    case SDX_UINT:
    case SDX_NINT: return "integer";
    case SDX_DOUBLE: return "floating-point number";
    case SDX_STR: return "string";
    case SDX_BIN: return "binary";
    case SDX_ARRAY: return "array";
    case SDX_MAP: return "map";
    case SDX_KEY: return "key";
    case SDX_END: return "end of a container";
    case SDX_RAW: return "number";
    case SDX_TAG: return "tag";
    }
    return "value";
}

/* " (OPTION does WHAT)" when the target knows the mapping, else "". */
static const char *hint(const cli_format *target, unsigned mapping, char *buf, size_t cap) {
    if (!target || !(target->mappings & mapping)) return "";
    const char *effect = "";
    switch (mapping) {
    case CLI_MAP_BIN_BASE64: effect = "writes it as a base64 string"; break;
    case CLI_MAP_KEYS_STRINGIFY: effect = "writes it as a string key"; break;
    case CLI_MAP_NAN_NULL: effect = "writes it as null"; break;
    case CLI_MAP_BIGINT_DOUBLE: effect = "writes the nearest double"; break;
    case CLI_MAP_UTF8_REPLACE: effect = "replaces bad bytes with U+FFFD"; break;
    case CLI_MAP_TAGS_DROP: effect = "writes it without the tag"; break;
    case CLI_MAP_TAGS_WRAP: effect = "writes it wrapped"; break;
    case CLI_MAP_UNDEFINED_NULL: effect = "writes it as null"; break;
    case CLI_MAP_ROOT_WRAP: effect = "wraps it in a document"; break;
    }
    snprintf(buf, cap, " (%s %s)", cli_mapping_option(mapping), effect);
    return buf;
}

int cli_sink_error_text(sdx_err err, const sdx_event *ev, const cli_format *target, const cli_output *out,
                        char *buf, size_t cap) {
    if (err == SDX_ERR_IO) {
        int e = out ? out->write_errno : 0;
        snprintf(buf, cap, "cannot write %s: %s", out ? out->name : "the output", e ? strerror(e) : "write error");
        return CLI_EXIT_IO;
    }
    if (err == SDX_ERR_NOMEM) {
        snprintf(buf, cap, "out of memory");
        return CLI_EXIT_IO;
    }
    const char *fmt = target ? target->name : "the target format";
    char h[64];
    const char *hn = "";
    char what[160];
    if (!ev) {
        if (err == SDX_ERR_USAGE) snprintf(what, sizeof what, "the input ends inside a value");
        else snprintf(what, sizeof what, "cannot write %s: %s", fmt, sdx_strerror(err));
    } else if (err == SDX_ERR_UNSUPPORTED && ev->depth == 0 && ev->kind != SDX_MAP && ev->kind != SDX_END &&
               target && (target->mappings & CLI_MAP_ROOT_WRAP)) {
        /* a format whose values are documents (BSON) */
        snprintf(what, sizeof what, "a root %s cannot be written as %s, whose root must be a map",
                 cli_kind_name(ev), fmt);
        hn = hint(target, CLI_MAP_ROOT_WRAP, h, sizeof h);
    } else if (err == SDX_ERR_UNSUPPORTED && ev->kind == SDX_BIN && ev->tag_kind == SDX_TAG_MSGPACK_EXT) {
        snprintf(what, sizeof what, "a MessagePack extension value (type %d, %zu bytes) cannot be written as %s",
                 (int)(int8_t)(uint8_t)ev->tag, ev->v.str.len, fmt);
        hn = hint(target, CLI_MAP_TAGS_WRAP, h, sizeof h);
    } else if (err == SDX_ERR_UNSUPPORTED && ev->kind == SDX_NULL && ev->tag_kind == SDX_TAG_CBOR_SIMPLE) {
        if (ev->tag == 23) {
            snprintf(what, sizeof what, "CBOR undefined cannot be written as %s", fmt);
            hn = hint(target, CLI_MAP_UNDEFINED_NULL, h, sizeof h);
        } else {
            snprintf(what, sizeof what, "the CBOR simple value %u cannot be written as %s", (unsigned)ev->tag, fmt);
            hn = hint(target, CLI_MAP_TAGS_WRAP, h, sizeof h);
        }
    } else if (err == SDX_ERR_UNSUPPORTED && ev->tag_kind == SDX_TAG_CBOR) {
        /* the item's innermost tag; the refused tag may be one around it */
        snprintf(what, sizeof what, "a %s with CBOR tag %llu (or a tag around it) cannot be written as %s",
                 cli_kind_name(ev), (unsigned long long)ev->tag, fmt);
        hn = hint(target, CLI_MAP_TAGS_WRAP, h, sizeof h);
    } else if (err == SDX_ERR_UNSUPPORTED && ev->tag_kind == SDX_TAG_BSON) {
        /* the low byte of a BSON tag is the element type (bson.h) */
        const char *kind = cli_kind_name(ev);
        snprintf(what, sizeof what, "%s %s of BSON type 0x%02x cannot be written as %s",
                 strchr("aeiou", kind[0]) ? "an" : "a", kind, (unsigned)(ev->tag & 0xff), fmt);
        hn = hint(target, CLI_MAP_TAGS_WRAP, h, sizeof h);
    } else if (err == SDX_ERR_UNSUPPORTED && ev->tag_kind == SDX_TAG_BINN) {
        snprintf(what, sizeof what, "a %s of Binn type 0x%llx cannot be written as %s", cli_kind_name(ev),
                 (unsigned long long)ev->tag, fmt);
        hn = hint(target, CLI_MAP_TAGS_WRAP, h, sizeof h);
    } else if (err == SDX_ERR_LIMIT) {
        snprintf(what, sizeof what,
                 "a number of more than %u digits, or more than %d tags on one value, cannot be written as %s",
                 SDX_MAP_DEFAULT_MAX_DIGITS, SDX_MAP_MAX_TAGS, fmt);
    } else if (err == SDX_ERR_UNSUPPORTED && ev->kind == SDX_BIN) {
        snprintf(what, sizeof what, "binary data (%zu bytes) cannot be written as %s", ev->v.str.len, fmt);
        hn = hint(target, CLI_MAP_BIN_BASE64, h, sizeof h);
    } else if (err == SDX_ERR_UNSUPPORTED && ev->kind == SDX_RAW) {
        int n = ev->v.str.len > 40 ? 40 : (int)ev->v.str.len;
        snprintf(what, sizeof what, "the number %.*s%s is beyond 64 bits and cannot be written as %s", n,
                 ev->v.str.ptr, ev->v.str.len > 40 ? "..." : "", fmt);
        snprintf(h, sizeof h, " (%s reads it as the nearest double)", cli_mapping_option(CLI_MAP_BIGINT_DOUBLE));
        hn = h;
    } else if (err == SDX_ERR_KEY && ev->kind != SDX_KEY) {
        snprintf(what, sizeof what, "a map key of type %s cannot be written as %s", cli_kind_name(ev), fmt);
        /* Only scalars have a text to become the key. */
        if (ev->kind <= SDX_DOUBLE && ev->tag_kind == SDX_TAG_NONE) hn = hint(target, CLI_MAP_KEYS_STRINGIFY, h, sizeof h);
    } else if (err == SDX_ERR_RANGE && ev->kind == SDX_DOUBLE) {
        snprintf(what, sizeof what, "%s cannot be written as %s",
                 isnan(ev->v.d) ? "NaN" : ev->v.d > 0 ? "Infinity" : "-Infinity", fmt);
        hn = hint(target, CLI_MAP_NAN_NULL, h, sizeof h);
    } else if (err == SDX_ERR_RANGE && ev->kind == SDX_NINT) {
        if (ev->v.u == UINT64_MAX)
            snprintf(what, sizeof what, "the integer -18446744073709551616 is out of range for %s", fmt);
        else
            snprintf(what, sizeof what, "the integer -%" PRIu64 " is out of range for %s", ev->v.u + 1, fmt);
        hn = hint(target, CLI_MAP_BIGINT_DOUBLE, h, sizeof h);
    } else if (err == SDX_ERR_RANGE && (ev->kind == SDX_UINT || ev->kind == SDX_INT)) {
        if (ev->kind == SDX_UINT)
            snprintf(what, sizeof what, "the integer %" PRIu64 " is out of range for %s", ev->v.u, fmt);
        else
            snprintf(what, sizeof what, "the integer %" PRId64 " is out of range for %s", ev->v.i, fmt);
        hn = hint(target, CLI_MAP_BIGINT_DOUBLE, h, sizeof h);
    } else if ((err == SDX_ERR_SYNTAX || err == SDX_ERR_DEPTH) && target &&
               (target->map_target & SDX_MAP_TARGET_BSON)) {
        /* the mapping layer's Extended JSON reading (map.h) */
        snprintf(what, sizeof what, "%s (ending here) cannot be written as %s",
                 err == SDX_ERR_DEPTH ? "code with scope nested too deep" : "a malformed Extended JSON type wrapper",
                 fmt);
        snprintf(h, sizeof h, " (%s reads it as a plain map)", cli_mapping_option(CLI_MAP_EJSON_OFF));
        hn = err == SDX_ERR_SYNTAX ? h : "";
    } else if (err == SDX_ERR_UTF8) {
        snprintf(what, sizeof what, "a %s with invalid UTF-8 cannot be written as %s", cli_kind_name(ev), fmt);
        hn = hint(target, CLI_MAP_UTF8_REPLACE, h, sizeof h);
    } else {
        snprintf(what, sizeof what, "cannot write a %s as %s: %s", cli_kind_name(ev), fmt, sdx_strerror(err));
    }
    snprintf(buf, cap, "%s%s", what, hn);
    return CLI_EXIT_INVALID;
}

int cli_report_sink_error(sdx_err err, const sdx_event *ev, const char *where, const cli_format *target,
                          const cli_output *out) {
    char text[300];
    int rc = cli_sink_error_text(err, ev, target, out, text, sizeof text);
    if (rc == CLI_EXIT_IO) cli_message("%s", text);
    else fprintf(stderr, "%s: error: %s\n", where, text);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The pump                                                                  */
/* ------------------------------------------------------------------------ */

int cli_pump(cli_input *in, sdx_sink sink, const cli_format *target, const cli_output *out) {
    sdx_event ev = {0}; /* fields a reader leaves alone stay zero */
    uint64_t before = 0; /* where the current event starts (after separators) */
    char where[600];
    while (cli_input_next(in, &ev)) {
        sdx_err e = sdx_sink_put(sink, &ev);
        if (e) {
            cli_input_where(in, before, true, where, sizeof where);
            sdx_sink_finish(sink);
            return cli_report_sink_error(e, &ev, where, target, out);
        }
        before = cli_input_offset(in);
    }
    sdx_err re = cli_input_report(in);
    if (re) {
        sdx_sink_finish(sink);
        return cli_exit_for(re);
    }
    sdx_err e = sdx_sink_finish(sink);
    if (e) {
        cli_input_where(in, before, true, where, sizeof where);
        return cli_report_sink_error(e, NULL, where, target, out);
    }
    return CLI_EXIT_OK;
}

int cli_pump_to(cli_input *in, cli_output *out, const cli_format *to, const cli_write_opts *opts) {
    cli_writer w;
    int rc;
    /* A source with BSON types: its untagged values are Extended JSON too
     * (--ejson, formats.c). */
    cli_write_opts wopts = *opts;
    if (in->fmt && (in->fmt->map_target & SDX_MAP_TARGET_BSON)) wopts.map |= CLI_MAP_EJSON_SOURCE;
    opts = &wopts;
    /* --ejson=off: JSON is read into BSON literally */
    uint32_t target = to->map_target;
    if (opts->map & CLI_MAP_EJSON_OFF) target &= ~(uint32_t)SDX_MAP_TARGET_BSON;
    if (cli_writer_init(&w, to, opts, cli_output_buf(out)) != SDX_OK) {
        cli_message("out of memory");
        rc = CLI_EXIT_IO;
    } else if (target && in->fmt && strcmp(in->fmt->name, "json") == 0) {
        /* JSON into a format with more types: through the mapping layer's
         * reverse direction (big numbers, wrapped forms with --tags=wrap,
         * Extended JSON into BSON). */
        sdx_map_from_json m;
        sdx_map_opts mo = {0, target, 0, NULL};
        if (opts->map & CLI_MAP_TAGS_WRAP) mo.flags |= SDX_MAP_TAGS_WRAP;
        sdx_map_from_json_init(&m, cli_writer_sink(&w), &mo);
        rc = cli_pump(in, sdx_map_from_json_sink(&m), to, out);
    } else {
        rc = cli_pump(in, cli_writer_sink(&w), to, out);
    }
    cli_writer_destroy(&w);
    return rc;
}

int cli_finish(int rc, cli_output *out, cli_input *in) {
    if (rc == CLI_EXIT_OK) rc = cli_output_commit(out);
    else cli_output_abort(out);
    if (in) cli_input_close(in);
    return rc;
}
