"""sdx.dumps takes a direct path for JSON without indent or sort_keys and
for MessagePack without sort_keys (encode.c's jd_* and md_*: the core
types straight into the buffer, everything else through a writer);
sdx._sdx._direct(False) turns both off, so that the writer alone writes.
The two must agree to the byte, and on every error, offset included. For
JSON, indent=0 (the writer, minified) must also give the same text."""
import contextlib
import datetime
import decimal
import enum
import json
import os
import sys
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdx
import strategies as S
from sdx import _sdx

FORMATS = ("json", "msgpack")


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
OPTIONS = {
    "json": st.fixed_dictionaries({}, optional={
        "non_str_keys": st.booleans(),
        "nan": st.just("null"),
        "bin": st.just("base64"),
        "tags": st.sampled_from(["drop", "wrap"]),
        "default": st.just(lambda o: sorted(o) if isinstance(o, set) else repr(o)),
    }),
    "msgpack": st.fixed_dictionaries({}, optional={
        "tags": st.sampled_from(["drop", "wrap"]),
        "default": st.just(lambda o: sorted(o) if isinstance(o, set) else repr(o)),
    }),
}


@contextlib.contextmanager
def switched(switch, on):
    """One of the module's test switches (_sdx._direct, _sdx._dict_direct)
    set to `on` for the block, then back to what it was."""
    old = switch(on)
    try:
        yield
    finally:
        switch(old)


def direct(on):
    return switched(_sdx._direct, on)


def outcome(x, fmt, **opts):
    try:
        return sdx.dumps(x, fmt, **opts)
    except sdx.EncodeError as e:
        return ("EncodeError", str(e), e.offset)
    except (TypeError, ValueError, OverflowError) as e:
        return (type(e).__name__, str(e))


def both(x, fmt, **opts):
    """The direct path's outcome and the writer's."""
    got = outcome(x, fmt, **opts)
    with direct(False):
        return got, outcome(x, fmt, **opts)


def test_switch():
    assert _sdx._direct(True) is True
    with direct(False):
        assert _sdx._direct(False) is False
    assert _sdx._direct(True) is True


@given(VALUES, OPTIONS["json"])
def test_json_direct_path_is_the_writers(x, opts):
    got, writer = both(x, "json", **opts)
    assert got == writer
    assert got == outcome(x, "json", indent=0, **opts)


@given(VALUES, OPTIONS["msgpack"])
def test_msgpack_direct_path_is_the_writers(x, opts):
    got, writer = both(x, "msgpack", **opts)
    assert got == writer


@pytest.mark.parametrize("fmt", FORMATS)
def test_corpus_documents_alike(corpus, fmt):
    for name, data in corpus.items():
        got, writer = both(json.loads(data), fmt)
        assert isinstance(got, bytes) and got == writer, name


def test_json_long_strings_and_escapes_across_growth():
    # strings longer than any reservation, escapes at the ends, many values
    s = "\"" + "a" * 100000 + "\n" + "é" * 5000 + "\x00"
    x = [s, {s: [s] * 3}, "x" * 70000, 1.5, 2**63 - 1, -(2**63)] * 5
    got, writer = both(x, "json")
    assert got == writer == sdx.dumps(x, "json", indent=0)


