"""sdx.dumps(..., "msgpack") without sort_keys takes a direct path
(encode.c's md_*: the core types straight into the buffer, everything else
through a writer); sdx._sdx._direct(False) turns it off, so that the
writer alone writes. The two must agree to the byte, and on every error,
offset included."""
import contextlib

from hypothesis import given
from hypothesis import strategies as st

import sdx
from sdx import _sdx
from test_json_direct import VALUES, D, L, T  # noqa: F401 (D, L, T: the subclasses)


@contextlib.contextmanager
def writers_only():
    old = _sdx._direct(False)
    try:
        yield
    finally:
        _sdx._direct(old)


def outcome(x, **opts):
    try:
        return sdx.dumps(x, "msgpack", **opts)
    except sdx.EncodeError as e:
        return ("EncodeError", str(e), e.offset)
    except (TypeError, ValueError, OverflowError) as e:
        return (type(e).__name__, str(e))


def both(x, **opts):
    direct = outcome(x, **opts)
    with writers_only():
        writer = outcome(x, **opts)
    return direct, writer


OPTIONS = st.fixed_dictionaries({}, optional={
    "tags": st.sampled_from(["drop", "wrap"]),
    "default": st.just(lambda o: sorted(o) if isinstance(o, set) else repr(o)),
})


def test_switch():
    assert _sdx._direct(True) is True
    with writers_only():
        assert _sdx._direct(False) is False
    assert _sdx._direct(True) is True


@given(VALUES, OPTIONS)
def test_direct_path_is_the_writers(x, opts):
    direct, writer = both(x, **opts)
    assert direct == writer


def test_corpus_documents_alike(corpus):
    import json
    for name, data in corpus.items():
        doc = json.loads(data)
        direct, writer = both(doc)
        assert isinstance(direct, bytes) and direct == writer, name


def test_every_header_size():
    # each length on both sides of every header boundary, as values and keys,
    # past the buffer's first reservations
    sizes = (0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536, 70000)
    for n in sizes:
        for x in ("a" * n, "é" * (n // 2), b"\x01" * n, bytearray(n), list(range(n)), tuple([None] * n),
                  {str(i): i for i in range(n)}, {"k" * n: "v" * n}, [1.5] * n, L([True] * n),
                  D({"x": "y" * n})):
            direct, writer = both(x)
            assert isinstance(direct, bytes) and direct == writer, (type(x), n)


def test_integer_boundaries():
    edges = [0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
             -1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63), -(2**63) - 1,
             2**30, 2**62, -(2**62), True, False]
    x = edges + [[e] for e in edges] + [{"k": e} for e in edges]
    for v in [x] + [[e] for e in edges]:
        direct, writer = both(v)
        assert direct == writer, v


def test_errors_stand_where_the_writer_stands():
    # the offset is the output written before the value
    for x, at in (([1, object()], 2), ({"a": 1, "b": 2**70}, 6), ([1, [2, "\ud800"]], 4),
                  ({"a": [1, "\ud800"]}, 5), ([[]] * 3 + [{1}], 4), ({object(): 1}, 1),
                  ({"\ud800": 1}, 1), (T([1, 2, object()]), 3)):
        direct, writer = both(x)
        assert direct == writer, x
        assert direct[0] == "EncodeError" and direct[2] == at, (x, direct)


def test_deep_nesting_alike():
    for depth in (1023, 1024, 1025):
        x = []
        for _ in range(depth - 1):
            x = [x]
        y = {}
        for _ in range(depth - 1):
            y = {"a": y}
        for v in (x, y):
            direct, writer = both(v)
            assert direct == writer, depth


def test_keys_of_every_type():
    sub = type("Sub", (str,), {})
    for k in (1, -1, 2**64 - 1, 2**70, 1.5, None, True, b"k", (1, 2), "s", sub("sub")):
        direct, writer = both({k: [k], "after": 1})
        assert direct == writer, k


def test_default_that_changes_the_containers():
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
        for direct in (True, False):
            old = _sdx._direct(direct)
            try:
                x = make()
                box.update(list=x, dict=x, root=x)
                results.append(outcome(x, default=fn))
            finally:
                _sdx._direct(old)
        assert results[0] == results[1], fn
        if fn is not drop:
            assert results[0][0] == "EncodeError" and "changed size" in results[0][1]
