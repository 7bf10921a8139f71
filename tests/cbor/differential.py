#!/usr/bin/env python3
"""Differential test of sdx's CBOR reader and writer against Python's cbor2,
through the sdx command (`sdx convert`), on random documents.

1. CBOR -> sdx -> CBOR. Random documents, encoded by cbor2 (its encoder, with
   a hook for what its plain values cannot say: indefinite-length arrays, maps
   and strings, a float's width, the order and types of map keys) are
   converted by `sdx convert --seq -f cbor -t cbor`. For each:
   - cbor2 decodes sdx's bytes to the same value as the input (types exact,
     floats to the bit, NaN as NaN, map order kept);
   - sdx's bytes are the preferred serialization of the same items (RFC 8949
     section 4.1): integers, lengths and tag numbers in their shortest head,
     each float in the shortest of float16/32/64 that keeps its value (NaN as
     f97e00), indefinite-length strings joined into one definite string,
     tags and simple values as they came, arrays and maps as definite or
     indefinite as they came, or else every one of them definite (RFC 8949
     prefers definite lengths where the length is known); a leading
     self-described CBOR tag 55799 may be kept or dropped.
2. JSON -> sdx -> CBOR. Random JSON documents (integers over the whole range
   -2^64 .. 2^64-1 and beyond it, doubles, strings with escapes and
   non-ASCII text, arrays, objects) are converted by
   `sdx convert --seq -f json -t cbor`. For each, cbor2 decodes sdx's bytes to
   what Python's json module reads from the text (integers beyond 64 bits as
   bignums, tags 2 and 3), and every head and float in them is in preferred
   form (arrays and maps may be definite or indefinite).
3. CBOR -> sdx -> JSON -> sdx -> CBOR. The documents of 1 that JSON can hold
   with the mapping layer's wrappers (no byte strings, text keys only, no
   undefined, finite floats, no tag 24) go through
   `sdx convert --seq --tags=wrap -f cbor -t json` and back with
   `--tags=wrap -f json -t cbor`: cbor2 decodes the result to the input's
   value (bignums and integers below -2^63 as exact JSON numbers, tags as
   {"$tag": N, "$value": V}, simple values as {"$simple": N}, nested tags at
   any level; a leading tag 55799 is dropped), in preferred form.

The documents cover bignums, tags (small and up to 2^64-1, nested, on any
item, map keys and containers included), float16/32/64 inputs with their
edge values (subnormals, extremes, -0.0, infinities, NaN), indefinite-length
arrays, maps and strings (empty ones and empty chunks included), keys that
are integers, byte strings, arrays, maps, tagged values, floats, booleans and
null, simple values 0..19 and 32..255, undefined, integers over the whole
range, and lengths and counts in every head size.

usage: differential.py [SDX] [--count N] [--seed S] [--only I] [--work DIR]
                       [--requirements FILE] [--venv DIR]

SDX is the sdx command (default: build/release/sdx in the source tree).
Document I of seed S is the same on every machine; a failure prints the seed,
the document's number (rerun it alone with --seed S --only I), the input and
sdx's output in hex and both decoded values.

Exit status: 0 all passed, 1 a failure, 2 bad usage, 77 skipped (the reason
on stderr): the sdx command has no CBOR format (it does not list `cbor` in
`sdx formats`), or cbor2 cannot be had (no virtualenv module, pip cannot
install it, e.g. offline, or it is missing without --venv).

With --venv the script creates that virtualenv if needed (python3 -m venv),
installs requirements.txt into it with pip and runs itself there.
"""

import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

import pyvenv  # noqa: E402

# The prefix that runs the target's programs (an emulator when
# cross-compiling; set by the build, as for tests/msgpack).
EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()

EXIT_SKIP = 77
U64 = (1 << 64) - 1


def die(msg):
    print("differential: " + msg, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)


def skip(msg):
    """Exit 77 (ctest's SKIP_RETURN_CODE): the tools the test needs are
    missing, which says nothing about sdx."""
    print("differential: skipped: " + msg, file=sys.stderr)
    sys.exit(EXIT_SKIP)


# ---- the sdx command ---------------------------------------------------------


def sdx_has_cbor(sdx):
    """True if `sdx formats` lists a format named cbor that it reads and
    writes; dies if the command cannot be run at all."""
    try:
        r = subprocess.run(EMULATOR + [sdx, "formats"], capture_output=True)
    except OSError as e:
        die("cannot run %s: %s (build it first, or give its path as the first argument)" % (sdx, e))
    if r.returncode != 0:
        die("'%s formats' failed (exit %d): %s" % (sdx, r.returncode, r.stderr.decode(errors="replace").strip()))
    for line in r.stdout.decode(errors="replace").splitlines():
        words = line.split()
        if len(words) >= 3 and words[0].lower() == "cbor":
            return words[1] == "yes" and words[2] == "yes"
    return False


