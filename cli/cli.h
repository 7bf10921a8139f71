/*
 * The sdx command: what every subcommand shares — exit codes, argument
 * parsing, messages and the options common to several subcommands.
 */
#ifndef SDX_CLI_H
#define SDX_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats.h"

/* Exit codes, documented in every --help. */
enum cli_exit {
    CLI_EXIT_OK = 0,      /* success */
    CLI_EXIT_INVALID = 1, /* invalid input, or a value the target cannot represent */
    CLI_EXIT_USAGE = 2,   /* bad command line */
    CLI_EXIT_IO = 3       /* input/output error (missing file, disk full, ...) or out of memory */
};

/* The exit code for a library error: I/O and memory errors are 3, usage 2,
 * everything else (bad data, unrepresentable values) 1. */
int cli_exit_for(sdx_err err);

/* The text every --help ends with. */
#define CLI_HELP_EXIT_CODES                                                                      \
    "Exit status: 0 success, 1 invalid data (or a value the target format cannot\n"              \
    "represent), 2 usage error, 3 I/O error (unreadable input, unwritable output,\n"             \
    "disk full) or out of memory.\n"

/* ------------------------------------------------------------------------ */
/* Argument parsing                                                          */
/* ------------------------------------------------------------------------ */

/* A walk over a subcommand's arguments: options ("-f json", "-fjson",
 * "--from json", "--from=json", "--seq") and operands, in any order; "--"
 * ends the options; "-" alone is an operand (stdin or stdout). */
typedef struct cli_args {
    const char *cmd; /* "convert", for messages */
    int argc;
    char **argv;
    int next;               /* index of the next argument */
    bool operands_only;     /* after "--" */
    char opt[64];           /* the current option's name ("--from", "-f") */
    const char *inline_val; /* "json" of "--from=json" or "-fjson", else NULL */
} cli_args;

enum { CLI_ARG_END = 0, CLI_ARG_OPTION, CLI_ARG_OPERAND };

/* Start walking argv[1..argc) (argv[0] is the subcommand's name). */
void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv);

/* The next argument: CLI_ARG_OPTION (its name in a->opt), CLI_ARG_OPERAND
 * (the operand in *operand) or CLI_ARG_END. */
int cli_args_next(cli_args *a, const char **operand);

/* Whether the current option is `long_name` ("--from") or `short_name`
 * ("-f", or NULL for none). */
bool cli_args_is(const cli_args *a, const char *long_name, const char *short_name);

/* The current option's value: inline or the next argument. NULL (after a
 * usage message) when it is missing. */
const char *cli_args_value(cli_args *a);

/* For an option that takes no value: false (after a usage message) when
 * one was given inline ("--seq=1"). */
bool cli_args_flag(cli_args *a);

