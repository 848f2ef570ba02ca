"""The take-back rule of the rules core (tests/firmware/fw_fairplay_rules.py) under CPython and under
the MicroPython unix port."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))

import fw_fairplay_rules  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402

CASES = sorted(n for n in dir(fw_fairplay_rules) if n.startswith("test_"))


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(fw_fairplay_rules, name)()


@needs_unix_port
def test_micropython():
    run_plain_tests(os.path.join(HERE, "firmware", "fw_fairplay_rules.py"), "96k")
