"""sy.hardware.boardconfig: the plain cases under CPython (collected below) and under MicroPython."""
import os

from mpy import run_plain_tests
from boardconfig_cases import *  # noqa: F401,F403  (pytest collects the test_* functions)

HERE = os.path.dirname(os.path.abspath(__file__))


def test_boardconfig_cases_under_micropython():
    run_plain_tests(os.path.join(HERE, "boardconfig_cases.py"), "64k")