def sdx_convert(sdx, args, data):
    """Run `sdx convert ARGS - -` on DATA; (exit code, stdout, stderr)."""
    r = subprocess.run(EMULATOR + [sdx, "convert"] + args + ["-", "-"], input=data, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode(errors="replace").strip()


# ---- CBOR items: splitting a sequence, checking preferred form ---------------


class Malformed(Exception):
    pass


def float16_bits_of(x):
    """The half-precision bits of x if x is exactly a float16 (NaN: 7e00),
    else None."""
    if math.isnan(x):
        return 0x7E00
    try:
        b = struct.pack(">e", x)
    except OverflowError:
        return None
    return struct.unpack(">H", b)[0] if struct.unpack(">e", b)[0] == x else None


def float32_exact(x):
    if math.isnan(x) or math.isinf(x):
        return True
    try:
        return struct.unpack(">f", struct.pack(">f", x))[0] == x
    except OverflowError:
        return False


def shortest_float(x):
    """The preferred encoding of the double x (RFC 8949 section 4.1)."""
    h = float16_bits_of(x)
    if h is not None:
        return b"\xf9" + struct.pack(">H", h)
    if float32_exact(x):
        return b"\xfa" + struct.pack(">f", x)
    return b"\xfb" + struct.pack(">d", x)


def head(major, n):
    """The shortest head of major type MAJOR with argument N."""
    if n < 24:
        return bytes([major << 5 | n])
    if n < 1 << 8:
        return bytes([major << 5 | 24, n])
    if n < 1 << 16:
        return bytes([major << 5 | 25]) + struct.pack(">H", n)
    if n < 1 << 32:
        return bytes([major << 5 | 26]) + struct.pack(">I", n)
    return bytes([major << 5 | 27]) + struct.pack(">Q", n)


def walk(data, pos, problems, definite_containers=None):
    """Read one well-formed item of DATA at POS; return the position after
    it. Appends to PROBLEMS (offset, what) every place that is not in
    preferred form. definite_containers: None accepts both forms for arrays
    and maps."""
    if pos >= len(data):
        raise Malformed("input ends at byte %d" % pos)
    start = pos
    ib = data[pos]
    major, ai = ib >> 5, ib & 31
    pos += 1
    if 28 <= ai <= 30:
        raise Malformed("reserved additional information at byte %d" % start)
    arg = None
    if ai < 24:
        arg = ai
    elif ai < 28:
        n = 1 << (ai - 24)
        if pos + n > len(data):
            raise Malformed("head cut at byte %d" % start)
        arg = int.from_bytes(data[pos:pos + n], "big")
        pos += n
        if major != 7 and data[start:pos] != head(major, arg):
            problems.append((start, "head of major type %d with argument %d not in its shortest form" % (major, arg)))
    if major in (0, 1):
        if arg is None:
            raise Malformed("indefinite integer at byte %d" % start)
        return pos
    if major in (2, 3):
        if arg is None:
            problems.append((start, "indefinite-length string (sdx joins the chunks into one definite string)"))
            while True:
                if pos >= len(data):
                    raise Malformed("indefinite string not closed (from byte %d)" % start)
                if data[pos] == 0xFF:
                    return pos + 1
                pos = walk(data, pos, problems)
        if pos + arg > len(data):
            raise Malformed("string longer than the input at byte %d" % start)
        return pos + arg
    if major in (4, 5):
        per = 2 if major == 5 else 1
        if arg is None:
            if definite_containers is True:
                problems.append((start, "indefinite-length container where the input had a definite one"))
            while True:
                if pos >= len(data):
                    raise Malformed("indefinite container not closed (from byte %d)" % start)
                if data[pos] == 0xFF:
                    return pos + 1
                for _ in range(per):
                    pos = walk(data, pos, problems, definite_containers)
        if definite_containers is False:
            problems.append((start, "definite-length container where the input had an indefinite one"))
        for _ in range(arg * per):
            pos = walk(data, pos, problems, definite_containers)
        return pos
    if major == 6:
        if arg is None:
            raise Malformed("indefinite tag at byte %d" % start)
        content = pos
        pos = walk(data, pos, problems, definite_containers)
        cai = data[content] & 31
        if arg in (2, 3) and data[content] >> 5 == 2 and cai != 31:
            # a bignum: preferred without leading zeros, and only beyond the
            # range of major types 0 and 1 (RFC 8949 section 3.4.3)
            digits = data[content + (1 if cai < 24 else 1 + (1 << (cai - 24))):pos]
            if (digits[:1] == b"\x00") or int.from_bytes(digits, "big") <= U64:
                problems.append((start, "bignum that is not in preferred form (leading zero, or fits 64 bits)"))
        return pos
    # major type 7
    if ai == 31:
        raise Malformed("break outside an indefinite-length item at byte %d" % start)
    if ai == 24:
        if arg < 32:
            raise Malformed("two-byte simple value below 32 at byte %d" % start)
        return pos
    if ai >= 25:
        width = {25: 2, 26: 4, 27: 8}[ai]
        raw = data[start + 1:pos]
        x = {2: lambda b: struct.unpack(">e", b)[0], 4: lambda b: struct.unpack(">f", b)[0],
             8: lambda b: struct.unpack(">d", b)[0]}[width](raw)
        if data[start:pos] != shortest_float(x):
            problems.append((start, "float %r written as %s, preferred %s"
                             % (x, data[start:pos].hex(), shortest_float(x).hex())))
    return pos


def split_sequence(data):
    """The items of a CBOR sequence, as byte strings."""
    items = []
    pos = 0
    while pos < len(data):
        end = walk(data, pos, [])
        items.append(data[pos:end])
        pos = end
    return items


# ---- comparing decoded values --------------------------------------------------


def same(a, b, cbor2):
    """Equal with exact types, floats by bits (any NaN equals any NaN), maps in
    order."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        if math.isnan(a):
            return math.isnan(b)
        return struct.pack(">d", a) == struct.pack(">d", b)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y, cbor2) for x, y in zip(a, b))
    if isinstance(a, (dict, cbor2.frozendict)):
        return len(a) == len(b) and all(
            same(ka, kb, cbor2) and same(va, vb, cbor2) for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    if isinstance(a, cbor2.CBORTag):
        return a.tag == b.tag and same(a.value, b.value, cbor2)
    if isinstance(a, cbor2.CBORSimpleValue):
        return a.value == b.value
    return a == b


def show(v, limit=2000):
    s = repr(v)
    return s if len(s) <= limit else s[:limit] + "... (%d characters)" % len(s)


# ---- the random CBOR documents -------------------------------------------------


class Float:
    """A double written in the given width (2, 4 or 8 bytes) in the input."""

    def __init__(self, x, width):
        self.x, self.width = x, width


class Array:
    def __init__(self, items, indefinite):
        self.items, self.indefinite = items, indefinite


class Map:
    def __init__(self, pairs, indefinite):
        self.pairs, self.indefinite = pairs, indefinite


class Chunked:
    """An indefinite-length byte or text string made of these chunks."""

    def __init__(self, chunks, text):
        self.chunks, self.text = chunks, text


class Key:
    """A map key as a Python value (hashable: arrays as tuples, maps as
    frozendicts) together with the node that encodes it."""

    def __init__(self, value, node):
        self.value, self.node = value, node


class Gen:
    """Random documents; every choice comes from one random.Random."""

    def __init__(self, rnd, cbor2, tags):
        self.r = rnd
        self.cbor2 = cbor2
        self.tags = tags  # a TagPool

    # -- leaves

    def integer(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            return r.randint(-30, 30)
        if k < 0.6:  # around every head size's edges
            edge = r.choice([23, 24, 255, 256, 65535, 65536, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, 1 << 63, U64])
            v = edge + r.randint(-2, 1)
            v = max(0, min(U64, v))
            return v if r.random() < 0.5 else -1 - v
        if k < 0.9:
            bits = r.randint(1, 64)
            v = r.getrandbits(bits)
            return v if r.random() < 0.5 else -1 - v
        # bignums: beyond -2^64 .. 2^64-1
        v = (1 << 64) + r.choice([0, 1, r.getrandbits(r.randint(1, 200))])
        return v if r.random() < 0.5 else -1 - v

    def double(self):
        r = self.r
        k = r.random()
        if k < 0.15:
            return r.choice([0.0, -0.0, 1.0, -1.0, 1.5, 65504.0, -65504.0, 65520.0, 5.960464477539063e-08,
                             6.103515625e-05, 6.097555160522461e-05, 1e300, 5e-324, 2.2250738585072014e-308,
                             1.401298464324817e-45, 1.1754943508222875e-38, 3.4028234663852886e38,
                             1.7976931348623157e308, 100000.0, 0.1, math.inf, -math.inf, math.nan])
        if k < 0.4:  # a float16
            while True:
                x = struct.unpack(">e", struct.pack(">H", r.getrandbits(16)))[0]
                if not math.isnan(x):
                    return x
        if k < 0.65:  # a float32
            while True:
                x = struct.unpack(">f", struct.pack(">I", r.getrandbits(32)))[0]
                if not math.isnan(x):
                    return x
        if k < 0.85:
            while True:
                x = struct.unpack(">d", struct.pack(">Q", r.getrandbits(64)))[0]
                if not math.isnan(x):
                    return x
        return r.choice([r.uniform(-1000, 1000), float(r.randint(-10**6, 10**6)), r.random() * 10 ** r.randint(-30, 30)])

    def float_node(self):
        x = self.double()
        widths = [2, 4, 8] if float16_bits_of(x) is not None else [4, 8] if float32_exact(x) else [8]
        return Float(x, self.r.choice(widths))

    def length(self):
        r = self.r
        k = r.random()
        if k < 0.6:
            return r.randint(0, 12)
        if k < 0.85:
            return r.randint(13, 40)
        if k < 0.97:
            return r.randint(200, 300)
        if k < 0.995:
            return r.randint(1000, 3000)
        return r.randint(65530, 70000)

    def text(self, n=None):
        r = self.r
        n = self.length() if n is None else n
        alphabets = ["abcxyz ", "\"\\/\b\f\n\r\t\x00\x1f", "\u00e9\u00fc\u00df", "\u6c34\u20ac\u2028",
                     "\U0001f600\U00010151", "\x7f\u0080\u07ff\u0800\uffff\U0010ffff"]
        pick = r.sample(alphabets, r.randint(1, len(alphabets)))
        pool = "".join(pick)
        return "".join(r.choice(pool) for _ in range(n))

    def blob(self, n=None):
        n = self.length() if n is None else n
        return bytes(self.r.getrandbits(8) for _ in range(n))

    def chunked(self, text):
        r = self.r
        chunks = []
        for _ in range(r.choice([0, 1, 1, 2, 3, 5])):
            n = r.choice([0, 0, 1, 3, 10, 30, 300])
            chunks.append(self.text(n) if text else self.blob(n))
        return Chunked(chunks, text)

    def simple(self):
        r = self.r
        k = r.random()
        if k < 0.2:
            return self.cbor2.undefined
        if k < 0.6:
            return self.cbor2.CBORSimpleValue(r.randint(0, 19))
        return self.cbor2.CBORSimpleValue(r.choice([32, 33, 100, 254, 255, r.randint(32, 255)]))

    def tag_number(self):
        """A tag number in any head size, one without meaning to cbor2 or sdx."""
        r = self.r
        while True:
            n = r.choice([r.randint(6, 23), r.randint(24, 255), r.randint(256, 65535),
                          r.randint(1 << 16, (1 << 32) - 1), r.randint(1 << 32, U64),
                          r.choice([6, 23, 255, 256, 65535, 65536, (1 << 32) - 1, 1 << 32, U64])])
            if self.tags.plain(n):
                return n

    def tagged(self, node):
        for _ in range(self.r.choice([1, 1, 1, 2, 3])):
            node = self.cbor2.CBORTag(self.tag_number(), node)
        return node

    def embedded(self, depth):
        """Tag 24 (embedded CBOR): a byte string holding a CBOR item."""
        inner = self.cbor2.dumps(self.value(depth + 1), default=self.encode_hook)
        return self.cbor2.CBORTag(24, inner)

    # -- values and keys

    def leaf(self):
        r = self.r
        k = r.random()
        if k < 0.25:
            return self.integer()
        if k < 0.45:
            return self.float_node()
        if k < 0.6:
            return self.text()
        if k < 0.7:
            return self.blob()
        if k < 0.78:
            return self.chunked(r.random() < 0.5)
        if k < 0.88:
            return r.choice([True, False, None])
        return self.simple()

    def value(self, depth):
        r = self.r
        k = r.random()
        # containers get rarer with depth, so documents stay small
        c = 0.45 / (1 + depth)
        if depth < 6 and k < c / 2:
            return Array([self.value(depth + 1) for _ in range(self.count(depth))], r.random() < 0.3)
        if depth < 6 and k < c:
            return Map(self.pairs(depth), r.random() < 0.3)
        if k < c + 0.1:
            node = self.value(depth + 1) if depth < 6 else self.leaf()
            return self.tagged(node)
        if depth < 5 and k < c + 0.12:
            return self.embedded(depth)
        return self.leaf()

    def count(self, depth):
        """An element count: small, or past the one-byte (24) and two-byte
        (256) heads near the top."""
        r = self.r
        k = r.random()
        if k < 0.85 or depth > 1:
            return r.randint(0, 6)
        if k < 0.97:
            return r.randint(20, 30)
        return r.randint(250, 300)

    def key(self, depth):
        """A map key of any type cbor2 can hold in a dict."""
        r = self.r
        k = r.random()
        if k < 0.3:
            s = self.text(r.randint(0, 8))
            return Key(s, s)
        if k < 0.55:
            v = self.integer()
            return Key(v, v)
        if k < 0.65:
            b = self.blob(r.randint(0, 8))
            return Key(b, b)
        if k < 0.72 and depth < 5:  # an array
            keys = [self.key(depth + 1) for _ in range(r.randint(0, 3))]
            return Key(tuple(x.value for x in keys), Array([x.node for x in keys], r.random() < 0.3))
        if k < 0.77 and depth < 5:  # a map
            pairs = self.key_pairs(depth + 1, r.randint(0, 2))
            return Key(self.cbor2.frozendict((a.value, b.value) for a, b in pairs),
                       Map([(a.node, b.node) for a, b in pairs], r.random() < 0.3))
        if k < 0.85:  # a tagged key
            inner = self.key(depth + 1) if depth < 5 else Key(0, 0)
            n = self.tag_number()
            return Key(self.cbor2.CBORTag(n, inner.value), self.cbor2.CBORTag(n, inner.node))
        if k < 0.92:  # a float that is no integer (1.0 would be the key 1)
            while True:
                x = self.double()
                if math.isinf(x) or (math.isfinite(x) and x != int(x)):
                    break
            f = Float(x, 8)
            return Key(x, f)
        v = r.choice([True, False, None])
        return Key(v, v)

    def key_pairs(self, depth, n):
        """N (key, value-as-key) pairs with keys unequal in Python."""
        seen = {}
        pairs = []
        for _ in range(n):
            key = self.key(depth)
            try:
                if key.value in seen:
                    continue
            except TypeError:
                continue
            seen[key.value] = True
            pairs.append((key, self.key(depth)))
        return pairs

    def pairs(self, depth):
        seen = {}
        pairs = []
        for _ in range(self.count(depth)):
            key = self.key(depth)
            if key.value in seen:
                continue
            seen[key.value] = True
            pairs.append((key.node, self.value(depth + 1)))
        return pairs

    def document(self):
        node = self.value(0)
        if self.r.random() < 0.02:
            node = self.cbor2.CBORTag(55799, node)
        return node

    # -- encodings

    def encode_hook(self, enc, obj):
        """cbor2's hook for the nodes above."""
        if isinstance(obj, Float):
            fmt = {2: ">Be", 4: ">Bf", 8: ">Bd"}[obj.width]
            if math.isnan(obj.x):
                nan = {2: b"\xf9\x7e\x00", 4: b"\xfa\x7f\xc0\x00\x00", 8: b"\xfb\x7f\xf8\x00\x00\x00\x00\x00\x00"}
                enc.write(nan[obj.width])
            else:
                enc.write(struct.pack(fmt, {2: 0xF9, 4: 0xFA, 8: 0xFB}[obj.width], obj.x))
        elif isinstance(obj, Array):
            enc.encode_length(4, None if obj.indefinite else len(obj.items))
            for item in obj.items:
                enc.encode(item)
            if obj.indefinite:
                enc.encode_break()
        elif isinstance(obj, Map):
            enc.encode_length(5, None if obj.indefinite else len(obj.pairs))
            for k, v in obj.pairs:
                enc.encode(k)
                enc.encode(v)
            if obj.indefinite:
                enc.encode_break()
        elif isinstance(obj, Chunked):
            enc.encode_length(3 if obj.text else 2, None)
            for c in obj.chunks:
                enc.encode(c)
            enc.encode_break()
        else:
            raise TypeError("cannot encode %r" % type(obj))


def preferred(node, cbor2, definite=False):
    """What sdx should write for NODE: the preferred serialization (our own
    encoder, RFC 8949 sections 3 and 4.1), arrays and maps as definite or
    indefinite as in the input (all definite if DEFINITE), chunked strings
    joined."""
    out = bytearray()

    def enc(v):
        if v is True:
            out.append(0xF5)
        elif v is False:
            out.append(0xF4)
        elif v is None:
            out.append(0xF6)
        elif v is cbor2.undefined:
            out.append(0xF7)
        elif isinstance(v, int):
            if 0 <= v <= U64:
                out.extend(head(0, v))
            elif -1 - U64 <= v < 0:
                out.extend(head(1, -1 - v))
            else:
                n = v if v > 0 else -1 - v
                digits = n.to_bytes((n.bit_length() + 7) // 8, "big")
                out.extend(head(6, 2 if v > 0 else 3) + head(2, len(digits)) + digits)
        elif isinstance(v, float):
            out.extend(shortest_float(v))
        elif isinstance(v, Float):
            out.extend(shortest_float(v.x))
        elif isinstance(v, str):
            b = v.encode("utf-8")
            out.extend(head(3, len(b)) + b)
        elif isinstance(v, bytes):
            out.extend(head(2, len(v)) + v)
        elif isinstance(v, Chunked):
            if v.text:
                b = "".join(v.chunks).encode("utf-8")
                out.extend(head(3, len(b)) + b)
            else:
                b = b"".join(v.chunks)
                out.extend(head(2, len(b)) + b)
        elif isinstance(v, Array):
            indefinite = v.indefinite and not definite
            out.extend(b"\x9f" if indefinite else head(4, len(v.items)))
            for x in v.items:
                enc(x)
            if indefinite:
                out.append(0xFF)
        elif isinstance(v, Map):
            indefinite = v.indefinite and not definite
            out.extend(b"\xbf" if indefinite else head(5, len(v.pairs)))
            for k, x in v.pairs:
                enc(k)
                enc(x)
            if indefinite:
                out.append(0xFF)
        elif isinstance(v, cbor2.CBORTag):
            out.extend(head(6, v.tag))
            enc(v.value)
        elif isinstance(v, cbor2.CBORSimpleValue):
            out.extend(bytes([0xE0 | v.value]) if v.value < 24 else bytes([0xF8, v.value]))
        else:
            raise TypeError("unexpected node %r" % type(v))

    enc(node)
    return bytes(out)


class TagPool:
    """Which tag numbers the documents may use: those cbor2 hands back as
    plain tags (it gives meaning to others: dates, decimals, sets, shared
    values, ...; asked of cbor2 itself, once per number) and sdx gives no
    meaning to (0-5, 24 and 55799 have one; 24 and 55799 are generated on
    their own)."""

    SDX_MEANING = {0, 1, 2, 3, 4, 5, 24, 55799}

    def __init__(self, cbor2):
        self.cbor2 = cbor2
        self.known = {}

    def plain(self, n):
        if n in self.SDX_MEANING:
            return False
        if n not in self.known:
            cbor2 = self.cbor2
            ok = True
            for probe in (0, "x", b"x", (0,), 1.5, None):
                try:
                    back = cbor2.loads(cbor2.dumps(cbor2.CBORTag(n, probe)))
                except Exception:  # noqa: BLE001
                    ok = False
                    break
                if not (isinstance(back, cbor2.CBORTag) and back.tag == n and back.value == probe):
                    ok = False
                    break
            self.known[n] = ok
        return self.known[n]


# ---- the random JSON documents -------------------------------------------------


def json_number(r):
    k = r.random()
    if k < 0.45:
        edge = r.choice([0, 23, 24, 255, 256, 65535, 65536, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, 1 << 63, U64,
                         1 << 64, r.getrandbits(r.randint(1, 64))])
        v = max(0, edge + r.randint(-2, 2))
        v = v if r.random() < 0.5 else -v
        return v if v != 0 or r.random() < 0.5 else 1
    if k < 0.55:  # beyond 64 bits
        v = (1 << 64) + r.getrandbits(r.randint(1, 300))
        return v if r.random() < 0.5 else -v - 1
    while True:
        x = struct.unpack(">d", struct.pack(">Q", r.getrandbits(64)))[0] if k < 0.75 else r.choice(
            [0.5, -0.0, 0.0, 1.0, 65504.0, 1.5e-5, 3.4028234663852886e38, 5e-324, 1e308, r.uniform(-1e6, 1e6),
             struct.unpack(">e", struct.pack(">H", r.getrandbits(16)))[0],
             struct.unpack(">f", struct.pack(">I", r.getrandbits(32)))[0]])
        if math.isfinite(x):
            return x


def json_value(r, gen, depth):
    k = r.random()
    c = 0.45 / (1 + depth)
    if depth < 6 and k < c / 2:
        return [json_value(r, gen, depth + 1) for _ in range(gen.count(depth))]
    if depth < 6 and k < c:
        d = {}
        for _ in range(gen.count(depth)):
            d[gen.text(r.randint(0, 10))] = json_value(r, gen, depth + 1)
        return d
    if k < c + 0.35:
        return json_number(r)
    if k < c + 0.5:
        return gen.text()
    return r.choice([True, False, None])


def json_text(v, r):
    """JSON text for V: json.dumps, with ASCII escapes or raw UTF-8 at random,
    floats in Python's shortest form or with an exponent."""
    if isinstance(v, float) and r.random() < 0.3 and v != 0:
        m, e = ("%.17e" % v).split("e")
        return "%sE%d" % (m, int(e))
    if isinstance(v, list):
        return "[" + ",".join(json_text(x, r) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=r.random() < 0.5) + ":" + json_text(x, r)
                              for k, x in v.items()) + "}"
    return json.dumps(v, ensure_ascii=r.random() < 0.5)


# ---- the test ------------------------------------------------------------------


class Report:
    """Counts, the first failures in full, and (with --work) every failing
    input as a file."""

    def __init__(self, seed, work):
        self.seed = seed
        self.work = work
        self.passed = 0
        self.failed = 0
        self.shown = 0
        self.kinds = {}

    def fail(self, direction, index, what, lines, data):
        self.failed += 1
        if self.work:
            name = "%s-seed%d-doc%d.%s" % (direction.replace("->", "-to-"), self.seed, index,
                                           "json" if direction.startswith("json") else "cbor")
            with open(os.path.join(self.work, name), "wb") as f:
                f.write(data)
        self.kinds[direction + ": " + what] = self.kinds.get(direction + ": " + what, 0) + 1
        if self.shown < 20:
            self.shown += 1
            print("FAIL %s, seed %d, document %d (rerun: --seed %d --only %d): %s"
                  % (direction, self.seed, index, self.seed, index, what), file=sys.stderr)
            for line in lines:
                print("    " + line, file=sys.stderr)


def convert_all(sdx, args, docs, sep):
    """Convert every document with sdx: all at once as a sequence, and if
    that fails or gives another number of items, one by one. A list of
    (output bytes or None, error message) per document."""
    r = subprocess.run(EMULATOR + [sdx, "convert", "--seq"] + args + ["-", "-"], input=sep.join(docs),
                       capture_output=True)
    if r.returncode == 0:
        try:
            items = split_sequence(r.stdout)
        except Malformed:
            items = None
        if items is not None and len(items) == len(docs):
            return [(item, "") for item in items]
    results = []
    for d in docs:
        rc, out, err = sdx_convert(sdx, args, d)
        results.append((out, "") if rc == 0 else (None, "sdx convert failed (exit %d): %s" % (rc, err)))
    return results


def check_cbor(cbor2, node, data, out, err):
    """None if sdx's OUT for cbor2's DATA (the encoding of NODE) is right,
    else (what is wrong, extra lines)."""
    if out is None:
        return "sdx rejects cbor2's bytes", [err]
    try:
        got = cbor2.loads(out)
    except Exception as e:  # noqa: BLE001
        return "cbor2 cannot decode sdx's output", ["cbor2: %s" % e]
    if not same(cbor2.loads(data), got, cbor2):
        return "sdx's output decodes to another value", []
    # Arrays and maps that came with indefinite length may stay so (sdx's
    # writer keeps an unknown count unknown by default) or all be written
    # with definite length (which RFC 8949 section 4.1 prefers where the
    # length is known); a leading tag 55799 may be kept or dropped.
    expect = preferred(node, cbor2)
    alternatives = [expect, preferred(node, cbor2, definite=True)]
    if isinstance(node, cbor2.CBORTag) and node.tag == 55799:
        alternatives += [preferred(node.value, cbor2), preferred(node.value, cbor2, definite=True)]
    if out in alternatives:
        return None
    problems = []
    try:
        end = walk(out, 0, problems)
        if end != len(out):
            problems.append((end, "bytes after the item"))
    except Malformed as e:
        problems.append((0, str(e)))
    where = ["byte %d: %s" % p for p in problems[:5]] or \
        ["every head and float is in preferred form; the items differ otherwise"]
    return "sdx's output is not the preferred serialization", ["preferred: %s" % show(expect.hex())] + where


def check_json(cbor2, text, out, err):
    """None if sdx's OUT for the JSON TEXT is right, else (what is wrong,
    extra lines)."""
    if out is None:
        return "sdx cannot convert the JSON to CBOR", [err]
    return check_value_and_form(cbor2, json.loads(text), out, "sdx's output decodes to another value")


def check_value_and_form(cbor2, value, out, differs):
    """None if cbor2 decodes OUT to VALUE and every head and float in it is
    in preferred form (arrays and maps definite or indefinite), else (what
    is wrong, extra lines); DIFFERS says what a wrong value is."""
    try:
        got = cbor2.loads(out)
    except Exception as e:  # noqa: BLE001
        return "cbor2 cannot decode sdx's output", ["cbor2: %s" % e]
    if not same(value, got, cbor2):
        return differs, []
    problems = []
    try:
        end = walk(out, 0, problems)
        if end != len(out):
            problems.append((end, "bytes after the item"))
    except Malformed as e:
        problems.append((0, str(e)))
    if problems:
        return "sdx's output is not in preferred form", ["byte %d: %s" % p for p in problems[:5]]
    return None


def json_holds(v, cbor2, top=True):
    """Whether the value V (as cbor2 decodes it) comes back from JSON with
    --tags=wrap: no byte strings, text keys only, no undefined, finite
    floats, no tag 24 (dropped on the way) nor 55799 below the top."""
    if isinstance(v, (bytes, bytearray)) or v is cbor2.undefined:
        return False
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, (list, tuple)):
        return all(json_holds(x, cbor2, False) for x in v)
    if isinstance(v, (dict, cbor2.frozendict)):
        return all(isinstance(k, str) and json_holds(x, cbor2, False) for k, x in v.items())
    if isinstance(v, cbor2.CBORTag):
        if v.tag == 24 or (v.tag == 55799 and not top):
            return False
        return json_holds(v.value, cbor2, False)
    return True


