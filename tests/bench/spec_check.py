#!/usr/bin/env python3
"""Check the C harness against SPEC.md through an independent Python port
(sbh.py): the byte-hash vectors of vectors.txt, and the value hash of the
generator's trees, standard and extended, compared with `bench_tool hash`
(for every format: the adapted trees too). Standard library only.

usage: spec_check.py BENCH_TOOL VECTORS_TXT
"""

import subprocess
import sys

import sbh

# (size, seed): the generator's trees this test rebuilds in Python, in both
# variants: the same trees whose hashes test_pins.c pins.
TREES = [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (2, 2), (2, 3)]

# The trees also compared adapted to each format (SPEC.md, "Adapting to a
# format").
ADAPTED_TREES = [(2, 1), (3, 1), (3, 7)]
FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson", "binn"]



def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, vectors = sys.argv[1], sys.argv[2]
    passed = failed = 0

    for n, want in sbh.read_vectors(vectors):
        got = sbh.bytes_hash(sbh.vector_bytes(n))
        if got == want:
            passed += 1
        else:
            failed += 1
            print("FAIL vector %d: python %016x, vectors.txt %016x" % (n, got, want))

    def compare(fmt, size, seed, extended):
        nonlocal passed, failed
        spec = "gen:%d:%d%s" % (size, seed, ":extended" if extended else "")
        want = subprocess.run([tool, "hash", fmt, spec], check=True, capture_output=True, text=True).stdout.strip()
        got = "%016x" % sbh.value_hash(sbh.adapt(fmt, sbh.generate(size, seed, extended)))
        if got == want:
            passed += 1
        else:
            failed += 1
            print("FAIL %s %s: python port of SPEC.md %s, bench_tool %s" % (fmt, spec, got, want))

    for extended in (False, True):
        for size, seed in TREES:
            compare("json", size, seed, extended)
        for size, seed in ADAPTED_TREES:
            for fmt in FORMATS[1:]:
                compare(fmt, size, seed, extended)

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
