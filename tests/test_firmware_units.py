"""The firmware's unit and in-process game tests (tests/firmware/fw_cases.py), under CPython and
under the MicroPython unix port (compiled with mpy-cross, as the board runs it, limited heap)."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "firmware"))
sys.path.insert(0, ROOT)

import fw_cases  # noqa: E402
import fw_takeback  # noqa: E402
import fw_deadreed  # noqa: E402
from mpy import MICROPYTHON, FAKES  # noqa: E402

CASES = sorted(n for n in dir(fw_cases) if n.startswith("test_"))
TAKEBACK = sorted(n for n in dir(fw_takeback) if n.startswith("test_"))
DEADREED = sorted(n for n in dir(fw_deadreed) if n.startswith("test_"))
HEAP = "160k"  # the tests' own harness (a second Game for Mister X's truth, queues) rides along


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(fw_cases, name)()


@pytest.mark.parametrize("name", TAKEBACK)
def test_takeback_cpython(name):
    getattr(fw_takeback, name)()


@pytest.mark.parametrize("name", DEADREED)
def test_deadreed_cpython(name):
    getattr(fw_deadreed, name)()


@pytest.mark.skipif(not MICROPYTHON, reason="micropython not installed")
@pytest.mark.parametrize("cases", ("fw_cases", "fw_takeback", "fw_deadreed"))
def test_micropython(tmp_path, cases):
    from host.mpy_build import compile_testkit, compile_tree
    build = str(tmp_path / "lib")
    compile_tree(os.path.join(ROOT, "firmware", "sy"), os.path.join(build, "sy"))
    compile_testkit(build)
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([build, FAKES, ".frozen"])
    proc = subprocess.run([MICROPYTHON, "-X", "heapsize=" + HEAP, os.path.join(HERE, "mpy_run.py"),
                           os.path.join(HERE, "firmware", cases + ".py")],
                          env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    out = proc.stdout + proc.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    assert m, out
    assert int(m.group(2)) == 0, out
    assert int(m.group(1)) == len({"fw_cases": CASES, "fw_takeback": TAKEBACK, "fw_deadreed": DEADREED}[cases]), out
