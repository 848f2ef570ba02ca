"""The Europe board knows when its reader chain lies, as the London board does
(tests/test_hardware_chain.py): the in-process cases (tests/firmware/fw_europe_chain.py) under
CPython and the MicroPython unix port, and the board on the emulated Pico, whose 74HC165 model
drops or doubles a bit after a module: the game pauses (its status, a note, the amber beat, no
phantom move), and when the chain is whole again waits until the pieces agree before going on.
The host words the board's notes as London's (host/refusals.py)."""
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))
sys.path.insert(0, HERE)

import fw_europe_chain as cases  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402

from europe_games import ROOT, TESTMAP  # noqa: E402

CASES = sorted(n for n in dir(cases) if n.startswith("test_"))
PICO_DIR = os.environ.get("YARD_PICO_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "pico")
UF2 = os.path.join(PICO_DIR, "micropython-v1.28.0-RPI_PICO.uf2")
BOOTROM = os.path.join(PICO_DIR, "rp2040-bootrom-b1.bin")
needs_pico = pytest.mark.skipif(not (os.path.isfile(UF2) and os.path.isfile(BOOTROM)),
                                reason="MicroPython's RPI_PICO firmware and the RP2040 boot ROM are not in %s "
                                       "(set YARD_PICO_DIR to the folder that holds them)" % PICO_DIR)
needs_node = pytest.mark.skipif(not shutil.which("node"), reason="the emulated Pico runs on Node.js (Debian's nodejs)")


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(cases, name)()


@needs_unix_port
def test_micropython():
    # (the in-process harness, the chain model and the London loop inprocess.py imports ride along)
    run_plain_tests(os.path.join(HERE, "firmware", "fw_europe_chain.py"), "256k", cwd=os.path.dirname(HERE),
                    helpers=(os.path.join(HERE, "hardware_chain_cases.py"),))
