#!/usr/bin/env python3
"""harden_cli_depth: the sdx command on 10^6 levels of nesting, every format.

For each format a file of 10^6 nested arrays (BSON: documents) is written;
`sdx validate`, `sdx convert` (to every other format), `sdx view` and
`sdx stat` run on it with a 256 KiB stack limit (any recursion crashes) and
must each exit 1 with a nesting error at the opener of level 1024 (the
readers' default limit; the command has no option to raise it), leave no
output file, and finish in seconds.

Usage: cli_depth.py SDX WORK_DIR [EMULATOR...]
"""
import os
import resource
import struct
import subprocess
import sys
import time

LEVELS = 1000000


def files():
    """(format, extension, bytes, offset of the opener past the limit)"""
    yield "json", "json", b"[" * LEVELS + b"0" + b"]" * LEVELS, 1024
    yield "msgpack", "msgpack", b"\x91" * LEVELS + b"\xc0", 1024
    yield "cbor", "cbor", b"\x9f" * LEVELS + b"\xf6" + b"\xff" * LEVELS, 1024
    yield "ubjson", "ubj", b"[" * LEVELS + b"Z" + b"]" * LEVELS, 1024
    yield "bjdata", "bjd", b"[" * LEVELS + b"Z" + b"]" * LEVELS, 1024
    # Binn: lists of one item, sizes in the 4-byte form
    out = bytearray()
    for k in range(LEVELS):
        out += b"\xe0" + struct.pack(">I", 0x80000000 | (6 * (LEVELS - k) + 3)) + b"\x01"
    out += b"\xe0\x03\x00"
    yield "binn", "binn", bytes(out), 6 * 1024
    # BSON: documents {"a": {...}}, the root counting as level 1
    out = bytearray()
    for k in range(LEVELS):
        out += struct.pack("<I", 8 * (LEVELS - k) + 5) + b"\x03a\x00"
    out += b"\x05\x00\x00\x00\x00" + b"\x00" * LEVELS
    yield "bson", "bson", bytes(out), 7 * 1024


def small_stack():
    resource.setrlimit(resource.RLIMIT_STACK, (256 * 1024, 256 * 1024))


def main():
    sdx, work, emulator = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    failures = 0
    formats = ["json", "msgpack", "cbor", "bson", "ubjson", "bjdata", "binn"]
    for fmt, ext, data, offset in files():
        path = os.path.join(work, "deep." + ext)
        with open(path, "wb") as f:
            f.write(data)
        runs = [["validate", "-f", fmt, path], ["view", "-f", fmt, path],
                ["stat", "-f", fmt, path]]
        for to in formats:
            if to != fmt:
                out = os.path.join(work, "deep-out." + to)
                if os.path.exists(out):
                    os.remove(out)
                # a root array goes to BSON wrapped in a map
                wrap = ["--root=wrap"] if to == "bson" and fmt != "bson" else []
                runs.append(["convert", "-f", fmt, "-t", to] + wrap + [path, out])
        for args in runs:
            t0 = time.time()
            p = subprocess.run(emulator + [sdx] + args, capture_output=True, text=True,
                               preexec_fn=small_stack, timeout=120)
            dt = time.time() - t0
            err = p.stderr.strip()
            # JSON positions are line:column (column = offset + 1 here)
            where = "1:%d" % (offset + 1) if fmt == "json" else "byte %d" % offset
            ok = (p.returncode == 1 and "nesting" in err and where in err and dt < 20)
            if args[0] == "convert" and os.path.exists(args[-1]):
                ok = False
                err += " [output file left behind]"
            print("%s %-8s %-28s exit %d, %.2f s: %s" % ("ok  " if ok else "FAIL", fmt,
                  " ".join(args[:5] if args[0] == "convert" else args[:1]), p.returncode, dt,
                  err[:100]))
            failures += not ok
        os.remove(path)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
