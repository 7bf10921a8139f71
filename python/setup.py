"""Build of the sdx Python package: the extension sdx._sdx from python/src
and the library's own C sources, taken as the amalgamation that
scripts/amalgamate.py writes (one sdx.h, one sdx.c) into the build
directory. Nothing of the library is copied into python/: the repository
around this directory is required (pip install ./python builds in place).

Environment:
  SDX_SOURCE_DIR   the repository's root (default: this file's parent's parent)
  SDX_CFLAGS       extra compiler flags (e.g. the sanitizers' build:
                   "-fsanitize=address,undefined -fno-sanitize-recover=undefined")
  SDX_LDFLAGS      extra linker flags
"""
import os
import re
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.environ.get("SDX_SOURCE_DIR") or os.path.join(HERE, ".."))


def library_version():
    path = os.path.join(ROOT, "include", "sdx", "common.h")
    if not os.path.exists(path):
        sys.exit("sdx: the library's sources are not at %s; build from the repository "
                 "(pip install ./python) or set SDX_SOURCE_DIR" % ROOT)
    text = open(path).read()
    parts = [re.search(r"#define SDX_VERSION_%s (\d+)" % k, text).group(1) for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class BuildExt(build_ext):
    """Writes the amalgamation into the build directory first."""

    def build_extensions(self):
        amalg = os.path.join(os.path.abspath(self.build_temp), "amalgamation")
        subprocess.check_call([sys.executable, os.path.join(ROOT, "scripts", "amalgamate.py"), "--out", amalg])
        for ext in self.extensions:
            ext.sources = [s for s in ext.sources if not s.endswith("sdx.c")] + [os.path.join(amalg, "sdx.c")]
            ext.include_dirs.insert(0, amalg)
        super().build_extensions()


# SDX_HIDE_API: the library's functions stay inside the extension (called
# directly, not through the PLT); only PyInit__sdx is exported.
cflags = ["-std=c11", "-O3", "-fvisibility=hidden", "-DSDX_HIDE_API", "-Wall", "-Wno-missing-field-initializers",
          "-Werror=implicit-function-declaration"]
cflags += shlex.split(os.environ.get("SDX_CFLAGS", ""))
ldflags = shlex.split(os.environ.get("SDX_LDFLAGS", ""))
src = os.path.join("src")

setup(
    version=library_version(),
    ext_modules=[
        Extension(
            "sdx._sdx",
            sources=[os.path.join(src, f) for f in ("module.c", "decode.c", "encode.c", "convert.c")],
            depends=[os.path.join(src, f) for f in ("sdxpy.h", "dec_tmpl.h", "enc_tmpl.h", "direct_tmpl.h", "jd_tmpl.h")],
            # the library's private headers too (encode.c's direct JSON path)
            include_dirs=[src, os.path.join(ROOT, "src")],
            extra_compile_args=cflags,
            extra_link_args=ldflags,
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