def convert_to_json(sdx, args, docs):
    """Convert every CBOR document to JSON with sdx: all at once as a
    sequence (one line each), and if that fails or gives another number
    of lines, one by one. A list of (JSON text or None, error message)."""
    r = subprocess.run(EMULATOR + [sdx, "convert", "--seq"] + args + ["-", "-"], input=b"".join(docs),
                       capture_output=True)
    if r.returncode == 0:
        lines = r.stdout.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if len(lines) == len(docs):
            return [(line, "") for line in lines]
    results = []
    for d in docs:
        rc, out, err = sdx_convert(sdx, args, d)
        results.append((out.rstrip(b"\n"), "") if rc == 0 else (None, "sdx convert failed (exit %d): %s" % (rc, err)))
    return results


def run_via_json(sdx, cbor2, seed, indices, report):
    """Direction 3: the CBOR documents JSON can hold, through JSON and back."""
    tags = TagPool(cbor2)
    docs = []
    for i in indices:
        gen = Gen(random.Random("cbor:%d:%d" % (seed, i)), cbor2, tags)
        node = gen.document()
        data = cbor2.dumps(node, default=gen.encode_hook)
        value = cbor2.loads(data)
        if json_holds(value, cbor2):
            if data[:3] == b"\xd9\xd9\xf7":
                # tag 55799 is dropped on the way; cbor2 drops it too but
                # gives its content as immutable values (tuple, frozendict),
                # so the content is decoded alone (as list and dict)
                value = cbor2.loads(data[3:])
            docs.append((i, data, value))
    wrap = ["--tags=wrap"]
    texts = convert_to_json(sdx, wrap + ["-f", "cbor", "-t", "json"], [d for _, d, _ in docs])
    back = convert_all(sdx, wrap + ["-f", "json", "-t", "cbor"], [t if t is not None else b"null" for t, _ in texts],
                       b"\n")
    for (i, data, value), (text, err), (out, err2) in zip(docs, texts, back):
        lines = ["input (%d bytes): %s" % (len(data), show(data.hex())),
                 "input decoded by cbor2: %s" % show(value)]
        if text is None:
            report.fail("cbor->json->cbor", i, "sdx cannot convert the CBOR to JSON", lines + [err], data)
            continue
        lines.append("sdx's JSON: %s" % show(text.decode("utf-8", "replace")))
        if out is None:
            report.fail("cbor->json->cbor", i, "sdx cannot convert its own JSON back to CBOR", lines + [err2], data)
            continue
        lines += ["sdx output (%d bytes): %s" % (len(out), show(out.hex())),
                  "output decoded by cbor2: %s" % decoded(cbor2, out)]
        bad = check_value_and_form(cbor2, value, out, "the value does not come back")
        if bad is not None:
            report.fail("cbor->json->cbor", i, bad[0], lines + bad[1], data)
            continue
        report.passed += 1
    return len(docs)


