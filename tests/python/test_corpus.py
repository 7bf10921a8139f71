"""The corpus documents (../shared/corpus: twitter.json, citm_catalog.json,
canada.json) through every format, every function and the peers."""
import io
import json

import bson
import cbor2
import msgpack
import pytest
import ubjson

import sdx
import strategies as S

BINARY = ["msgpack", "cbor", "bson", "ubjson", "bjdata", "binn"]


def test_loads_json(corpus):
    for name, data in corpus.items():
        want = json.loads(data)
        assert S.same(sdx.loads(data), want), name
        assert S.same(sdx.loads(data, "json"), want), name
        assert S.same(sdx.loads(data.decode()), want), name
        assert S.same(json.loads(sdx.dumps(want)), want), name
        assert S.same(json.loads(sdx.dumps(want, indent=2)), want), name


@pytest.mark.parametrize("fmt", BINARY)
def test_formats(corpus, fmt):
    for name, data in corpus.items():
        want = json.loads(data)
        b = sdx.dumps(want, fmt)
        assert S.same(sdx.loads(b, fmt), want), name
        # convert, both ways, no Python objects in between
        c = sdx.convert(data, "json", fmt)
        assert S.same(sdx.loads(c, fmt), want), name
        assert S.same(json.loads(sdx.convert(b, fmt, "json")), want), name
        # streamed
        assert S.same(list(sdx.iter_load(io.BytesIO(b), fmt, chunk_size=4093)), [want]), name


def test_peers(corpus):
    for name, data in corpus.items():
        want = json.loads(data)
        assert sdx.dumps(want, "msgpack") == msgpack.packb(want), name
        assert S.same(sdx.loads(msgpack.packb(want), "msgpack"), want), name
        assert S.same(cbor2.loads(sdx.dumps(want, "cbor")), want), name
        assert S.same(sdx.loads(cbor2.dumps(want), "cbor"), want), name
        assert sdx.dumps(want, "bson") == bson.encode(want), name
        assert S.same(sdx.loads(bson.encode(want), "bson"), want), name
        assert S.same(ubjson.loadb(sdx.dumps(want, "ubjson")), want), name
        assert S.same(sdx.loads(ubjson.dumpb(want), "ubjson"), want), name


def test_ndjson_stream(corpus):
    """The corpus as one NDJSON file: iter_load yields each document, at
    chunk sizes that split tokens everywhere; convert(seq=True) makes a
    MessagePack stream of the same documents."""
    docs = [json.loads(d) for d in corpus.values()]
    nd = b"".join(json.dumps(d).encode() + b"\n" for d in docs)
    for chunk in (1, 7, 4096, 1 << 20):
        got = list(sdx.iter_load(io.BytesIO(nd), chunk_size=chunk))
        assert len(got) == len(docs) and all(S.same(a, b) for a, b in zip(got, docs)), chunk
    mp = sdx.convert(nd, "json", "msgpack", seq=True)
    assert mp == b"".join(msgpack.packb(d) for d in docs)
    got = list(sdx.iter_load(io.BytesIO(mp), "msgpack", chunk_size=1000))
    assert all(S.same(a, b) for a, b in zip(got, docs)) and len(got) == len(docs)
    assert sdx.convert(mp, "msgpack", "json", seq=True) == b"".join(sdx.dumps(d) + b"\n" for d in docs)
