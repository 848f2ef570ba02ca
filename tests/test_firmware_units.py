"""The firmware's unit and in-process game tests (tests/firmware/fw_cases.py), under CPython and
under the MicroPython unix port (compiled with mpy-cross, as the board runs it, limited heap)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))

import fw_cases  # noqa: E402
import fw_takeback  # noqa: E402
import fw_deadreed  # noqa: E402
import fw_debounce  # noqa: E402
import fw_leds  # noqa: E402
import fw_store  # noqa: E402
import fw_play  # noqa: E402
import fw_commands  # noqa: E402
import fw_link  # noqa: E402
import fw_resume  # noqa: E402
import fw_commit  # noqa: E402
import fw_rules  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402

CASES = sorted(n for n in dir(fw_cases) if n.startswith("test_"))
TAKEBACK = sorted(n for n in dir(fw_takeback) if n.startswith("test_"))
DEADREED = sorted(n for n in dir(fw_deadreed) if n.startswith("test_"))
# the hardware's, the storage's, the link's, the rules' and the game flow's own units: one
# test_units_cpython case each
OWN_UNITS = (fw_debounce, fw_leds, fw_store, fw_resume, fw_link, fw_commit, fw_rules, fw_play, fw_commands)
UNITS = [(m, n) for m in OWN_UNITS for n in sorted(dir(m)) if n.startswith("test_")]
HEAP = "192k"  # the tests' own harness (a second Game for Mister X's truth, queues) rides along; the
# handlers stay loaded once used (docs/memory.md): 168k was the least that passed
# fw_play's and fw_commands' boards, one after another, fragment the 64-bit port's heap
HEAPS = {"fw_play": "224k", "fw_commands": "224k"}


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(fw_cases, name)()


@pytest.mark.parametrize("name", TAKEBACK)
def test_takeback_cpython(name):
    getattr(fw_takeback, name)()


@pytest.mark.parametrize("name", DEADREED)
def test_deadreed_cpython(name):
    getattr(fw_deadreed, name)()


@pytest.mark.parametrize("module, name", UNITS, ids=["%s.%s" % (m.__name__, n) for m, n in UNITS])
def test_units_cpython(module, name):
    getattr(module, name)()


@needs_unix_port
@pytest.mark.parametrize("cases", ("fw_cases", "fw_takeback", "fw_deadreed") + tuple(m.__name__ for m in OWN_UNITS))
def test_micropython(cases):
    # run from the project's root: the cases read boot.py there
    run_plain_tests(os.path.join(HERE, "firmware", cases + ".py"), HEAPS.get(cases, HEAP), cwd=os.path.dirname(HERE))
