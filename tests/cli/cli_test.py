#!/usr/bin/env python3
"""End-to-end tests of the sdx command: they run the built binary.

usage: cli_test.py GROUP --sdx PATH --work DIR [--corpus DIR]
                   [--bench-tool PATH] [--sanitized] [--emulator CMD]

GROUP is one of: basic gen roundtrip seq pipes errors view stat memory.
Python 3 standard library only. The formats come from `sdx formats`, so a
format added to the registry is covered by every group automatically. The
benchmark generator's Python port (tests/bench/sbh.py, written from
bench/harness/SPEC.md alone) is the reference for generated data.
"""

import argparse
import json
import os
import pty
import re
import resource
import select
import signal
import stat
import subprocess
import sys
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import sbh  # noqa: E402
sys.path.insert(0, os.path.join(HERE, ".."))
import tally  # noqa: E402

check = tally.check

SDX = None
EMULATOR = []
WORK = None


def cmd(*args):
    return EMULATOR + [SDX] + [str(a) for a in args]


def run(*args, stdin=None, env=None, cwd=None, preexec=None, stdout=subprocess.PIPE):
    """Run sdx; returns (exit code, stdout bytes, stderr text)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    r = subprocess.run(cmd(*args), input=stdin, stdout=stdout, stderr=subprocess.PIPE, env=e, cwd=cwd,
                       preexec_fn=preexec)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


def path(name):
    return os.path.join(WORK, name)


def write(name, data):
    p = path(name)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


def read(p):
    with open(p, "rb") as f:
        return f.read()


def formats():
    """The registry as `sdx formats` lists it: [(name, readable, writable, [extensions])]."""
    rc, out, err = run("formats")
    assert rc == 0, err
    rows = []
    for line in out.decode().splitlines()[1:]:
        parts = line.split()
        exts = [p[1:] for p in parts[3:] if p.startswith(".")]
        rows.append((parts[0], parts[1] == "yes", parts[2] == "yes", exts))
    return rows


def readable_writable():
    return [f[0] for f in formats() if f[1] and f[2]]


def ext_of(fmt):
    for f in formats():
        if f[0] == fmt:
            return f[3][0]
    raise KeyError(fmt)


def parse_json(data):
    """JSON text to Python values keeping map order and duplicates."""
    return json.loads(data, object_pairs_hook=sbh.Pairs)


def parse_json_seq(data):
    return [parse_json(line) for line in data.decode().splitlines() if line.strip()]


def vhash(v):
    return sbh.value_hash(v)


def no_temp_files(directory, what):
    left = [n for n in os.listdir(directory) if n.startswith(".")]
    check(not left, "%s: temporary files left behind: %r" % (what, left))


# BSON: documents only (a root array or scalar goes in with --root=wrap, as
# the suite's adaptation does: sbh.adapt), and int64 and the other BSON
# types come out as relaxed Extended JSON by default (an int64 is then a
# plain JSON number). Integers beyond int64 go into BSON as doubles, as
# sbh.adapt says.
def into(fmt):
    """Options of a conversion into fmt from data of any shape."""
    return ["--root=wrap", "--bigint=double"] if fmt == "bson" else []


def from_(fmt):
    """Options of a conversion from fmt into JSON."""
    return []


def to_json(data, fmt, seq=False, extra=()):
    """Convert bytes of `fmt` to JSON text with sdx; asserts success."""
    args = ["convert", "-f", fmt, "-t", "json"] + (["--seq"] if seq else []) + from_(fmt) + list(extra)
    rc, out, err = run(*args, stdin=data)
    check(rc == 0, "convert %s -> json: rc %d %s" % (fmt, rc, err))
    return out


# ---------------------------------------------------------------------------
# basic: help, version, usage errors
# ---------------------------------------------------------------------------

# Formats whose writer holds numbers beyond 64 bits as their text (UBJSON's
# and BJData's high-precision numbers, H).
RAW_NUMBERS = ("ubjson", "bjdata")
# Formats whose writer writes a container of unknown count as a plain one
# (UBJSON's '[' ... ']') rather than back-patching its count.
PLAIN_UNKNOWN = ("ubjson", "bjdata")

SUBCOMMANDS = ["convert", "fmt", "view", "validate", "gen", "stat", "formats"]


def group_basic(args):
    rc, out, _ = run("--version")
    check(rc == 0 and re.match(rb"^sdx \d+\.\d+\.\d+ ", out), "--version: %r" % out)
    rc, out, _ = run("--help")
    check(rc == 0 and b"Usage: sdx COMMAND" in out, "--help")
    for sub in SUBCOMMANDS:
        check(sub.encode() in out, "--help lists %s" % sub)
    check(b"Exit status: 0 success, 1 invalid data" in out and b"2 usage error, 3 I/O error" in out,
          "--help documents the exit codes")
    for sub in SUBCOMMANDS:
        for h in ("--help", "-h"):
            rc, out, err = run(sub, h)
            check(rc == 0 and out.startswith(b"Usage: sdx " + sub.encode()), "%s %s: rc %d" % (sub, h, rc))
            check(b"xample" in out, "%s --help has examples" % sub)
            check(b"Exit status" in out, "%s --help documents the exit status" % sub)
        rc, out2, _ = run("help", sub)
        check(rc == 0 and out2 == out, "sdx help %s = sdx %s --help" % (sub, sub))
    rc, out, _ = run("view", "--help")
    for token in (b"b64'", b"_f32", b"ext(", b"/3 bytes/", b"h'0102'", b"[_ 1, 2]", b"(_ h'01', h'02')", b"_3",
                  b"RFC 8949 section 8"):
        check(token in out, "view --help defines the notation: %r" % token)
    for opt in (b"--bin=error|base64", b"--keys=error|stringify", b"--nan=error|null", b"--bigint=error|double",
                b"--tags=error|drop|wrap", b"--undefined=error|null"):
        rc, out, _ = run("convert", "--help")
        check(opt in out, "convert --help documents %r" % opt)
    rc, out, _ = run("--formats")
    rc2, out2, _ = run("formats")
    check(rc == 0 and out == out2 and out.startswith(b"FORMAT"), "--formats = formats")
    check(any(f[0] == "json" and f[2] for f in formats()), "json is listed and writable")

    usage = [
        ([], "Usage: sdx COMMAND"),
        (["frobnicate"], "no command 'frobnicate'"),
        (["help", "frobnicate"], "no command 'frobnicate'"),
        (["convert", "--frobnicate"], "unknown option '--frobnicate'"),
        (["convert", "-t", "nosuch"], "unknown format 'nosuch'"),
        (["convert", "-f", "nosuch"], "unknown format 'nosuch'"),
        (["convert", "-t"], "option -t needs a value"),
        (["convert", "--bin=maybe"], "--bin takes 'error' or 'base64'"),
        (["convert", "--keys", "x"], "--keys takes 'error' or 'stringify'"),
        (["convert", "--nan=zero"], "--nan takes 'error' or 'null'"),
        (["convert", "--bigint=int"], "--bigint takes 'error' or 'double'"),
        (["convert", "--utf8=drop"], "--utf8 takes 'error' or 'replace'"),
        (["convert", "--tags=maybe"], "--tags takes 'error', 'drop' or 'wrap', not 'maybe'"),
        (["convert", "--undefined=zero"], "--undefined takes 'error' or 'null'"),
        (["convert", "--ext=map"], "unknown option '--ext'"),
        (["convert", "--indent", "17"], "--indent takes 0 to 16"),
        (["convert", "--seq=yes"], "option --seq takes no value"),
        (["convert", "a", "b", "c"], "too many operands: 'c'"),
        (["fmt", "a", "b"], "too many operands: 'b'"),
        (["fmt", "--color=sometimes"], "--color takes auto, always or never"),
        (["view", "--bin=base64"], "unknown option '--bin'"),
        (["validate", "--nope"], "unknown option '--nope'"),
        (["gen", "--size", "0"], "--size takes 1 to 5"),
        (["gen", "--size", "6"], "--size takes 1 to 5"),
        (["gen", "--seed", "-1"], "--seed takes an unsigned 64-bit integer"),
        (["gen", "--seed", "18446744073709551616"], "--seed takes an unsigned 64-bit integer"),
        (["gen", "--count", "3"], "--count needs --seq"),
        (["gen", "--count", "x", "--seq"], "--count takes a number"),
        (["gen", "--extended=yes"], "option --extended takes no value"),
        (["gen", "a", "b"], "too many operands: 'b'"),
        (["stat", "a", "b"], "too many operands: 'b'"),
        (["stat", "--json=1"], "option --json takes no value"),
        (["formats", "x"], "unexpected operand 'x'"),
    ]
    for argv, msg in usage:
        rc, out, err = run(*argv)
        check(rc == 2, "usage error %r: exit %d (want 2)" % (argv, rc))
        check(msg in err, "usage error %r: message %r not in %r" % (argv, msg, err))
        if argv:
            check("Try 'sdx" in err, "usage error %r points to --help" % (argv,))
    # A format named by the output's extension that sdx cannot write.
    unwritable = [f for f in formats() if not f[2]]
    for f in unwritable:
        rc, _, err = run("convert", "-f", "json", "/dev/null", path("x." + f[3][0]))
        check(rc == 2 and "cannot write %s" % f[0] in err, "unwritable %s by extension: %d %s" % (f[0], rc, err))
    # Formats are case-insensitive and extensions are aliases.
    rc, out, _ = run("gen", "--size", "1", "-t", "JSON")
    check(rc == 0 and out.startswith((b"[", b"{")), "-t JSON")
    rc, out2, _ = run("gen", "--size", "1", "-t", "ndjson")
    check(rc == 0 and out2 == out, "-t ndjson names json")
    # Options may come after operands; "--" ends the options.
    p = path("dashdash.json")
    rc, _, err = run("gen", "--size", "1", "--", p)
    check(rc == 0 and read(p) == out, "gen -- OUT: %s" % err)


# ---------------------------------------------------------------------------
# gen: the suite's data
# ---------------------------------------------------------------------------

JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def same_but_doubles(a, b):
    """Whether two JSON texts are the same but for how doubles are written."""
    def norm(m):
        tok = m.group(0)
        if tok.startswith(b'"') or not re.search(rb"[.eE]", tok):
            return tok
        return repr(float(tok)).encode()
    return JSON_TOKEN.sub(norm, a) == JSON_TOKEN.sub(norm, b)


def gen_args(size, seed, extended):
    """The arguments of `sdx gen` for a tree, and its bench_tool spec."""
    opts = ["--size", size, "--seed", seed] + (["--extended"] if extended else [])
    return opts, "gen:%d:%d%s" % (size, seed, ":extended" if extended else "")


def group_gen(args):
    for extended in (False, True):
        for size in (1, 2, 3):
            for seed in (1, 7, 18446744073709551615):
                opts, spec = gen_args(size, seed, extended)
                rc, out, err = run("gen", *opts)
                check(rc == 0 and out.endswith(b"\n") and out.count(b"\n") == 1, "gen %s: %s" % (spec, err))
                want = sbh.generate(size, seed, extended)
                check(vhash(parse_json(out)) == vhash(want), "gen %s = the SPEC's tree" % " ".join(map(str, opts)))
    rc, out, _ = run("gen")
    check(vhash(parse_json(out)) == vhash(sbh.generate(2, 1)), "gen defaults: size 2, seed 1, standard")
    # The extended data's extreme values are written so that they read back
    # exactly: -0.0 and subnormals as doubles, the 64-bit extremes as integers.
    rc, out, _ = run("gen", "--size", "3", "--extended")
    for token in (b"-0.0", b"5e-324", b"18446744073709551615", b"-9223372036854775808", b"9223372036854775807"):
        check(token in out, "gen --size 3 --extended has %r" % token)
    rc, pretty, _ = run("gen", "--size", "1", "--pretty")
    check(rc == 0 and b"\n  " in pretty and vhash(parse_json(pretty)) == vhash(sbh.generate(1, 1)), "gen --pretty")
    # Sequences: seeds S, S+1, ...
    rc, out, err = run("gen", "--size", "1", "--seed", "5", "--seq", "--count", "4")
    vals = parse_json_seq(out)
    check(rc == 0 and len(vals) == 4, "gen --seq --count 4: %d values %s" % (len(vals), err))
    for i, v in enumerate(vals):
        check(vhash(v) == vhash(sbh.generate(1, 5 + i)), "gen --seq value %d has seed %d" % (i, 5 + i))
    rc, out, err = run("gen", "--size", "2", "--seed", "5", "--seq", "--count", "3", "--extended")
    vals = parse_json_seq(out)
    check(rc == 0 and [vhash(v) for v in vals] == [vhash(sbh.generate(2, 5 + i, True)) for i in range(3)],
          "gen --seq --count 3 --extended: seeds 5, 6, 7 of the extended data %s" % err)
    rc, out, _ = run("gen", "--seq", "--count", "0")
    check(rc == 0 and out == b"", "gen --seq --count 0 writes nothing")
    # Every writable format; the data reads back (when sdx reads the format)
    # as the tree adapted to the format.
    for name, readable, writable, exts in formats():
        if not writable:
            continue
        for size, seed, extended in ((1, 1, False), (2, 3, False), (3, 1, False), (2, 3, True), (3, 1, True)):
            opts, spec = gen_args(size, seed, extended)
            rc, out, err = run("gen", "-t", name, *opts)
            check(rc == 0 and len(out) > 100, "gen -t %s %s: %s" % (name, spec, err))
            if readable:
                js = to_json(out, name)
                check(vhash(parse_json(js)) == vhash(sbh.adapt(name, sbh.generate(size, seed, extended))),
                      "gen -t %s %s reads back as the adapted tree" % (name, spec))
        # By the output's extension.
        p = path("gen." + exts[0])
        rc, _, err = run("gen", "--size", "1", p)
        rc2, out, _ = run("gen", "--size", "1", "-t", name)
        check(rc == 0 and read(p) == out, "gen OUT.%s picks %s: %s" % (exts[0], name, err))
    # The suite's own verifier accepts sdx's output (when the suite is built).
    if args.bench_tool:
        usage = subprocess.run([args.bench_tool], capture_output=True)
        m = re.search(r"FORMAT: ([a-z ]+);", (usage.stdout + usage.stderr).decode())
        known = m.group(1).split() if m else []
        for name, _, writable, exts in formats():
            if not writable:
                continue
            if name not in known:
                print("note: bench_tool has no %s: the suite's verifier is not run for it" % name)
                continue
            for size, seed, extended in ((2, 1, False), (3, 9, False), (2, 1, True), (3, 9, True)):
                opts, spec = gen_args(size, seed, extended)
                p = path("verify_%s_%d_%d.%s" % (name, size, extended, exts[0]))
                run("gen", "-t", name, p, *opts)
                r = subprocess.run([args.bench_tool, "verify", name, spec, p], capture_output=True)
                check(r.returncode == 0, "bench_tool verify %s %s: %s" % (name, spec, r.stdout))
                # The bytes: identical to the suite's reference encoder, except
                # that JSON doubles are in shortest form and JSON ends with a
                # newline.
                ref = path("ref_%s_%d_%d" % (name, size, extended))
                r = subprocess.run([args.bench_tool, "encode", name, spec, ref], capture_output=True)
                mine = read(p)
                if name == "json":
                    check(same_but_doubles(read(ref), mine[:-1]) and mine.endswith(b"\n"),
                          "gen -t json = bench_tool encode json %s but for the doubles' form" % spec)
                elif name in ("cbor", "ubjson"):
                    # cbor: the reference writes every double as float64; sdx
                    # the preferred (shortest exact) width. ubjson: the
                    # reference writes plain containers, strings as S and
                    # 0..127 as int8; sdx counted containers, one-character
                    # strings as C and 0..255 as uint8. Either way the
                    # reference's bytes rewritten by sdx must be exactly sdx's
                    rc, canon, err = run("convert", "-f", name, "-t", name, ref, "-")
                    check(r.returncode == 0 and rc == 0 and canon == mine,
                          "gen -t %s = bench_tool encode %s rewritten by sdx" % (name, spec))
                else:
                    check(r.returncode == 0 and read(ref) == mine, "gen -t %s = bench_tool encode %s" % (name, spec))
    else:
        print("note: bench_tool not built (SDX_BUILD_BENCH=OFF): the suite's verifier is not run")


# ---------------------------------------------------------------------------
# roundtrip: every pair of formats, corpus and generated data
# ---------------------------------------------------------------------------

def corpus_docs(args):
    d = os.environ.get("SDX_CORPUS") or args.corpus
    names = ["twitter.json", "citm_catalog.json", "canada.json"]
    docs = [os.path.join(d, n) for n in names if d and os.path.exists(os.path.join(d, n))]
    check(len(docs) == 3, "corpus found in %r" % d)
    return docs


def group_roundtrip(args):
    fmts = readable_writable()
    check("json" in fmts, "json is readable and writable")
    print("formats read and written: %s" % " ".join(fmts))
    # Corpus: JSON -> A -> B -> JSON for every ordered pair, the value equal
    # to the original's (parsed by Python's json) adapted to A and B.
    for doc in corpus_docs(args):
        original = parse_json(read(doc))
        base = os.path.basename(doc)
        # sbh.adapt returns its argument itself where it changes nothing
        # (every format but bson and ubjson), so each expected hash is
        # computed once per distinct value (the hashing, in Python, was
        # most of this group's time); the values are kept so no id is reused.
        # The same goes for the outputs: most pairs give the same JSON text,
        # whose hash is computed once.
        expected, got = {}, {}

        def want_hash(v):
            if id(v) not in expected:
                expected[id(v)] = (v, vhash(v))
            return expected[id(v)][1]

        def got_hash(text):
            if text not in got:
                got[text] = vhash(parse_json(text))
            return got[text]
        for a in fmts:
            pa = path("%s.%s" % (base, ext_of(a)))
            rc, _, err = run("convert", "--bigint=double", doc, pa)
            if not check(rc == 0, "convert %s -> %s: %s" % (base, a, err)):
                continue
            want_a = sbh.adapt(a, original)
            for b in fmts:
                pb = path("%s.%s.%s" % (base, a, ext_of(b)))
                rc, _, err = run("convert", "--bigint=double", *from_(a), pa, pb)
                if not check(rc == 0, "convert %s: %s -> %s: %s" % (base, a, b, err)):
                    continue
                js = to_json(read(pb), b)
                check(got_hash(js) == want_hash(sbh.adapt(b, want_a)),
                      "corpus %s: json -> %s -> %s -> json keeps every value" % (base, a, b))
        # JSON -> JSON is exact text-wise after one pass (a fixed point).
        rc, once, _ = run("convert", doc)
        rc2, twice, _ = run("convert", "-f", "json", stdin=once)
        check(rc == 0 and rc2 == 0 and once == twice, "corpus %s: json -> json is a fixed point" % base)
    # Generated data: B (as gen writes it) -> A -> B byte for byte, and B's
    # values are the generator's tree adapted to B.
    specs = ((1, 1, False), (2, 1, False), (2, 2, False), (3, 1, False), (3, 5, False), (3, 1, True), (3, 5, True))
    if args.reduced:
        # reduced counts where every process is several times slower
        # (SDX_TEST_REDUCED): every pair of formats still, on gen:1, gen:3
        # and gen:3:5 extended
        specs = specs[::3]
    for b in fmts:
        for size, seed, extended in specs:
            opts, spec = gen_args(size, seed, extended)
            rc, orig, err = run("gen", "-t", b, *opts)
            if not check(rc == 0, "gen -t %s %s: %s" % (b, spec, err)):
                continue
            tree = sbh.generate(size, seed, extended)
            for a in fmts:
                rc, in_a, err = run("convert", "-f", b, "-t", a, *into(a), *from_(b), stdin=orig)
                if not check(rc == 0, "%s %s -> %s: %s" % (spec, b, a, err)):
                    continue
                rc, back, err = run("convert", "-f", a, "-t", b, *from_(a), stdin=in_a)
                if a == "bson" and b != "bson" and vhash(sbh.adapt(a, tree)) != vhash(tree):
                    # a root array came back as the document BSON holds,
                    # integers beyond int64 as doubles
                    check(rc == 0 and vhash(parse_json(to_json(back, b))) == vhash(sbh.adapt(a, tree)),
                          "%s %s -> %s -> %s is the tree adapted to %s (rc %d %s)" % (spec, b, a, b, a, rc, err))
                    continue
                if b == "ubjson" and a == "cbor" and back != orig:
                    # The suite turns integers beyond int64 into doubles for
                    # UBJSON, and some fit float32 exactly: CBOR's preferred
                    # serialization writes those as float32, which the
                    # UBJSON writer then writes as d (as MessagePack's
                    # writer does with float 32). The same values:
                    check(rc == 0 and to_json(back, b) == to_json(orig, b),
                          "%s %s -> %s -> %s is the same value (rc %d %s)" % (spec, b, a, b, rc, err))
                    continue
                check(rc == 0 and back == orig,
                      "%s %s -> %s -> %s is byte-identical (rc %d %s)" % (spec, b, a, b, rc, err))
    # fmt is the JSON writer's indented output.
    for doc in corpus_docs(args)[:2]:
        rc, f, _ = run("fmt", "--no-color", doc)
        rc2, c, _ = run("convert", "--indent", "2", doc)
        check(rc == 0 and f == c, "fmt %s = convert --indent 2" % doc)


# ---------------------------------------------------------------------------
# seq: sequences both ways
# ---------------------------------------------------------------------------

def group_seq(args):
    fmts = readable_writable()
    rc, ref, _ = run("gen", "--size", "2", "--seed", "11", "--seq", "--count", "25")
    check(rc == 0 and ref.count(b"\n") == 25, "gen --seq: 25 lines")
    # what a sequence that went through BSON holds: root arrays as documents
    ref_bson = [vhash(sbh.adapt("bson", v)) for v in parse_json_seq(ref)]
    for a in fmts:
        rc, in_a, err = run("convert", "--seq", "-f", "json", "-t", a, *into(a), stdin=ref)
        if not check(rc == 0, "seq json -> %s: %s" % (a, err)):
            continue
        rc, gen_a, _ = run("gen", "--size", "2", "--seed", "11", "--seq", "--count", "25", "-t", a)
        if a in PLAIN_UNKNOWN:
            # JSON's containers have no counts, and with --seq they stay
            # unknown: plain containers, where gen (which knows the counts)
            # writes counted ones; the values are the same
            check(to_json(in_a, a, seq=True) == to_json(gen_a, a, seq=True),
                  "seq json -> %s = gen --seq -t %s in value" % (a, a))
        else:
            check(in_a == gen_a if a != "json" else in_a == ref, "seq json -> %s = gen --seq -t %s" % (a, a))
        for b in fmts:
            rc, in_b, err = run("convert", "--seq", "-f", a, "-t", b, *into(b), *from_(a), stdin=in_a)
            if not check(rc == 0, "seq %s -> %s: %s" % (a, b, err)):
                continue
            back = to_json(in_b, b, seq=True)
            if "bson" in (a, b):
                check([vhash(v) for v in parse_json_seq(back)] == ref_bson,
                      "seq json -> %s -> %s -> json is the sequence adapted to bson" % (a, b))
            else:
                check(back == ref, "seq json -> %s -> %s -> json is identical" % (a, b))
        # Content detection works on sequences too.
        rc, back, err = run("convert", "--seq", "-t", "json", *from_(a), stdin=in_a)
        if a == "bson":
            check(rc == 0 and [vhash(v) for v in parse_json_seq(back)] == ref_bson,
                  "seq %s detected from the content: %s" % (a, err))
        else:
            check(rc == 0 and back == ref, "seq %s detected from the content: %s" % (a, err))
        rc, out, err = run("validate", "--seq", "-f", a, stdin=in_a)
        check(rc == 0 and b"25 values" in out, "validate --seq %s: %r %s" % (a, out, err))
    # Newline-delimited JSON with blank lines and spaces between values.
    rc, out, err = run("convert", "--seq", "-f", "json", stdin=b' 1\n\n[true, null]\n  {"a" : "b"}  \n"x"')
    check(rc == 0 and out == b'1\n[true,null]\n{"a":"b"}\n"x"\n', "ndjson with whitespace: %r %s" % (out, err))
    rc, out, _ = run("convert", "--seq", "-f", "json", stdin=b"")
    check(rc == 0 and out == b"", "an empty sequence")
    # Without --seq, a second value is an error (with its position).
    rc, out, err = run("convert", "-f", "json", stdin=b"1\n2\n")
    check(rc == 1 and "<stdin>:2:1: error:" in err, "two values without --seq: %d %s" % (rc, err))
    # fmt / view / stat of a sequence.
    rc, out, _ = run("fmt", "--seq", "--no-color", stdin=b'[1]\n{"a":2}\n')
    check(rc == 0 and out == b'[\n  1\n]\n{\n  "a": 2\n}\n', "fmt --seq: %r" % out)
    rc, out, _ = run("stat", "--seq", "--json", stdin=ref)
    st = json.loads(out)
    check(rc == 0 and st["top_level_values"] == 25 and st["sizes"]["json"] == len(ref), "stat --seq: %r" % st)


# ---------------------------------------------------------------------------
# pipes
# ---------------------------------------------------------------------------

class Pipeline:
    """sdx commands connected by pipes, their stderr collected by threads."""

    def __init__(self, stages, stdin_data=None):
        self.procs = []
        for i, argv in enumerate(stages):
            stdin = self.procs[-1].stdout if self.procs else (
                subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL)
            p = subprocess.Popen(cmd(*argv), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if self.procs:
                self.procs[-1].stdout.close()
            self.procs.append(p)
        if stdin_data is not None:
            self.procs[0].stdin.write(stdin_data)
            self.procs[0].stdin.close()
        self.errs = [""] * len(self.procs)
        self.threads = [threading.Thread(target=self._drain, args=(i,)) for i in range(len(self.procs))]
        for t in self.threads:
            t.start()
        self.stdout = self.procs[-1].stdout
        # Peak RSS of each process as the kernel's high-water mark (VmHWM),
        # sampled until it exits: it counts only what the program itself
        # used, unlike ru_maxrss, which also counts the Python interpreter
        # the child was forked from (an upper bound, checked as well).
        self.hwm_kb = [0] * len(self.procs)
        self.sampler = threading.Thread(target=self._sample)
        self.sampler.start()

    def _sample(self):
        live = set(range(len(self.procs)))
        while live:
            for i in list(live):
                try:
                    with open("/proc/%d/status" % self.procs[i].pid) as f:
                        m = re.search(r"^VmHWM:\s+(\d+) kB", f.read(), re.M)
                except OSError:
                    m = None
                if m:
                    self.hwm_kb[i] = max(self.hwm_kb[i], int(m.group(1)))
                else:
                    live.discard(i)  # exited (a zombie has no VmHWM)
            time.sleep(0.01)

    def _drain(self, i):
        self.errs[i] = self.procs[i].stderr.read().decode("utf-8", "replace")

    def wait(self):
        """Exit codes and resource usage of every stage."""
        for t in self.threads:
            t.join()
        self.sampler.join()
        results = []
        for p in self.procs:
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            results.append((p.returncode, usage))
        return results


def pipeline(stages, stdin_data=None):
    """Run a pipeline to the end; returns (exit codes, last stdout, stderrs)."""
    pl = Pipeline(stages, stdin_data)
    out = pl.stdout.read()
    codes = [code for code, _ in pl.wait()]
    return codes, out, pl.errs


def crc_of(stream):
    """Length and CRC-32 of everything a stream yields, in bounded memory."""
    total, crc = 0, 0
    while True:
        chunk = stream.read(1 << 20)
        if not chunk:
            return total, crc
        total += len(chunk)
        crc = zlib.crc32(chunk, crc)


def group_pipes(args):
    fmts = readable_writable()
    rc, ref, _ = run("gen", "--size", "3", "--seed", "4")
    for a in fmts:
        # No -f anywhere: every stage detects its input from the content.
        codes, out, errs = pipeline([["gen", "--size", "3", "--seed", "4", "-t", a], ["convert", "-t", a],
                                     ["convert", "-t", "json"] + from_(a), ["fmt", "--indent", "0"]])
        want = ref if a != "bson" else None
        check(codes == [0, 0, 0, 0] and (out == ref if want else vhash(parse_json(out)) ==
                                         vhash(sbh.adapt(a, parse_json(ref)))),
              "pipe gen | convert -t %s | convert | fmt: %r %r" % (a, codes, errs))
        codes, out, errs = pipeline([["gen", "--size", "2", "-t", a], ["validate"]])
        check(codes == [0, 0] and out == b"<stdin>: ok (%s)\n" % a.encode(), "pipe gen -t %s | validate: %r" % (a, out))
        codes, out, errs = pipeline([["gen", "--seq", "--count", "9", "--size", "1", "-t", a],
                                     ["convert", "--seq", "-t", "json"] + from_(a), ["stat", "--seq", "--json"]])
        check(codes == [0, 0, 0] and json.loads(out)["top_level_values"] == 9, "pipe with sequences (%s)" % a)
    # '-' names stdin and stdout.
    p = write("pipe_in.json", ref)
    rc, out, err = run("convert", "-", "-", stdin=ref)
    check(rc == 0 and out == ref, "convert - -")
    rc, out, err = run("convert", p, "-")
    check(rc == 0 and out == ref, "convert IN -")
    # A pipe whose reader goes away: sdx stops (SIGPIPE or EPIPE), no hang.
    pr = subprocess.Popen(cmd("gen", "--seq", "--count", "100000", "--size", "3"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    pr.stdout.read(1000)
    pr.stdout.close()
    try:
        code = pr.wait(timeout=60)
        check(code in (-signal.SIGPIPE, 3), "gen into a closed pipe stops: %d" % code)
    except subprocess.TimeoutExpired:
        pr.kill()
        check(False, "gen into a closed pipe hangs")


# ---------------------------------------------------------------------------
# errors: every error path, its exit code and message
# ---------------------------------------------------------------------------

def msgpack_readable():
    return any(f[0] == "msgpack" and f[1] and f[2] for f in formats())


def group_errors(args):
    fmts = readable_writable()
    # Bad input: positions for text formats.
    bad = write("bad.json", '{\n  "a": 1,\n  "b": [1, 2,, 3]\n}\n')
    good = write("good.json", "[1, 2]")
    rc, out, err = run("convert", bad, "-t", "json")
    m = re.search(r"bad\.json:(\d+):(\d+): error: (.+)", err)
    check(rc == 1 and m and m.group(1) == "3" and m.group(2) == "14",
          "syntax error: exit 1 and bad.json:3:14: %d %r" % (rc, err))
    rc, out, err = run("convert", "-t", "json", stdin=read(bad))
    check(rc == 1 and "<stdin>:3:14: error: " in err, "syntax error on stdin: %r" % err)
    rc, out, err = run("validate", bad)
    check(rc == 1 and "bad.json:3:14: error: " in err, "validate: %r" % err)
    trunc = write("trunc.json", '{"a": [1, 2')
    rc, out, err = run("convert", trunc)
    check(rc == 1 and re.search(r"trunc\.json:1:\d+: error: ", err), "truncated input: %d %r" % (rc, err))
    empty = write("empty.json", "")
    rc, out, err = run("convert", empty)
    check(rc == 1 and "empty.json:1:1: error:" in err, "empty input: %d %r" % (rc, err))
    # A position far into a big input (beyond the reader's first chunks).
    rc, big, _ = run("gen", "--size", "4", "--pretty")
    lines = big.count(b"\n")
    bigbad = write("bigbad.json", big[:-2] + b"x\n")
    rc, out, err = run("validate", bigbad)
    check(rc == 1 and re.search(r"bigbad\.json:%d:\d+: error: " % lines, err),
          "error on line %d of a large file: %r" % (lines, err))
    # Garbage: an error. (CBOR reads a few bytes of almost anything, c1 is
    # a tag, so some format always gets past byte 0 and the note about
    # choosing a format with -f, for input no format reads a byte of, no
    # longer shows for this input.)
    junk = write("junk", b"\xc1\xc1\xc1 not anything")
    rc, out, err = run("convert", junk, "-t", "json")
    check(rc == 1 and "error:" in err, "undetectable input: %d %r" % (rc, err))
    # Text is JSON: invalid JSON text is reported as such, not read as
    # another format (a newline is a MessagePack integer, "1 2" a Binn blob).
    for text, want in ((b"\n", "<stdin>:2:1: error: unexpected end of input"),
                       (b"1 2\n", "<stdin>:1:3: error: unexpected content after the value"),
                       (b"\xef\xbb\xbf  tru\n", "<stdin>:1:9: error: invalid literal")):
        rc, out, err = run("convert", stdin=text)
        check(rc == 1 and want in err, "text %r is read as JSON: %d %r" % (text, rc, err))
    rc, out, err = run("convert", "--seq", stdin=b"1\n2\n")
    check(rc == 0 and out == b"1\n2\n", "newline-delimited numbers from a pipe: %d %r %r" % (rc, out, err))
    # A printable UBJSON document is taken for JSON; -f reads it.
    rc, out, err = run("convert", stdin=b"[TF]")
    check(rc == 1 and "<stdin>:1:2: error:" in err, "printable UBJSON is read as JSON: %d %r" % (rc, err))
    rc, out, err = run("convert", "-f", "ubjson", stdin=b"[TF]")
    check(rc == 0 and out == b"[true,false]\n", "-f ubjson reads it: %d %r %r" % (rc, out, err))
    # Binary input still goes to the format that reads it.
    rc, out, err = run("convert", stdin=b"\x92\x01\x02")
    check(rc == 0 and out == b"[1,2]\n", "MessagePack detected: %d %r %r" % (rc, out, err))

    # Unrepresentable values and their mappings.
    rc, out, err = run("convert", "-f", "json", "-t", "json", stdin=b'[1, 123456789012345678901234567890]')
    check(rc == 0 and out == b"[1,123456789012345678901234567890]\n", "json keeps big numbers as text: %r" % out)
    rc, out, err = run("convert", "--bigint=double", "-f", "json", stdin=b"123456789012345678901234567890")
    check(rc == 0 and out == b"1.2345678901234568e29\n", "--bigint=double reads the nearest double: %r" % out)
    binaries = [f for f in fmts if f != "json"]
    for t in binaries:
        rc, out, err = run("convert", "-f", "json", "-t", t, stdin=b'{"a": 1,\n "b": 123456789012345678901234567890}')
        if t == "cbor" or t in RAW_NUMBERS:  # a bignum (tag 2) or H, exact both ways
            back = to_json(out, t) if rc == 0 else None
            check(back == b'{"a":1,"b":123456789012345678901234567890}\n', "bignum to %s: %d %r %r" % (t, rc, back, err))
            continue
        check(rc == 1 and "<stdin>:2:7: error: the number 123456789012345678901234567890 is beyond 64 bits" in err
              and "--bigint=double" in err, "bignum to %s: %d %r" % (t, rc, err))
        rc, out, err = run("convert", "--bigint=double", "-f", "json", "-t", t,
                           stdin=b'{"b": 123456789012345678901234567890}')
        check(rc == 0 and to_json(out, t) == b'{"b":1.2345678901234568e29}\n', "--bigint=double to %s" % t)
    if msgpack_readable():
        mp_errors(args)
    else:
        print("note: msgpack not registered: the binary-input error tests are not run")
    if "bson" in fmts:
        bson_cli(args)
    else:
        print("note: bson not registered: its command tests are not run")
    if any(f[0] == "binn" and f[1] and f[2] for f in formats()):
        binn_cli()
    else:
        print("note: binn not registered: the Binn tests of the command are not run")

    # Missing input, a directory as input.
    rc, out, err = run("convert", path("does-not-exist.json"), path("never.json"))
    check(rc == 3 and "cannot open" in err and "No such file" in err, "missing input: %d %r" % (rc, err))
    check(not os.path.exists(path("never.json")), "missing input: no output file")
    rc, out, err = run("convert", WORK)
    check(rc == 3 and "Is a directory" in err, "a directory as input: %d %r" % (rc, err))
    rc, out, err = run("validate", path("does-not-exist.json"))
    check(rc == 3 and "cannot open" in err, "validate a missing file: %d" % rc)
    rc, out, err = run("stat", path("does-not-exist.json"))
    check(rc == 3 and "cannot open" in err, "stat a missing file: %d" % rc)
    rc, out, err = run("fmt", path("does-not-exist.json"))
    check(rc == 3 and "cannot open" in err, "fmt a missing file: %d" % rc)

    # A read error (EIO from /proc/self/mem at offset 0), with and without
    # content detection (which reads first).
    for argv in (["convert", "-f", "json", "/proc/self/mem"], ["validate", "/proc/self/mem"]):
        rc, out, err = run(*argv)
        check(rc == 3 and "cannot read /proc/self/mem: Input/output error" in err, "read error %r: %d %r"
              % (argv, rc, err))
    # Out of memory: a string larger than the address space allows.
    if not args.sanitized and not EMULATOR:
        def limit_memory():
            resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))
        huge = b'["' + b"x" * (300 << 20) + b'"]'
        rc, out, err = run("validate", "-f", "json", stdin=huge, preexec=limit_memory)
        check(rc == 3 and "out of memory" in err, "out of memory: %d %r" % (rc, err))
        del huge
    if msgpack_readable():
        # Two passes (JSON into MessagePack): the temporary files' errors.
        rc, out, err = run("convert", "-f", "json", "-t", "msgpack", stdin=b"[1]",
                           env={"TMPDIR": path("no-such-dir")})
        check(rc == 3 and "cannot create a temporary file" in err, "no TMPDIR: %d %r" % (rc, err))
        rc, out, err = run("convert", "-t", "msgpack", good, env={"TMPDIR": path("no-such-dir")})
        check(rc == 3 and "cannot create a temporary file" in err, "no TMPDIR, file input: %d %r" % (rc, err))

        def limit_files():
            resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
        rc, big_in, _ = run("gen", "--size", "4")
        rc, out, err = run("convert", "-f", "json", "-t", "msgpack", stdin=big_in, preexec=limit_files)
        check(rc == 3 and "cannot keep a temporary copy of <stdin>: File too large" in err,
              "spool beyond the file size limit: %d %r" % (rc, err))
        # A syntax error found by the first pass: reported with its position,
        # before any output exists.
        outp = write("twopass_out.msgpack", b"old")
        rc, out, err = run("convert", bad, outp)
        check(rc == 1 and "bad.json:3:14: error:" in err and read(outp) == b"old", "first-pass error: %r" % err)
        rc, out, err = run("convert", "-f", "json", "-t", "msgpack", stdin=read(bad))
        check(rc == 1 and "<stdin>:3:14: error:" in err, "first-pass error on stdin: %r" % err)

    # validate: many files; 1 if any invalid, 3 if any unreadable.
    rc, out, err = run("validate", good, bad, good)
    check(rc == 1 and out.count(b": ok (json)") == 2 and "bad.json:3:" in err, "validate good bad good: %d" % rc)
    rc, out, err = run("validate", good, bad, path("missing.json"))
    check(rc == 3 and "missing.json" in err, "validate with a missing file: %d" % rc)
    rc, out, err = run("validate", "-q", good, good)
    check(rc == 0 and out == b"", "validate -q: %r" % out)
    rc, out, err = run("validate", good)
    check(rc == 0 and out == b"%s: ok (json)\n" % good.encode(), "validate ok: %r" % out)

    # Output errors: disk full on stdout and on a device.
    with open("/dev/full", "wb") as full:
        rc, _, err = run("gen", "--size", "3", stdout=full)
        check(rc == 3 and "cannot write <stdout>: No space left on device" in err, "stdout /dev/full: %d %r" % (rc, err))
        rc, _, err = run("convert", good, stdout=full)
        check(rc == 3 and "No space left on device" in err, "convert to stdout /dev/full: %d %r" % (rc, err))
        rc, _, err = run("fmt", good, stdout=full)
        check(rc == 3 and "No space left on device" in err, "fmt to /dev/full: %d %r" % (rc, err))
        rc, _, err = run("stat", good, stdout=full)
        check(rc == 3 and "cannot write <stdout>" in err, "stat to /dev/full: %d %r" % (rc, err))
        rc, _, err = run("stat", "--json", good, stdout=full)
        check(rc == 3 and "cannot write <stdout>" in err, "stat --json to /dev/full: %d %r" % (rc, err))
        rc, _, err = run("validate", good, stdout=full)
        check(rc == 3, "validate to /dev/full: %d %r" % (rc, err))
        rc, _, err = run("convert", "--help", stdout=full)
        check(rc == 3 and "cannot write <stdout>: No space left on device" in err, "--help to /dev/full: %d %r"
              % (rc, err))
        rc, _, err = run("formats", stdout=full)
        check(rc == 3, "formats to /dev/full: %d %r" % (rc, err))
    rc, _, err = run("convert", good, "/dev/full")
    check(rc == 3 and "cannot write /dev/full: No space left on device" in err, "OUT /dev/full: %d %r" % (rc, err))
    rc, _, err = run("convert", good, "/dev/null")
    check(rc == 0 and os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode),
          "OUT /dev/null is written, not replaced")

    # Output directory errors.
    rc, _, err = run("convert", good, path("no/such/dir/out.json"))
    check(rc == 3 and "No such file or directory" in err, "OUT in a missing directory: %d %r" % (rc, err))
    ro = path("readonly")
    os.makedirs(ro, exist_ok=True)
    os.chmod(ro, 0o555)
    probe = os.path.join(ro, "probe")
    try:
        open(probe, "w").close()
        os.unlink(probe)
        ro_out = "/sys/sdx-test.json"  # root ignores permissions; sysfs refuses new files
    except OSError:
        ro_out = os.path.join(ro, "out.json")
    rc, _, err = run("convert", good, ro_out)
    check(rc == 3 and "cannot create a file beside" in err and "Permission denied" in err,
          "OUT in an unwritable directory (%s): %d %r" % (ro_out, rc, err))
    check(not os.path.exists(ro_out), "unwritable directory: nothing created")
    rc, _, err = run("convert", good, WORK)
    check(rc == 3 and "Is a directory" in err, "OUT is a directory: %d %r" % (rc, err))

    # A failed conversion leaves an existing OUT byte-identical (and no
    # temporary file): bad input, an unrepresentable value, a full disk.
    outdir = path("atomic")
    os.makedirs(outdir, exist_ok=True)
    out_path = os.path.join(outdir, "out.json")
    before = b'{"keep": "me"}\n'

    def reset():
        with open(out_path, "wb") as f:
            f.write(before)
        os.chmod(out_path, 0o640)

    reset()
    rc, _, err = run("convert", bad, out_path)
    check(rc == 1 and read(out_path) == before, "bad input: OUT untouched (%d)" % rc)
    no_temp_files(outdir, "bad input")
    if binaries:
        rc, _, err = run("convert", write("bignum.json", "[123456789012345678901234567890]"), "-t", binaries[0],
                         out_path)
        check(rc == 1 and read(out_path) == before, "unrepresentable value: OUT untouched (%d)" % rc)
        no_temp_files(outdir, "unrepresentable value")
    rc, big_json, _ = run("gen", "--size", "4")
    bigp = write("big.json", big_json)

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))
    rc, _, err = run("convert", bigp, out_path, preexec=limit_file_size)
    check(rc == 3 and "cannot write" in err and "File too large" in err, "file size limit (disk full): %d %r" % (rc, err))
    check(read(out_path) == before, "disk full: OUT untouched")
    no_temp_files(outdir, "disk full")
    # Success replaces OUT and keeps its mode; a new file gets 0666 & ~umask.
    rc, _, err = run("convert", good, out_path)
    check(rc == 0 and read(out_path) == b"[1,2]\n", "success replaces OUT")
    check(stat.S_IMODE(os.stat(out_path).st_mode) == 0o640, "OUT keeps its mode")
    newp = os.path.join(outdir, "new.json")
    old_umask = os.umask(0o022)
    rc, _, err = run("convert", good, newp)
    os.umask(old_umask)
    check(rc == 0 and stat.S_IMODE(os.stat(newp).st_mode) == 0o644, "a new OUT gets 0666 & ~umask")
    no_temp_files(outdir, "success")
    # Through a symbolic link the target is replaced and the link kept.
    link = os.path.join(outdir, "link.json")
    os.symlink("out.json", link)
    rc, _, err = run("convert", write("three.json", "3"), link)
    check(rc == 0 and os.path.islink(link) and read(out_path) == b"3\n", "OUT through a symlink: %s" % err)
    # Interrupted: the temporary file is removed, OUT untouched.
    reset()
    for sig in (signal.SIGINT, signal.SIGTERM):
        p = subprocess.Popen(cmd("convert", "-f", "json", "--seq", "-", out_path), stdin=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        p.stdin.write(big_json * 3)
        p.stdin.flush()
        deadline = time.time() + 30
        while time.time() < deadline and not [n for n in os.listdir(outdir) if n.startswith(".out.json.")]:
            time.sleep(0.01)
        p.send_signal(sig)
        try:
            code = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            code = p.wait()
        p.stdin.close()
        check(code == -sig, "killed by signal %d: %d" % (sig, code))
        check(read(out_path) == before, "signal %d: OUT untouched" % sig)
        no_temp_files(outdir, "signal %d" % sig)


def bson_cli(args):
    """BSON in the command: documents only, detection by the leading length
    (never for other formats' data), --seq for back-to-back documents (a
    mongodump file), errors with byte offsets, no half-written OUT."""
    def doc(body):  # a document around element bytes
        return (len(body) + 5).to_bytes(4, "little") + body + b"\0"
    one = doc(b"\x10a\0\x01\0\0\0" + b"\x12b\0" + (1 << 40).to_bytes(8, "little"))
    two = doc(b"\x02s\0\x02\0\0\0x\0")
    # A root that is not a map: an error naming --root=wrap; with it, the
    # array's elements under "0", "1", ... and a scalar under "0".
    for text, kind in ((b"[1, 2]", "array"), (b"7", "integer"), (b'"x"', "string")):
        rc, out, err = run("convert", "-f", "json", "-t", "bson", stdin=text)
        check(rc == 1 and out == b"" and "<stdin>:1:1: error: a root %s cannot be written as bson" % kind in err
              and "--root=wrap" in err, "root %s into bson: %d %r" % (kind, rc, err))
    rc, out, err = run("convert", "--root=wrap", "-f", "json", "-t", "bson", stdin=b"[1, 2]")
    check(rc == 0 and out == doc(b"\x100\0\x01\0\0\0\x101\0\x02\0\0\0"), "--root=wrap array: %r %s" % (out, err))
    rc, out, err = run("convert", "--root=wrap", "-f", "json", "-t", "bson", stdin=b"true")
    check(rc == 0 and out == doc(b"\x080\0\x01"), "--root=wrap scalar: %r %s" % (out, err))
    rc, out, err = run("convert", "--root=wrap", "-f", "json", "-t", "bson", stdin=b'{"a": 1}')
    check(rc == 0 and out == doc(b"\x10a\0\x01\0\0\0"), "--root=wrap leaves a map alone: %r %s" % (out, err))
    # Integers: int32 when they fit, else int64; beyond int64 an error or
    # (--bigint=double) a double.
    rc, out, err = run("convert", "-f", "json", "-t", "bson", stdin=b'{"a": 1, "b": 1099511627776}')
    check(rc == 0 and out == one, "json -> bson integer widths: %r %s" % (out, err))
    rc, out, err = run("convert", "-f", "json", "-t", "bson", stdin=b'{"a": 18446744073709551615}')
    check(rc == 1 and "<stdin>:1:7: error: the integer 18446744073709551615 is out of range for bson" in err
          and "--bigint=double" in err, "uint64 into bson: %d %r" % (rc, err))
    # BSON types into JSON: relaxed Extended JSON by default (int64 a plain
    # number), canonical on request; --ejson=off leaves them to --tags.
    rc, out, err = run("convert", "-f", "bson", "-t", "json", stdin=one)
    check(rc == 0 and out == b'{"a":1,"b":1099511627776}\n', "int64 to relaxed json: %r %s" % (out, err))
    rc, out, err = run("convert", "--ejson=canonical", "-f", "bson", "-t", "json", stdin=one)
    check(rc == 0 and out == b'{"a":{"$numberInt":"1"},"b":{"$numberLong":"1099511627776"}}\n',
          "int64 to canonical json: %r %s" % (out, err))
    rc, out, err = run("convert", "--ejson=off", "-f", "bson", "-t", "json", stdin=one)
    check(rc == 1 and "<stdin>: byte 14: error: an integer of BSON type 0x12 cannot be written as json" in err
          and "--tags=wrap" in err, "int64 to json, --ejson=off: %d %r" % (rc, err))
    rc, out, err = run("convert", "--ejson=off", "--tags=drop", "-f", "bson", "-t", "json", stdin=one)
    check(rc == 0 and out == b'{"a":1,"b":1099511627776}\n', "--tags=drop: %r %s" % (out, err))
    # Detection: a file (or pipe) whose length field is its size; a sequence
    # with --seq; without --seq, a mongodump file is still BSON and the
    # second document an error at its offset.
    for name, data in (("one", one), ("big", doc(b"\x02s\0" + (40001).to_bytes(4, "little") + b"y" * 40000 + b"\0"))):
        p = write("bson_" + name, data)
        rc, out, err = run("validate", p)
        check(rc == 0 and out.endswith(b"ok (bson)\n"), "bson detected in a file (%s): %r %s" % (name, out, err))
        rc, out, err = run("validate", stdin=data)
        check(rc == 0 and out == b"<stdin>: ok (bson)\n", "bson detected in a pipe (%s): %r %s" % (name, out, err))
    seq = one + two + one
    rc, out, err = run("convert", "--seq", "--tags=drop", "-t", "json", stdin=seq)
    check(rc == 0 and out == b'{"a":1,"b":1099511627776}\n{"s":"x"}\n{"a":1,"b":1099511627776}\n',
          "bson --seq detected and converted: %r %s" % (out, err))
    rc, out, err = run("convert", "--seq", "-f", "bson", "-t", "bson", stdin=seq)
    check(rc == 0 and out == seq, "bson --seq -> bson is byte-identical: %s" % err)
    p = write("dump.bson", seq)
    rc, out, err = run("validate", "--seq", p)
    check(rc == 0 and b"ok (bson, 3 values)" in out, "validate --seq dump.bson: %r" % out)
    rc, out, err = run("validate", write("dump", seq))
    check(rc == 1 and "byte %d: error: bytes after the document" % len(one) in err, "mongodump without --seq: %r" % err)
    # Other formats' data is never taken for BSON.
    for t in ("json", "msgpack", "cbor"):
        for text in (b'{"a": [1, 2, {"b": null}]}', b"[5, 0, 0, 0, 1, 97, 0]", b'"\\u0005"'):
            rc, data, _ = run("convert", "-f", "json", "-t", t, stdin=text)
            rc, out, err = run("validate", stdin=data)
            check(b"(bson" not in out and "bson" not in err, "%s data %r not taken for bson: %r %s" % (t, text, out, err))
    # Malformed BSON: errors name the byte offset.
    for data, off, what in ((one[:-1], len(one) - 1, "input ends inside a document"),
                            (one[:4] + b"\x14" + one[5:], 4, "unknown element type"),
                            (doc(b"\x08t\0\x02"), 7, "boolean other than 0 or 1"),
                            (b"\xff\xff\xff\xff" + one[4:], 0, "document length below 5")):
        rc, out, err = run("validate", "-f", "bson", stdin=data)
        check(rc == 1 and "<stdin>: byte %d: error: %s" % (off, what) in err, "bad bson: %d %r" % (rc, err))
    # A failed conversion into OUT.bson leaves no file (and an existing one
    # untouched).
    outdir = path("atomic_bson")
    os.makedirs(outdir, exist_ok=True)
    target = os.path.join(outdir, "out.bson")
    rc, _, err = run("convert", write("arr.json", "[1, 2]"), target)
    check(rc == 1 and not os.path.exists(target), "failed conversion leaves no OUT.bson: %d %s" % (rc, err))
    with open(target, "wb") as f:
        f.write(two)
    rc, _, err = run("convert", write("late.json", '{"a": 1, "b": 18446744073709551615}'), target)
    check(rc == 1 and read(target) == two, "failed conversion leaves OUT.bson untouched: %d %s" % (rc, err))
    no_temp_files(outdir, "bson")


def binn_cli():
    """Binn through the command: the specification's examples, the .binn
    extension, errors with their byte offsets, tagged values, --seq."""
    def hx(hexstr):
        return bytes.fromhex(hexstr.replace(" ", ""))
    examples = [
        (b'{"hello":"world"}', "e2 11 01 05 68656c6c6f a0 05 776f726c64 00"),
        (b"[123,-456,789]", "e0 0b 03 20 7b 41 fe38 40 0315"),
        (b'[{"id":1,"name":"John"},{"id":2,"name":"Eric"}]',
         "e0 2b 02 e2 14 02 02 6964 20 01 04 6e616d65 a0 04 4a6f686e 00"
         " e2 14 02 02 6964 20 02 04 6e616d65 a0 04 45726963 00"),
    ]
    for js, want in examples:
        rc, out, err = run("convert", "-f", "json", "-t", "binn", stdin=js)
        check(rc == 0 and out == hx(want), "binn example %s: %r %s" % (js, out, err))
        p = write("example.binn", out)
        rc, back, err = run("convert", p, "-t", "json")
        check(rc == 0 and back == js + b"\n", "binn example back %s: %r %s" % (js, back, err))
    # A Binn map has integer keys: JSON takes them with --keys=stringify.
    p = write("intkeys.binn", hx("e1 1a 02 00000001 a0 03 616464 00 00000002 e0 09 02 41 cfc7 40 1a85"))
    rc, out, err = run("convert", p, "-t", "json")
    check(rc == 1 and "intkeys.binn: byte 3: error:" in err and "--keys=stringify" in err, "binn int keys: %r" % err)
    rc, out, err = run("convert", "--keys=stringify", p, "-t", "json")
    check(rc == 0 and out == b'{"1":"add","2":[-12345,6789]}\n', "binn int keys stringified: %r %s" % (out, err))
    rc, out, err = run("convert", p, "-t", "msgpack")
    check(rc == 0 and out == hx("82 01 a3 616464 02 92 d1 cfc7 cd 1a85"), "binn map to msgpack: %r %s" % (out, err))
    # Errors at the offending item: a cut input, a size its container cannot
    # hold, a text without its NUL.
    for name, data, where in [("cut.binn", "e0 0b 03 20 7b 41", "byte 5"),
                              ("lying.binn", "e0 06 01 e0 04 00 00", "byte 3"),
                              ("nonul.binn", "a0 01 78 79", "byte 0")]:
        rc, out, err = run("validate", write(name, hx(data)))
        check(rc == 1 and ("%s: %s: error:" % (name, where)) in err, "binn error %s: %r" % (name, err))
    # Tagged values: shown by view, a choice for JSON.
    p = write("date.binn", hx("a2 0a 323032362d31312d3234 00"))
    rc, out, err = run("view", p)
    check(rc == 0 and out == b'binn(0xa2, "2026-11-24")\n', "view binn date: %r %s" % (out, err))
    rc, out, err = run("convert", p, "-t", "json")
    check(rc == 0 and out == b'"2026-11-24"\n', "binn date to json: %r %s" % (out, err))
    dec = write("decimal.binn", hx("e0 0a 01 a4 04 312e3235 00"))
    rc, out, err = run("convert", dec, "-t", "json")
    check(rc == 1 and "decimal.binn: byte 3: error:" in err and "--tags=" in err, "binn decimal to json: %r" % err)
    rc, out, err = run("convert", "--tags=drop", dec, "-t", "json")
    check(rc == 0 and out == b'["1.25"]\n', "binn decimal --tags=drop: %r %s" % (out, err))
    rc, out, err = run("convert", "--tags=wrap", dec, "-t", "json")
    check(rc == 0 and out == b'[{"$tag":164,"$value":"1.25"}]\n', "binn decimal --tags=wrap: %r %s" % (out, err))
    rc, back, err = run("convert", "--tags=wrap", "-f", "json", "-t", "binn", stdin=out)
    check(rc == 0 and back == read(dec), "binn decimal wrapped and back: %r %s" % (back, err))
    # Without --tags=wrap, or with a number that is no Binn type, the map
    # stays a map.
    rc, back, err = run("convert", "-f", "json", "-t", "binn", stdin=out)
    check(rc == 0 and back[3:4] == b"\xe2", "wrapped form without --tags=wrap: %r %s" % (back, err))
    rc, back, err = run("convert", "--tags=wrap", "-f", "json", "-t", "binn", stdin=b'{"$tag":16,"$value":1}')
    check(rc == 0 and back[:1] == b"\xe2", "{$tag: 16} is no Binn type: %r %s" % (back, err))
    rc, out, err = run("convert", p, "-t", "binn")
    check(rc == 0 and out == read(p), "binn date to binn: %r %s" % (out, err))
    # --seq: back-to-back values both ways.
    rc, out, err = run("convert", "--seq", "-f", "json", "-t", "binn", stdin=b"1\n[true]\n")
    check(rc == 0 and out == hx("20 01 e0 04 01 01"), "json seq to binn: %r %s" % (out, err))
    rc, back, err = run("convert", "--seq", "-f", "binn", "-t", "json", stdin=out)
    check(rc == 0 and back == b"1\n[true]\n", "binn seq to json: %r %s" % (back, err))
    rc, back, err = run("convert", "-f", "binn", "-t", "json", stdin=out)
    check(rc == 1 and "byte 2: error:" in err, "binn without --seq: %r" % err)


def mp_errors(args):
    """Error paths that need a binary format: MessagePack bytes made by hand."""
    def mp(hexstr):
        return bytes.fromhex(hexstr.replace(" ", ""))
    # Each value JSON cannot hold: the error names the value's first byte and
    # the option that maps it, and the option does.
    cases = [
        # {"a": 1, "b": bin(00 01)}: the binary starts at byte 6.
        ("bin.msgpack", "82 a1 61 01 a1 62 c4 02 00 01",
         "byte 6: error: binary data (2 bytes) cannot be written as json", "--bin=base64",
         b'{"a":1,"b":"AAE="}\n'),
        # {1: "x"}: a non-string key at byte 1.
        ("intkey.msgpack", "81 01 a1 78", "byte 1: error: a map key of type integer cannot be written as json",
         "--keys=stringify", b'{"1":"x"}\n'),
        # [1.0, NaN] (float64): NaN at byte 10.
        ("nan.msgpack", "92 cb 3ff0000000000000 cb 7ff8000000000000",
         "byte 10: error: NaN cannot be written as json", "--nan=null", b"[1.0,null]\n"),
        # ["a\xffb"]: not UTF-8 (the reader's error).
        ("badutf.msgpack", "91 a3 61 ff 62", "byte 1: error:", "--utf8=replace", '["a\ufffdb"]\n'.encode()),
        # [ext(-2, 01 02)]
        ("ext.msgpack", "91 d5 fe 0102",
         "byte 1: error: a MessagePack extension value (type -2, 2 bytes) cannot be written as json", "--tags=wrap",
         b'[{"$ext":-2,"$data":"AQI="}]\n'),
    ]
    for name, hexstr, msg, option, want in cases:
        p = write(name, mp(hexstr))
        rc, out, err = run("convert", p, "-t", "json")
        check(rc == 1 and name + ": " + msg in err and option in err, "%s to JSON: %d %r" % (name, rc, err))
        rc, out, err = run("convert", option, p, "-t", "json")
        check(rc == 0 and out == want, "%s with %s: %r %s" % (name, option, out, err))
    tags_mapping(mp)
    with_bin = path("bin.msgpack")
    # Malformed and truncated binary input: byte offsets.
    rc, out, err = run("convert", write("trunc.msgpack", mp("93 01 02")), "-t", "json")
    check(rc == 1 and re.search(r"trunc\.msgpack: byte \d+: error: ", err), "truncated msgpack: %r" % err)
    rc, out, err = run("validate", "-f", "msgpack", write("c1.msgpack", mp("92 01 c1")))
    check(rc == 1 and "c1.msgpack: byte 2: error: " in err, "reserved byte 0xc1: %r" % err)
    # A failed conversion of binary data leaves OUT untouched.
    outp = write("mp_out.json", b"old")
    rc, _, _ = run("convert", with_bin, outp)
    check(rc == 1 and read(outp) == b"old", "binary to JSON fails: OUT untouched")


# ---------------------------------------------------------------------------
# view: fmt, colours, the diagnostic view
# ---------------------------------------------------------------------------

SGR = re.compile(rb"\x1b\[[0-9;]*m")


def tags_mapping(mp):
    """The mapping layer through the command: MessagePack ext values both
    ways, and CBOR bignums both ways once the CBOR format is registered."""
    # A timestamp has a JSON form without any option; other ext types need
    # --tags (wrap: the object; drop: the payload as a binary).
    p = write("ts.msgpack", mp("92 d6 ff 5a4af6a5 d5 fe 0102"))
    rc, out, err = run("convert", p, "-t", "json")
    check(rc == 1 and "byte 7: error: a MessagePack extension value (type -2, 2 bytes)" in err and
          "--tags=wrap writes it wrapped" in err, "ext after a timestamp: %d %r" % (rc, err))
    rc, out, err = run("convert", "--tags=drop", p, "-t", "json")
    check(rc == 1 and "byte 7: error: " in err, "--tags=drop leaves a binary: %r" % err)
    rc, out, err = run("convert", "--tags=drop", "--bin=base64", p, "-t", "json")
    check(rc == 0 and out == b'["2018-01-02T03:04:05Z","AQI="]\n', "--tags=drop --bin=base64: %r %s" % (out, err))
    rc, out, err = run("convert", "--tags=wrap", "--tags=error", p, "-t", "json")
    check(rc == 1, "the last --tags wins: %d" % rc)
    # JSON -> MessagePack reads the wrapped form back with --tags=wrap, so
    # MessagePack -> JSON -> MessagePack keeps every ext value.
    data = mp("93 d5 fe 0102 c7 03 07 616263 d6 ff 5a4af6a5")
    p = write("exts.msgpack", data)
    rc, js, err = run("convert", "--tags=wrap", p, "-t", "json")
    check(rc == 0 and js == b'[{"$ext":-2,"$data":"AQI="},{"$ext":7,"$data":"YWJj"},"2018-01-02T03:04:05Z"]\n',
          "ext values wrapped: %r %s" % (js, err))
    pj = write("exts.json", js)
    rc, back, err = run("convert", "--tags=wrap", pj, "-t", "msgpack")
    # the timestamp stays the string it became
    check(rc == 0 and back == mp("93 d5 fe 0102 c7 03 07 616263 b4") + b"2018-01-02T03:04:05Z",
          "wrapped ext values back to MessagePack: %r %s" % (back, err))
    rc, back, err = run("convert", pj, "-t", "msgpack")
    check(rc == 0 and back.startswith(mp("93 82 a4") + b"$ext"), "without --tags=wrap a map stays a map: %r" % back)
    # Numbers beyond 64 bits: an error for MessagePack, exact in JSON.
    big = write("big.json", b"[18446744073709551616,-18446744073709551617,-18446744073709551616,1e400]\n")
    rc, out, err = run("convert", big, "-t", "msgpack")
    check(rc == 1 and "the number 18446744073709551616 is beyond 64 bits" in err, "bignum to msgpack: %r" % err)
    if any(f[0] == "cbor" and f[1] and f[2] for f in formats()):
        rc, cb, err = run("convert", big, "-t", "cbor")
        want = mp("84 c2 49 010000000000000000 c3 49 010000000000000000 3b ffffffffffffffff c4 82 19 0190 01")
        check(rc == 0 and cb == want, "JSON big numbers to CBOR bignums: %r %s" % (cb, err))
        rc, out, err = run("convert", "-f", "cbor", "-", "-t", "json", stdin=cb)
        check(rc == 0 and out == b"[18446744073709551616,-18446744073709551617,-18446744073709551616,1e400]\n",
              "CBOR bignums to JSON: %r %s" % (out, err))
    else:
        print("note: cbor not registered: the CBOR bignum conversions of the command are not run")


def run_tty(*args, env=None):
    """Run sdx with stdout on a pseudo-terminal; returns (exit code, output)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd(*args), stdout=slave, stderr=subprocess.PIPE, env=e)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(), b"".join(chunks).replace(b"\r\n", b"\n")


