#!/usr/bin/env python3
"""Command-line test of bench_tool: every subcommand's output, exit status
and error handling. Standard library only.

usage: tool_cli.py BENCH_TOOL WORK_DIR
"""

import json
import os
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tally  # noqa: E402

check = tally.check


def run(*args):
    r = subprocess.run([TOOL] + [str(a) for a in args], capture_output=True)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


class ReversedMap(dict):
    """A JSON object whose keys json.dump writes in the order given."""

    def __init__(self, pairs):
        super().__init__()
        self.pairs = list(pairs)
        self.update(self.pairs)

    def items(self):
        return iter(self.pairs)

    def __iter__(self):
        return (k for k, _ in self.pairs)


def change_first_number(v):
    """Add 1 to the first integer found in a parsed document; True if done."""
    if isinstance(v, ReversedMap):
        for i, (k, x) in enumerate(v.pairs):
            if isinstance(x, int) and not isinstance(x, bool):
                v.pairs[i] = (k, x + 1)
                v[k] = x + 1
                return True
            if change_first_number(x):
                return True
    elif isinstance(v, list):
        for i, x in enumerate(v):
            if isinstance(x, int) and not isinstance(x, bool):
                v[i] = x + 1
                return True
            if change_first_number(x):
                return True
    return False


def collect_strings(v, out):
    """Keys and string values of a document parsed with object_pairs_hook=list,
    in document order."""
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, tuple):
                out.append(x[0])
                collect_strings(x[1], out)
            else:
                collect_strings(x, out)


