/*
 * The diagnostic printer (diag.h). Strings, doubles and base64 are
 * formatted by the library's JSON writer into a scratch buffer, so the
 * view escapes and rounds exactly as the JSON output does.
 */
#include "diag.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"

static sdx_err fail(cli_diag *d, sdx_err e) {
    if (!d->err) d->err = e;
    return d->err;
}

static void put(cli_diag *d, const char *p, size_t n) {
    if (sdx_buf_write(d->out, p, n) != SDX_OK) fail(d, sdx_buf_error(d->out));
}

static void puts_(cli_diag *d, const char *s) { put(d, s, strlen(s)); }

/* Text in a colour (reset after it) when colouring. */
static void put_colored(cli_diag *d, const char *sgr, const char *p, size_t n) {
    if (d->color) puts_(d, sgr);
    put(d, p, n);
    if (d->color) puts_(d, CLI_SGR_RESET);
}

static void note(cli_diag *d, const char *text) { put_colored(d, CLI_SGR_NOTE, text, strlen(text)); }

static void newline_indent(cli_diag *d, size_t levels) {
    put(d, "\n", 1);
    size_t spaces = levels * d->indent;
    static const char blanks[] = "                                ";
    while (spaces) {
        size_t n = spaces < sizeof blanks - 1 ? spaces : sizeof blanks - 1;
        put(d, blanks, n);
        spaces -= n;
    }
}

/* Before an array element or a map key: the comma, and the line break and
 * indentation when indenting. Nothing before a map value or a root value. */
static void item_prefix(cli_diag *d) {
    if (!d->depth) return;
    cli_diag_frame *f = &d->frames[d->depth - 1];
    if (f->is_map && !f->key_next) return;
    if (f->items++) put(d, ",", 1);
    if (d->indent) newline_indent(d, d->depth);
}

/* After a complete item: ": " after a key, the newline after a root value. */
static void item_done(cli_diag *d) {
    if (!d->depth) {
        put(d, "\n", 1);
        return;
    }
    cli_diag_frame *f = &d->frames[d->depth - 1];
    if (!f->is_map) return;
    if (f->key_next) put(d, d->indent ? ": " : ":", d->indent ? 2 : 1);
    f->key_next = !f->key_next;
}

/* The tag prefix of a tagged value; returns whether a ')' must follow. */
static bool open_tag(cli_diag *d, const sdx_event *ev) {
    char text[48];
    switch ((sdx_tag_kind)ev->tag_kind) {
    case SDX_TAG_NONE:
    case SDX_TAG_CBOR_SIMPLE: return false; /* shown as the value itself */
    case SDX_TAG_MSGPACK_EXT: snprintf(text, sizeof text, "ext(%d, ", (int)(int8_t)(uint8_t)ev->tag); break;
    case SDX_TAG_CBOR: snprintf(text, sizeof text, "%" PRIu64 "(", ev->tag); break;
    case SDX_TAG_BSON: snprintf(text, sizeof text, "bson(%" PRIu64 ", ", ev->tag); break;
    default: snprintf(text, sizeof text, "tag%u:%" PRIu64 "(", (unsigned)ev->tag_kind, ev->tag); break;
    }
    note(d, text);
    return true;
}

/* Format one scalar with the scratch JSON writer; returns its text (no
 * newline) or NULL when the writer refuses it with `flags`. */
static const char *json_text(cli_diag *d, const sdx_event *ev, uint32_t flags, size_t *len) {
    sdx_json_write_opts o = {SDX_JSON_WRITE_SEQUENCE | flags, 0, NULL};
    sdx_buf_clear(&d->scratch);
    sdx_json_writer_init(&d->jw, &d->scratch, &o);
    if (ev->kind == SDX_KEY) sdx_json_writer_string(&d->jw, ev->v.str.ptr, ev->v.str.len);
    else sdx_json_writer_put(&d->jw, ev);
    sdx_err e = sdx_json_writer_finish(&d->jw);
    if (e) {
        if (e == SDX_ERR_NOMEM) fail(d, e);
        return NULL;
    }
    *len = sdx_buf_len(&d->scratch) - 1;
    return sdx_buf_data(&d->scratch);
}

/* The shortest text of a float32 that reads back (as a float) exactly. */
static void float32_text(float f, char *buf, size_t cap) {
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, cap, "%.*g", digits, (double)f);
        if (strtof(buf, NULL) == f) break;
    }
    if (!strpbrk(buf, ".en")) strncat(buf, ".0", cap - strlen(buf) - 1); /* 1 -> 1.0 */
}

