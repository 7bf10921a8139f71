"""Round trips through every format: loads(dumps(x)) gives x back, with
its types, for the values each format holds; and the same through
iter_load and convert."""
import datetime
import decimal
import io
import json
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdx
import strategies as S

CASES = {
    "json": S.JSON_VALUES,
    "msgpack": S.MSGPACK_VALUES,
    "cbor": S.CBOR_VALUES,
    "bson": S.BSON_DOCS,
    "ubjson": S.UBJSON_VALUES,
    "bjdata": S.UBJSON_VALUES,
    "binn": S.BINN_VALUES,
}


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_round_trip(fmt):
    @given(CASES[fmt])
    def check(x):
        data = sdx.dumps(x, fmt)
        assert isinstance(data, bytes)
        y = sdx.loads(data, fmt)
        assert S.same(y, S.plain(x)), (x, y, data)
        # the same bytes from every input type
        assert S.same(sdx.loads(bytearray(data), fmt), y)
        assert S.same(sdx.loads(memoryview(data), fmt), y)
    check()


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_sequences(fmt):
    """seq=True and iter_load read back values written one after another,
    whatever the chunk size."""
    @given(st.lists(CASES[fmt], max_size=5), st.sampled_from([1, 3, 64, 65536]))
    def check(values, chunk):
        data = b"".join(sdx.dumps(v, fmt) + (b"\n" if fmt == "json" else b"") for v in values)
        want = [S.plain(v) for v in values]
        got = sdx.loads(data, fmt, seq=True)
        assert len(got) == len(want) and all(S.same(a, b) for a, b in zip(got, want))
        got = list(sdx.iter_load(io.BytesIO(data), fmt, chunk_size=chunk))
        assert len(got) == len(want) and all(S.same(a, b) for a, b in zip(got, want))
    check()


@pytest.mark.parametrize("src", ["json", "msgpack", "cbor", "ubjson", "bjdata", "binn"])
@pytest.mark.parametrize("dst", ["json", "msgpack", "cbor", "ubjson", "bjdata", "binn"])
def test_convert_matches_objects(src, dst):
    """convert(dumps(x, src), src, dst) reads as x in dst (for values both
    formats hold: JSON's)."""
    @given(S.tree(st.none() | st.booleans() | S.INT64 | S.FINITE | S.TEXT))
    def check(x):
        out = sdx.convert(sdx.dumps(x, src), src, dst)
        assert S.same(sdx.loads(out, dst), S.plain(x))
    check()


def test_convert_bson():
    doc = {"a": 1, "b": [1.5, "x", None], "c": {"d": b"\x00\x01"}}
    b = sdx.dumps(doc, "bson")
    assert sdx.loads(sdx.convert(b, "bson", "msgpack"), "msgpack") == doc
    assert sdx.convert(sdx.convert(b, "bson", "json"), "json", "bson") == b
    assert sdx.convert(b, "bson", "json") == b'{"a":1,"b":[1.5,"x",null],"c":{"d":{"$binary":{"base64":"AAE=","subType":"00"}}}}'


@given(S.tree(st.none() | st.booleans() | S.INT64 | S.FINITE | S.TEXT, keys=S.BSON_KEYS))
def test_detect(x):
    for fmt in ("json", "cbor"):
        data = sdx.dumps(x, fmt)
        if fmt == "cbor":
            data = b"\xd9\xd9\xf7" + data
        assert S.same(sdx.loads(data), S.plain(x))
    doc = {"k": x}
    assert sdx.detect(sdx.dumps(doc, "bson")) == "bson"
    assert S.same(sdx.loads(sdx.dumps(doc, "bson")), S.plain(doc))


def test_special_types_each_format():
    t = datetime.datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=datetime.timezone.utc)
    u = uuid.UUID("12345678-1234-5678-1234-567812345678")
    d = decimal.Decimal("-1234.5600")
    for fmt, want_t, want_u, want_d in [
        ("msgpack", t, str(u), str(d)),
        ("cbor", t, u, d),
        ("bson", t.replace(microsecond=123000), u, d),
        ("binn", t, str(u), d),
        ("ubjson", t.isoformat(), str(u), d),
        ("bjdata", t.isoformat(), str(u), d),
        ("json", t.isoformat(), str(u), decimal.Decimal(-1234.56).__float__()),
    ]:
        got = sdx.loads(sdx.dumps({"t": t, "u": u, "d": d}, fmt), fmt)
        assert got == {"t": want_t, "u": want_u, "d": want_d}, fmt
        if isinstance(want_d, decimal.Decimal):
            assert got["d"].as_tuple() == d.as_tuple(), fmt
    assert sdx.dumps(d) == b"-1234.5600"