def group_view(args):
    doc = write("view.json", '{"name": "sdx", "n": [1, -2.5, 1e300], "ok": true, "none": null, "k": {"a\\"b": "c"}}')
    rc, plain, err = run("fmt", doc)
    want = (b'{\n  "name": "sdx",\n  "n": [\n    1,\n    -2.5,\n    1e300\n  ],\n  "ok": true,\n  "none": null,\n'
            b'  "k": {\n    "a\\"b": "c"\n  }\n}\n')
    check(rc == 0 and plain == want, "fmt: %r" % plain)
    rc, v, _ = run("view", doc)
    check(rc == 0 and v == plain, "view of JSON = fmt")
    rc, out, _ = run("fmt", "--indent", "4", doc)
    check(rc == 0 and b'\n    "name": "sdx"' in out, "fmt --indent 4")
    rc, out, _ = run("fmt", "--indent", "0", doc)
    check(rc == 0 and out.count(b"\n") == 1, "fmt --indent 0 is minified")
    # Colour: forced, and on a terminal unless NO_COLOR or --no-color.
    rc, col, _ = run("fmt", "--color=always", doc)
    check(rc == 0 and col != plain and SGR.sub(b"", col) == plain, "--color=always adds colour only")
    check(b'\x1b[1;34m"name"\x1b[0m' in col, "keys coloured: %r" % col[:80])
    check(b'\x1b[32m"sdx"\x1b[0m' in col, "strings coloured")
    check(b"\x1b[36m-2.5\x1b[0m" in col and b"\x1b[36m1e300\x1b[0m" in col, "numbers coloured")
    check(b"\x1b[33mtrue\x1b[0m" in col and b"\x1b[33mnull\x1b[0m" in col, "literals coloured")
    check(b'\x1b[1;34m"a\\"b"\x1b[0m: \x1b[32m"c"\x1b[0m' in col, "escaped quote inside a key")
    rc, out = run_tty("fmt", doc)
    check(rc == 0 and out == col, "colour on a terminal: %r" % out[:60])
    rc, out = run_tty("fmt", doc, env={"NO_COLOR": "1"})
    check(rc == 0 and out == plain, "NO_COLOR turns colour off on a terminal")
    rc, out = run_tty("fmt", "--no-color", doc)
    check(rc == 0 and out == plain, "--no-color on a terminal")
    rc, out = run_tty("fmt", "--color=never", doc)
    check(rc == 0 and out == plain, "--color=never on a terminal")
    rc, out, _ = run("fmt", doc, env={"NO_COLOR": ""})
    check(out == plain, "not a terminal: no colour")
    # Colour of a large document, across the output's chunks, strips back.
    rc, big, _ = run("gen", "--size", "4")
    rc, a, _ = run("fmt", "--color=always", "-f", "json", stdin=big)
    rc2, b, _ = run("fmt", "-f", "json", stdin=big)
    check(rc == 0 and rc2 == 0 and SGR.sub(b"", a) == b and len(a) > len(b), "colour of a large document")
    # Invalid input: stdout shows everything up to the error, and a colour
    # cut short is reset.
    rc, out, err = run("fmt", "-f", "json", stdin=b"[1,2,\n3,x]")
    check(rc == 1 and out == b"[\n  1,\n  2,\n  3" and "<stdin>:2:3: error:" in err, "fmt up to an error: %r" % out)
    rc, col, err = run("fmt", "--color=always", "-f", "json", stdin=b'[1,2,\n3,x]')
    check(rc == 1 and SGR.sub(b"", col) == out and col.endswith(b"\x1b[0m"), "colour reset at an error: %r" % col)
    # Mappings apply to fmt as to convert.
    rc, out, _ = run("fmt", "-f", "json", "--bigint=double", stdin=b"[123456789012345678901234567890]")
    check(rc == 0 and out == b"[\n  1.2345678901234568e29\n]\n", "fmt --bigint=double: %r" % out)
    if msgpack_readable():
        view_msgpack()
    else:
        print("note: msgpack not registered: the diagnostic view tests are not run")


