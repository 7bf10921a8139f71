"""hypothesis strategies: the values each format holds, for round trips
and differential tests."""
import datetime
import decimal
import uuid

from hypothesis import strategies as st

INT64 = st.integers(-(2**63), 2**63 - 1)
UINT64_OR_INT64 = st.integers(-(2**63), 2**64 - 1)
FLOATS = st.floats(allow_nan=False)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
TEXT = st.text()
KEYS = st.text(max_size=20)


def tree(leaves, keys=KEYS, max_leaves=30, tuples=False):
    def extend(children):
        seqs = st.lists(children, max_size=6)
        if tuples:
            seqs = seqs | st.tuples(children, children)
        return seqs | st.dictionaries(keys, children, max_size=6)
    return st.recursive(leaves, extend, max_leaves=max_leaves)


JSON_LEAVES = st.none() | st.booleans() | st.integers() | FINITE | TEXT
JSON_VALUES = tree(JSON_LEAVES)

MSGPACK_LEAVES = st.none() | st.booleans() | UINT64_OR_INT64 | FLOATS | TEXT | st.binary(max_size=40)
MSGPACK_VALUES = tree(MSGPACK_LEAVES, keys=KEYS | INT64)

UTC_DATETIMES = st.datetimes(min_value=datetime.datetime(1, 1, 2), max_value=datetime.datetime(9999, 12, 30),
                             timezones=st.just(datetime.timezone.utc))
MS_DATETIMES = UTC_DATETIMES.map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000))
DECIMALS = st.decimals(allow_nan=False, allow_infinity=False, places=None)
UUIDS = st.uuids()

CBOR_LEAVES = (st.none() | st.booleans() | st.integers() | FLOATS | TEXT | st.binary(max_size=40)
               | UTC_DATETIMES | UUIDS | DECIMALS)
CBOR_VALUES = tree(CBOR_LEAVES, keys=KEYS | st.integers())

BSON_KEYS = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=20)
BSON_LEAVES = st.none() | st.booleans() | INT64 | FLOATS | TEXT | st.binary(max_size=40) | MS_DATETIMES | UUIDS
BSON_VALUES = tree(BSON_LEAVES, keys=BSON_KEYS)
BSON_DOCS = st.dictionaries(BSON_KEYS, BSON_VALUES, max_size=6)

UBJSON_LEAVES = st.none() | st.booleans() | st.integers() | FINITE | TEXT | st.binary(max_size=40)
UBJSON_VALUES = tree(UBJSON_LEAVES)

BINN_LEAVES = st.none() | st.booleans() | UINT64_OR_INT64 | FLOATS | TEXT | st.binary(max_size=40)
BINN_VALUES = tree(BINN_LEAVES)


def plain(v):
    """v with tuples as lists (what every format reads back)."""
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def sort_keys(v):
    """v with every dict's keys in sorted order."""
    if isinstance(v, (list, tuple)):
        return [sort_keys(x) for x in v]
    if isinstance(v, dict):
        return {k: sort_keys(v[k]) for k in sorted(v)}
    return v


def same(a, b):
    """Equal, with types: 1 and 1.0 and True differ, floats equal by bits
    (so -0.0 and 0.0 differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return a.hex() == b.hex()
    if isinstance(a, decimal.Decimal):
        return a.as_tuple() == b.as_tuple()
    return a == b
