"""sdx.dumps(..., "json") without indent takes a direct path (encode.c's
jd_*: the core types straight into the buffer, everything else through a
writer); indent=0 writes the same minified JSON through the writer alone.
The two must agree to the byte, and on every error, offset included."""
import datetime
import decimal
import enum
import json
import uuid

from hypothesis import given
from hypothesis import strategies as st

import sdx
import strategies as S


class D(dict):
    pass


class L(list):
    pass


class T(tuple):
    pass


class Color(enum.Enum):
    RED = 1
    BLUE = "blue"


SURROGATES = st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010), max_size=4)
LEAVES = (st.none() | st.booleans() | st.integers() | st.integers(-(2**64), 2**64) | st.floats()
          | st.text() | SURROGATES | st.text(alphabet="\"\\/\x00\x01\x1f\n\t\x7fé€😀a", max_size=12)
          | st.binary(max_size=8) | S.UTC_DATETIMES | st.datetimes() | st.uuids()
          | st.decimals(places=None) | st.sampled_from([Color.RED, Color.BLUE, object(), {1, 2}, b"",
                                                      sdx.Tagged("cbor", 32, "http://x"),
                                                      sdx.Tagged("msgpack", 5, b"\x01")]))
KEYS = (st.text(max_size=8) | SURROGATES | st.integers() | st.floats() | st.none() | st.booleans()
        | st.uuids() | st.sampled_from([Color.RED, (1, 2), b"k"]))


def extend(children):
    return (st.lists(children, max_size=5) | st.lists(children, max_size=3).map(L)
            | st.lists(children, max_size=3).map(tuple) | st.lists(children, max_size=3).map(T)
            | st.dictionaries(KEYS, children, max_size=5)
            | st.dictionaries(st.text(max_size=4), children, max_size=3).map(D))


VALUES = st.recursive(LEAVES, extend, max_leaves=25)
OPTIONS = st.fixed_dictionaries({}, optional={
    "non_str_keys": st.booleans(),
    "nan": st.just("null"),
    "bin": st.just("base64"),
    "tags": st.sampled_from(["drop", "wrap"]),
    "default": st.just(lambda o: sorted(o) if isinstance(o, set) else repr(o)),
})


def outcome(x, **opts):
    try:
        return sdx.dumps(x, "json", **opts)
    except sdx.EncodeError as e:
        return ("EncodeError", str(e), e.offset)
    except (TypeError, ValueError, OverflowError) as e:
        return (type(e).__name__, str(e))


@given(VALUES, OPTIONS)
def test_direct_path_is_the_writers(x, opts):
    assert outcome(x, **opts) == outcome(x, indent=0, **opts)


def test_corpus_documents_alike(corpus):
    for name, data in corpus.items():
        doc = json.loads(data)
        assert sdx.dumps(doc, "json") == sdx.dumps(doc, "json", indent=0), name


def test_long_strings_and_escapes_across_growth():
    # strings longer than any reservation, escapes at the ends, many values
    s = "\"" + "a" * 100000 + "\n" + "é" * 5000 + "\x00"
    x = [s, {s: [s] * 3}, "x" * 70000, 1.5, 2**63 - 1, -(2**63)] * 5
    assert sdx.dumps(x, "json") == sdx.dumps(x, "json", indent=0)


def test_errors_stand_where_the_writer_stands():
    # the offset is the output written before the value: without its comma
    for x, at in (([1, object()], 2), ({"a": 1, 2: 3}, 6), ([1, [2, float("nan")]], 5),
                  ({"a": [1, "\ud800"]}, 7), ([[]] * 3 + [{1}], 9)):
        for indent in (None, 0):
            try:
                sdx.dumps(x, "json", indent=indent)
            except sdx.EncodeError as e:
                assert e.offset == at, (x, indent, e.offset)
            else:
                raise AssertionError(x)


def test_default_that_changes_the_containers():
    # default= runs Python code in the middle of the walk: the containers
    # being written may shrink, grow or be dropped by everything else
    box = {}

    def shrink(o):
        box["list"].clear()
        return 0

    def grow(o):
        box["dict"]["new"] = 1
        return 0

    def drop(o):
        box.clear()
        return [1] * 100

    for fn, make in ((shrink, lambda: [object(), 1, 2]), (grow, lambda: {"a": object(), "b": 2}),
                     (drop, lambda: [[object(), 2], {"k": object()}])):
        for indent in (None, 0):
            x = make()
            box.update(list=x, dict=x, root=x)
            try:
                got = sdx.dumps(x, "json", default=fn, indent=indent)
            except sdx.EncodeError as e:
                assert "changed size" in str(e)
            else:
                assert fn is drop, got
