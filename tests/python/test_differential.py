"""Differential tests: sdx against Python's json, msgpack, cbor2, pymongo's
bson and py-ubjson, both ways (what they write sdx reads, what sdx writes
they read), on random values; MessagePack byte for byte."""
import datetime
import decimal
import json
import uuid

import bson
import cbor2
import msgpack
import ubjson
from bson.codec_options import CodecOptions
from bson.binary import UuidRepresentation
from bson.decimal128 import Decimal128
from hypothesis import given
from hypothesis import strategies as st

import sdx
import strategies as S

BSON_OPTS = CodecOptions(tz_aware=True, tzinfo=datetime.timezone.utc,
                         uuid_representation=UuidRepresentation.STANDARD)


@given(S.JSON_VALUES)
def test_json(x):
    want = S.plain(x)
    assert S.same(sdx.loads(json.dumps(x).encode()), want)
    assert S.same(sdx.loads(json.dumps(x, ensure_ascii=False, indent=1)), want)
    assert S.same(json.loads(sdx.dumps(x)), want)
    assert S.same(json.loads(sdx.dumps(x, indent=3)), want)
    assert S.same(json.loads(sdx.dumps(x, sort_keys=True)), S.sort_keys(want))


@given(st.text())
def test_json_strings_escaped_like_json(s):
    """Control characters and quotes escaped: the same text as json.dumps
    without ensure_ascii for strings (sdx writes \\u00XX in lower case as
    json does)."""
    assert json.loads(sdx.dumps(s)) == s
    assert sdx.loads(json.dumps(s)) == s


@given(S.MSGPACK_VALUES)
def test_msgpack(x):
    want = S.plain(x)
    theirs = msgpack.packb(x, use_bin_type=True)
    ours = sdx.dumps(x, "msgpack")
    assert ours == theirs  # both write the smallest encodings
    assert S.same(sdx.loads(theirs, "msgpack"), want)
    assert S.same(msgpack.unpackb(ours, raw=False, strict_map_key=False), want)


@given(st.datetimes(min_value=datetime.datetime(1, 1, 2), max_value=datetime.datetime(9999, 12, 30),
                    timezones=st.just(datetime.timezone.utc)))
def test_msgpack_timestamps(t):
    theirs = msgpack.packb(msgpack.Timestamp.from_datetime(t))
    assert sdx.dumps(t, "msgpack") == theirs
    assert sdx.loads(theirs, "msgpack") == t
    assert msgpack.unpackb(sdx.dumps(t, "msgpack"), timestamp=3) == t


def cbor_plain(v):
    if isinstance(v, (list, tuple)):
        return [cbor_plain(x) for x in v]
    if isinstance(v, dict):
        return {cbor_plain(k) if not isinstance(k, (list, tuple)) else tuple(cbor_plain(k)): cbor_plain(x)
                for k, x in v.items()}
    return v


@given(S.CBOR_VALUES)
def test_cbor(x):
    want = S.plain(x)
    theirs = cbor2.dumps(x)  # datetimes as tag 0 text: exact
    assert S.same(sdx.loads(theirs, "cbor"), want)
    # both readers on the same bytes (tag 1 floats lose microseconds far
    # from 1970: sdx and cbor2 must read the same instant)
    for theirs in (cbor2.dumps(x, datetime_as_timestamp=True), cbor2.dumps(x, canonical=True)):
        assert S.same(sdx.loads(theirs, "cbor"), cbor_plain(cbor2.loads(theirs)))
    ours = sdx.dumps(x, "cbor")
    assert S.same(cbor_plain(cbor2.loads(ours)), want)


@given(st.integers())
def test_cbor_integers_bytewise(n):
    assert sdx.dumps(n, "cbor") == cbor2.dumps(n)


