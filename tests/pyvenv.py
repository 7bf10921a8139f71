"""The virtualenv the Python test scripts run in (tests/msgpack and
tests/bench): created on first use with `python3 -m venv` (Debian's
python3-venv), filled from a requirements file from PyPI, refilled when that
file changes."""

import os
import subprocess
import sys


def ensure_venv(venv, requirements, die):
    """Create the virtualenv VENV and install REQUIREMENTS into it (once per
    version of the file); returns its python. Calls die(message) when it
    cannot."""
    py = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, "requirements.installed")
    with open(requirements) as f:
        wanted = f.read()
    if os.path.exists(py) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read() == wanted:
                return py
    if not os.path.exists(py):
        r = subprocess.run([sys.executable, "-m", "venv", venv])
        if r.returncode != 0 or not os.path.exists(py):
            die("cannot create a virtualenv with '%s -m venv %s'. On Debian/Ubuntu install the package "
                "python3-venv (apt-get install python3-venv)." % (sys.executable, venv))
    r = subprocess.run([py, "-m", "pip", "install", "--disable-pip-version-check", "--quiet", "-r", requirements])
    if r.returncode != 0:
        die("pip could not install %s into %s (it needs network access to PyPI or a wheel cache)."
            % (requirements, venv))
    with open(stamp, "w") as f:
        f.write(wanted)
    return py


def reexec_in_venv(venv, requirements, script, die):
    """Unless this interpreter already is VENV's, make sure VENV exists with
    REQUIREMENTS and run SCRIPT again in it with the same arguments (does not
    return then). VENV None or empty: do nothing."""
    if not venv:
        return
    venv = os.path.abspath(venv)
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    py = ensure_venv(venv, requirements, die)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(py, [py, os.path.abspath(script)] + sys.argv[1:])