def test_json_short_strings_every_length_and_stop():
    # str of 0 to 40 bytes (the AVX-512 copy of the walk writes those up to
    # 32 in the walk itself, python/src/jd_tmpl.h) with a byte to escape at
    # every place, ASCII and not, as values, elements and keys; surrogates
    # at every place fail at the same offset either way
    for n in range(41):
        texts = ["a" * n, "é" * (n // 2) + "b" * (n % 2), "😀" * (n // 4) + "c" * (n % 4)]
        for i in range(n):
            for c in ("\"", "\\", "\x00", "\x1f", "\n", "\ud800", " ", "\x7f", "/", "ÿ"):
                texts.append("a" * i + c + "z" * (n - i - 1))
        for t in texts:
            for x in (t, [t, t + "x", 1], {"k": t, t: [t]}, {"a" * 40: t, t + t: None}):
                got, writer = both(x, "json")
                assert got == writer, (n, t, x)
                if isinstance(got, bytes):
                    assert got == sdx.dumps(x, "json", indent=0)


def test_simd_level_asked_for():
    # tests/python/run.sh runs this file with SDX_SIMD=avx2 too: the walk
    # without AVX-512 where the machine has it
    want = os.environ.get("SDX_EXPECT_SIMD")
    if want:
        assert sdx.simd() in (want, "sse2", "scalar", "neon")


def test_json_key_cache():
    # The direct path caches a key's text by the key object (a reference
    # held), from the second time in a row its slot sees it: the same
    # objects in one document and the next, fresh objects whose addresses
    # are taken again, keys whose text fits 32 bytes or not, escaped keys
    # that grow the buffer, non-ASCII keys, more keys than slots, and keys
    # that are not exact str, each against json.dumps.
    def ref(x):
        return json.dumps(x, separators=(",", ":"), ensure_ascii=False).encode()

    lengths = list(range(0, 40))
    keys = ["k" * n for n in lengths] + ["é" * n for n in range(1, 20)] + ["\x01" * n for n in range(1, 40)]
    keys += ['"' * n for n in range(1, 20)] + ["\\q\n"]
    doc = [{k: i for i, k in enumerate(keys)} for _ in range(3)]
    for _ in range(3):
        assert sdx.dumps(doc) == ref(doc)
        assert sdx.dumps({"pad" * 20: 1, "nest": doc}) == ref({"pad" * 20: 1, "nest": doc})
    for i in range(20000):
        k = "".join(["k", str(i % 7), "x" * (i % 5), chr(0x61 + i % 26)])  # a new object each time
        d = {k: i, "v": [{k: None}]}
        assert sdx.dumps(d) == ref(d), k
        del d, k
    many = {"key%d" % i: i for i in range(5000)}
    for _ in range(2):
        assert sdx.dumps(many) == ref(many)

    class S(str):
        pass

    sub = {S("b"): 1, "a": 2}
    for _ in range(2):
        assert sdx.dumps(sub) == b'{"b":1,"a":2}'


def test_msgpack_every_header_size():
    # each length on both sides of every header boundary, as values and keys,
    # past the buffer's first reservations
    for n in (0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536, 70000):
        for x in ("a" * n, "é" * (n // 2), b"\x01" * n, bytearray(n), list(range(n)), tuple([None] * n),
                  {str(i): i for i in range(n)}, {"k" * n: "v" * n}, [1.5] * n, L([True] * n),
                  D({"x": "y" * n})):
            got, writer = both(x, "msgpack")
            assert isinstance(got, bytes) and got == writer, (type(x), n)


@pytest.mark.parametrize("fmt", FORMATS)
def test_integer_boundaries(fmt):
    edges = [0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
             -1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63), -(2**63) - 1,
             2**30, 2**62, -(2**62), True, False]
    for v in [edges + [[e] for e in edges] + [{"k": e} for e in edges]] + [[e] for e in edges]:
        got, writer = both(v, fmt)
        assert got == writer, v


# Each case: the value, and the output written before the failing value (the
# error's offset), in JSON (without its comma) and in MessagePack.
ERRORS = (([1, object()], 2, 2), ({"a": 1, "b": 2**70}, None, 6), ({"a": 1, 2: 3}, 6, None),
          ([1, [2, float("nan")]], 5, None), ([1, [2, "\ud800"]], 5, 4), ({"a": [1, "\ud800"]}, 7, 5),
          ([[]] * 3 + [{1}], 9, 4), ({object(): 1}, 1, 1), ({"\ud800": 1}, 1, 1), (T([1, 2, object()]), 4, 3))


@pytest.mark.parametrize("fmt", FORMATS)
def test_errors_stand_where_the_writer_stands(fmt):
    for x, at_json, at_msgpack in ERRORS:
        at = at_json if fmt == "json" else at_msgpack
        if at is None:
            continue
        got, writer = both(x, fmt)
        assert got == writer, x
        assert got[0] == "EncodeError" and got[2] == at, (x, got)


@pytest.mark.parametrize("fmt", FORMATS)
def test_deep_nesting_alike(fmt):
    for depth in (1023, 1024, 1025):
        x, y = [], {}
        for _ in range(depth - 1):
            x, y = [x], {"a": y}
        for v in (x, y):
            got, writer = both(v, fmt)
            assert got == writer, depth


@pytest.mark.parametrize("fmt", FORMATS)
def test_keys_of_every_type(fmt):
    sub = type("Sub", (str,), {})
    for k in (1, -1, 2**64 - 1, 2**70, 1.5, None, True, b"k", (1, 2), "s", sub("sub"), uuid.UUID(int=7),
              decimal.Decimal("1.5"), datetime.date(2020, 1, 2), Color.BLUE):
        for opts in ({}, {"non_str_keys": True}) if fmt == "json" else ({},):
            got, writer = both({k: [k], "after": 1}, fmt, **opts)
            assert got == writer, (k, opts)


@pytest.mark.parametrize("fmt", FORMATS)
def test_default_that_changes_the_containers(fmt):
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
        results = []
        for on in (True, False):
            with direct(on):
                x = make()
                box.update(list=x, dict=x, root=x)
                results.append(outcome(x, fmt, default=fn))
        assert results[0] == results[1], fn
        if fn is not drop:
            assert results[0][0] == "EncodeError" and "changed size" in results[0][1]


# Dicts: on CPython 3.11 and 3.12 dumps reads a dict's entries in place
# (sdxpy.h's sp_dict_next), elsewhere and for split tables through
# PyDict_Next; _sdx._dict_direct(False) forces PyDict_Next. The two must
# give the same bytes and the same errors in every format.

ALL_FORMATS = ("json", "msgpack", "cbor", "bson", "ubjson", "bjdata", "binn")


def dict_direct(on):
    return switched(_sdx._dict_direct, on)


def test_dict_entries_are_read_in_place_where_the_layout_is_known():
    known = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 12)
    assert _sdx._dict_direct(None) is known
    with dict_direct(False):
        assert _sdx._dict_direct(None) is False
    assert _sdx._dict_direct(None) is known


class Plain:
    pass


def odd_dicts():
    holes = {f"k{i}": i for i in range(40)}
    for i in range(0, 40, 3):
        del holes[f"k{i}"]
    emptied = {"a": 1, "b": 2}
    del emptied["a"], emptied["b"]
    general = {i: str(i) for i in range(30)}
    for i in range(0, 30, 4):
        del general[i]
    mixed = {"a": 1, 2: "b", None: 3, 1.5: [4]}
    o = Plain()
    o.x, o.y, o.z = 1, "two", [3.0]
    split = o.__dict__  # a split table (the class's shared keys)
    big2 = {f"key{i}": i for i in range(1000)}  # 2-byte indices
    big4 = {f"key{i}": [i] for i in range(70000)}  # 4-byte indices
    for i in range(0, 70000, 7):
        del big4[f"key{i}"]
    return [holes, emptied, {}, general, mixed, split, big2, big4,
            {"nested": [holes, {"in": split}], "g": general}]


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_dicts_read_in_place_as_through_pydict_next(fmt):
    for i, d in enumerate(odd_dicts()):
        for opts in ({}, {"non_str_keys": True}, {"sort_keys": True}):
            if fmt == "bson" and not opts:
                opts = {"non_str_keys": True}
            for path in (True, False):
                with direct(path):
                    got = outcome(d, fmt, **opts)
                    with dict_direct(False):
                        assert got == outcome(d, fmt, **opts), (fmt, i, opts, path)


@given(VALUES, st.sampled_from(ALL_FORMATS))
def test_random_values_alike_without_in_place_dicts(x, fmt):
    opts = {"non_str_keys": True, "tags": "wrap", "default": repr}
    got = outcome(x, fmt, **opts)
    with dict_direct(False):
        assert got == outcome(x, fmt, **opts)


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_dict_changed_while_read_in_place(fmt):
    # default= changes the dict being written: an error, as through PyDict_Next
    for change in ("grow", "delete", "replace"):
        results = []
        for on in (True, False):
            with dict_direct(on):
                d = {"a": 1, "b": object(), "c": 3}

                def fn(o, d=d):
                    if change == "grow":
                        d.update({f"n{i}": i for i in range(50)})
                    elif change == "delete":
                        del d["c"]
                    else:
                        d.clear()
                        d.update(x=1, y=2, z=3)
                    return 0

                results.append(outcome(d, fmt, default=fn, non_str_keys=True))
        assert results[0] == results[1], (fmt, change)


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_default_that_drops_the_key_being_written(fmt):
    # default= for a key removes that key from its dict, the dict's
    # reference to it being the last but the call's: the key must stay
    # alive until the entry is done (an error then names it)
    class K:
        pass

    for result in (lambda o: object(), lambda o: "fine"):
        got = []
        for path in (True, False):
            with direct(path):
                box = {}

                def fn(o, result=result):
                    if isinstance(o, K):
                        box["d"].clear()
                    return result(o)

                d = {K(): 1}
                box["d"] = d
                got.append(outcome(d, fmt, default=fn, non_str_keys=True))
        # the direct path and the writer's give the same bytes or error
        assert isinstance(got[0], (bytes, tuple)) and got[0] == got[1], (fmt, got)
