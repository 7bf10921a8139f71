#!/usr/bin/env python3
"""Convert a directory of NDJSON files to MessagePack streams and back, in
parallel, with sdx, and show how the throughput grows with the number of
workers.

    python3 examples/ndjson_msgpack.py DIR [--make N [--size BYTES]] [--workers 1,2,4]
                                       [--backend process|thread|dask]

Each file DIR/NAME.ndjson becomes DIR/msgpack/NAME.msgpack (the records
back to back, a MessagePack stream) with sdx.convert(data, "json",
"msgpack", seq=True): bytes to bytes in C, no Python object per record, the
GIL released. Then each .msgpack file goes back to
DIR/back/NAME.ndjson, and every file is checked: the records read back
(sdx.iter_load, one at a time) equal the original ones.

Backends: "process" (a multiprocessing pool, the default), "thread" (a
thread pool: sdx.convert releases the GIL, so threads run in parallel too)
and "dask" (a Dask bag over the file names, when dask is installed:
pip install "dask[bag]").

--make N first writes N files of generated records into DIR (twitter-like
statuses with numbers, nested objects, non-ASCII text), about 4 MB each.

Needs: pip install ./python (the sdx package of this repository).
"""
import argparse
import concurrent.futures
import multiprocessing
import os
import random
import sys
import time

import sdx


def make_files(d, n, size=4 << 20):
    """n NDJSON files of about `size` bytes of generated records."""
    os.makedirs(d, exist_ok=True)
    words = ["alpha", "beta", "gamma", "δέλτα", "東京", "naïve", "emoji 🎉", "quote \"q\"", "tab\t"]
    for i in range(n):
        rng = random.Random(i)
        lines = []
        total = 0
        k = 0
        while total < size:
            rec = {"id": i * 10_000_000 + k, "user": {"name": rng.choice(words) + str(rng.randrange(1000)),
                                                      "followers": rng.randrange(10**6), "verified": rng.random() < .1},
                   "text": " ".join(rng.choice(words) for _ in range(rng.randrange(3, 20))),
                   "geo": None if rng.random() < .5 else [rng.uniform(-90, 90), rng.uniform(-180, 180)],
                   "tags": [rng.choice(words) for _ in range(rng.randrange(4))], "score": rng.random() * 100}
            line = sdx.dumps(rec) + b"\n"
            lines.append(line)
            total += len(line)
            k += 1
        with open(os.path.join(d, "part-%04d.ndjson" % i), "wb") as f:
            f.write(b"".join(lines))


def to_msgpack(job):
    src, dst = job
    with open(src, "rb") as f:
        data = f.read()
    out = sdx.convert(data, "json", "msgpack", seq=True)
    with open(dst, "wb") as f:
        f.write(out)
    return len(data)


def to_ndjson(job):
    src, dst = job
    with open(src, "rb") as f:
        data = f.read()
    out = sdx.convert(data, "msgpack", "json", seq=True)
    with open(dst, "wb") as f:
        f.write(out)
    return len(data)


def check(job):
    """The records of the original and of the round trip, one at a time."""
    a, b = job
    with open(a, "rb") as fa, open(b, "rb") as fb:
        n = 0
        for x, y in zip(sdx.iter_load(fa, "json"), sdx.iter_load(fb, "json")):
            if x != y:
                raise SystemExit("%s: record %d differs after the round trip" % (b, n))
            n += 1
    return n


def run(fn, jobs, workers, backend):
    if backend == "thread":
        with concurrent.futures.ThreadPoolExecutor(workers) as ex:
            return list(ex.map(fn, jobs))
    if backend == "dask":
        import dask.bag as db
        return db.from_sequence(jobs, npartitions=len(jobs)).map(fn).compute(
            scheduler="processes", num_workers=workers)
    with multiprocessing.Pool(workers) as pool:
        return pool.map(fn, jobs, chunksize=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--make", type=int, default=0, help="first write N generated NDJSON files into DIR")
    ap.add_argument("--size", type=int, default=4 << 20, help="bytes per generated file (default 4 MiB)")
    ap.add_argument("--workers", default="1,2,4", help="worker counts to time, comma-separated")
    ap.add_argument("--backend", choices=["process", "thread", "dask"], default="process")
    args = ap.parse_args()
    if args.make:
        make_files(args.dir, args.make, args.size)
    names = sorted(f for f in os.listdir(args.dir) if f.endswith(".ndjson"))
    if not names:
        sys.exit("no .ndjson files in %s (--make N writes some)" % args.dir)
    mp_dir, back_dir = os.path.join(args.dir, "msgpack"), os.path.join(args.dir, "back")
    os.makedirs(mp_dir, exist_ok=True)
    os.makedirs(back_dir, exist_ok=True)
    there = [(os.path.join(args.dir, n), os.path.join(mp_dir, n[:-7] + ".msgpack")) for n in names]
    back = [(m, os.path.join(back_dir, n)) for (_, m), n in zip(there, names)]
    print("%d files, %.1f MB of NDJSON; %s, %d CPUs" % (len(names), sum(os.path.getsize(s) for s, _ in there) / 1e6,
                                                       args.backend, os.cpu_count()))
    print("%8s %16s %16s" % ("workers", "NDJSON->msgpack", "msgpack->NDJSON"))
    first = None
    for w in [int(x) for x in args.workers.split(",")]:
        t = time.perf_counter()
        n_in = sum(run(to_msgpack, there, w, args.backend))
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        n_back = sum(run(to_ndjson, back, w, args.backend))
        t2 = time.perf_counter() - t
        rate = (n_in / t1 / 1e6, n_back / t2 / 1e6)
        first = first or rate
        print("%8d %11.0f MB/s %11.0f MB/s   (x%.2f, x%.2f)" % (w, rate[0], rate[1], rate[0] / first[0],
                                                              rate[1] / first[1]))
    records = sum(run(check, [(s, b) for (s, _), (_, b) in zip(there, back)], 2, "process"))
    print("checked: %d records read back equal" % records)


if __name__ == "__main__":
    main()
