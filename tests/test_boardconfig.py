"""sy.boardconfig: the plain cases under CPython (collected below) and under MicroPython."""
import os

from mpy import run_tests_under_micropython
from boardconfig_cases import *  # noqa: F401,F403  (pytest collects the test_* functions)

HERE = os.path.dirname(os.path.abspath(__file__))


def test_boardconfig_cases_under_micropython():
    passed, failed, out = run_tests_under_micropython(os.path.join(HERE, "boardconfig_cases.py"), "64k")
    assert failed == 0, out
    assert passed >= 10, out
