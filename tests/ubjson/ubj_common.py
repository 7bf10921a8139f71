"""What the UBJSON test scripts (differential.py, pyubjson_vectors.py)
share: running ubj_tool, and a comparable form of decoded values."""

import base64
import os
import subprocess
from decimal import Decimal

EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()


def run(tool, *args):
    """Run ubj_tool (under SDX_TEST_EMULATOR); (exit status, stderr text)."""
    r = subprocess.run(EMULATOR + [tool] + list(args), capture_output=True)
    return r.returncode, r.stderr.decode(errors="replace")


def norm(v, number):
    """A form of a value in which equal documents compare equal: numbers
    (ints, floats, Decimals) as `number` gives them, bytes as their base64
    text (how sdx writes them in JSON), objects as lists of pairs (order
    kept)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) or isinstance(v, Decimal):
        return number(v)
    if isinstance(v, str):
        return ("s", v)
    if isinstance(v, (bytes, bytearray)):
        return ("s", base64.b64encode(bytes(v)).decode())
    if isinstance(v, list):
        return ["a"] + [norm(x, number) for x in v]
    if isinstance(v, dict):
        return ["m"] + [(k, norm(x, number)) for k, x in v.items()]
    return ("?", repr(v))
