"""sdx.loads reads an input of up to 4096 bytes (JSON, MessagePack, CBOR,
UBJSON, BJData) from a copy with padding after it, so that the readers'
inline paths reach its end (decode.c, loads_padded), and falls back to
reading the input itself whenever the padded reading fails or its value
does not end exactly at the input's end. sdx._sdx._padded(False) turns the
padded reading off. The two must agree on every input: the same value, or
the same error with the same message, offset, line and column. The inputs
are encodings of random values and what is made of them: every prefix,
bytes appended, bytes changed."""
import math
import sys
import threading
import uuid

from hypothesis import given
from hypothesis import strategies as st

import sdx
import strategies as S
from sdx import _sdx

VALUES = {
    "json": S.JSON_VALUES,
    "msgpack": S.MSGPACK_VALUES,
    "cbor": S.CBOR_VALUES,
    "ubjson": S.UBJSON_VALUES,
    "bjdata": S.UBJSON_VALUES,
}
# bytes that may follow a value: padding-like (0, space, nil, no-op), a
# second value, a container's end
TAILS = (b"\x00", b" ", b"\xc0", b"\xf6", b"N", b"1", b"]", b"}", b"\xff", b"\x00" * 40, b" " * 200)


def same(a, b):
    """Equal values, NaN equal to NaN, bool not equal to int."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, sdx.Tagged):  # a NaN inside, as in CBOR tag 1 of a NaN
        return a.kind == b.kind and a.tag == b.tag and same(a.value, b.value)
    return a == b


def outcome(data, fmt, **opts):
    try:
        return ("ok", sdx.loads(data, fmt, **opts))
    except sdx.DecodeError as e:
        return ("error", type(e), str(e), e.offset, e.line, e.column, e.code)


def check(data, fmt, **opts):
    old = _sdx._padded(True)
    try:
        padded = outcome(data, fmt, **opts)
        _sdx._padded(False)
        exact = outcome(data, fmt, **opts)
    finally:
        _sdx._padded(old)
    if padded[0] == "ok" and exact[0] == "ok":
        assert same(padded[1], exact[1]), (data, fmt)
    else:
        assert padded == exact, (data, fmt)
    return padded


def variants(data, seed):
    """The input's prefixes, the input with bytes after it, and the input
    with one byte changed (at a few positions chosen by seed)."""
    for n in range(len(data)):
        yield data[:n]
    for t in TAILS:
        yield data + t
    for k in range(min(8, len(data))):
        i = (seed * 7919 + k * 104729) % len(data)
        for x in (0x00, 0xff, data[i] ^ 0x01, data[i] ^ 0x80):
            yield data[:i] + bytes([x]) + data[i + 1:]


@given(st.sampled_from(sorted(VALUES)).flatmap(lambda f: st.tuples(st.just(f), VALUES[f])),
       st.integers(0, 1 << 20))
def test_padded_and_exact_agree(fv, seed):
    fmt, value = fv
    data = sdx.dumps(value, fmt)
    if len(data) > 4096:
        return
    assert check(data, fmt)[0] == "ok"
    for v in variants(data, seed):
        check(v, fmt)


@given(S.JSON_VALUES, st.sampled_from([" ", "\n", "\t", "//c", "/*c*/", "/*", " x", ",", "0"]))
def test_json_options_and_endings(value, tail):
    data = sdx.dumps(value, "json") + tail.encode()
    if len(data) > 4096:
        return
    for opts in ({}, {"comments": True}, {"trailing_commas": True}, {"allow_nan": True}):
        check(data, "json", **opts)
        check(data.decode("utf-8"), "json", **opts)  # a str input


def test_literal_endings():
    # tokens that padding must not complete or change
    for text in ["1", "-", "-0", "1e", "1e5", "1.", "tru", "true", "nul", "\"abc", "\"a\\", "[1,", "{\"a\"",
                 "{\"a\":", "NaN", "Infinity", "-Infinity", "Inf", "\ufeff1", "\ufeff", " ", "[]", "{}"]:
        for opts in ({}, {"allow_nan": True}, {"comments": True}):
            check(text.encode(), "json", **opts)
    for fmt in ("msgpack", "cbor", "ubjson", "bjdata"):
        for b in range(256):
            check(bytes([b]), fmt)
            check(bytes([b, 0]), fmt)
            check(bytes([b]) + b"\xc0" * 20, fmt)


def test_sizes_around_the_limit():
    # the padded reading takes inputs of up to 4096 bytes; both sides of it
    for fmt in VALUES:
        for n in (4000, 4090, 4095, 4096, 4097, 4200):
            for extra in range(0, 12):
                value = {"k": "x" * max(0, n - 40 - extra), "v": [1, 2.5, None, True]}
                data = sdx.dumps(value, fmt)
                assert check(data, fmt)[0] == "ok"
                assert same(sdx.loads(data, fmt), value) or fmt in ("ubjson", "bjdata")
                check(data[:-1], fmt)
                check(data + b"\x00", fmt)


def test_threads_share_nothing():
    # readers of concurrent calls (the kept reader block is one call's at a
    # time; the others allocate their own). CBOR's UUIDs are made by
    # uuid.UUID, Python code, where another thread may take over in the
    # middle of a loads.
    docs = {fmt: [sdx.dumps({"i": i, "s": "v%d" % i, "a": list(range(i % 7))}, fmt) for i in range(200)]
            for fmt in VALUES}
    docs["cbor"] = [sdx.dumps({"i": i, "s": "v%d" % i, "u": [uuid.UUID(int=i + k) for k in range(8)]}, "cbor")
                    for i in range(200)]
    errors = []

    def work(fmt):
        try:
            for _ in range(20):
                for i, d in enumerate(docs[fmt]):
                    v = sdx.loads(d, fmt)
                    if v["i"] != i or v["s"] != "v%d" % i:
                        errors.append((fmt, i, v))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(f,)) for f in VALUES for _ in range(2)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_switch():
    assert _sdx._padded(True) is True
    try:
        assert _sdx._padded(False) is True
        assert _sdx._padded(False) is False
    finally:
        assert _sdx._padded(True) is False