def view_msgpack():
    def mp(hexstr):
        return bytes.fromhex(hexstr.replace(" ", ""))
    # {"b": bin(01 02 03), 1: "one", "e": ext(5, 0xAA), "f": float32 1.5, "d": 1.5, "n": nil}
    data = mp("86 a1 62 c4 03 010203 01 a3 6f6e65 a1 65 d4 05 aa a1 66 ca 3fc00000 a1 64 cb 3ff8000000000000"
              " a1 6e c0")
    p = write("diag.msgpack", data)
    rc, out, err = run("view", p)
    want = (b'{\n  "b": b64\'AQID\' /3 bytes/,\n  1: "one",\n  "e": ext(5, b64\'qg==\' /1 bytes/),\n'
            b'  "f": 1.5_f32,\n  "d": 1.5,\n  "n": null\n}\n')
    check(rc == 0 and out == want, "view msgpack: %r %s" % (out, err))
    rc, out, _ = run("view", "--indent", "0", p)
    check(out == b'{"b":b64\'AQID\' /3 bytes/,1:"one","e":ext(5, b64\'qg==\' /1 bytes/),"f":1.5_f32,"d":1.5,'
          b'"n":null}\n', "view --indent 0: %r" % out)
    rc, col, _ = run("view", "--color=always", p)
    check(SGR.sub(b"", col) == want and b"\x1b[35mb64'AQID'\x1b[0m" in col, "view colours: %r" % col)
    # float32 with a short form, negative ext types, a timestamp, nested and
    # empty containers.
    q = write("diag2.msgpack", mp("95 ca 3dcccccd d5 fe 0102 d6 ff 5a4af6a5 90 80"))
    rc, out, err = run("view", "--indent", "0", q)
    check(out == b"[0.1_f32,ext(-2, b64'AQI=' /2 bytes/),ext(-1, b64'Wkr2pQ==' /4 bytes/),[],{}]\n",
          "view float32 0.1, ext -2, timestamp: %r %s" % (out, err))
    rc, out, err = run("convert", "--tags=wrap", q)
    check(rc == 0 and out == b'[0.10000000149011612,{"$ext":-2,"$data":"AQI="},"2018-01-02T03:04:05Z",[],{}]\n',
          "--tags=wrap: %r %s" % (out, err))
    rc, out, err = run("convert", q, "-t", "json")
    check(rc == 1 and "diag2.msgpack: byte 6: error: a MessagePack extension value (type -2, 2 bytes) cannot be"
          in err and "--tags=wrap" in err, "ext to JSON: %r" % err)
    # fmt of the same data is JSON, with the mappings.
    rc, out, err = run("fmt", p)
    check(rc == 1 and "--bin=base64" in err, "fmt of binary data needs --bin: %r" % err)


