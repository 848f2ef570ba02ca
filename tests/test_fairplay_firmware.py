"""Fair play in the firmware, under CPython and under the MicroPython unix port (docs/fairplay.md):
the take-back rule of the rules core (tests/firmware/fw_fairplay_rules.py), and on the board the
take-back rule, the link's authentication and a verified game that stays verified
(tests/firmware/fw_fairplay.py)."""
import importlib
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))

from mpy import needs_unix_port, run_plain_tests  # noqa: E402

# each file of plain tests: the unix port's heap it runs in, and its folder (the board reads boot.py
# in the project's root, as tests/test_firmware_units.py's; None: the build's)
FILES = {"fw_fairplay_rules": ("96k", None), "fw_fairplay": ("224k", os.path.dirname(HERE))}
CASES = [(module, name) for module in FILES
         for name in sorted(n for n in dir(importlib.import_module(module)) if n.startswith("test_"))]


@pytest.mark.parametrize("module,name", CASES)
def test_cpython(module, name):
    getattr(importlib.import_module(module), name)()


@needs_unix_port
@pytest.mark.parametrize("module", sorted(FILES))
def test_micropython(module):
    heap, cwd = FILES[module]
    run_plain_tests(os.path.join(HERE, "firmware", module + ".py"), heap, cwd=cwd)
