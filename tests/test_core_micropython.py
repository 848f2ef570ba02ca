"""The rules core's test suite, run again under the MicroPython unix port with a 64 KB heap."""
import os

from mpy import run_tests_under_micropython, ROOT


def test_rules_core_under_micropython_64k():
    passed, failed, out = run_tests_under_micropython(os.path.join(ROOT, "tests", "core", "test_rules_core.py"), "64k")
    assert failed == 0, out
    assert passed >= 25, out
