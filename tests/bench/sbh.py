"""The benchmark's value hash (sbh64) and data generator, ported to Python
from bench/harness/SPEC.md alone (not from the C code), for the tests in
this directory: an independent implementation to check the C harness with.

Values are Python objects: None, bool, int (any sign, within 64 bits),
float, str, bytes, list, dict (or a list of (key, value) pairs wrapped in
Pairs, to keep duplicate keys and order).
"""

import struct

M = (1 << 64) - 1

NULL, FALSE, TRUE, UINT, NEGINT, DOUBLE, STR, KEY, BIN, ARRAY, MAP, END = range(1, 13)


class Sbh:
    def __init__(self):
        self.h = 0x243F6A8885A308D3

    def word(self, w):
        h = ((self.h ^ (w & M)) * 0x9E3779B97F4A7C15) & M
        self.h = h ^ (h >> 29)

    def final(self):
        h = self.h
        h ^= h >> 32
        h = (h * 0xD6E8FEB86659FD93) & M
        return h ^ (h >> 32)

    def bytes(self, b):
        b = bytes(b)
        n = len(b)
        self.word(n)
        i = 0
        if n >= 32:
            lanes = [self.h, self.h ^ 1, self.h ^ 2, self.h ^ 3]
            while n - i >= 32:
                for k in range(4):
                    w = int.from_bytes(b[i + 8 * k:i + 8 * k + 8], "little")
                    l = ((lanes[k] ^ w) * 0x9E3779B97F4A7C15) & M
                    lanes[k] = l ^ (l >> 29)
                i += 32
            self.h = lanes[0]
            for k in range(1, 4):
                self.word(lanes[k])
        while n - i >= 8:
            self.word(int.from_bytes(b[i:i + 8], "little"))
            i += 8
        if i < n:
            self.word(int.from_bytes(b[i:], "little"))

    def integer(self, v):
        if not -(1 << 63) <= v <= M:
            raise ValueError("integer out of the 64-bit range: %d" % v)
        self.word(UINT if v >= 0 else NEGINT)
        self.word(v & M)

    def double(self, d):
        self.word(DOUBLE)
        self.word(struct.unpack("<Q", struct.pack("<d", d))[0])


class Pairs(list):
    """A map as a list of (key, value) pairs, in document order."""


def absorb(s, v):
    """Absorb a decoded value into s in document order."""
    if v is None:
        s.word(NULL)
    elif v is True or v is False:
        s.word(TRUE if v else FALSE)
    elif isinstance(v, int):
        s.integer(int(v))
    elif isinstance(v, float):
        s.double(v)
    elif isinstance(v, str):
        s.word(STR)
        s.bytes(v.encode("utf-8"))
    elif isinstance(v, (bytes, bytearray)):
        s.word(BIN)
        s.bytes(v)
    elif isinstance(v, (dict, Pairs)):
        s.word(MAP)
        for k, x in (v.items() if isinstance(v, dict) else v):
            if isinstance(k, str):
                s.word(KEY)
                s.bytes(k.encode("utf-8"))
            else:
                absorb(s, k)
            absorb(s, x)
        s.word(END)
    elif isinstance(v, (list, tuple)):
        s.word(ARRAY)
        for x in v:
            absorb(s, x)
        s.word(END)
    else:
        raise TypeError("cannot hash %r" % type(v))


def value_hash(v):
    s = Sbh()
    absorb(s, v)
    return s.final()


def bytes_hash(b):
    s = Sbh()
    s.bytes(b)
    return s.final()


# ---- the generator (SPEC.md) -------------------------------------------------

KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"
TEXT_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789 ,.-_:!?"
ESCAPES = "\"\\\n\t\x01/"
WIDE = ["\u00e9", "\u00f1", "\u00fc", "\u00df", "\u4e2d", "\u6587", "\u65e5", "\u672c", "\U0001F600", "\U0001F680"]
TARGETS = [30, 300, 3000, 30000, 300000]