/* Print "sdx CMD: <message>" and a pointer to --help on stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Print "sdx: <message>" on stderr. */
void cli_message(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Parse an unsigned decimal number in [min, max]; false if it is not one. */
bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* ------------------------------------------------------------------------ */
/* Options shared by several subcommands                                     */
/* ------------------------------------------------------------------------ */

/* Options several subcommands share; each says which ones it takes. */
enum cli_opt_set {
    CLI_OPT_FROM = 1u << 0,     /* -f, --from FORMAT (readable) */
    CLI_OPT_TO = 1u << 1,       /* -t, --to FORMAT (writable) */
    CLI_OPT_SEQ = 1u << 2,      /* --seq */
    CLI_OPT_INDENT = 1u << 3,   /* --indent N, --pretty */
    CLI_OPT_MAPPINGS = 1u << 4, /* --bin, --keys, --nan, --bigint, --utf8, --tags, --undefined */
    CLI_OPT_COLOR = 1u << 5     /* --color[=WHEN], --no-color */
};

/* Colour: --color=auto|always|never and --no-color. */
enum cli_color { CLI_COLOR_AUTO = 0, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

typedef struct cli_opts {
    const cli_format *from, *to; /* NULL: not given */
    cli_read_opts read;          /* --seq, and the mappings (for readers) */
    cli_write_opts write;        /* the mappings and the indentation */
    enum cli_color color;
} cli_opts;

/* If the current option is one of the set `which`, apply it to *o and
 * return 1; return 0 if it is not; -1 (after a usage message) for a bad or
 * missing value. */
int cli_parse_option(cli_args *a, unsigned which, cli_opts *o);

/* The format to write: -t if given, else the one OUT's extension names,
 * else JSON. NULL (after a usage message) when the extension names a
 * format sdx cannot write. */
const cli_format *cli_target_format(const char *cmd, const cli_opts *o, const char *out_path);

/* The help text of the mapping options. */
#define CLI_HELP_MAPPINGS                                                                        \
    "Values the target format cannot represent are errors unless mapped:\n"                      \
    "  --bin=error|base64       binary data: error, or a base64 string (RFC 4648)\n"             \
    "  --keys=error|stringify   map keys other than strings: error, or their JSON text\n"        \
    "                           as a string key\n"                                               \
    "  --nan=error|null         NaN and infinities in JSON: error, or null\n"                    \
    "  --bigint=error|double    integers the target cannot hold (beyond 64 bits, or\n"           \
    "                           beyond int64 where the format stops there): error, or\n"         \
    "                           the nearest double\n"                                            \
    "  --utf8=error|replace     strings that are not UTF-8: error, or read anyway and\n"        \
    "                           written as JSON with U+FFFD for each bad sequence\n"            \
    "                           (binary formats keep the bytes as they are)\n"                  \
    "  --tags=error|drop|wrap   tagged values JSON has no form for (CBOR tags other\n"          \
    "                           than those below, MessagePack ext types other than\n"           \
    "                           the timestamp, CBOR simple values): error; drop the\n"          \
    "                           tag (an ext payload as binary, a simple value as\n"            \
    "                           null); or wrap: {\"$tag\": N, \"$value\": V},\n"                \
    "                           {\"$ext\": TYPE, \"$data\": \"BASE64\"}, {\"$simple\": N} (and\n"  \
    "                           from JSON into CBOR or MessagePack, read them back)\n"         \
    "  --undefined=error|null   CBOR undefined in JSON: error, or null\n"                        \
    "  --root=error|wrap        a root other than a map into BSON: error, or wrapped\n"         \
    "                           ({\"0\": value}; an array's elements under \"0\", \"1\", ...)\n" \
    "  --ejson=relaxed|canonical|off  BSON types in JSON: MongoDB Extended JSON\n"    \
    "                           v2 (read back into BSON); off: --tags decides\n"          \
    "Always converted: dates (CBOR tags 0 and 1, MessagePack timestamps) to RFC\n"            \
    "3339 strings; CBOR bignums, decimal fractions and bigfloats to exact JSON\n"             \
    "numbers, and back: JSON numbers beyond 64 bits into CBOR as bignums or\n"                \
    "decimal fractions (at most 4300 digits); CBOR tags 21-23 to base64url,\n"               \
    "base64 and base16 strings; tags 24 and 55799 dropped.\n"

#define CLI_HELP_COLOR                                                                            \
    "  --color=auto|always|never  colour the output (auto: when writing to a\n"                  \
    "                           terminal and NO_COLOR is not set)\n"                             \
    "  --no-color               the same as --color=never\n"

/* Whether to colour output going to `f`: always / never as asked; for auto,
 * only when f is a terminal and the environment variable NO_COLOR is unset
 * or empty (https://no-color.org). */
bool cli_use_color(enum cli_color c, FILE *f);

/* ------------------------------------------------------------------------ */
/* Subcommands                                                               */
/* ------------------------------------------------------------------------ */

/* Each gets argv[0] = its name and returns the exit code. */
int cli_cmd_convert(int argc, char **argv);
int cli_cmd_fmt(int argc, char **argv);  /* also "view" */
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_gen(int argc, char **argv);
int cli_cmd_stat(int argc, char **argv);
int cli_cmd_formats(int argc, char **argv);

#endif /* SDX_CLI_H */
