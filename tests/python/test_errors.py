"""Every error path: bad input is a DecodeError with its byte offset (and
line and column for JSON), a value a format cannot hold an EncodeError;
both are ValueErrors; nothing else escapes, nothing crashes."""
import datetime
import io
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdx

FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson", "bjdata", "binn"]
SAMPLE = {"id": 123456, "name": "caf\u00e9 \u2603", "ok": True, "none": None, "list": [1, -2, 3.25, "x" * 40],
          "nested": {"a": [{"b": 0}], "big": 2**62}, "neg": -(2**40)}


def test_classes():
    assert issubclass(sdx.DecodeError, ValueError) and issubclass(sdx.EncodeError, ValueError)
    assert not issubclass(sdx.DecodeError, sdx.EncodeError)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_truncation(fmt):
    data = sdx.dumps(SAMPLE, fmt)
    for n in range(len(data)):
        with pytest.raises(sdx.DecodeError) as e:
            sdx.loads(data[:n], fmt)
        err = e.value
        assert 0 <= err.offset <= n, (n, err.offset)
        assert err.format == fmt and err.code in ("truncated", "syntax"), (n, err.code)
        assert ("byte %d" % err.offset) in str(err)
        if fmt == "json":
            assert err.line == 1 and err.column == err.offset + 1
        else:
            assert err.line is None and err.column is None
        # the same through a stream, one byte at a time
        it = sdx.iter_load(io.BytesIO(data[:n]), fmt, chunk_size=1)
        if n:
            with pytest.raises(sdx.DecodeError):
                list(it)


@pytest.mark.parametrize("fmt", FORMATS)
def test_bytes_after_the_value(fmt):
    data = sdx.dumps(SAMPLE, fmt)
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(data + (b" x" if fmt == "json" else b"\x01"), fmt)
    assert e.value.code == "syntax"
    assert e.value.offset >= len(data)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("utf8", ["strict", "replace"])
def test_random_bytes(fmt, utf8):
    """Random input: a value or a DecodeError, never another exception."""
    @given(st.binary(max_size=200) | st.builds(lambda d, i, b: d[:i] + bytes([b]) + d[i + 1:],
                                               st.just(sdx.dumps(SAMPLE, fmt)), st.integers(0, 150),
                                               st.integers(0, 255)))
    def check(data):
        for call in (lambda: sdx.loads(data, fmt, utf8=utf8),
                     lambda: sdx.loads(data, fmt, seq=True, utf8=utf8),
                     lambda: list(sdx.iter_load(io.BytesIO(data), fmt, chunk_size=5, utf8=utf8))):
            try:
                call()
            except sdx.DecodeError as e:
                assert 0 <= e.offset <= len(data)
                assert e.code != "ok"
    check()


@given(st.binary(max_size=300))
def test_random_bytes_detected(data):
    try:
        sdx.loads(data)
    except sdx.DecodeError:
        pass
    try:
        sdx.convert(data, None, "json", seq=True)
    except (sdx.DecodeError, sdx.EncodeError):
        pass


def test_json_positions():
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(b'{"a": [1, 2,, 3]}')
    assert (e.value.offset, e.value.line, e.value.column, e.value.code) == (12, 1, 13, "syntax")
    assert str(e.value) == "JSON: expected a value at line 1 column 13 (byte 12)"
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(b'[\n  1,\n  tru\n]')
    assert (e.value.line, e.value.column) == (3, 6)  # where the literal stops matching
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(b'["\xc3\x28"]', "json")
    assert e.value.code == "utf8" and e.value.offset == 2
    with pytest.raises(sdx.DecodeError) as e:
        list(sdx.iter_load(io.BytesIO(b'{"a":1}\n{"b":2}\n{"c":'), "json"))
    assert e.value.line == 3 and e.value.code == "truncated"
    it = sdx.iter_load(io.BytesIO(b'1\n2\n]\n3'), "json")
    assert next(it) == 1 and next(it) == 2
    with pytest.raises(sdx.DecodeError) as e:
        next(it)
    assert (e.value.line, e.value.column) == (3, 1)
    with pytest.raises(StopIteration):
        next(it)
    for bad in (b"", b"   ", b"NaN", b"[1,]", b"// c\n1", b"01", b"1e", b'"\\x"', b'"\\ud800"', b"\x00"):
        with pytest.raises(sdx.DecodeError):
            sdx.loads(bad, "json")


