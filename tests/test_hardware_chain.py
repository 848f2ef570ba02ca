"""The reed chain proves itself in every scan (sy.hardware.reeds): the unit cases under CPython and
the MicroPython unix port (no allocation), and on the emulated Pico, whose 74HC165 model drops,
doubles or cuts a bit after a module: the board refuses those scans, says so once, and sees the
pieces again when the chain is whole."""
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hardware_chain_cases as cases  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402

from host import ROOT  # noqa: E402

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
    # (a game in progress: the heap the firmware units give a game, tests/test_firmware_units.py)
    run_plain_tests(os.path.join(HERE, "hardware_chain_cases.py"), "192k", cwd=os.path.dirname(HERE))


def _closed(raw_hex, bits):
    raw = bytes.fromhex(raw_hex)
    return [b for b in bits if raw[b >> 3] & (0x80 >> (b & 7))]


@needs_pico
@needs_node
def test_the_emulated_pico_refuses_a_chain_that_drops_or_doubles_a_bit():
    from host.link.boardlink import BoardLink
    from host.pico.board import PicoBoard
    board = PicoBoard(micropython=UF2, bootrom=BOOTROM)
    board.start()
    link = BoardLink(board.port, timeout=60)
    link.open()
    try:
        link.hello()
        assert link.request("svc_begin")["ok"]
        bits = board.config["reeds"]["bits"]
        on11 = next(s for s in range(1, 200) if bits[s - 1] // 8 == 11)
        on20 = next(s for s in range(1, 200) if bits[s - 1] // 8 == 20)
        b11, b20 = bits[on11 - 1], bits[on20 - 1]
        board.set_inputs([on11])
        board.wait_ms(100)
        raw = link.request("svc_raw")["raw"]
        assert _closed(raw, [b11, b20, 199]) == [b11, 199]   # the marker reads closed
        for kind, fault in (("drop", "short"), ("double", "long")):
            board.request("chain", kind=kind, after=11)
            note = link.wait_note("chain", timeout=60)
            assert note["fault"] == fault and note["after"] >= 11, note
            board.set_inputs([on11, on20])                   # a piece put down meanwhile ...
            board.wait_ms(100)
            raw = link.request("svc_raw")["raw"]
            assert _closed(raw, [b11, b20]) == [b11], kind   # ... is not seen: no phantom move
            bus = link.request("svc_bus", baudrates=[250000], reads=4)
            assert bus["results"] == [[250000, 4, 4]], bus   # selftest's bus check counts them
            board.request("chain", kind=None, after=0)
            while note["fault"] is not None:   # (a note for each change: the pieces moved meanwhile)
                note = link.wait_note("chain", timeout=60)
            board.wait_ms(100)
            raw = link.request("svc_raw")["raw"]
            assert _closed(raw, [b11, b20]) == [b11, b20], kind
            board.set_inputs([on11])
            board.wait_ms(100)
        link.request("svc_end")
    finally:
        link.close()
        board.stop()
