/*
 * Terminal colours (ANSI SGR sequences) for fmt and view, and a filter that
 * colours JSON text on its way to the output.
 */
#ifndef SDX_CLI_COLOR_H
#define SDX_CLI_COLOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

#define CLI_SGR_KEY "\x1b[1;34m"     /* map keys: bold blue */
#define CLI_SGR_STRING "\x1b[32m"    /* strings: green */
#define CLI_SGR_NUMBER "\x1b[36m"    /* numbers: cyan */
#define CLI_SGR_LITERAL "\x1b[33m"   /* true, false, null: yellow */
#define CLI_SGR_BINARY "\x1b[35m"    /* binary data: magenta */
#define CLI_SGR_NOTE "\x1b[90m"      /* tags, lengths, type markers: grey */
#define CLI_SGR_RESET "\x1b[0m"

/* Colours valid JSON text (one or more values, minified or indented) as it
 * streams through: keys, strings, numbers and literals each get their
 * colour. State carries over between chunks. */
typedef struct cli_colorizer {
    cli_output *out;
    uint8_t *stack;     /* per open container: 1 for an object */
    size_t depth, cap;
    bool expect_key;    /* the next string is a key */
    uint8_t state;      /* outside a token, in a string, in a number/literal */
    bool escape;        /* in a string, after a backslash */
    bool failed;        /* out of memory */
} cli_colorizer;

/* Start colouring into `out` and install the colouriser as its filter. */
void cli_colorizer_init(cli_colorizer *c, cli_output *out);

/* Release the colouriser's memory. */
void cli_colorizer_destroy(cli_colorizer *c);

#endif /* SDX_CLI_COLOR_H */
