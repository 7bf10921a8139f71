/*
 * Argument parsing, messages and the shared options (cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_exit_for(sdx_err err) {
    switch (err) {
    case SDX_OK: return CLI_EXIT_OK;
    case SDX_ERR_IO:
    case SDX_ERR_NOMEM: return CLI_EXIT_IO;
    default: return CLI_EXIT_INVALID;
    }
}

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->argc = argc;
    a->argv = argv;
    a->next = 1;
}

int cli_args_next(cli_args *a, const char **operand) {
    a->opt[0] = 0;
    a->inline_val = NULL;
    if (a->next >= a->argc) return CLI_ARG_END;
    const char *s = a->argv[a->next++];
    if (a->operands_only || s[0] != '-' || s[1] == 0) {
        *operand = s;
        return CLI_ARG_OPERAND;
    }
    if (s[1] == '-' && s[2] == 0) {
        a->operands_only = true;
        return cli_args_next(a, operand);
    }
    size_t n;
    if (s[1] == '-') {
        const char *eq = strchr(s, '=');
        n = eq ? (size_t)(eq - s) : strlen(s);
        if (eq) a->inline_val = eq + 1;
    } else {
        n = 2;
        if (s[2]) a->inline_val = s + 2;
    }
    if (n >= sizeof a->opt) n = sizeof a->opt - 1;
    memcpy(a->opt, s, n);
    a->opt[n] = 0;
    return CLI_ARG_OPTION;
}

bool cli_args_is(const cli_args *a, const char *long_name, const char *short_name) {
    return strcmp(a->opt, long_name) == 0 || (short_name && strcmp(a->opt, short_name) == 0);
}

const char *cli_args_value(cli_args *a) {
    if (a->inline_val) return a->inline_val;
    if (a->next < a->argc) return a->argv[a->next++];
    cli_usage_error(a->cmd, "option %s needs a value", a->opt);
    return NULL;
}

bool cli_args_flag(cli_args *a) {
    if (!a->inline_val) return true;
    cli_usage_error(a->cmd, "option %s takes no value", a->opt);
    return false;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sdx%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'sdx%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    return CLI_EXIT_USAGE;
}

void cli_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("sdx: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

/* One mapping option: --NAME=DEFAULT|VALUE|VALUE2; each value sets its bit,
 * the default ("error" unless given) none. */
typedef struct mapping_option {
    const char *name;
    const char *values[2]; /* the second may be NULL */
    unsigned bits[2];
    const char *none;      /* the value that sets no bit; NULL: "error" */
} mapping_option;

static const mapping_option mapping_options[] = {
    {"--bin", {"base64", NULL}, {CLI_MAP_BIN_BASE64, 0}, NULL},
    {"--keys", {"stringify", NULL}, {CLI_MAP_KEYS_STRINGIFY, 0}, NULL},
    {"--nan", {"null", NULL}, {CLI_MAP_NAN_NULL, 0}, NULL},
    {"--bigint", {"double", NULL}, {CLI_MAP_BIGINT_DOUBLE, 0}, NULL},
    {"--utf8", {"replace", NULL}, {CLI_MAP_UTF8_REPLACE, 0}, NULL},
    {"--tags", {"drop", "wrap"}, {CLI_MAP_TAGS_DROP, CLI_MAP_TAGS_WRAP}, NULL},
    {"--undefined", {"null", NULL}, {CLI_MAP_UNDEFINED_NULL, 0}, NULL},
    {"--ejson", {"canonical", "off"}, {CLI_MAP_EJSON_CANONICAL, CLI_MAP_EJSON_OFF}, "relaxed"},
    {"--root", {"wrap", NULL}, {CLI_MAP_ROOT_WRAP, 0}, NULL},
};

static int parse_mapping(cli_args *a, cli_opts *o) {
    for (size_t i = 0; i < sizeof mapping_options / sizeof mapping_options[0]; i++) {
        const mapping_option *m = &mapping_options[i];
        if (!cli_args_is(a, m->name, NULL)) continue;
        const char *v = cli_args_value(a);
        if (!v) return -1;
        unsigned set = 0;
        const char *none = m->none ? m->none : "error";
        bool known = strcmp(v, none) == 0;
        for (int k = 0; k < 2 && m->values[k]; k++)
            if (strcmp(v, m->values[k]) == 0) {
                set = m->bits[k];
                known = true;
            }
        if (!known) {
            if (m->values[1])
                cli_usage_error(a->cmd, "%s takes '%s', '%s' or '%s', not '%s'", m->name, none, m->values[0],
                                m->values[1], v);
            else
                cli_usage_error(a->cmd, "%s takes '%s' or '%s', not '%s'", m->name, none, m->values[0], v);
            return -1;
        }
        o->write.map = (o->write.map & ~(m->bits[0] | m->bits[1])) | set;
        o->read.map = o->write.map;
        return 1;
    }
    return 0;
}