# ---------------------------------------------------------------------------
# stat
# ---------------------------------------------------------------------------

def group_stat(args):
    doc = write("stat.json", '{"a": [1, -2, 18446744073709551615, 2.5, "xy", true, null, {}], "bb": "z", "c": []}')
    rc, out, err = run("stat", "--json", doc)
    st = json.loads(out)
    check(rc == 0, "stat --json: %s" % err)
    want = {"null": 1, "bool": 1, "int": 2, "uint": 1, "double": 1, "string": 2, "binary": 0, "array": 2, "map": 2,
            "keys": 3, "max_depth": 3, "string_bytes": 1 + 2 + 1 + 2 + 1, "values": 12, "format": "json",
            "input": doc, "bytes": os.path.getsize(doc), "top_level_values": 1}
    for k, v in want.items():
        check(st.get(k) == v, "stat %s = %r (got %r)" % (k, v, st.get(k)))
    # The sizes are what convert writes.
    for name, readable, writable, exts in formats():
        if not writable:
            continue
        rc, conv, _ = run("convert", doc, "-t", name)
        # (a format that cannot hold a value, BSON's integers beyond int64:
        # no size, as convert fails)
        want = len(conv) if rc == 0 else None
        check(st["sizes"].get(name) == want, "stat size as %s = %r (got %r)" % (name, want, st["sizes"].get(name)))
    rc, table, _ = run("stat", doc)
    text = table.decode()
    check(rc == 0 and re.search(r"^values\s+12$", text, re.M) and re.search(r"^max depth\s+3$", text, re.M)
          and re.search(r"^  json\s+%d$" % st["sizes"]["json"], text, re.M), "stat table: %s" % text)
    # Generated data: counts match the generator's tree.
    rc, gen, _ = run("gen", "--size", "3", "--seed", "2")
    rc, out, _ = run("stat", "--json", stdin=gen)
    st = json.loads(out)
    tree = sbh.generate(3, 2)
    counts = {"null": 0, "bool": 0, "int": 0, "uint": 0, "double": 0, "string": 0, "array": 0, "map": 0, "keys": 0}

    def walk(v):
        if v is None:
            counts["null"] += 1
        elif isinstance(v, bool):
            counts["bool"] += 1
        elif isinstance(v, int):
            counts["int" if v <= (1 << 63) - 1 else "uint"] += 1
        elif isinstance(v, float):
            counts["double"] += 1
        elif isinstance(v, str):
            counts["string"] += 1
        elif isinstance(v, sbh.Pairs):
            counts["map"] += 1
            for _, x in v:
                counts["keys"] += 1
                walk(x)
        else:
            counts["array"] += 1
            for x in v:
                walk(x)
    walk(tree)
    for k, v in counts.items():
        check(st[k] == v, "stat of gen:3:2: %s = %d (got %d)" % (k, v, st[k]))
    check(st["sizes"]["json"] == len(gen), "stat of gen:3:2: json size")
    # A value a format cannot represent: that size is null, with the reason.
    binaries = [f for f in readable_writable() if f != "json"]
    if binaries:
        rc, out, err = run("stat", "--json", "-f", "json", stdin=b"[1, 123456789012345678901234567890]")
        st = json.loads(out)
        for b in binaries:
            if b == "bson":  # the root array comes first
                check(rc == 0 and st["sizes"][b] is None and "root array" in st["errors"][b]
                      and "--root=wrap" in st["errors"][b], "stat: bson holds documents only: %r" % st)
                continue
            if b in RAW_NUMBERS:
                check(rc == 0 and st["sizes"][b] is not None and b not in st["errors"],
                      "stat: %s holds a bignum: %r" % (b, st))
                continue
            check(rc == 0 and st["sizes"][b] is None and "beyond 64 bits" in st["errors"][b]
                  and "<stdin>:1:5" in st["errors"][b], "stat: %s cannot hold a bignum: %r" % (b, st))
        check(st["sizes"]["json"] == len(b"[1,123456789012345678901234567890]\n"), "stat: json holds it")
    rc, out, err = run("stat", "-f", "json", stdin=b"[1,")
    check(rc == 1 and "<stdin>:1:4: error:" in err, "stat of invalid input: %d %r" % (rc, err))