def test_datetimes():
    naive = datetime.datetime(2001, 2, 3, 4, 5, 6)
    aware = naive.replace(tzinfo=datetime.timezone.utc)
    plus2 = datetime.datetime(2001, 2, 3, 6, 5, 6, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    for fmt in ("msgpack", "cbor", "bson"):
        assert sdx.loads(sdx.dumps(naive, fmt if fmt != "bson" else "bson", root="wrap"), fmt) in (aware, {"0": aware})
        assert sdx.loads(sdx.dumps([plus2], fmt, root="wrap"), fmt) in ([aware], {"0": aware})
    assert sdx.dumps(plus2) == b'"2001-02-03T06:05:06+02:00"'
    assert sdx.dumps(naive) == b'"2001-02-03T04:05:06"'
    # MessagePack's three timestamp sizes, and nanoseconds
    assert sdx.dumps(aware, "msgpack") == b"\xd6\xff" + (981173106).to_bytes(4, "big")
    ns = sdx.loads(b"\xd7\xff" + ((1 << 2) | 0).to_bytes(4, "big") + (981173106).to_bytes(4, "big"), "msgpack")
    assert ns == sdx.Tagged("msgpack", -1, ((1 << 2)).to_bytes(4, "big") + (981173106).to_bytes(4, "big"))
    old = datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc)
    far = datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.timezone.utc)
    for fmt in ("msgpack", "cbor", "binn"):
        assert sdx.loads(sdx.dumps([old, far], fmt), fmt) == [old, far], fmt
    # CBOR tag 0 and tag 1 read as datetimes
    assert sdx.loads(bytes.fromhex("c074323031332d30332d32315432303a30343a30305a"), "cbor") == \
        datetime.datetime(2013, 3, 21, 20, 4, tzinfo=datetime.timezone.utc)
    assert sdx.loads(bytes.fromhex("c11a514b67b0"), "cbor") == \
        datetime.datetime(2013, 3, 21, 20, 4, tzinfo=datetime.timezone.utc)
    assert sdx.loads(bytes.fromhex("c1fb41d452d9ec200000"), "cbor") == \
        datetime.datetime(2013, 3, 21, 20, 4, 0, 500000, tzinfo=datetime.timezone.utc)


def test_big_integers():
    for n in [2**64, 2**64 - 1, -(2**63) - 1, -(2**64), -(2**64) - 1, 10**50, -(10**50)]:
        assert sdx.loads(sdx.dumps(n)) == n
        assert sdx.loads(sdx.dumps(n, "cbor"), "cbor") == n
        assert sdx.loads(sdx.dumps(n, "ubjson"), "ubjson") == n
        assert sdx.loads(sdx.dumps(n, "bjdata"), "bjdata") == n
    assert sdx.dumps(2**64, "cbor") == bytes.fromhex("c249010000000000000000")
    assert sdx.dumps(-(2**64), "cbor") == bytes.fromhex("3bffffffffffffffff")
    assert sdx.dumps(-(2**64) - 1, "cbor") == bytes.fromhex("c349010000000000000000")
    assert sdx.dumps(10**30) == b"1000000000000000000000000000000"
    for fmt in ("msgpack", "binn"):
        assert sdx.loads(sdx.dumps(2**64 - 1, fmt), fmt) == 2**64 - 1
        assert sdx.loads(sdx.dumps(-(2**63), fmt), fmt) == -(2**63)
        with pytest.raises(sdx.EncodeError) as e:
            sdx.dumps(2**64, fmt)
        assert e.value.code == "range"
    with pytest.raises(sdx.EncodeError):
        sdx.dumps({"a": 2**63}, "bson")
    assert sdx.loads(sdx.dumps({"a": 2**63 - 1}, "bson"), "bson") == {"a": 2**63 - 1}


