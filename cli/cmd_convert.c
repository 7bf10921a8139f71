/*
 * sdx convert: any readable format to any writable one, event by event.
 */
#include "cli.h"
#include "input.h"
#include "output.h"
#include "pump.h"

static const char convert_help[] =
    "Usage: sdx convert [OPTIONS] [IN] [OUT]\n"
    "\n"
    "Convert IN (default: stdin) from one format to another and write OUT\n"
    "(default: stdout). The input is read and the output written event by\n"
    "event, so memory stays small whatever the input's size. OUT is written to\n"
    "a temporary file beside it and renamed over it only when the conversion\n"
    "succeeds: a failed conversion leaves no partial file, and an existing OUT\n"
    "untouched. '-' means stdin or stdout.\n"
    "\n"
    "Options:\n"
    "  -f, --from FORMAT        input format (default: from IN's extension, else\n"
    "                           detected from the content)\n"
    "  -t, --to FORMAT          output format (default: from OUT's extension, else json)\n"
    "  --seq                    a sequence of values: newline-delimited JSON,\n"
    "                           back-to-back binary values; each is converted on\n"
    "                           its own (without it, the input is one value)\n"
    "  --indent N               JSON indented by N spaces (0-16; default 0: minified)\n"
    "  --pretty                 the same as --indent 2\n"
    "  -h, --help               this help\n"
    "\n" CLI_HELP_MAPPINGS;

/* The rest of the help (one string literal would exceed the 4095 bytes
 * C11 compilers must support). */
static const char convert_help_more[] =
    "\n"
    "JSON output ends with a newline. Errors name the input position:\n"
    "FILE:LINE:COLUMN for text formats, FILE: byte N for binary ones.\n"
    "\n"
    "Memory: a few MB whatever the input's size. A format that stores container\n"
    "counts before the elements (MessagePack) from one that does not (JSON) is\n"
    "converted in two passes over the input, the first counting; input from a\n"
    "pipe is kept in a temporary file in $TMPDIR (else /tmp) for the second. With\n"
    "--seq each value is converted as soon as it has arrived, held in memory\n"
    "while it is (so memory follows the largest value). BSON and Binn sizes are\n"
    "patched in place in a file (also a standard output that is a regular file\n"
    "not opened for appending); into a pipe a whole top-level value is held.\n"
    "\n"
    "Examples:\n"
    "  sdx convert data.json data.msgpack          by the extensions\n"
    "  sdx convert -t json < data.msgpack          stdin to stdout\n"
    "  curl -s URL | sdx convert -t cbor > out.cbor\n"
    "  sdx convert --seq -t msgpack log.ndjson log.mpk\n"
    "  sdx convert --bin=base64 --pretty data.msgpack data.json\n"
    "  sdx convert --tags=wrap data.cbor data.json   unknown tags as {\"$tag\": ...}\n"
    "\n" CLI_HELP_EXIT_CODES;

int cli_cmd_convert(int argc, char **argv) {
    cli_args a;
    cli_args_init(&a, "convert", argc, argv);
    cli_opts o = {0};
    const char *operands[2] = {NULL, NULL};
    int n_operands = 0;
    const char *arg;
    int kind;
    while ((kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) {
            if (n_operands == 2) return cli_usage_error("convert", "too many operands: '%s'", arg);
            operands[n_operands++] = arg;
            continue;
        }
        int m = cli_parse_option(&a, CLI_OPT_FROM | CLI_OPT_TO | CLI_OPT_SEQ | CLI_OPT_INDENT | CLI_OPT_MAPPINGS, &o);
        if (m < 0) return CLI_EXIT_USAGE;
        if (m > 0) continue;
        if (!cli_args_is(&a, "--help", "-h")) return cli_usage_error("convert", "unknown option '%s'", a.opt);
        fputs(convert_help, stdout);
        fputs(convert_help_more, stdout);
        return CLI_EXIT_OK;
    }
    const cli_format *to = cli_target_format("convert", &o, operands[1]);
    if (!to) return CLI_EXIT_USAGE;
    /* A single value into a format that needs counts first: count in a
     * first pass rather than hold the value in memory. A sequence is
     * converted value by value as it arrives instead (each value held). */
    o.read.counts = to->counts_first && !o.read.seq;
    o.read.mapping_hints = true;
    cli_input in;
    int rc = cli_input_open(&in, operands[0], o.from, &o.read);
    if (rc) return rc;
    cli_output out;
    rc = cli_output_open(&out, operands[1]);
    if (rc) {
        cli_input_close(&in);
        return rc;
    }
    return cli_finish(cli_pump_to(&in, &out, to, &o.write), &out, &in);
}