# ---------------------------------------------------------------------------
# memory: 1 GB through pipes in bounded memory
# ---------------------------------------------------------------------------

def report_memory(stages, results, errs, hwms, measured):
    """Check exit codes and print (and, when measured, check) peak RSS."""
    for (code, usage), argv, err, hwm in zip(results, stages, errs, hwms):
        what = " ".join(map(str, argv))
        check(code == 0, "sdx %s: exit %d %s" % (what, code, err))
        peak_mb, bound_mb = hwm / 1024.0, usage.ru_maxrss / 1024.0
        print("  sdx %-50s peak RSS %.1f MB (VmHWM; ru_maxrss, which includes the forking Python: %.1f MB)"
              % (what[:50], peak_mb, bound_mb), flush=True)
        if measured:
            check(0 < peak_mb < 64, "sdx %s: peak RSS %.1f MB < 64 MB" % (what, peak_mb))
            check(bound_mb < 64, "sdx %s: ru_maxrss %.1f MB < 64 MB" % (what, bound_mb))


def group_memory(args):
    fmts = readable_writable()
    middle = next((f for f in fmts if f != "json"), "json")
    measured = not (args.sanitized or EMULATOR)
    if not measured:
        why = "sanitizer build" if args.sanitized else "emulated build"
        print("%s: peak memory is not meaningful here (shadow memory, quarantine, emulator); running small "
              "pipelines that check correctness only" % why)
    size = 3
    # One value of gen --size 3 is about 85 KB of JSON; enough for 1 GiB.
    rc, one, _ = run("gen", "--size", size, "--seed", "1")
    count = (1 << 30) // (len(one) - 2000) + 1 if measured else 100

    # 1. A sequence of >= 1 GiB: gen | convert (to another format) | convert (back).
    gen = ["gen", "--seq", "--count", count, "--size", size]
    stages = [gen, ["convert", "--seq", "-f", "json", "-t", middle], ["convert", "--seq", "-f", middle, "-t", "json"]]
    print("pipeline: sdx %s | sdx %s | sdx %s" % tuple(" ".join(map(str, s)) for s in stages), flush=True)
    start = time.time()
    pl = Pipeline(stages)
    total, crc = crc_of(pl.stdout)
    report_memory(stages, pl.wait(), pl.errs, pl.hwm_kb, measured)
    print("%d bytes (%.2f GiB) through the pipeline in %.1f s" % (total, total / (1 << 30), time.time() - start))
    if measured:
        check(total >= 1 << 30, "at least 1 GiB went through: %d bytes" % total)
    # The output is exactly what gen writes: compare with a second run.
    p = subprocess.Popen(cmd(*gen), stdout=subprocess.PIPE)
    total2, crc2 = crc_of(p.stdout)
    p.wait()
    check(total == total2 and crc == crc2, "json -> %s -> json of %d values is byte-identical to gen's output"
          % (middle, count))

    # 2. One large document (an array of those values): a format that needs
    # counts up front gets them from a first pass, not by holding the
    # document; from a file, and from a pipe (kept in a temporary file).
    single = path("single.json")
    p = subprocess.Popen(cmd("gen", "--seq", "--count", count // 4 + 1, "--size", size), stdout=subprocess.PIPE)
    with open(single, "wb") as f:
        f.write(b"[")
        for i, line in enumerate(p.stdout):
            f.write((b"," if i else b"") + line.rstrip(b"\n"))
        f.write(b"]")
    check(p.wait() == 0, "gen for the single document")
    print("one document of %d bytes" % os.path.getsize(single), flush=True)
    out_a, out_b, back = path("single_a." + ext_of(middle)), path("single_b." + ext_of(middle)), path("back.json")
    for stages in ([["convert", single, out_a]],
                   [["convert", "-f", "json", single], ["convert", "-f", "json", "-t", middle, "-", out_b]],
                   [["convert", out_a, back]]):
        pl = Pipeline(stages)
        pl.stdout.read()
        report_memory(stages, pl.wait(), pl.errs, pl.hwm_kb, measured)
    check(read_crc(out_a) == read_crc(out_b), "one document: from a file = from a pipe")
    check(read_crc(back) == read_crc(single, b"\n"), "one document: json -> %s -> json is identical" % middle)
    for pth in (out_a, out_b, back):
        os.unlink(pth)

    # 3. The same document into BSON and Binn, whose containers begin with
    # their size in bytes: into a file the sizes are patched in place, so
    # memory stays bounded too; the bytes equal those written to a pipe,
    # where the writer holds the document in memory until its end.
    for fmt, opts in (("bson", ["--root=wrap"]), ("binn", [])):
        if fmt not in readable_writable():
            continue
        out = path("single." + ext_of(fmt))
        stages = [["convert"] + opts + [single, out]]
        pl = Pipeline(stages)
        pl.stdout.read()
        report_memory(stages, pl.wait(), pl.errs, pl.hwm_kb, measured)
        p = subprocess.Popen(cmd("convert", *(opts + ["-t", fmt, single])), stdout=subprocess.PIPE)
        total, crc = crc_of(p.stdout)
        check(p.wait() == 0 and (total, crc) == read_crc(out),
              "one document into %s: the file (patched) = the pipe (held)" % fmt)
        back = path("back.json")
        pl = Pipeline([["convert", out, back]])
        pl.stdout.read()
        code = pl.wait()[0][0]
        if fmt == "binn":
            check(code == 0 and read_crc(back) == read_crc(single, b"\n"),
                  "one document: json -> binn -> json is identical")
        else:
            # BSON is read a root document at a time, held while read (any
            # size BSON allows: this one is above the library's default
            # of 64 MiB); its JSON (a map, the array wrapped) back into
            # BSON gives the same bytes
            again = path("again.bson")
            pl = Pipeline([["convert", back, again]])
            pl.stdout.read()
            check(code == 0 and pl.wait()[0][0] == 0 and read_crc(again) == read_crc(out),
                  "one document: bson -> json -> bson is identical")
            os.unlink(again)
        os.unlink(back)
        os.unlink(out)
    # stat sizes the document in every format the same way (its counting
    # buffers patch nothing, so BSON and Binn hold nothing either)
    stages = [["stat", "--root=wrap", single]]
    pl = Pipeline(stages)
    text = pl.stdout.read()
    report_memory(stages, pl.wait(), pl.errs, pl.hwm_kb, measured)
    check(b"  bson " in text and b"  binn " in text, "stat: sizes as bson and binn: %r" % text[-300:])
    os.unlink(single)


def read_crc(p, extra=b""):
    with open(p, "rb") as f:
        total, crc = crc_of(f)
    return total + len(extra), zlib.crc32(extra, crc)


def group_ejson(args):
    """--ejson=relaxed|canonical|off: MongoDB Extended JSON (map.h). JSON to
    JSON shows the modes; with the bson format, BSON <-> JSON both ways."""
    doc = '{"a":1,"b":2.5,"c":[-0.0,3000000000],"d":{"$oid":"57e193d7a9cc81b4027498b5"}}'
    p = write("e.json", doc)
    want = {
        None: doc,
        "relaxed": doc,
        "canonical": '{"a":{"$numberInt":"1"},"b":{"$numberDouble":"2.5"},"c":[{"$numberDouble":"-0.0"},'
                     '{"$numberLong":"3000000000"}],"d":{"$oid":"57e193d7a9cc81b4027498b5"}}',
        "off": doc,
    }
    for mode, text in want.items():
        opt = ["--ejson=" + mode] if mode else []
        for sub in (("convert", p, "-t", "json"), ("fmt", "--indent", "0", p)):
            rc, out, err = run(*(sub[:1] + tuple(opt) + sub[1:]))
            check(rc == 0 and out.strip() == text.encode(), "%s --ejson=%s: %d %r %s" % (sub[0], mode, rc, out, err))
    rc, out, err = run("convert", "--ejson=loose", p, "-t", "json")
    check(rc == 2 and "--ejson takes 'relaxed', 'canonical' or 'off', not 'loose'" in err, "--ejson=loose: %s" % err)
    rc, out, err = run("convert", "--help")
    check(b"--ejson=relaxed|canonical|off" in out, "convert --help documents --ejson")
    if "bson" not in [f[0] for f in formats()]:
        return
    # BSON -> JSON -> BSON, both modes, gives back the bytes; relaxed is the
    # default; off makes BSON types errors (the --tags policy).
    full = ('{"_id":{"$oid":"57e193d7a9cc81b4027498b5"},"i":{"$numberInt":"42"},"l":{"$numberLong":"42"},'
            '"d":{"$numberDouble":"-1.5"},"n":{"$numberDouble":"NaN"},"t":{"$date":{"$numberLong":"1356351330501"}},'
            '"b":{"$binary":{"base64":"//8=","subType":"80"}},"g":{"$binary":{"base64":"AQI=","subType":"00"}},'
            '"r":{"$regularExpression":{"pattern":"a/b","options":"im"}},"ts":{"$timestamp":{"t":42,"i":1}},'
            '"c":{"$code":"f()","$scope":{"x":{"$numberInt":"1"}}},"m":{"$minKey":1}}')
    src = write("full.json", full)
    bson = path("full.bson")
    rc, _, err = run("convert", src, bson)
    check(rc == 0, "Extended JSON -> BSON: %d %s" % (rc, err))
    for mode in ("canonical", "relaxed"):
        rc, out, err = run("convert", "--ejson=" + mode, bson, "-t", "json")
        check(rc == 0, "BSON -> %s: %d %s" % (mode, rc, err))
        if mode == "canonical":
            check(out.strip() == full.encode(), "BSON -> canonical: %r" % out)
        else:
            check(b'"i":42,"l":42,"d":-1.5,"n":{"$numberDouble":"NaN"},"t":{"$date":"2012-12-24T12:15:30.501Z"}' in out,
                  "BSON -> relaxed: %r" % out)
        back = write("back-%s.json" % mode, out)
        rc, _, err = run("convert", back, path("back-%s.bson" % mode))
        if mode == "canonical":
            check(rc == 0 and read(path("back-canonical.bson")) == read(bson), "canonical -> BSON: %s" % err)
    rc, out, err = run("convert", bson, "-t", "json")
    check(rc == 0 and b'"t":{"$date":"2012-12-24T12:15:30.501Z"}' in out, "relaxed is the default: %r" % out)
    rc, out, err = run("convert", "--ejson=off", bson, "-t", "json")
    check(rc == 1, "--ejson=off: BSON types are errors: %d %s" % (rc, err))
    # a malformed wrapper: an error at its end, naming --ejson=off
    bad = write("bad.json", '{"x": {"$oid": 42}}')
    rc, _, err = run("convert", bad, path("bad.bson"))
    check(rc == 1 and "bad.json:1:18: error: a malformed Extended JSON type wrapper" in err
          and "--ejson=off" in err and not os.path.exists(path("bad.bson")), "malformed wrapper: %d %s" % (rc, err))
    # --ejson=off reads JSON literally: {"$oid": ...} stays a document
    rc, _, err = run("convert", "--ejson=off", write("oid.json", '{"x":{"$oid":"57e193d7a9cc81b4027498b5"}}'),
                     path("oid.bson"))
    check(rc == 0 and b"\x03x\x00" in read(path("oid.bson")), "--ejson=off: a plain document: %s" % err)


GROUPS = {
    "basic": group_basic,
    "gen": group_gen,
    "roundtrip": group_roundtrip,
    "seq": group_seq,
    "pipes": group_pipes,
    "errors": group_errors,
    "view": group_view,
    "stat": group_stat,
    "memory": group_memory,
    "ejson": group_ejson,
}


def main():
    global SDX, EMULATOR, WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("group", choices=sorted(GROUPS))
    ap.add_argument("--sdx", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--bench-tool")
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("--reduced", action="store_true")
    ap.add_argument("--emulator", default="")
    args = ap.parse_args()
    SDX = os.path.abspath(args.sdx)
    EMULATOR = args.emulator.split(";") if args.emulator else []
    WORK = os.path.abspath(os.path.join(args.work, args.group))
    if os.path.isdir(WORK):
        subprocess.run(["chmod", "-R", "u+w", WORK])
        subprocess.run(["rm", "-rf", WORK])
    os.makedirs(WORK)
    GROUPS[args.group](args)
    return tally.finish(args.group, "checks passed")


if __name__ == "__main__":
    sys.exit(main())
