"""The Europe rules core's scenarios, run again under the MicroPython unix port (compiled to .mpy
as for the board), with the heap a Pico has free for a game."""
import os

from mpy import run_tests_under_micropython, ROOT


def test_europe_core_under_micropython():
    passed, failed, out = run_tests_under_micropython(os.path.join(ROOT, "tests", "core", "test_europe_core.py"), "64k")
    assert failed == 0, out
    assert passed >= 18, out