def test_tagged_round_trips():
    cases = {
        "msgpack": [sdx.Tagged("msgpack", 5, b"abc"), sdx.Tagged("msgpack", -128, b"")],
        "cbor": [sdx.Tagged("cbor", 1234, [1, "x"]), sdx.Tagged("cbor", 2**64 - 1, {"a": None}),
                 sdx.Tagged("simple", 99), sdx.UNDEFINED, sdx.Tagged("cbor", 5, [-1, 3]),
                 sdx.Tagged("cbor", 300, sdx.Tagged("cbor", 301, b"x"))],
        "bson": [sdx.Tagged("bson", 7, bytes(range(12))), sdx.Tagged("bson", 0x0B, b"ab\x00i\x00"),
                 sdx.Tagged("bson", 0x0D, "function(){}"), sdx.Tagged("bson", 0x0E, "sym"),
                 sdx.Tagged("bson", 0x11, 2**40 + 7), sdx.Tagged("bson", 0xFF), sdx.Tagged("bson", 0x7F),
                 sdx.Tagged("bson", 6), sdx.Tagged("bson", 0x05 | 0x80 << 8, b"user"),
                 sdx.Tagged("bson", 0x05 | 3 << 8, bytes(16))],
        "binn": [sdx.Tagged("binn", 0xA2, "2024-01-02"), sdx.Tagged("binn", 0xA3, "10:11:12"),
                 sdx.Tagged("binn", 0xC1, b"blob"), sdx.Tagged("binn", 0x03, None)],
    }
    for fmt, values in cases.items():
        for v in values:
            doc = {"v": v} if fmt == "bson" else [v]
            data = sdx.dumps(doc, fmt)
            assert sdx.loads(data, fmt) == doc, (fmt, v)
            assert sdx.dumps(sdx.loads(data, fmt), fmt) == data


def test_tagged_value_semantics():
    a = sdx.Tagged("cbor", 7, [1])
    assert a == sdx.Tagged("cbor", 7, [1]) and a != sdx.Tagged("cbor", 8, [1])
    assert a != sdx.Tagged("msgpack", 7, [1])
    assert (a.kind, a.tag, a.value) == ("cbor", 7, [1])
    assert repr(a) == "Tagged('cbor', 7, [1])"
    assert hash(sdx.Tagged("msgpack", 1, b"x")) == hash(sdx.Tagged("msgpack", 1, b"x"))
    import pickle
    assert pickle.loads(pickle.dumps(a)) == a
    for bad in [("nope", 1), ("msgpack", 128), ("msgpack", -129), ("cbor", -1), ("simple", 24), ("simple", 21),
                ("simple", 256), ("bson", 1 << 16)]:
        with pytest.raises(ValueError):
            sdx.Tagged(*bad)


def test_tags_to_json():
    assert sdx.dumps(sdx.Tagged("cbor", 2, b"\x01\x00")) == b"256"
    assert sdx.dumps(sdx.Tagged("cbor", 4, [-2, 27315])) == b"273.15"
    assert sdx.dumps([sdx.Tagged("msgpack", 5, b"ab")], tags="wrap") == b'[{"$ext":5,"$data":"YWI="}]'
    assert sdx.dumps(sdx.Tagged("cbor", 99, "x"), tags="wrap") == b'{"$tag":99,"$value":"x"}'
    assert sdx.dumps(sdx.Tagged("cbor", 99, "x"), tags="drop") == b'"x"'
    assert sdx.dumps({"o": sdx.Tagged("bson", 7, bytes(12))}) == b'{"o":{"$oid":"000000000000000000000000"}}'
    assert sdx.dumps(sdx.Tagged("msgpack", -1, (1).to_bytes(4, "big"))) == b'"1970-01-01T00:00:01Z"'
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(sdx.Tagged("cbor", 99, "x"))
    assert e.value.code == "unsupported"


def test_non_str_keys():
    d = {1: "a", (1, 2): "b", b"k": "c", None: 1, 1.5: 2}
    for fmt in ("msgpack", "cbor"):
        assert sdx.loads(sdx.dumps(d, fmt), fmt) == d
    assert sdx.dumps({1: 2, True: 3, None: 4, 2.5: 5}, non_str_keys=True) == b'{"1":3,"null":4,"2.5":5}'
    assert sdx.dumps({False: 1, 2**70: 2}, non_str_keys=True) == b'{"false":1,"1180591620717411303424":2}'
    assert sdx.dumps({None: 4, 2.5: 5, uuid.UUID(int=1): 6}, non_str_keys=True) == \
        b'{"null":4,"2.5":5,"00000000-0000-0000-0000-000000000001":6}'
    assert sdx.loads(sdx.dumps({1: "x", 2: "y"}, "binn"), "binn") == {1: "x", 2: "y"}
    assert sdx.loads(sdx.dumps({1: "x"}, "bson", non_str_keys=True), "bson") == {"1": "x"}
    assert sdx.loads(sdx.dumps({1: "x"}, "ubjson", keys="stringify"), "ubjson") == {"1": "x"}