def test_binary_specifics():
    cases = [
        ("msgpack", b"\xc1", "syntax", 0),
        ("msgpack", b"\xa2\xc3\x28", "utf8", 0),
        ("msgpack", b"\xdd\xff\xff\xff\xff", "truncated", 0),  # 4 billion elements claimed
        ("cbor", b"\x9b\xff\xff\xff\xff\xff\xff\xff\xff", "truncated", 0),
        ("cbor", b"\x62\xc3\x28", "utf8", 0),
        ("cbor", b"\x1c", "syntax", 0),
        ("bson", b"\x05\x00\x00\x00\x01", "syntax", 4),
        ("bson", b"\xff\xff\xff\x7f\x00", "truncated", 5),
        ("ubjson", b"[#L\x7f\xff\xff\xff\xff\xff\xff\xff", "truncated", 0),
        ("ubjson", b"Q", "syntax", 0),
        ("binn", b"\xe0\x8f\xff\xff\xff\x01", "truncated", 6),
    ]
    for fmt, data, code, offset in cases:
        with pytest.raises(sdx.DecodeError) as e:
            sdx.loads(data, fmt)
        assert (e.value.code, e.value.offset) == (code, offset), (fmt, data, e.value)


def test_depth():
    deep = b"[" * 2000 + b"]" * 2000
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(deep)
    assert e.value.code == "depth" and e.value.offset == 1024
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(b"[[[[1]]]]", max_depth=3)
    assert e.value.code == "depth"
    assert sdx.loads(b"[[[[1]]]]", max_depth=4) == [[[[1]]]]
    for fmt in ("msgpack", "cbor", "ubjson", "binn"):
        x = []
        for _ in range(1100):
            x = [x]
        with pytest.raises(sdx.EncodeError) as e:
            sdx.dumps(x, fmt)
        assert e.value.code == "depth"


def test_unhashable_keys():
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(b"\xa1\xa0\x01", "cbor")  # {{}: 1}
    assert e.value.code == "key"
    assert sdx.loads(b"\xa1\x82\x01\x82\x02\x03\x04", "cbor") == {(1, (2, 3)): 4}
    assert sdx.loads(b"\x81\x92\x01\x02\x03", "msgpack") == {(1, 2): 3}


def test_big_numbers_beyond_python_limit():
    with pytest.raises(sdx.DecodeError) as e:
        sdx.loads(b"1" * 5000)
    assert e.value.code == "limit"
    with pytest.raises(sdx.EncodeError):
        sdx.dumps(10**5000 if hasattr(math, "inf") else 0)