def decoded(cbor2, data):
    try:
        return show(cbor2.loads(data))
    except Exception as e:  # noqa: BLE001
        return "(cbor2 cannot decode it: %s)" % e


def run_cbor(sdx, cbor2, seed, indices, report):
    tags = TagPool(cbor2)
    docs = []
    for i in indices:
        gen = Gen(random.Random("cbor:%d:%d" % (seed, i)), cbor2, tags)
        node = gen.document()
        docs.append((i, node, cbor2.dumps(node, default=gen.encode_hook)))
    results = convert_all(sdx, ["-f", "cbor", "-t", "cbor"], [d for _, _, d in docs], b"")
    for (i, node, data), (out, err) in zip(docs, results):
        bad = check_cbor(cbor2, node, data, out, err)
        if bad is None:
            report.passed += 1
            continue
        lines = ["input (%d bytes): %s" % (len(data), show(data.hex())),
                 "input decoded by cbor2: %s" % decoded(cbor2, data)]
        if out is not None:
            lines += ["sdx output (%d bytes): %s" % (len(out), show(out.hex())),
                      "output decoded by cbor2: %s" % decoded(cbor2, out)]
        report.fail("cbor->cbor", i, bad[0], lines + bad[1], data)


def run_json(sdx, cbor2, seed, indices, report):
    docs = []
    for i in indices:
        r = random.Random("json:%d:%d" % (seed, i))
        docs.append((i, json_text(json_value(r, Gen(r, cbor2, None), 0), r)))
    results = convert_all(sdx, ["-f", "json", "-t", "cbor"], [t.encode("utf-8") for _, t in docs], b"\n")
    for (i, text), (out, err) in zip(docs, results):
        bad = check_json(cbor2, text, out, err)
        if bad is None:
            report.passed += 1
            continue
        lines = ["input (JSON): %s" % show(text), "input read by Python's json: %s" % show(json.loads(text))]
        if out is not None:
            lines += ["sdx output (%d bytes): %s" % (len(out), show(out.hex())),
                      "output decoded by cbor2: %s" % decoded(cbor2, out)]
        report.fail("json->cbor", i, bad[0], lines + bad[1], text.encode("utf-8"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sdx", nargs="?", default=os.path.join(ROOT, "build", "release", "sdx"),
                    help="the sdx command (default: build/release/sdx)")
    ap.add_argument("--count", type=int, default=2000, help="documents per direction (default 2000)")
    ap.add_argument("--seed", type=int, default=20240613)
    ap.add_argument("--only", type=int, help="run only this document of each direction")
    ap.add_argument("--work", help="write every failing input into this directory")
    ap.add_argument("--requirements", default=os.path.join(HERE, "requirements.txt"))
    ap.add_argument("--venv")
    args = ap.parse_args()
    if args.count < 1:
        ap.error("--count must be at least 1")

    # Skip before installing anything when the command cannot do CBOR yet.
    if not sdx_has_cbor(args.sdx):
        skip("%s has no CBOR format ('sdx formats' does not list cbor as read and write)" % args.sdx)

    # No virtualenv module, or pip that cannot reach PyPI: the reference
    # cannot be had here, which is a skip, not a failure of sdx.
    pyvenv.reexec_in_venv(args.venv, args.requirements, __file__, skip)
    try:
        import cbor2
    except ImportError:
        skip("Python's cbor2 package is missing (run with --venv DIR to install it)")

    indices = [args.only] if args.only is not None else list(range(args.count))
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    report = Report(args.seed, args.work)
    run_cbor(args.sdx, cbor2, args.seed, indices, report)
    cbor_passed = report.passed
    run_json(args.sdx, cbor2, args.seed, indices, report)
    json_passed = report.passed - cbor_passed
    via_json = run_via_json(args.sdx, cbor2, args.seed, indices, report)
    for kind, n in sorted(report.kinds.items()):
        print("  %d x %s" % (n, kind), file=sys.stderr)
    version = getattr(cbor2, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as v
            version = v("cbor2")
        except Exception:  # noqa: BLE001
            version = "?"
    print("differential: seed %d, %d documents each way, cbor2 %s; cbor->cbor %d passed, json->cbor %d passed, "
          "cbor->json->cbor %d of %d (those JSON holds) passed"
          % (args.seed, len(indices), version, cbor_passed, json_passed,
             report.passed - cbor_passed - json_passed, via_json))
    print("%d passed, %d failed" % (report.passed, report.failed))
    sys.exit(1 if report.failed or report.passed == 0 else 0)


if __name__ == "__main__":
    main()