def test_options():
    x = {"b": [1, 2], "a": {"d": 1, "c": 2}}
    assert sdx.dumps(x, sort_keys=True) == b'{"a":{"c":2,"d":1},"b":[1,2]}'
    assert sdx.dumps(x, indent=2) == b'{\n  "b": [\n    1,\n    2\n  ],\n  "a": {\n    "d": 1,\n    "c": 2\n  }\n}'
    assert sdx.dumps([float("nan"), float("inf")], nan="null") == b"[null,null]"
    assert sdx.dumps(b"\x00\xff", bin="base64") == b'"AP8="'
    assert sdx.dumps([1, 2], "bson", root="wrap") == sdx.dumps({"0": 1, "1": 2}, "bson")
    assert sdx.loads(b"[NaN, -Infinity]", allow_nan=True)[1] == float("-inf")
    assert sdx.loads(b"[1, // one\n 2,]", comments=True, trailing_commas=True) == [1, 2]
    with pytest.raises(sdx.DecodeError) as e:  # JSON text is always checked
        sdx.loads(b'"\xff"', "json", utf8="replace")
    assert e.value.code == "utf8"
    assert sdx.loads(b"\xa1\xff", "msgpack", utf8="replace") == "\ufffd"
    assert sdx.loads("[1, \"é\"]") == [1, "é"]

    class E(__import__("enum").Enum):
        A = "a"
        B = 2
    assert sdx.dumps([E.A, E.B]) == b'["a",2]'
    assert sdx.dumps({1, 2} and [frozenset()], default=list) == b"[[]]"
    assert sdx.dumps(complex(1, 2), default=lambda c: [c.real, c.imag]) == b"[1.0,2.0]"
    assert sdx.dumps(bytearray(b"ab"), "msgpack") == b"\xc4\x02ab"


def test_key_cache_and_long_keys():
    keys = ["k%d" % i for i in range(5000)] + ["x" * 100, "é" * 10, ""]
    d = {k: i for i, k in enumerate(keys)}
    for fmt in ("json", "msgpack", "cbor", "bson", "ubjson", "binn"):
        for _ in range(3):
            assert sdx.loads(sdx.dumps(d, fmt), fmt) == d


def test_key_cache_short_keys():
    # The cache reads a key of up to 16 bytes as two words, zero past its
    # end: keys that differ only in length ("a", "a\0"), in a byte after
    # the eighth or at the sixteenth, keys within 16 bytes of the input's
    # end, escaped keys (made in the reader's own space) and streamed input.
    base = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    keys = [base[:n] for n in range(71)]
    keys += [k + "\0" for k in keys[:17]] + ["\0" * n for n in range(1, 18)]
    keys += [base[:n - 1] + "!" for n in range(1, 18)] + ["é" * n for n in range(1, 9)]
    keys += ['q"%d\\' % n for n in range(3)]
    for fmt in ("json", "msgpack", "cbor", "bson", "ubjson", "binn"):
        ks = [k for k in keys if fmt != "bson" or "\0" not in k]  # BSON keys are C strings
        for _ in range(2):
            for k in ks:
                one = {k: 1}
                assert sdx.loads(sdx.dumps(one, fmt), fmt) == one
                assert list(sdx.iter_load(io.BytesIO(sdx.dumps(one, fmt)), fmt)) == [one]
            many = {k: i for i, k in enumerate(ks)}
            assert list(sdx.loads(sdx.dumps(many, fmt), fmt).items()) == list(many.items())
            nested = {"n": [{k: [{k: None}]} for k in ks]}
            assert sdx.loads(sdx.dumps(nested, fmt), fmt) == nested
    # JSON with escapes that unescape to a short key
    assert sdx.loads(b'{"\\u0061b":1,"a\\u0000":2,"a":3}') == {"ab": 1, "a\0": 2, "a": 3}


def depth(v):
    n = 0
    while isinstance(v, (list, dict)) and v:
        v = v[0] if isinstance(v, list) else v["k"]
        n += 1
    return n


def test_deep_nesting():
    """1000 levels (the readers' default limit is 1024) both ways."""
    x = []
    for _ in range(999):
        x = [x]
    for fmt in ("json", "msgpack", "cbor", "ubjson", "binn"):
        assert depth(sdx.loads(sdx.dumps(x, fmt), fmt)) == 999
    d = {}
    for _ in range(999):
        d = {"k": d}
    assert depth(sdx.loads(sdx.dumps(d, "bson"), "bson")) == 999


