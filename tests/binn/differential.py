#!/usr/bin/env python3
"""Binn differential test: sdx against the Rust crate binn-ir, both ways.

usage: differential.py --tool BINN_TOOL --work DIR [--count N] [--seed S]

Builds tests/binn/rust (binn-ir 0.17.3 from crates.io) with cargo into
WORK/cargo; exits 77 (skipped) when cargo is not installed.

  sdx -> binn-ir: binn_tool writes N random documents; binn-ir reads each
    (its canonical dump must equal sdx's dump of the same bytes) and writes
    it again; sdx reads binn-ir's bytes to the same dump.
  binn-ir -> sdx: binn-ir writes N random documents; sdx reads each (its
    dump must equal binn-ir's) and writes it again (through the reader or
    the parser); binn-ir reads sdx's bytes to the same dump.

The canonical dump is defined in binn_tool.c and rust/src/main.rs.
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import tally  # noqa: E402

check = tally.check


def run(argv, data=None):
    r = subprocess.run(argv, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(argv), r.returncode, r.stderr.decode(errors="replace")))
    return r.stdout


def compare(what, a, b, names):
    la, lb = a.decode().split("\n"), b.decode().split("\n")
    check(len(la) == len(lb), "%s: %d and %d documents" % (what, len(la), len(lb)))
    bad = 0
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y or x.startswith("ERROR"):
            bad += 1
            if bad <= 3:
                print("  %s, document %d:\n    %s: %s\n    %s: %s" % (what, i, names[0], x[:300], names[1], y[:300]))
    check(bad == 0, "%s: %d of %d documents differ" % (what, bad, len(la)))
    if bad == 0:
        print("%s: %d documents agree" % (what, len(la) - 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cargo = shutil.which("cargo")
    if not cargo:
        print("cargo not found: the binn-ir differential is skipped")
        return 77
    os.makedirs(args.work, exist_ok=True)
    target = os.path.join(args.work, "cargo")
    manifest = os.path.join(HERE, "rust", "Cargo.toml")
    r = subprocess.run([cargo, "build", "--release", "--quiet", "--manifest-path", manifest,
                        "--target-dir", target])
    if r.returncode != 0:
        print("cargo could not build binn-diff (binn-ir from crates.io)")
        return 1
    rust = os.path.join(target, "release", "binn-diff")
    tool = os.environ.get("SDX_TEST_EMULATOR", "").split() + [args.tool]  # qemu for cross builds

    # sdx -> binn-ir -> sdx
    docs = run(tool + ["gen", str(args.count), str(args.seed)])
    sdx_dump = run(tool + ["dump"], docs)
    compare("binn-ir reads sdx's documents", run([rust, "dump"], docs), sdx_dump, ("binn-ir", "sdx"))
    again = run([rust, "recode"], docs)
    compare("sdx reads binn-ir's rewrite", run(tool + ["dump"], again), sdx_dump, ("sdx", "sdx before"))

    # binn-ir -> sdx -> binn-ir
    docs = run([rust, "gen", str(args.count), str(args.seed)])
    ir_dump = run([rust, "dump"], docs)
    compare("sdx reads binn-ir's documents", run(tool + ["dump"], docs), ir_dump, ("sdx", "binn-ir"))
    again = run(tool + ["recode"], docs)
    compare("binn-ir reads sdx's rewrite", run([rust, "dump"], again), ir_dump, ("binn-ir", "binn-ir before"))
    return tally.finish("binn_differential")


if __name__ == "__main__":
    sys.exit(main())
