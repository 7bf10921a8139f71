#!/usr/bin/env python3
"""harden_recursion: no recursion in the library beyond a known, bounded few.

Compiles every source of src/ with GCC's -fcallgraph-info (at -O0, so that
no call is inlined away) into a temporary directory, reads the direct call
graph from the .ci files, and finds every recursive group (a strongly
connected component with more than one function, or a function that calls
itself). Each must be in ALLOWED below, with the reason its depth is
bounded by a constant; any other is a failure: recursion driven by the
input is how deep nesting exhausts the stack (issue 16; harden_depth
proves the readers at 10^6 levels, this proves the code has no other
recursive path). Indirect calls (sinks, allocators) are not in the graph.

Usage: recursion.py SRC_DIR [CC]   (exit 77: the compiler cannot do it)
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

# Each allowed group (its functions, file:name for static ones) and why
# its depth is bounded.
ALLOWED = {
    frozenset(["src/cbor/reader.c:next_event"]):
        "a doomed container drains once: the inner call runs with "
        "r->draining set, which stops further draining (depth 2)",
    frozenset(["sdx_map_from_json_put", "src/map/from_json.c:hold"]):
        "a held map that turns out not to match is released (nothing held "
        "after) before the event is put again (depth 2)",
    frozenset(["src/map/ejson.c:put_code_w_scope", "src/map/ejson.c:wrapper",
               "src/map/ejson.c:walk_range"]):
        "$scope inside $code nests at most SDX_BSON_MAX_SCOPE_NESTING (8): "
        "m->scope_level, SDX_ERR_DEPTH beyond",
    frozenset(["src/map/to_json.c:bson_value", "src/map/to_json.c:item",
               "src/map/to_json.c:replay", "src/map/to_json.c:collect",
               "sdx_map_to_json_put", "src/map/to_json.c:ejson_code_w_scope"]):
        "a code with scope's scope is read by a BSON reader, which checks "
        "every scope nested in it to SDX_BSON_MAX_SCOPE_NESTING (8) before "
        "its first event; replay() sends at most two plain numbers",
}


def main():
    src = os.path.abspath(sys.argv[1])
    cc = sys.argv[2] if len(sys.argv) > 2 else "gcc"
    root = os.path.dirname(src)
    with tempfile.TemporaryDirectory() as tmp:
        probe = subprocess.run([cc, "-fcallgraph-info", "-x", "c", "-c", "-o",
                                os.path.join(tmp, "p.o"), "-"], input=b"int f(void){return 0;}",
                               capture_output=True)
        if probe.returncode != 0:
            print("compiler without -fcallgraph-info: skipped")
            return 77
        files = sorted(f for f in glob.glob(os.path.join(src, "*", "*.c"))
                       if "/simd/" not in f)  # kernels: leaf loops, target-specific
        for i, f in enumerate(files):
            r = subprocess.run([cc, "-std=c11", "-O0", "-w", "-c", "-fcallgraph-info",
                                "-I", os.path.join(root, "include"), "-I", src, f,
                                "-o", os.path.join(tmp, "%d.o" % i)], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr)
                return 1
        edges = {}
        for ci in glob.glob(os.path.join(tmp, "*.ci")):
            for m in re.finditer(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"',
                                 open(ci).read()):
                a, b = (x.replace(root + "/", "") for x in m.groups())
                edges.setdefault(a, set()).add(b)
    # Tarjan's strongly connected components, iteratively (R. Tarjan,
    # "Depth-first search and linear graph algorithms", 1972).
    index, low, on, stack, groups = {}, {}, set(), [], []
    counter = 0
    for root_v in list(edges):
        if root_v in index:
            continue
        work = [(root_v, iter(sorted(edges.get(root_v, ()))))]
        index[root_v] = low[root_v] = counter
        counter += 1
        stack.append(root_v)
        on.add(root_v)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1 or v in edges.get(v, ()):
                    groups.append(frozenset(comp))
    print("%d functions with calls, %d recursive groups" % (len(edges), len(groups)))
    bad = 0
    for g in groups:
        if g in ALLOWED:
            print("  allowed: %s\n    (%s)" % (", ".join(sorted(g)), ALLOWED[g]))
        else:
            print("  NOT ALLOWED: %s" % ", ".join(sorted(g)))
            bad += 1
    for g in ALLOWED:
        if g not in groups:
            print("  (allowed group no longer recursive, remove it: %s)" % ", ".join(sorted(g)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
