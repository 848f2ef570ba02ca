"""Fair play on the board (tests/firmware/fw_fairplay.py): the take-back rule, the link's
authentication and a verified game that stays verified, under CPython and under the MicroPython
unix port."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))

import fw_fairplay  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402

CASES = sorted(n for n in dir(fw_fairplay) if n.startswith("test_"))


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(fw_fairplay, name)()


@needs_unix_port
def test_micropython():
    # run from the project's root, as tests/test_firmware_units.py's: the board reads boot.py there
    run_plain_tests(os.path.join(HERE, "firmware", "fw_fairplay.py"), "224k", cwd=os.path.dirname(HERE))
