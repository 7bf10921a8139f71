/*
 * sdx gen: the benchmark suite's deterministic data (bench/harness/gen.c,
 * linked in, not copied), written in any format.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gen.h"
#include "output.h"
#include "pump.h"
#include "tree.h"

static const char gen_help[] =
    "Usage: sdx gen [OPTIONS] [OUT]\n"
    "\n"
    "Write the benchmark suite's generated data (bench/harness/SPEC.md): a\n"
    "deterministic tree of maps, arrays, strings (some with escapes and\n"
    "non-ASCII text), integers, doubles, booleans and nulls. The standard data\n"
    "has integers within int64 and finite normal doubles only; --extended adds\n"
    "integers above INT64_MAX and extreme values (UINT64_MAX, INT64_MIN,\n"
    "INT64_MAX, -0.0, subnormal doubles, the smallest normal double, DBL_MAX).\n"
    "The same size, seed and variant give the same data on every machine and\n"
    "in the suite: the values are those `bench_tool encode FORMAT gen:SIZE:SEED`\n"
    "(with --extended: gen:SIZE:SEED:extended) writes, adapted to the format\n"
    "the same way (BSON: a root array becomes a map with keys \"0\", \"1\", ...;\n"
    "BSON and UBJSON: integers above int64 become doubles), and the same bytes,\n"
    "except that JSON doubles are in the shortest form that reads back exactly\n"
    "(bench_tool writes 17 significant digits), JSON ends with a newline, and\n"
    "CBOR floats take the shortest width that keeps them exactly (RFC 8949's\n"
    "preferred serialization: -0.0 is a half, f9 80 00; bench_tool always\n"
    "writes float64).\n"
    "\n"
    "Options:\n"
    "  --size N                 1 to 5: about 0.7 KB, 9 KB, 90 KB, 820 KB or 8 MB\n"
    "                           of minified JSON (default 2)\n"
    "  --seed S                 the seed (default 1)\n"
    "  --extended               the extended data instead of the standard data\n"
    "  -t, --to FORMAT          output format (default: from OUT's extension, else json)\n"
    "  --seq                    write a sequence of values (newline-delimited JSON,\n"
    "                           back-to-back binary values)\n"
    "  --count N                with --seq: N values, with seeds S, S+1, ... (default 1)\n"
    "  --indent N               JSON indented by N spaces (0-16; 0: minified)\n"
    "  --pretty                 the same as --indent 2\n"
    "  -h, --help               this help\n"
    "\n"
    "Each value is built in memory before it is written (about ten times its\n"
    "JSON size); the generator aborts if memory runs out. A large input for\n"
    "tests is many values: --seq --count N.\n"
    "\n"
    "Examples:\n"
    "  sdx gen --size 3 > data.json\n"
    "  sdx gen --size 4 --seed 7 data.msgpack\n"
    "  sdx gen --extended --size 3 -t msgpack > edge.msgpack\n"
    "  sdx gen --seq --count 100000 --size 3 | sdx convert --seq -t cbor > big.cbor\n"
    "\n" CLI_HELP_EXIT_CODES;

/* Send a tree as events. The recursion is bounded by the generator, not by
 * any input: a value at depth d is a container only if below(100) < 24 / d,
 * so nothing nests deeper than 25 levels. */
static sdx_err emit(const bt_node *n, uint32_t depth, sdx_sink sink) {
    sdx_event ev;
    memset(&ev, 0, sizeof ev);
    ev.depth = depth;
    switch ((bt_type)n->type) {
    case BT_NULL: ev.kind = SDX_NULL; break;
    case BT_BOOL:
        ev.kind = SDX_BOOL;
        ev.v.b = n->v.b;
        break;
    case BT_INT:
        ev.kind = SDX_INT;
        ev.v.i = n->v.i;
        break;
    case BT_UINT:
        ev.kind = SDX_UINT;
        ev.v.u = n->v.u;
        break;
    case BT_DOUBLE:
        ev.kind = SDX_DOUBLE;
        ev.v.d = n->v.d;
        break;
    case BT_STR:
        ev.kind = SDX_STR;
        ev.v.str.ptr = n->v.str.ptr;
        ev.v.str.len = n->v.str.len;
        break;
    case BT_ARRAY:
    case BT_MAP: {
        bool map = n->type == BT_MAP;
        ev.kind = map ? SDX_MAP : SDX_ARRAY;
        ev.v.count = n->v.c.count;
        sdx_err e = sdx_sink_put(sink, &ev);
        for (size_t i = 0; !e && i < n->v.c.count; i++) {
            if (map) {
                const bt_node *k = &n->v.c.items[2 * i];
                sdx_event key;
                memset(&key, 0, sizeof key);
                key.kind = SDX_KEY;
                key.depth = depth + 1;
                key.v.str.ptr = k->v.str.ptr;
                key.v.str.len = k->v.str.len;
                e = sdx_sink_put(sink, &key);
                if (!e) e = emit(&n->v.c.items[2 * i + 1], depth + 1, sink);
            } else {
                e = emit(&n->v.c.items[i], depth + 1, sink);
            }
        }
        if (e) return e;
        memset(&ev, 0, sizeof ev);
        ev.kind = SDX_END;
        ev.depth = depth;
        return sdx_sink_put(sink, &ev);
    }
    }
    return sdx_sink_put(sink, &ev);
}

