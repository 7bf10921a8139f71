"""examples/ndjson_msgpack.py runs: small generated files, one and two
workers with each backend that is installed, every record read back
equal."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("backend", ["thread", "process"])
def test_ndjson_msgpack_example(tmp_path, backend):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "ndjson_msgpack.py"), str(tmp_path),
                          "--make", "3", "--size", "50000", "--workers", "1,2", "--backend", backend],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "records read back equal" in out.stdout
    lines = [l for l in out.stdout.splitlines() if l.strip().split(" ")[0] in ("1", "2")]
    assert len(lines) == 2, out.stdout
    assert sorted(os.listdir(tmp_path / "msgpack")) == ["part-0000.msgpack", "part-0001.msgpack", "part-0002.msgpack"]
