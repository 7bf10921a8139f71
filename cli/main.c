/*
 * sdx: the command-line tool. Dispatches to the subcommands (one file each)
 * and prints the version, the global help and the list of formats.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"convert", cli_cmd_convert, "convert between any two formats, streaming"},
    {"fmt", cli_cmd_fmt, "pretty-print any format as indented JSON"},
    {"view", cli_cmd_fmt, "show any format: JSON, or a diagnostic view of binary data"},
    {"validate", cli_cmd_validate, "check files and report the first error of each"},
    {"gen", cli_cmd_gen, "write the benchmark suite's generated data"},
    {"stat", cli_cmd_stat, "count values by type, depth, sizes in every format"},
    {"formats", cli_cmd_formats, "list the formats"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_help(FILE *f) {
    fputs("Usage: sdx COMMAND [OPTIONS] [ARGS]\n"
          "\n"
          "Work with JSON and binary serialization formats from the command line.\n"
          "\n"
          "Commands:\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; i++) fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\nFormats (-f / -t):", f);
    for (int i = 0; cli_formats[i]; i++) fprintf(f, " %s", cli_formats[i]->name);
    fputs("\n"
          "\n"
          "Options:\n"
          "  -h, --help                this help; 'sdx COMMAND --help' for a command's own\n"
          "  --version                 the version of sdx\n"
          "  --formats                 the same as 'sdx formats'\n"
          "\n"
          "Examples:\n"
          "  sdx convert data.json data.msgpack\n"
          "  sdx view data.msgpack\n"
          "  sdx validate *.json\n"
          "  sdx gen --size 3 | sdx stat\n"
          "\n" CLI_HELP_EXIT_CODES,
          f);
}

static const char formats_help[] =
    "Usage: sdx formats\n"
    "\n"
    "List the formats sdx knows: the name for -f and -t, whether sdx reads and\n"
    "writes it, the file extensions that select it, and what it is. Every\n"
    "command works with every format in this list.\n"
    "\n"
    "Example:\n"
    "  sdx formats\n"
    "\n" CLI_HELP_EXIT_CODES;

int cli_cmd_formats(int argc, char **argv) {
    cli_args a;
    cli_args_init(&a, "formats", argc, argv);
    const char *arg;
    int kind;
    while ((kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) return cli_usage_error("formats", "unexpected operand '%s'", arg);
        if (!cli_args_is(&a, "--help", "-h")) return cli_usage_error("formats", "unknown option '%s'", a.opt);
        fputs(formats_help, stdout);
        return CLI_EXIT_OK;
    }
    printf("%-10s %-5s %-5s %-24s %s\n", "FORMAT", "READ", "WRITE", "EXTENSIONS", "DESCRIPTION");
    for (int i = 0; cli_formats[i]; i++) {
        const cli_format *f = cli_formats[i];
        char ext[128] = "";
        for (const char *const *e = f->extensions; *e; e++) {
            size_t used = strlen(ext);
            snprintf(ext + used, sizeof ext - used, "%s.%s", used ? " " : "", *e);
        }
        printf("%-10s %-5s %-5s %-24s %s\n", f->name, cli_format_readable(f) ? "yes" : "no",
               cli_format_writable(f) ? "yes" : "no", ext, f->title);
    }
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_IO;
}

/* Run the command line; the exit code. */
static int run(int argc, char **argv) {
    if (argc < 2) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            for (size_t i = 0; i < N_COMMANDS; i++) {
                if (strcmp(argv[2], commands[i].name) != 0) continue;
                char help_opt[] = "--help";
                char *args[] = {argv[2], help_opt, NULL};
                return commands[i].run(2, args);
            }
            return cli_usage_error(NULL, "no command '%s'", argv[2]);
        }
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("sdx %s (SIMD: %s)\n", SDX_VERSION_STRING, sdx_simd_name());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--formats") == 0) return cli_cmd_formats(argc - 1, argv + 1);
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    return cli_usage_error(NULL, "no command '%s'", cmd);
}

int main(int argc, char **argv) {
    /* An oversized write (a file size limit) then fails with EFBIG and is
     * reported, instead of killing the command before it can clean up. */
    signal(SIGXFSZ, SIG_IGN);
    int rc = run(argc, argv);
    /* Text printed through stdio (help, lists, reports) that could not be
     * written is an I/O error too. */
    /* ferror too: a write that failed earlier (the buffer overflowing
     * while printing) may leave nothing for fflush to fail on. */
    int earlier = errno; /* the failed write's, when it was the last call */
    int flush_failed = fflush(stdout) != 0;
    if ((flush_failed || ferror(stdout)) && rc == CLI_EXIT_OK) {
        if (!flush_failed) errno = earlier ? earlier : EIO;
        cli_message("cannot write <stdout>: %s", strerror(errno));
        rc = CLI_EXIT_IO;
    }
    return rc;
}