int cli_cmd_gen(int argc, char **argv) {
    cli_args a;
    cli_args_init(&a, "gen", argc, argv);
    cli_opts o = {0};
    const char *out_path = NULL;
    uint64_t size = 2, seed = GEN_DEFAULT_SEED, count = 1;
    bool have_count = false;
    gen_variant variant = GEN_STANDARD;
    const char *arg;
    int kind;
    while ((kind = cli_args_next(&a, &arg)) != CLI_ARG_END) {
        if (kind == CLI_ARG_OPERAND) {
            if (out_path) return cli_usage_error("gen", "too many operands: '%s'", arg);
            out_path = arg;
            continue;
        }
        int m = cli_parse_option(&a, CLI_OPT_TO | CLI_OPT_SEQ | CLI_OPT_INDENT, &o);
        if (m < 0) return CLI_EXIT_USAGE;
        if (m > 0) continue;
        const char *v;
        if (cli_args_is(&a, "--size", NULL)) {
            if (!(v = cli_args_value(&a))) return CLI_EXIT_USAGE;
            if (!cli_parse_u64(v, GEN_MIN_SIZE, GEN_MAX_SIZE, &size))
                return cli_usage_error("gen", "--size takes %d to %d, not '%s'", GEN_MIN_SIZE, GEN_MAX_SIZE, v);
        } else if (cli_args_is(&a, "--seed", NULL)) {
            if (!(v = cli_args_value(&a))) return CLI_EXIT_USAGE;
            if (!cli_parse_u64(v, 0, UINT64_MAX, &seed))
                return cli_usage_error("gen", "--seed takes an unsigned 64-bit integer, not '%s'", v);
        } else if (cli_args_is(&a, "--extended", NULL)) {
            if (!cli_args_flag(&a)) return CLI_EXIT_USAGE;
            variant = GEN_EXTENDED;
        } else if (cli_args_is(&a, "--count", NULL)) {
            if (!(v = cli_args_value(&a))) return CLI_EXIT_USAGE;
            if (!cli_parse_u64(v, 0, UINT64_MAX, &count))
                return cli_usage_error("gen", "--count takes a number of values, not '%s'", v);
            have_count = true;
        } else if (cli_args_is(&a, "--help", "-h")) {
            fputs(gen_help, stdout);
            return CLI_EXIT_OK;
        } else {
            return cli_usage_error("gen", "unknown option '%s'", a.opt);
        }
    }
    if (have_count && !o.read.seq) return cli_usage_error("gen", "--count needs --seq (the output is a sequence)");
    const cli_format *to = cli_target_format("gen", &o, out_path);
    if (!to) return CLI_EXIT_USAGE;

    cli_output out;
    int rc = cli_output_open(&out, out_path);
    if (rc) return rc;
    cli_writer w;
    sdx_err e = cli_writer_init(&w, to, &o.write, cli_output_buf(&out));
    if (e) rc = cli_report_sink_error(e, NULL, "gen", to, &out);
    for (uint64_t i = 0; !rc && i < count; i++) {
        uint64_t s = seed + i;
        bt_node *tree = gen_tree((int)size, s, variant);
        bt_adapt(to->name, tree);
        e = emit(tree, 0, cli_writer_sink(&w));
        bt_free(tree);
        if (e) {
            char where[64];
            snprintf(where, sizeof where, "gen:%" PRIu64 ":%" PRIu64 "%s", size, s,
                     variant == GEN_EXTENDED ? ":extended" : "");
            rc = cli_report_sink_error(e, NULL, where, to, &out);
        }
    }
    if (!rc && (e = sdx_sink_finish(cli_writer_sink(&w))) != SDX_OK)
        rc = cli_report_sink_error(e, NULL, "gen", to, &out);
    cli_writer_destroy(&w);
    return cli_finish(rc, &out, NULL);
}
