/*
 * sdx validate: read files to the end and report the first error of each.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cli.h"
#include "input.h"

static const char validate_help[] =
    "Usage: sdx validate [OPTIONS] [FILE...]\n"
    "\n"
    "Check that each FILE (default: stdin) is well-formed in its format: from\n"
    "-f, else its extension, else detected from the content. Prints\n"
    "'FILE: ok (FORMAT)' for each valid file, and for an invalid one its first\n"
    "error: 'FILE:LINE:COLUMN: error: ...' for text formats, 'FILE: byte N:\n"
    "error: ...' for binary ones. Files are read in bounded chunks, whatever\n"
    "their size.\n"
    "\n"
    "Options:\n"
    "  -f, --from FORMAT        the format of every FILE\n"
    "  --seq                    each FILE is a sequence of values\n"
    "                           (newline-delimited JSON, back-to-back binary values)\n"
    "  -q, --quiet              print nothing for valid files\n"
    "  -h, --help               this help\n"
    "\n"
    "Examples:\n"
    "  sdx validate config.json\n"
    "  sdx validate -q *.msgpack || echo 'some are broken'\n"
    "  sdx validate --seq events.ndjson\n"
    "\n"
    "Exit status: 0 if every file is valid, 1 if any is invalid, 2 usage error,\n"
    "3 if any cannot be read (this wins over 1).\n";

/* Validate one file; returns its exit code. */
static int validate_one(const char *path, const cli_format *from, const cli_read_opts *ro, bool quiet) {
    cli_input in;
    int rc = cli_input_open(&in, path, from, ro);
    if (rc) return rc;
    sdx_event ev = {0}; /* fields a reader leaves alone stay zero */
    uint64_t depth = 0, values = 0;
    while (cli_input_next(&in, &ev)) {
        if (ev.kind == SDX_ARRAY || ev.kind == SDX_MAP) depth++;
        else if (ev.kind == SDX_END && depth) depth--;
        if (depth == 0 && ev.kind != SDX_KEY && ev.kind != SDX_TAG) values++;
    }
    sdx_err e = cli_input_report(&in);
    if (!e && !quiet) {
        if (ro->seq)
            printf("%s: ok (%s, %" PRIu64 " value%s)\n", in.name, in.fmt->name, values, values == 1 ? "" : "s");
        else
            printf("%s: ok (%s)\n", in.name, in.fmt->name);
    }
    cli_input_close(&in);
    return cli_exit_for(e);
}

int cli_cmd_validate(int argc, char **argv) {
    cli_args a;
    cli_args_init(&a, "validate", argc, argv);
    cli_opts o = {0};
    bool quiet = false;
    const char *arg;
    int kind;
    /* The operands, in order (fewer than argc); the options apply to all. */
    const char **files = malloc((size_t)argc * sizeof *files);
    int n_files = 0;
    if (!files) {
        cli_message("out of memory");
        return CLI_EXIT_IO;
    }
    int rc = CLI_EXIT_OK;
    while (!rc && (kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) {
            files[n_files++] = arg;
            continue;
        }
        int m = cli_parse_option(&a, CLI_OPT_FROM | CLI_OPT_SEQ, &o);
        if (m < 0) {
            rc = CLI_EXIT_USAGE;
        } else if (m > 0) {
            continue;
        } else if (cli_args_is(&a, "--quiet", "-q")) {
            if (!cli_args_flag(&a)) rc = CLI_EXIT_USAGE;
            quiet = true;
        } else if (cli_args_is(&a, "--help", "-h")) {
            fputs(validate_help, stdout);
            free(files);
            return CLI_EXIT_OK;
        } else {
            rc = cli_usage_error("validate", "unknown option '%s'", a.opt);
        }
    }
    if (!rc && n_files == 0) {
        rc = validate_one(NULL, o.from, &o.read, quiet);
    } else if (!rc) {
        for (int i = 0; i < n_files; i++) {
            int r = validate_one(files[i], o.from, &o.read, quiet);
            /* I/O errors win over invalid files, which win over success. */
            if (r == CLI_EXIT_IO || (r != CLI_EXIT_OK && rc == CLI_EXIT_OK)) rc = r;
        }
    }
    free(files);
    if (fflush(stdout) != 0 && rc == CLI_EXIT_OK) rc = CLI_EXIT_IO;
    return rc;
}