def test_encode_errors():
    class Thing:
        pass
    for fmt in FORMATS:
        with pytest.raises(sdx.EncodeError) as e:
            sdx.dumps({"x": Thing()}, fmt)
        assert e.value.code == "unsupported" and "Thing" in str(e.value)
        with pytest.raises(sdx.EncodeError) as e:
            sdx.dumps({"x": "\ud800"}, fmt)
        assert e.value.code == "utf8"
        with pytest.raises(sdx.EncodeError):
            sdx.dumps({"x": sdx.Tagged("cbor", 99, 1) if fmt != "cbor" else sdx.Tagged("msgpack", 1, b"")}, fmt)
    for v in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(sdx.EncodeError) as e:
            sdx.dumps([v])
        assert e.value.code == "range" and "nan='null'" in str(e.value)
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(b"x")
    assert e.value.code == "unsupported" and "base64" in str(e.value)
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps([1], "bson")
    assert "root='wrap'" in str(e.value)
    for fmt in ("json", "bson", "ubjson"):
        with pytest.raises(sdx.EncodeError) as e:
            sdx.dumps({1: 2}, fmt)
        assert e.value.code == "key" and "non_str_keys" in str(e.value)
    with pytest.raises(sdx.EncodeError):
        sdx.dumps({"a\x00b": 1}, "bson")
    with pytest.raises(sdx.EncodeError):
        sdx.dumps({1: 1, "a": 2}, "binn")  # a map and an object at once
    with pytest.raises(sdx.EncodeError):
        sdx.dumps([sdx.Tagged("msgpack", -1, b"\x00")], "msgpack")  # not a timestamp
    with pytest.raises(sdx.EncodeError):
        sdx.dumps({"o": sdx.Tagged("bson", 7, b"short")}, "bson")
    # a regex's bytes that are not UTF-8 cannot become JSON text
    assert sdx.dumps(sdx.Tagged("bson", 0x0B, b"ab\x00i\x00")) == \
        b'{"$regularExpression":{"pattern":"ab","options":"i"}}'
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(sdx.Tagged("bson", 0x0B, b"a\xffb\x00i\x00"))
    assert e.value.code == "utf8" and "not UTF-8" in str(e.value)
    with pytest.raises(sdx.EncodeError):
        sdx.dumps({"d": __import__("decimal").Decimal("1e99999")}, "bson")
    with pytest.raises(sdx.EncodeError):
        sdx.dumps(__import__("decimal").Decimal("NaN"), "ubjson")
    with pytest.raises(sdx.EncodeError):
        sdx.dumps({1, 2})
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(datetime.date(2020, 1, 1))
    assert "date" in str(e.value)


def test_circular():
    a = []
    a.append(a)
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(a)
    assert e.value.code == "depth" and "circular" in str(e.value)
    d = {}
    d["d"] = d
    with pytest.raises(sdx.EncodeError):
        sdx.dumps(d, "msgpack")
    with pytest.raises(sdx.EncodeError):
        sdx.dumps(object(), default=lambda o: o)  # default returns the same object forever


def test_default():
    class Boom(Exception):
        pass

    def bad(o):
        raise Boom()
    with pytest.raises(Boom):
        sdx.dumps([object()], default=bad)
    with pytest.raises(sdx.EncodeError):
        sdx.dumps([object()], default=lambda o: object.__new__(type("X", (), {})))
    with pytest.raises(TypeError):
        sdx.dumps(1, default=3)
    # default may call dumps (a second buffer) and change nothing it should not
    assert sdx.dumps([object()], "msgpack", default=lambda o: sdx.dumps(1)) == b"\x91\xc4\x011"


def test_changed_while_written():
    d = {"a": 1, "b": 2}
    lst = [1, 2, 3]

    def grow_dict(o):
        d["c%d" % len(d)] = 0
        return 0

    def shrink_list(o):
        lst.clear()
        return 0
    d["x"] = object()
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(d, default=grow_dict)
    assert "changed size" in str(e.value)
    lst[0] = object()
    with pytest.raises(sdx.EncodeError) as e:
        sdx.dumps(lst, "msgpack", default=shrink_list)
    assert "changed size" in str(e.value)


