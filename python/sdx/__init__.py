"""sdx: JSON, MessagePack, CBOR, BSON, UBJSON, BJData and Binn.

    sdx.dumps(obj, fmt="json", **options) -> bytes
    sdx.loads(data, fmt=None, **options)         format detected when None
    sdx.dump(obj, fp, fmt="json", **options)
    sdx.load(fp, fmt=None, **options)
    sdx.iter_load(fp, fmt=None, **options)       the values of a sequence, one at a time
    sdx.convert(data, src, dst, **mapping) -> bytes   no Python objects in between

See python/README.md for the types, the options and the errors.
"""
from ._sdx import (FORMATS, DecodeError, EncodeError, Tagged, __version__, convert, detect, dumps,
                   iter_load, loads, simd)

__all__ = ["dumps", "loads", "dump", "load", "iter_load", "convert", "detect", "Tagged",
           "DecodeError", "EncodeError", "FORMATS", "UNDEFINED", "simd"]

#: CBOR's undefined (simple value 23).
UNDEFINED = Tagged("simple", 23)


def dump(obj, fp, fmt="json", **options):
    """Write dumps(obj, fmt, **options) to the binary file fp."""
    fp.write(dumps(obj, fmt, **options))


def load(fp, fmt=None, **options):
    """loads() of everything fp.read() returns."""
    return loads(fp.read(), fmt, **options)
