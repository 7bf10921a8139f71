/*
 * The JSON colouriser (color.h): a small state machine over the writer's
 * output, which is valid JSON, so it needs no error handling of its own.
 */
#include "color.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { ST_NONE = 0, ST_STRING, ST_BARE };

static bool put(cli_colorizer *c, const char *p, size_t n) {
    return cli_output_write(c->out, p, n) == n;
}

static bool put_sgr(cli_colorizer *c, const char *sgr) { return put(c, sgr, strlen(sgr)); }

static bool push(cli_colorizer *c, uint8_t is_object) {
    if (c->depth == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        uint8_t *s = realloc(c->stack, cap);
        if (!s) {
            c->failed = true;
            if (!c->out->write_errno) c->out->write_errno = ENOMEM;
            return false;
        }
        c->stack = s;
        c->cap = cap;
    }
    c->stack[c->depth++] = is_object;
    return true;
}

static bool in_object(const cli_colorizer *c) { return c->depth && c->stack[c->depth - 1]; }

static bool is_bare(char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '.' ||
           ch == '+' || ch == '-';
}

static size_t colorize(void *ctx, const void *data, size_t len) {
    cli_colorizer *c = ctx;
    const char *p = data, *end = p + len, *run = p;
    for (; p < end; p++) {
        char ch = *p;
        if (c->state == ST_STRING) {
            if (c->escape) c->escape = false;
            else if (ch == '\\') c->escape = true;
            else if (ch == '"') {
                if (!put(c, run, (size_t)(p + 1 - run)) || !put_sgr(c, CLI_SGR_RESET)) return 0;
                run = p + 1;
                c->state = ST_NONE;
            }
            continue;
        }
        if (c->state == ST_BARE) {
            if (is_bare(ch)) continue;
            if (!put(c, run, (size_t)(p - run)) || !put_sgr(c, CLI_SGR_RESET)) return 0;
            run = p;
            c->state = ST_NONE;
        }
        const char *sgr = NULL;
        switch (ch) {
        case '"':
            sgr = c->expect_key && in_object(c) ? CLI_SGR_KEY : CLI_SGR_STRING;
            c->state = ST_STRING;
            break;
        case '{':
            if (!push(c, 1)) return 0;
            c->expect_key = true;
            break;
        case '[':
            if (!push(c, 0)) return 0;
            c->expect_key = false;
            break;
        case '}':
        case ']':
            if (c->depth) c->depth--;
            c->expect_key = false;
            break;
        case ',': c->expect_key = in_object(c); break;
        case ':': c->expect_key = false; break;
        case ' ':
        case '\t':
        case '\r':
        case '\n': break;
        default:
            sgr = ch == 't' || ch == 'f' || ch == 'n' ? CLI_SGR_LITERAL : CLI_SGR_NUMBER;
            c->state = ST_BARE;
        }
        if (sgr) {
            if (!put(c, run, (size_t)(p - run)) || !put_sgr(c, sgr)) return 0;
            run = p;
        }
    }
    if (!put(c, run, (size_t)(end - run))) return 0;
    return len;
}

/* After the last chunk: a token cut short by an error gets its colour
 * reset, so that the terminal is left as it was. */
static void colorize_end(void *ctx) {
    cli_colorizer *c = ctx;
    if (c->state != ST_NONE) put_sgr(c, CLI_SGR_RESET);
    c->state = ST_NONE;
}

void cli_colorizer_init(cli_colorizer *c, cli_output *out) {
    memset(c, 0, sizeof *c);
    c->out = out;
    out->filter = colorize;
    sdx_buf_set_patch(&out->buf, NULL); /* coloured bytes are not the writer's */
    out->filter_end = colorize_end;
    out->filter_ctx = c;
}

void cli_colorizer_destroy(cli_colorizer *c) {
    free(c->stack);
    c->stack = NULL;
}
