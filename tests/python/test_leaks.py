"""Reference counts and memory stay the same over a million calls: every
function, its error paths and the special types. Measured by the
reference counts of the objects passed in and handed out, the number of
objects the garbage collector tracks, and the process's resident memory
(which counts the C library's allocations too)."""
import datetime
import decimal
import gc
import io
import os
import sys
import uuid

import sdx

QUICK = os.environ.get("SDX_PYTEST_QUICK") == "1"
# Under AddressSanitizer freed memory waits in a quarantine, so resident
# memory is no measure there (the sanitizer reports misuse instead).
SANITIZED = os.environ.get("SDX_SANITIZED") == "1"
# A million calls in all (spread over the operations below); fewer in the
# sanitizers' run, which is some twenty times slower.
TOTAL_CALLS = 40_000 if QUICK else 1_000_000

DOC = {"id": 1, "name": "n\u00e9", "list": [1, 2.5, None, True, "s" * 30], "bin": b"\x00" * 10,
       "nested": {"a": [{"b": [1, 2, 3]}], "big": 2**62}, "k" * 80: "long key"}
SPECIAL = {"t": datetime.datetime(2020, 1, 2, 3, 4, 5, 6789, tzinfo=datetime.timezone.utc),
           "u": uuid.UUID(int=12345), "d": decimal.Decimal("-1.25"), "i": 2**80,
           "c": sdx.Tagged("cbor", 999, [1, {"x": b"y"}])}
ENCODED = {f: sdx.dumps(DOC, f, bin="base64") for f in sdx.FORMATS}
ND = b'{"a":1}\n[1,2,"x"]\n"s"\n'


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def raises(fn, exc):
    try:
        fn()
    except exc:
        return
    raise AssertionError("%r did not raise %r" % (fn, exc))


class Thing:
    pass


OPS = {
    "dumps": lambda: [sdx.dumps(DOC, f, bin="base64") for f in ("json", "msgpack", "cbor", "bson", "ubjson", "binn")],
    "loads": lambda: [sdx.loads(ENCODED[f], f) for f in sdx.FORMATS],
    "loads-detect": lambda: sdx.loads(ENCODED["json"]),
    "special-cbor": lambda: sdx.loads(sdx.dumps(SPECIAL, "cbor"), "cbor"),
    "special-json": lambda: sdx.dumps(SPECIAL, tags="wrap", bin="base64"),
    "special-msgpack": lambda: sdx.loads(sdx.dumps({"t": SPECIAL["t"], "u": SPECIAL["u"]}, "msgpack"), "msgpack"),
    "special-bson": lambda: sdx.loads(sdx.dumps({"t": SPECIAL["t"], "d": SPECIAL["d"], "u": SPECIAL["u"]}, "bson"),
                                      "bson"),
    "convert": lambda: [sdx.convert(ENCODED["json"], "json", f) for f in ("msgpack", "cbor", "bson", "ubjson")],
    "convert-back": lambda: sdx.convert(ENCODED["cbor"], "cbor", "json", bin="base64"),
    "iter_load": lambda: list(sdx.iter_load(io.BytesIO(ND), chunk_size=5)),
    "seq": lambda: sdx.loads(ND, seq=True),
    "default": lambda: sdx.dumps([Thing()], default=lambda o: {"thing": [1]}),
    "sort_keys": lambda: sdx.dumps(DOC, sort_keys=True, bin="base64", indent=2),
    "decode-error": lambda: raises(lambda: sdx.loads(ENCODED["msgpack"][:-3], "msgpack"), sdx.DecodeError),
    "json-error": lambda: raises(lambda: sdx.loads(b'{"a": [1, "x", {"b": tru}]}'), sdx.DecodeError),
    "encode-error": lambda: raises(lambda: sdx.dumps({"a": [1, Thing()]}), sdx.EncodeError),
    "nan-error": lambda: raises(lambda: sdx.dumps({"a": [float("nan")]}), sdx.EncodeError),
    "convert-error": lambda: raises(lambda: sdx.convert(b"\xc4\x01x", "msgpack", "json"), sdx.EncodeError),
    "iter-error": lambda: raises(lambda: list(sdx.iter_load(io.BytesIO(b"[1]\n[2"))), sdx.DecodeError),
    "unhashable": lambda: raises(lambda: sdx.loads(b"\xa1\xa0\x01", "cbor"), sdx.DecodeError),
    "tagged": lambda: sdx.loads(sdx.dumps(sdx.Tagged("msgpack", 3, b"abc"), "msgpack"), "msgpack"),
}


def test_no_leaks():
    sentinels = [DOC, DOC["list"], DOC["nested"], SPECIAL["c"], SPECIAL["t"], ENCODED["json"], ND, sdx.Tagged,
                 sdx.DecodeError, sdx.EncodeError, Thing]
    per_op = max(1, TOTAL_CALLS // (len(OPS) * 2))
    for name, op in OPS.items():
        for _ in range(200):  # warm up caches (the key cache, the output buffer)
            op()
        gc.collect()
        refs = [sys.getrefcount(s) for s in sentinels]
        objects = len(gc.get_objects())
        before = rss()
        for _ in range(per_op):
            op()
        gc.collect()
        grown = rss() - before
        assert [sys.getrefcount(s) for s in sentinels] == refs, name
        assert len(gc.get_objects()) - objects < 50, name
        assert SANITIZED or grown < 4 << 20, "%s: resident memory grew by %d bytes over %d calls" % (name, grown, per_op)