def test_bad_arguments():
    with pytest.raises(ValueError):
        sdx.dumps(1, "xml")
    with pytest.raises(ValueError):
        sdx.loads(b"1", "yaml")
    with pytest.raises(TypeError):
        sdx.dumps(1, 5)
    with pytest.raises(TypeError):
        sdx.dumps(1, "json", bogus=1)
    with pytest.raises(ValueError):
        sdx.dumps(1, indent=17)
    with pytest.raises(ValueError):
        sdx.dumps(1, nan="zero")
    with pytest.raises(TypeError):
        sdx.loads(1234)
    with pytest.raises(TypeError):
        sdx.loads(b"1", seq=True, sort_keys=True)
    with pytest.raises(TypeError):
        sdx.convert(b"1", "json")
    with pytest.raises(TypeError):
        sdx.convert(b"1", "json", "cbor", default=str)
    with pytest.raises(TypeError):
        sdx.iter_load(b"123")
    with pytest.raises(ValueError):
        sdx.iter_load(io.BytesIO(b""), chunk_size=0)


def test_convert_errors():
    with pytest.raises(sdx.DecodeError) as e:
        sdx.convert(b'{"a":\n [1, }', "json", "msgpack")
    assert (e.value.line, e.value.column, e.value.format) == (2, 6, "json")
    with pytest.raises(sdx.DecodeError) as e:
        sdx.convert(b"\x92\x01", "msgpack", "json")
    assert e.value.code == "truncated"
    with pytest.raises(sdx.EncodeError) as e:
        sdx.convert(b"\xc4\x01x", "msgpack", "json")
    assert e.value.code == "unsupported" and "base64" in str(e.value)
    assert sdx.convert(b"\xc4\x01x", "msgpack", "json", bin="base64") == b'"eA=="'
    with pytest.raises(sdx.EncodeError) as e:
        sdx.convert(b"18446744073709551616", "json", "msgpack")
    with pytest.raises(sdx.EncodeError) as e:
        sdx.convert(b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", "msgpack", "json")
    assert e.value.code == "range"
    assert sdx.convert(b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", "msgpack", "json", nan="null") == b"null"
    with pytest.raises(sdx.EncodeError):
        sdx.convert(b"[1]", "json", "bson")
    assert sdx.loads(sdx.convert(b"[1]", "json", "bson", root="wrap"), "bson") == {"0": 1}
    with pytest.raises(ValueError):
        sdx.convert(b"1", "json", "msgpack", tags="maybe")


def test_iter_load_read_errors():
    class Broken(io.RawIOBase):
        def __init__(self):
            self.n = 0

        def read(self, n=-1):
            self.n += 1
            if self.n > 2:
                raise OSError("disk on fire")
            return b"[1]\n"
    it = sdx.iter_load(Broken(), "json", chunk_size=4)
    assert next(it) == [1]
    with pytest.raises(OSError, match="disk on fire"):
        list(it)

    class Text:
        def __init__(self, s):
            self.f = io.StringIO(s)

        def read(self, n):
            return self.f.read(n)
    assert list(sdx.iter_load(Text('{"\u00e9": 1}\n[2]\n'), chunk_size=3)) == [{"\u00e9": 1}, [2]]
    assert list(sdx.iter_load(io.BytesIO(b""))) == []
    assert list(sdx.iter_load(io.BytesIO(b""), "bson")) == []


def test_iter_load_reentered():
    class Sneaky:
        def __init__(self):
            self.it = None
            self.f = io.BytesIO(b"[1]\n[2]\n")

        def read(self, n):
            if self.it is not None:
                next(self.it)
            return self.f.read(n)
    f = Sneaky()
    it = sdx.iter_load(f, "json")
    f.it = it
    with pytest.raises(RuntimeError, match="read"):
        next(it)


@pytest.mark.skipif(__import__("os").environ.get("SDX_SANITIZED") == "1",
                    reason="the sanitizers' frames are several times larger")
def test_deepest_allowed_in_a_thread():
    """max_depth's highest value fits a thread's default stack."""
    import threading
    got = []

    def run():
        x = sdx.loads(b"[" * 10000 + b"]" * 10000, max_depth=10000)
        n = 0
        while x:
            x = x[0]
            n += 1
        got.append(n)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert got == [9999]
    with pytest.raises(ValueError):
        sdx.loads(b"1", max_depth=10001)
