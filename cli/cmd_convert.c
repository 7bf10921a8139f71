/*
 * sdx convert: any readable format to any writable one, event by event.
 */
#include <string.h>

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
    "  --indent N               JSON output indented by N spaces (1-16); default minified\n"
    "  --pretty                 the same as --indent 2\n"
    "  -h, --help               this help\n"
    "\n" CLI_HELP_MAPPINGS
    "\n"
    "JSON output ends with a newline. Errors name the input position:\n"
    "FILE:LINE:COLUMN for text formats, FILE: byte N for binary ones.\n"
    "\n"
    "Examples:\n"
    "  sdx convert data.json data.msgpack          by the extensions\n"
    "  sdx convert -t json < data.msgpack          stdin to stdout\n"
    "  curl -s URL | sdx convert -t cbor > out.cbor\n"
    "  sdx convert --seq -t msgpack log.ndjson log.mpk\n"
    "  sdx convert --bin=base64 --pretty data.msgpack data.json\n"
    "\n" CLI_HELP_EXIT_CODES;

int cli_cmd_convert(int argc, char **argv) {
    cli_args a;
    cli_args_init(&a, "convert", argc, argv);
    const cli_format *from = NULL, *to = NULL;
    const char *operands[2] = {NULL, NULL};
    int n_operands = 0;
    cli_read_opts ro = {false, 0};
    cli_write_opts wo = {0, 0};
    const char *arg;
    int kind;
    while ((kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) {
            if (n_operands == 2) return cli_usage_error("convert", "too many operands: '%s'", arg);
            operands[n_operands++] = arg;
            continue;
        }
        int m = cli_parse_mapping(&a, &wo.map);
        if (m < 0) return CLI_EXIT_USAGE;
        if (m > 0) continue;
        if (cli_args_is(&a, "--help", "-h")) {
            fputs(convert_help, stdout);
            return CLI_EXIT_OK;
        } else if (cli_args_is(&a, "--from", "-f")) {
            const char *v = cli_args_value(&a);
            if (!v || !(from = cli_parse_format("convert", v, true, false))) return CLI_EXIT_USAGE;
        } else if (cli_args_is(&a, "--to", "-t")) {
            const char *v = cli_args_value(&a);
            if (!v || !(to = cli_parse_format("convert", v, false, true))) return CLI_EXIT_USAGE;
        } else if (cli_args_is(&a, "--seq", NULL)) {
            if (!cli_args_flag(&a)) return CLI_EXIT_USAGE;
            ro.seq = true;
        } else if (cli_args_is(&a, "--indent", NULL)) {
            const char *v = cli_args_value(&a);
            uint64_t n;
            if (!v) return CLI_EXIT_USAGE;
            if (!cli_parse_u64(v, 0, 16, &n)) return cli_usage_error("convert", "--indent takes 0 to 16, not '%s'", v);
            wo.indent = (uint32_t)n;
        } else if (cli_args_is(&a, "--pretty", NULL)) {
            if (!cli_args_flag(&a)) return CLI_EXIT_USAGE;
            wo.indent = 2;
        } else {
            return cli_usage_error("convert", "unknown option '%s'", a.opt);
        }
    }
    const char *in_path = operands[0], *out_path = operands[1];
    if (!to && out_path && strcmp(out_path, "-") != 0) {
        to = cli_format_by_path(out_path);
        if (to && !cli_format_writable(to))
            return cli_usage_error("convert", "sdx cannot write %s yet (from the name %s)", to->name, out_path);
    }
    if (!to) to = cli_format_by_name("json");
    ro.map = wo.map;

    cli_input in;
    int rc = cli_input_open(&in, in_path, from, &ro);
    if (rc) return rc;
    cli_output out;
    rc = cli_output_open(&out, out_path);
    if (rc) {
        cli_input_close(&in);
        return rc;
    }
    cli_writer w;
    if (cli_writer_init(&w, to, &wo, cli_output_buf(&out)) != SDX_OK) {
        cli_message("out of memory");
        rc = CLI_EXIT_IO;
    } else {
        rc = cli_pump(&in, cli_writer_sink(&w), to, &out);
    }
    cli_writer_destroy(&w);
    if (rc == CLI_EXIT_OK) rc = cli_output_commit(&out);
    else cli_output_abort(&out);
    cli_input_close(&in);
    return rc;
}