def bson_plain(v):
    """pymongo's types as sdx's: Decimal128 -> Decimal, Int64 -> int."""
    if isinstance(v, list):
        return [bson_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: bson_plain(x) for k, x in v.items()}
    if isinstance(v, Decimal128):
        return v.to_decimal()
    if isinstance(v, bson.int64.Int64):
        return int(v)
    return v


@given(S.BSON_DOCS)
def test_bson(doc):
    want = S.plain(doc)
    theirs = bson.encode(doc, codec_options=BSON_OPTS)
    ours = sdx.dumps(doc, "bson")
    assert ours == theirs  # int32/int64, binary subtype 0 and 4, datetimes: the same bytes
    assert S.same(sdx.loads(theirs, "bson"), want)
    assert S.same(bson_plain(bson.decode(ours, codec_options=BSON_OPTS)), want)


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_bson_decimal128(d):
    try:
        theirs = bson.encode({"d": Decimal128(d)})
    except Exception:  # not exact in decimal128: sdx refuses it too
        try:
            sdx.dumps({"d": d}, "bson")
        except sdx.EncodeError:
            return
        raise AssertionError("sdx wrote a decimal pymongo cannot hold exactly: %r" % d)
    assert sdx.dumps({"d": d}, "bson") == theirs
    got = sdx.loads(theirs, "bson")["d"]
    assert got == d and got.as_tuple() == Decimal128(d).to_decimal().as_tuple()


def test_bson_special_types():
    oid = bson.ObjectId()
    doc = {"o": oid, "r": bson.Regex("^a.*", "im"), "c": bson.Code("f()"), "ts": bson.Timestamp(5, 7),
           "mn": bson.MinKey(), "mx": bson.MaxKey(), "b": bson.Binary(b"xyz", 0x80)}
    data = bson.encode(doc)
    got = sdx.loads(data, "bson")
    assert got["o"] == sdx.Tagged("bson", 7, oid.binary)
    assert got["r"] == sdx.Tagged("bson", 0x0B, b"^a.*\x00im\x00")
    assert got["c"] == sdx.Tagged("bson", 0x0D, "f()")
    assert got["ts"] == sdx.Tagged("bson", 0x11, 5 << 32 | 7)
    assert got["mn"] == sdx.Tagged("bson", 0xFF) and got["mx"] == sdx.Tagged("bson", 0x7F)
    assert got["b"] == sdx.Tagged("bson", 0x05 | 0x80 << 8, b"xyz")
    assert sdx.dumps(got, "bson") == data
    assert bson.decode(sdx.dumps(got, "bson")) == doc


def ubjson_plain(v):
    """py-ubjson reads H (high precision) as Decimal; sdx reads integers as int."""
    if isinstance(v, list):
        return [ubjson_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: ubjson_plain(x) for k, x in v.items()}
    if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
        return int(v)
    return v


@given(S.UBJSON_VALUES)
def test_ubjson(x):
    want = S.plain(x)
    for opts in ({}, {"container_count": True}):
        theirs = ubjson.dumpb(x, **opts)
        # both readers on py-ubjson's bytes (it writes some floats as H,
        # high-precision text, which both read as Decimal)
        assert S.same(sdx.loads(theirs, "ubjson"), ubjson_plain(ubjson.loadb(theirs)))
    assert S.same(ubjson_plain(ubjson.loadb(sdx.dumps(x, "ubjson"))), want)


def test_uuid_and_decimal_with_peers():
    u = uuid.uuid4()
    assert cbor2.loads(sdx.dumps(u, "cbor")) == u
    assert sdx.loads(cbor2.dumps(u), "cbor") == u
    d = decimal.Decimal("-12.3400")
    assert cbor2.loads(sdx.dumps(d, "cbor")) == d
    assert sdx.loads(cbor2.dumps(d), "cbor").as_tuple() == d.as_tuple()
    assert ubjson.loadb(sdx.dumps(d, "ubjson")) == d
    assert sdx.loads(ubjson.dumpb(d), "ubjson") == d