class _Rng:
    def __init__(self, state):
        self.s = state & M

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def _double(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


# The extended data's extreme values, number below(12) - 4.
EXTREMES = [
    M,  # UINT64_MAX
    -(1 << 63),  # INT64_MIN
    (1 << 63) - 1,  # INT64_MAX
    _double(0x8000000000000000),  # -0.0
    _double(0x0000000000000001),  # the smallest subnormal
    _double(0x000FFFFFFFFFFFFF),  # the largest subnormal
    _double(0x0010000000000000),  # the smallest normal
    _double(0x7FEFFFFFFFFFFFFF),  # DBL_MAX
]


def generate(size, seed=1, extended=False):
    """The tree of gen:SIZE:SEED (gen:SIZE:SEED:extended if `extended`) as
    Python values (ints, floats, str, list, Pairs)."""
    r = _Rng(seed + size * 0x632BE59BD9B4E019)
    count = [0]

    def key(used):
        while True:
            n = 2 + r.below(9)
            k = "".join(KEY_CHARS[r.below(36)] for _ in range(n))
            if k not in used:
                used.add(k)
                return k

    def string():
        x = r.below(100)
        n = 1 + r.below(16) if x < 70 else 16 + r.below(100) if x < 95 else 100 + r.below(900)
        m = r.below(100)
        escapes, wide = m < 5, m >= 85
        out = []
        for _ in range(n):
            if escapes and r.below(10) == 0:
                out.append(ESCAPES[r.below(6)])
            elif wide and r.below(4) == 0:
                out.append(WIDE[r.below(10)])
            else:
                out.append(TEXT_CHARS[r.below(44)])
        return "".join(out)

    def item(container, is_map, used, depth):
        if is_map:
            k = key(used)
            container.append((k, value(depth)))
        else:
            container.append(value(depth))

    def value(depth):
        count[0] += 1
        if r.below(100) < 24 // depth:
            is_map = r.below(2) == 0
            n = r.below(30) if r.below(4) == 0 else r.below(8)
            c = Pairs() if is_map else []
            used = set()
            for _ in range(n):
                item(c, is_map, used, depth + 1)
            return c
        s = r.below(100)
        if s < 30:
            return r.below(2000) - 200
        if s < 35:
            v = r.next()
            return v - (1 << 64) if v >= 1 << 63 else v
        if s < 38:
            if not extended:
                return r.next() >> 1
            e = r.below(12)
            return r.next() | (1 << 63) if e < 4 else EXTREMES[e - 4]
        if s < 50:
            sign = r.below(2)
            exponent = 1023 + r.below(81) - 40
            mantissa = r.next() & ((1 << 52) - 1)
            return _double(sign << 63 | exponent << 52 | mantissa)
        if s < 58:
            return r.below(2) == 1
        if s < 62:
            return None
        return string()

    root_is_map = r.below(2) == 0
    root = Pairs() if root_is_map else []
    used = set()
    while count[0] < TARGETS[size - 1]:
        item(root, root_is_map, used, 1)
    return root


def adapt(fmt, v, root=True):
    """The value v adapted to a format as SPEC.md ("Adapting to a format")
    and bench/harness/tree.c's bt_adapt say: for bson a root array becomes a
    map with keys "0", "1", ...; for bson and ubjson integers above
    INT64_MAX become the nearest double."""
    if fmt not in ("bson", "ubjson"):
        return v
    if isinstance(v, Pairs):
        return Pairs((k, adapt(fmt, x, False)) for k, x in v)
    if isinstance(v, list):
        v = [adapt(fmt, x, False) for x in v]
        return Pairs((str(i), x) for i, x in enumerate(v)) if root and fmt == "bson" else v
    if isinstance(v, int) and not isinstance(v, bool) and v > (1 << 63) - 1:
        return float(v)
    return v


def read_vectors(path):
    """The (length, hash) pairs of vectors.txt."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            n, h = line.split()
            out.append((int(n), int(h, 16)))
    return out


def vector_bytes(n):
    return bytes((i * 31 + 7) % 256 for i in range(n))
