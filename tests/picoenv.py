"""Where the tests find the emulated Pico's firmware: MicroPython's RPI_PICO UF2 and the RP2040 boot ROM
from $YARD_PICO_DIR, else ../shared/pico/; the tests that need them skip with a message where they are
absent (or where Node.js, which runs rp2040js, is missing)."""
import os
import shutil

import pytest

from host import ROOT
from host.pico.board import BOOTROM_NAME, MICROPYTHON_NAME

PICO_DIR = os.environ.get("YARD_PICO_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "pico")
UF2 = os.path.join(PICO_DIR, MICROPYTHON_NAME)
BOOTROM = os.path.join(PICO_DIR, BOOTROM_NAME)
HAVE_PICO = os.path.isfile(UF2) and os.path.isfile(BOOTROM)
needs_pico = pytest.mark.skipif(not HAVE_PICO, reason="MicroPython's RPI_PICO firmware and the RP2040 boot ROM are "
                                "not in %s (set YARD_PICO_DIR to the folder that holds them)" % PICO_DIR)
needs_node = pytest.mark.skipif(not shutil.which("node"), reason="the emulated Pico runs on Node.js (Debian's nodejs)")
