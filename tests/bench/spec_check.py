#!/usr/bin/env python3
"""Check the C harness against SPEC.md through an independent Python port
(sbh.py): the byte-hash vectors of vectors.txt, and the value hash of the
generator's trees compared with `bench_tool hash`. Standard library only.

usage: spec_check.py BENCH_TOOL VECTORS_TXT
"""

import subprocess
import sys

import sbh

# (size, seed): the generator's trees this test rebuilds in Python: the same
# trees whose hashes test_pins.c pins.
TREES = [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (2, 2), (2, 3)]


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

    for size, seed in TREES:
        spec = "gen:%d:%d" % (size, seed)
        want = subprocess.run([tool, "hash", "json", spec], check=True, capture_output=True, text=True).stdout.strip()
        got = "%016x" % sbh.value_hash(sbh.generate(size, seed))
        if got == want:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: python port of SPEC.md %s, bench_tool %s" % (spec, got, want))

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
