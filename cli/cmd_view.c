/*
 * sdx fmt and sdx view: pretty-printing. fmt writes indented JSON from any
 * format (through the JSON writer, so the output is JSON); view does the
 * same for text formats and shows binary formats in the diagnostic view.
 * Both colour their output on a terminal.
 */
#include <string.h>

#include "cli.h"
#include "color.h"
#include "diag.h"
#include "input.h"
#include "output.h"
#include "pump.h"

static const char fmt_help[] =
    "Usage: sdx fmt [OPTIONS] [IN]\n"
    "\n"
    "Pretty-print IN (default: stdin), in any format, as indented JSON on\n"
    "stdout. Keys, strings, numbers and literals are coloured when writing to a\n"
    "terminal.\n"
    "\n"
    "Options:\n"
    "  -f, --from FORMAT        input format (default: from IN's extension, else\n"
    "                           detected from the content)\n"
    "  --seq                    a sequence of values, each printed on its own\n"
    "  --indent N               spaces per level, 0 to 16 (default 2; 0: minified)\n" CLI_HELP_COLOR
    "  -h, --help               this help\n"
    "\n" CLI_HELP_MAPPINGS
    "\n"
    "Examples:\n"
    "  sdx fmt data.json\n"
    "  sdx fmt --bin=base64 data.msgpack | less -R\n"
    "  curl -s URL | sdx fmt\n"
    "\n" CLI_HELP_EXIT_CODES;

static const char view_help[] =
    "Usage: sdx view [OPTIONS] [IN]\n"
    "\n"
    "Show IN (default: stdin) on stdout: text formats as indented JSON (as\n"
    "'sdx fmt' does), CBOR in CBOR diagnostic notation (RFC 8949 section 8),\n"
    "other binary formats in a diagnostic view that shows what JSON cannot.\n"
    "Coloured when writing to a terminal.\n"
    "\n"
    "Options:\n"
    "  -f, --from FORMAT        input format (default: from IN's extension, else\n"
    "                           detected from the content)\n"
    "  --seq                    a sequence of values, each printed on its own\n"
    "  --indent N               spaces per level, 0 to 16 (default 2, for CBOR 0;\n"
    "                           0: one line per value)\n" CLI_HELP_COLOR
    "  -h, --help               this help\n"
    "\n" CLI_DIAG_CBOR_HELP
    "\n" CLI_DIAG_HELP
    "\n"
    "Examples:\n"
    "  sdx view data.msgpack\n"
    "  sdx view x.cbor                      e.g. {_ \"a\": h'01', \"b\": 1.5_3}\n"
    "  sdx view --seq --indent 0 events.cbor\n"
    "\n" CLI_HELP_EXIT_CODES;

/* The chunks of the CBOR string being shown (diag.h). */
static const size_t *view_chunks(const void *reader, size_t *n) {
#ifdef SDX_NO_CBOR
    (void)reader; /* never called: there is no CBOR input */
    *n = 0;
    return NULL;
#else
    return sdx_cbor_reader_chunks((const sdx_cbor_reader *)reader, n);
#endif
}

int cli_cmd_fmt(int argc, char **argv) {
    bool view = strcmp(argv[0], "view") == 0;
    const char *cmd = view ? "view" : "fmt";
    unsigned which = CLI_OPT_FROM | CLI_OPT_SEQ | CLI_OPT_INDENT | CLI_OPT_COLOR | (view ? 0 : CLI_OPT_MAPPINGS);
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    cli_opts o = {0};
    o.write.indent = UINT32_MAX; /* not given: 2, or 0 for CBOR's notation (below) */
    const char *in_path = NULL;
    const char *arg;
    int kind;
    while ((kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) {
            if (in_path) return cli_usage_error(cmd, "too many operands: '%s'", arg);
            in_path = arg;
            continue;
        }
        int m = cli_parse_option(&a, which, &o);
        if (m < 0) return CLI_EXIT_USAGE;
        if (m > 0) continue;
        if (!cli_args_is(&a, "--help", "-h")) return cli_usage_error(cmd, "unknown option '%s'", a.opt);
        fputs(view ? view_help : fmt_help, stdout);
        return CLI_EXIT_OK;
    }
    /* The diagnostic view shows strings that are not UTF-8 as such. */
    if (view) o.read.map |= CLI_MAP_UTF8_REPLACE;
    o.read.mapping_hints = !view;
    o.read.diag = view;
    cli_input in;
    int rc = cli_input_open(&in, in_path, o.from, &o.read);
    if (rc) return rc;
    bool cbor = view && strcmp(in.fmt->name, "cbor") == 0;
    if (o.write.indent == UINT32_MAX) o.write.indent = cbor ? 0 : 2;
    cli_output out;
    rc = cli_output_open(&out, NULL);
    if (rc) {
        cli_input_close(&in);
        return rc;
    }
    bool colored = cli_use_color(o.color, stdout);
    if (view && !in.fmt->text) {
        cli_diag d;
        cli_diag_init(&d, cli_output_buf(&out), o.write.indent, colored);
        if (cbor) cli_diag_cbor(&d, view_chunks, in.reader);
        rc = cli_pump(&in, cli_diag_sink(&d), NULL, &out);
        cli_diag_destroy(&d);
        return cli_finish(rc, &out, &in);
    }
    cli_colorizer c;
    if (colored) cli_colorizer_init(&c, &out);
    rc = cli_finish(cli_pump_to(&in, &out, cli_format_by_name("json"), &o.write), &out, &in);
    if (colored) cli_colorizer_destroy(&c);
    return rc;
}