/* A format option's value: NULL (after a usage message) for an unknown
 * name, or a format sdx cannot read / write as asked. */
static const cli_format *parse_format(const char *cmd, const char *name, bool need_read, bool need_write) {
    const cli_format *f = cli_format_by_name(name);
    if (!f) {
        char list[256] = "";
        for (int i = 0; cli_formats[i]; i++) {
            if ((need_read && !cli_format_readable(cli_formats[i])) ||
                (need_write && !cli_format_writable(cli_formats[i])))
                continue;
            if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            strncat(list, cli_formats[i]->name, sizeof list - strlen(list) - 1);
        }
        cli_usage_error(cmd, "unknown format '%s' (known: %s)", name, list);
        return NULL;
    }
    if ((need_read && !cli_format_readable(f)) || (need_write && !cli_format_writable(f))) {
        cli_usage_error(cmd, "sdx cannot %s %s yet", need_read ? "read" : "write", f->name);
        return NULL;
    }
    return f;
}

static int parse_color(cli_args *a, cli_opts *o) {
    if (cli_args_is(a, "--no-color", NULL)) {
        if (!cli_args_flag(a)) return -1;
        o->color = CLI_COLOR_NEVER;
        return 1;
    }
    if (!cli_args_is(a, "--color", NULL)) return 0;
    /* "--color" alone means always, as in GNU tools. */
    const char *v = a->inline_val ? a->inline_val : "always";
    if (strcmp(v, "auto") == 0) o->color = CLI_COLOR_AUTO;
    else if (strcmp(v, "always") == 0) o->color = CLI_COLOR_ALWAYS;
    else if (strcmp(v, "never") == 0) o->color = CLI_COLOR_NEVER;
    else {
        cli_usage_error(a->cmd, "--color takes auto, always or never, not '%s'", v);
        return -1;
    }
    return 1;
}

int cli_parse_option(cli_args *a, unsigned which, cli_opts *o) {
    const char *v;
    if ((which & CLI_OPT_FROM) && cli_args_is(a, "--from", "-f")) {
        if (!(v = cli_args_value(a)) || !(o->from = parse_format(a->cmd, v, true, false))) return -1;
        return 1;
    }
    if ((which & CLI_OPT_TO) && cli_args_is(a, "--to", "-t")) {
        if (!(v = cli_args_value(a)) || !(o->to = parse_format(a->cmd, v, false, true))) return -1;
        return 1;
    }
    if ((which & CLI_OPT_SEQ) && cli_args_is(a, "--seq", NULL)) {
        if (!cli_args_flag(a)) return -1;
        o->read.seq = true;
        return 1;
    }
    if ((which & CLI_OPT_INDENT) && cli_args_is(a, "--indent", NULL)) {
        uint64_t n;
        if (!(v = cli_args_value(a))) return -1;
        if (!cli_parse_u64(v, 0, 16, &n)) {
            cli_usage_error(a->cmd, "--indent takes 0 to 16, not '%s'", v);
            return -1;
        }
        o->write.indent = (uint32_t)n;
        return 1;
    }
    if ((which & CLI_OPT_INDENT) && cli_args_is(a, "--pretty", NULL)) {
        if (!cli_args_flag(a)) return -1;
        o->write.indent = 2;
        return 1;
    }
    if (which & CLI_OPT_MAPPINGS) {
        int m = parse_mapping(a, o);
        if (m) return m;
    }
    if (which & CLI_OPT_COLOR) return parse_color(a, o);
    return 0;
}

const cli_format *cli_target_format(const char *cmd, const cli_opts *o, const char *out_path) {
    if (o->to) return o->to;
    const cli_format *f = out_path && strcmp(out_path, "-") != 0 ? cli_format_by_path(out_path) : NULL;
    if (f && !cli_format_writable(f)) {
        cli_usage_error(cmd, "sdx cannot write %s yet (from the name %s)", f->name, out_path);
        return NULL;
    }
    return f ? f : cli_format_by_name("json");
}

bool cli_use_color(enum cli_color c, FILE *f) {
    if (c != CLI_COLOR_AUTO) return c == CLI_COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR");
    if (no && *no) return false;
    return isatty(fileno(f)) == 1;
}