def main():
    global TOOL
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    TOOL, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(work, exist_ok=True)

    # hash: 16 hex digits; the generator's pin for gen:1
    rc, out, _ = run("hash", "json", "gen:1")
    check(rc == 0 and out == "da01796d3a20cb9b\n", "hash json gen:1 = %r" % out)
    rc, out_bson, _ = run("hash", "bson", "gen:1")
    check(rc == 0 and len(out_bson.strip()) == 16 and out_bson != out, "hash bson gen:1 (adapted) differs")

    # the extended data is another tree
    rc, out_ext, _ = run("hash", "json", "gen:2:1:extended")
    check(rc == 0 and len(out_ext.strip()) == 16 and out_ext != run("hash", "json", "gen:2")[1],
          "hash json gen:2:1:extended differs from gen:2")

    # tree files (what the benchmark programs read): the same tree back, for
    # every format's adaptation, standard and extended data (-0.0,
    # subnormals, the 64-bit extremes); malformed files are rejected
    for spec in ["gen:3:1:extended", "gen:3"]:
        tree = os.path.join(work, "gen3.tree")
        rc, _, err = run("tree", spec, tree)
        check(rc == 0 and os.path.getsize(tree) > 1000, "tree %s: %s" % (spec, err))
        for fmt in ["json", "bson", "ubjson"]:
            _, want, _ = run("hash", fmt, spec)
            rc, got, _ = run("hash", fmt, "tree:" + tree)
            check(rc == 0 and got == want, "hash %s of the tree file = of %s" % (fmt, spec))
    with open(tree, "rb") as f:
        good = f.read()
    bad_files = {"truncated": good[:-1], "trailing byte": good + b"\0", "magic": b"SBT2" + good[4:],
                 "type": good[:4] + b"\x09" + good[5:], "empty": b""}
    for name, data in bad_files.items():
        path = os.path.join(work, "bad.tree")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err = run("hash", "json", "tree:" + path)
        check(rc != 0 and out == "" and "not a valid tree file" in err, "tree file (%s) rejected" % name)

    for fmt in ["json", "msgpack", "cbor", "bson", "ubjson", "binn"]:
        path = os.path.join(work, "gen2." + fmt)
        rc, _, err = run("encode", fmt, "gen:2", path)
        check(rc == 0 and os.path.getsize(path) > 1000, "encode %s gen:2: %s" % (fmt, err))
        _, want, _ = run("hash", fmt, "gen:2")
        rc, out, _ = run("verify", fmt, "gen:2", path)
        v = json.loads(out)
        check(rc == 0 and v["ok"] is True and v["expected"] == v["got"] == want.strip() and v["message"] == "",
              "verify %s gen:2: %s" % (fmt, out))
        rc, out, _ = run("decode-hash", fmt, path)
        check(rc == 0 and out == want, "decode-hash %s = hash" % fmt)
        # another tree: not ok, exit 1
        rc, out, _ = run("verify", fmt, "gen:2:2", path)
        v = json.loads(out)
        check(rc == 1 and v["ok"] is False and v["got"] == want.strip() and v["expected"] != v["got"]
              and "differs" in v["message"], "verify %s against another tree: %s" % (fmt, out))
        # a truncated file: not ok, a message with the byte offset
        with open(path, "rb") as f:
            data = f.read()
        bad = os.path.join(work, "bad." + fmt)
        with open(bad, "wb") as f:
            f.write(data[:len(data) // 2])
        rc, out, _ = run("verify", fmt, "gen:2", bad)
        v = json.loads(out)
        check(rc == 1 and v["ok"] is False and v["got"] == "" and v["message"].startswith("byte "),
              "verify %s of a truncated file: %s" % (fmt, out))
        rc, out, err = run("decode-hash", fmt, bad)
        check(rc == 1 and out == "" and "byte " in err, "decode-hash %s of a truncated file" % fmt)

    # maps without order (--unordered): the reference encoding verifies in
    # every format; JSON with every map's keys reversed verifies only
    # without order; a changed value fails both ways
    for fmt in ["json", "msgpack", "cbor", "bson", "ubjson", "binn"]:
        rc, out, _ = run("verify", "--unordered", fmt, "gen:2", os.path.join(work, "gen2." + fmt))
        check(rc == 0 and json.loads(out)["ok"] is True, "verify --unordered %s of the reference: %s" % (fmt, out))
    _, ordered, _ = run("hash", "json", "gen:2")
    rc, unordered, _ = run("hash", "--unordered", "json", "gen:2")
    check(rc == 0 and len(unordered.strip()) == 16 and unordered != ordered, "hash --unordered differs from hash")
    with open(os.path.join(work, "gen2.json"), "rb") as f:
        doc = json.loads(f.read(), object_pairs_hook=lambda pairs: ReversedMap(reversed(pairs)))
    reversed_path = os.path.join(work, "reversed.json")
    with open(reversed_path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    rc, out, _ = run("verify", "--unordered", "json", "gen:2", reversed_path)
    check(rc == 0 and json.loads(out)["got"] == unordered.strip(), "reordered keys verify --unordered: %s" % out)
    rc, out, _ = run("verify", "json", "gen:2", reversed_path)
    check(rc == 1, "reordered keys fail the ordered verify")
    changed = change_first_number(doc)
    with open(reversed_path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    rc, out, _ = run("verify", "--unordered", "json", "gen:2", reversed_path)
    check(changed and rc == 1, "a changed value fails verify --unordered: %s" % out)

    # strings: every string and key in document order, concatenated
    with open(os.path.join(work, "gen2.json"), "rb") as f:
        root = json.loads(f.read(), object_pairs_hook=list)
    for fmt in ["json", "bson"]:
        spath = os.path.join(work, "strings." + fmt)
        rc, _, err = run("strings", fmt, "gen:2", spath)
        want = []
        if fmt == "bson" and root and not isinstance(root[0], tuple):
            # adapted for BSON: a root array becomes a map with keys "0", "1", ...
            for i, x in enumerate(root):
                want.append(str(i))
                collect_strings(x, want)
        else:
            collect_strings(root, want)
        with open(spath, "rb") as f:
            got = f.read() if rc == 0 else b""
        check(rc == 0 and got == "".join(want).encode("utf-8"), "strings %s gen:2: %s" % (fmt, err))

    # a message with quotes and control characters stays valid JSON
    weird = os.path.join(work, "weird.json")
    with open(weird, "wb") as f:
        f.write(b'["\x01"]')
    rc, out, _ = run("verify", "json", "gen:1", weird)
    check(rc == 1 and json.loads(out)["ok"] is False, "verify prints valid JSON for any message")

    # info
    rc, out, _ = run("info", "gen:1")
    info = json.loads(out) if rc == 0 else {}
    check(rc == 0 and info.get("values") == 31 and info.get("max_depth", 0) >= 2, "info gen:1: %s" % out)
    jpath = os.path.join(work, "gen1.json")
    run("encode", "json", "gen:1", jpath)
    check(info.get("bytes", {}).get("json") == os.path.getsize(jpath), "info's json size is the encoding's")
    check(info.get("hash", {}).get("json") == "da01796d3a20cb9b", "info's json hash")
    check(sorted(info.get("bytes", {})) == sorted(["json", "msgpack", "cbor", "bson", "ubjson", "binn"]),
          "info has every format")
    # a JSON tree spec
    rc, out, _ = run("info", "json:" + jpath)
    check(rc == 0 and json.loads(out)["hash"]["json"] == "da01796d3a20cb9b", "info json:PATH")

    # usage errors and bad input
    check(run()[0] == 2, "no arguments: exit 2")
    check(run("frobnicate")[0] == 2, "unknown subcommand: exit 2")
    check(run("hash", "json")[0] == 2, "missing argument: exit 2")
    check(run("hash", "xml", "gen:1")[0] == 2, "unknown format: exit 2")
    rc, _, err = run("hash", "json", "gen:9")
    check(rc == 1 and "spec" in err, "bad tree spec: exit 1")
    rc, _, err = run("hash", "json", "gen:2:1:extra")
    check(rc == 1 and "gen:SIZE[:SEED[:extended]]" in err, "bad variant in a tree spec: exit 1")
    rc, _, err = run("hash", "json", "json:/nonexistent/x.json")
    check(rc == 1, "missing JSON file: exit 1")
    rc, _, err = run("decode-hash", "json", "/nonexistent/file")
    check(rc == 1 and "cannot read" in err, "missing input file: exit 1")
    rc, _, err = run("encode", "json", "gen:1", "/nonexistent/dir/out")
    check(rc == 1 and "cannot write" in err, "unwritable output: exit 1")

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