static void scalar(cli_diag *d, const sdx_event *tagged, bool float32) {
    /* The tag is shown around the value: format the plain value. */
    sdx_event plain = *tagged;
    plain.tag_kind = SDX_TAG_NONE;
    plain.tag = 0;
    const sdx_event *ev = &plain;
    const char *sgr = CLI_SGR_NUMBER, *t;
    size_t n;
    char num[48];
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL:
        if (tagged->tag_kind == SDX_TAG_CBOR_SIMPLE) {
            if (tagged->tag == 23) snprintf(num, sizeof num, "undefined");
            else snprintf(num, sizeof num, "simple(%" PRIu64 ")", tagged->tag);
            put_colored(d, CLI_SGR_LITERAL, num, strlen(num));
            return;
        }
        put_colored(d, CLI_SGR_LITERAL, "null", 4);
        return;
    case SDX_NINT: /* -1 - n, below INT64_MIN */
        if (ev->v.u == UINT64_MAX) snprintf(num, sizeof num, "-18446744073709551616");
        else snprintf(num, sizeof num, "-%" PRIu64, ev->v.u + 1);
        put_colored(d, sgr, num, strlen(num));
        return;
    case SDX_BOOL: put_colored(d, CLI_SGR_LITERAL, ev->v.b ? "true" : "false", ev->v.b ? 4 : 5); return;
    case SDX_DOUBLE:
        if (float32 && isfinite(ev->v.d)) {
            float32_text((float)ev->v.d, num, sizeof num);
            put_colored(d, sgr, num, strlen(num));
            note(d, "_f32");
            return;
        }
        if (!isfinite(ev->v.d)) {
            t = isnan(ev->v.d) ? "NaN" : ev->v.d > 0 ? "Infinity" : "-Infinity";
            put_colored(d, sgr, t, strlen(t));
            if (float32) note(d, "_f32");
            return;
        }
        break;
    case SDX_STR:
    case SDX_KEY:
        sgr = ev->kind == SDX_KEY ? CLI_SGR_KEY : CLI_SGR_STRING;
        t = json_text(d, ev, 0, &n);
        if (!t) {
            t = json_text(d, ev, SDX_JSON_WRITE_REPLACE_INVALID_UTF8, &n);
            if (!t) return;
            put_colored(d, sgr, t, n);
            note(d, " /invalid UTF-8/");
            return;
        }
        put_colored(d, sgr, t, n);
        return;
    case SDX_BIN:
        t = json_text(d, ev, SDX_JSON_WRITE_BIN_BASE64, &n);
        if (!t) return;
        if (d->color) puts_(d, CLI_SGR_BINARY);
        put(d, "b64'", 4);
        put(d, t + 1, n - 2); /* without the quotes */
        put(d, "'", 1);
        if (d->color) puts_(d, CLI_SGR_RESET);
        snprintf(num, sizeof num, " /%zu bytes/", ev->v.str.len);
        note(d, num);
        return;
    case SDX_RAW: put_colored(d, sgr, ev->v.str.ptr, ev->v.str.len); return;
    default: break;
    }
    t = json_text(d, ev, 0, &n); /* integers and finite doubles */
    if (t) put_colored(d, sgr, t, n);
    else fail(d, SDX_ERR_INVALID_ARG);
}

static bool push(cli_diag *d, bool is_map, uint32_t closes) {
    if (d->depth == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 32;
        cli_diag_frame *f = realloc(d->frames, cap * sizeof *f);
        if (!f) {
            fail(d, SDX_ERR_NOMEM);
            return false;
        }
        d->frames = f;
        d->cap = cap;
    }
    cli_diag_frame *f = &d->frames[d->depth++];
    f->items = 0;
    f->is_map = is_map;
    f->key_next = true;
    f->closes = closes;
    return true;
}

static sdx_err diag_put(void *ctx, const sdx_event *ev) {
    cli_diag *d = ctx;
    if (d->err) return d->err;
    if (ev->kind == SDX_END) {
        if (!d->depth) return fail(d, SDX_ERR_USAGE);
        cli_diag_frame f = d->frames[--d->depth];
        if (f.items && d->indent) newline_indent(d, d->depth);
        put(d, f.is_map ? "}" : "]", 1);
        while (f.closes--) note(d, ")");
        item_done(d);
        return d->err;
    }
    if (!d->tags) item_prefix(d); /* else done by the item's first tag */
    uint32_t closes = d->tags + open_tag(d, ev);
    if (ev->kind == SDX_TAG) { /* one more tag on the next item */
        d->tags = closes;
        return d->err;
    }
    d->tags = 0;
    if (ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) {
        put(d, ev->kind == SDX_MAP ? "{" : "[", 1);
        push(d, ev->kind == SDX_MAP, closes);
        return d->err;
    }
    scalar(d, ev, (ev->flags & SDX_EVENT_FLOAT32) != 0);
    while (closes--) note(d, ")");
    item_done(d);
    return d->err;
}

static sdx_err diag_finish(void *ctx) {
    cli_diag *d = ctx;
    if (!d->err && d->depth) fail(d, SDX_ERR_USAGE);
    if (!d->err && sdx_buf_flush(d->out) != SDX_OK) fail(d, sdx_buf_error(d->out));
    return d->err;
}

static const sdx_sink_vt diag_vt = {diag_put, diag_finish};

void cli_diag_init(cli_diag *d, sdx_buf *out, uint32_t indent, bool color) {
    memset(d, 0, sizeof *d);
    d->out = out;
    d->indent = indent;
    d->color = color;
    sdx_buf_init(&d->scratch, NULL);
}

sdx_sink cli_diag_sink(cli_diag *d) {
    sdx_sink s = {&diag_vt, d};
    return s;
}

void cli_diag_destroy(cli_diag *d) {
    free(d->frames);
    d->frames = NULL;
    sdx_buf_destroy(&d->scratch);
}
