"""The rules core's test suite, run again under the MicroPython unix port with a 64 KB heap."""
import os

from mpy import ROOT, run_plain_tests


def test_rules_core_under_micropython_64k():
    run_plain_tests(os.path.join(ROOT, "tests", "core", "test_rules_core.py"), "64k")