def test_string_widths():
    """Strings of every width CPython stores (ASCII, Latin-1, UCS-2, UCS-4)
    read back equal to Python's own decoding, hence in its canonical form
    (a str in a wider form than needed would compare unequal)."""
    points = [0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xFF, 0x100, 0x7FF, 0x800, 0xFFF, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
              0x10000, 0x1F600, 0x10FFFF]
    for a in points:
        for b in points:
            s = "x" + chr(a) * 3 + chr(b) + "y"
            for fmt in ("json", "msgpack", "cbor", "ubjson", "binn"):
                got = sdx.loads(sdx.dumps([s, {s: s}], fmt), fmt)
                assert got == [s, {s: s}] and hash(got[0]) == hash(s), (fmt, hex(a), hex(b))
                assert got[0].encode() == s.encode() and __import__("sys").getsizeof(got[0]) == \
                    __import__("sys").getsizeof(s.encode().decode())


def test_string_widths_long():
    """Longer strings, where the decoder counts characters and finds the
    widest eight bytes at a time (its per-lane counts summed every 2040
    bytes) and copies runs of eight ASCII bytes: every width, the wide
    characters at every offset of a word and beyond the 2040-byte sums."""
    import random
    rnd = random.Random(19)
    pools = [(0x20, 0x7E), (0x80, 0xFF), (0x100, 0x7FF), (0x800, 0xFFFF), (0x10000, 0x10FFFF)]
    cases = [("a" * k + chr(c) + "b" * m) for c in (0xE9, 0x3042, 0x1F600)
             for k in range(0, 17) for m in (0, 7, 8, 9)]
    cases += ["é" * n for n in (1019, 1020, 1021, 2040, 2041, 4100)]
    cases += ["a" * 2039 + "\u3042", "\u3042" * 700 + "a" * 17 + "😀"]
    for _ in range(300):
        chosen = rnd.sample(pools, rnd.randrange(1, 4))
        n = rnd.choice((rnd.randrange(0, 40), rnd.randrange(0, 5000)))
        s = []
        for _ in range(n):
            lo, hi = rnd.choice(chosen)
            c = rnd.randrange(lo, hi + 1)
            s.append(chr(c) if not 0xD800 <= c < 0xE000 else "z")
        cases.append("".join(s))
    for s in cases:
        for fmt in ("json", "msgpack", "cbor"):
            got = sdx.loads(sdx.dumps([s, {s: 1}], fmt), fmt)
            # equal strs have the same kind (CPython compares kinds first)
            assert got == [s, {s: 1}] and hash(got[0]) == hash(s), (fmt, len(s))


def test_large_outputs_of_changing_sizes():
    # Outputs from 32 KiB on are written into a bytes object sized from the
    # previous output's length and kept unshrunk when at most an eighth is
    # left over: the length, the content and the terminating NUL must be
    # those of the output, whatever the sizes before it.
    import ctypes
    for fmt in ("json", "msgpack", "cbor", "bson", "ubjson", "binn"):
        for n in (9000, 9000, 8990, 8000, 1000, 9000, 12000, 12000, 100, 12000, 11000):
            doc = {"v": ["x%05d" % i for i in range(n)]}
            out = sdx.dumps(doc, fmt)
            assert sdx.loads(out, fmt) == doc
            if fmt == "json":
                assert out == json.dumps(doc, separators=(",", ":")).encode()
                assert ctypes.c_char_p(out).value == out  # its NUL right after the end
            assert len(out) == len(bytes(bytearray(out))) and hash(out) == hash(bytes(bytearray(out)))
            assert out + b"" == out and out[-1:] == bytes(bytearray(out))[-1:]


def test_dict_sizes_guessed_and_declared():
    # The decoder sizes a map's dict from its declared count, or from the
    # last map with the same first key: maps whose sizes change under the
    # same first key, with duplicate keys and above the guess's cap, must
    # come out the same whatever was guessed.
    def rec(n):
        d = {"id": 0}
        d.update((f"k{i}", i) for i in range(1, n))
        return d

    sizes = [1, 8, 8, 2, 30, 30, 8, 0, 64, 65, 6, 5, 1]
    value = [rec(n) for n in sizes if n] + [{}]
    for fmt in ("json", "msgpack", "cbor", "bson", "ubjson", "binn"):
        wrapped = {"v": value} if fmt == "bson" else value
        for _ in range(2):  # the second pass starts from the first's guesses
            assert sdx.loads(sdx.dumps(wrapped, fmt), fmt) == wrapped
    text = '[' + ",".join('{"id":1,' + ",".join(f'"k{i % m}":{i}' for i in range(n)) + '}'
                          for n, m in ((8, 8), (8, 3), (12, 12), (2, 2), (12, 5))) + ']'
    for _ in range(2):
        got = sdx.loads(text.encode(), "json")
        want = json.loads(text)
        assert got == want and [list(d) for d in got] == [list(d) for d in want]
