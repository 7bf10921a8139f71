"""pytest configuration of the Python package's tests: hypothesis profiles
(SDX_PYTEST_QUICK=1, set for the sanitizers' run, and CI=true run fewer
examples) and the corpus directory."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# hypothesis keeps what it stores (failed examples, caches) under build/,
# not in the tree
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(ROOT, "build", "hypothesis"))

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis.database import DirectoryBasedExampleDatabase  # noqa: E402

QUICK = os.environ.get("SDX_PYTEST_QUICK") == "1"
CI = os.environ.get("CI") == "true"

DB = DirectoryBasedExampleDatabase(os.path.join(ROOT, "build", "hypothesis"))
COMMON = dict(deadline=None, database=DB,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("quick", max_examples=30, **COMMON)
settings.register_profile("ci", max_examples=150, **COMMON)
settings.register_profile("full", max_examples=400, **COMMON)
settings.load_profile("quick" if QUICK else "ci" if CI else "full")


def corpus_dir():
    """SDX_CORPUS (make test sets it), else ../shared/corpus, else the
    bundled tests/corpus/corpus.tar.xz unpacked into build/."""
    d = os.environ.get("SDX_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")
    if os.path.isdir(d):
        return d
    tar = os.path.join(ROOT, "tests", "corpus", "corpus.tar.xz")
    out = os.path.join(ROOT, "build", "pytest-corpus")
    if not os.path.isdir(out) and os.path.exists(tar):
        import tarfile
        with tarfile.open(tar) as t:
            t.extractall(out)
    for base, _, files in os.walk(out):
        if any(f.endswith(".json") for f in files):
            return base
    return None


@pytest.fixture(scope="session")
def corpus():
    d = corpus_dir()
    if d is None:
        pytest.fail("no corpus: set SDX_CORPUS or provide ../shared/corpus")
    files = sorted(f for f in os.listdir(d) if f.endswith(".json"))
    assert files, d
    return {f: open(os.path.join(d, f), "rb").read() for f in files}


def pytest_configure(config):
    """With SDX_EXPECT_MODULE set (tests/python/run.sh), the extension under
    test must come from there: the sanitizers' build, or the virtualenv the
    package was just installed into."""
    want = os.environ.get("SDX_EXPECT_MODULE")
    if want:
        import sdx._sdx
        path = os.path.realpath(sdx._sdx.__file__)
        if not path.startswith(os.path.realpath(want)):
            raise pytest.UsageError("sdx._sdx is %s, not from %s" % (path, want))
