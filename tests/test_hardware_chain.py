"""The reed chain proves itself in every scan (sy.hardware.reeds): the unit cases under CPython and
the MicroPython unix port (no allocation, a game paused while the chain lies), and on the emulated
Pico, whose 74HC165 model drops, doubles or cuts a bit after a module: the board refuses those
scans, pauses the game (its status, its LEDs, no phantom move), says so once, and goes on when the
chain is whole; the host speaks the board's code in every language."""
import contextlib
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hardware_chain_cases as cases  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402
from picoenv import BOOTROM, UF2, needs_node, needs_pico  # noqa: E402


CASES = sorted(n for n in dir(cases) if n.startswith("test_"))


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



@contextlib.contextmanager
def _pico():
    """The emulated Pico and a link to it, said hello to; both stopped after."""
    from host.link.boardlink import BoardLink
    from host.pico.board import PicoBoard
    board = PicoBoard(micropython=UF2, bootrom=BOOTROM)
    board.start()
    link = BoardLink(board.port, timeout=120)
    link.open()
    try:
        link.hello()
        yield board, link
    finally:
        link.close()
        board.stop()


@needs_pico
@needs_node
def test_the_emulated_pico_refuses_a_chain_that_drops_or_doubles_a_bit():
    with _pico() as (board, link):
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
            assert note["code"] == "chain_broken" and note["fault"] == fault and note["after_module"] >= 11, note
            board.set_inputs([on11, on20])                   # a piece put down meanwhile ...
            board.wait_ms(100)
            raw = link.request("svc_raw")["raw"]
            assert _closed(raw, [b11, b20]) == [b11], kind   # ... is not seen: no phantom move
            bus = link.request("svc_bus", baudrates=[250000], reads=4)
            assert bus["results"] == [[250000, 4, 4]], bus   # selftest's bus check counts them
            assert bus["chain"]["code"] == "chain_broken" and bus["chain"]["fault"] == fault, bus
            board.request("chain", kind=None, after=0)
            while note["code"] is not None:   # (a note for each change: the pieces moved meanwhile)
                note = link.wait_note("chain", timeout=60)
            board.wait_ms(100)
            raw = link.request("svc_raw")["raw"]
            assert _closed(raw, [b11, b20]) == [b11, b20], kind
            board.set_inputs([on11])
            board.wait_ms(100)
        link.request("svc_end")


def test_the_host_speaks_the_boards_chain_code_in_every_language():
    from host import i18n, refusals
    from host.device.selftest import bus_lines
    code = {"code": "chain_broken", "fault": "short", "after_module": 7}
    try:
        i18n.use("en")
        assert refusals.pause(code) == "reader chain broken or mis-clocked after module 7"
        assert refusals.pause(dict(code, after_module=-1)) == ("reader chain broken or mis-clocked between the "
                                                               "controller and module 0")
        assert refusals.pause({"code": None}) is None and refusals.pause(None) is None
        assert refusals.pause({"code": "new_pause"}) == "the board paused the game (new_pause)"
        bus = {"results": [[250000, 4, 4]], "configured": 250000, "spi_mode": 0, "chain": code}
        assert "  reader chain broken or mis-clocked after module 7" in bus_lines(bus)
        assert not any("reader chain" in line for line in bus_lines(dict(bus, chain=None)))
        for lang in ("de", "nl", "fr", "it", "ru"):
            i18n.use(lang)
            text = refusals.pause(code)
            assert "7" in text and "reader chain" not in text, (lang, text)
    finally:
        i18n.use("en")


@needs_pico
@needs_node
def test_the_emulated_pico_pauses_a_game_while_the_chain_lies_and_shows_where():
    from boardleds import shown
    from host.benchmarks.pico import station_wire
    from sy.play.chainpause import CHAIN_RGB
    detectives = [13, 26, 29, 34, 50]
    with _pico() as (board, link):
        assert link.request("setup", detectives=detectives, bobbies=[], replace=True)["ok"]
        board.set_inputs(detectives)
        link.wait_event("ready", timeout=120)
        assert link.request("mrx", ticket="taxi", commit="ab" * 32)["ok"]
        bits = board.config["reeds"]["bits"]
        after = max(bits[s - 1] // 8 for s in detectives)   # the last module a piece stands on
        board.request("chain", kind="drop", after=after)
        note = link.wait_note("chain", timeout=60)
        assert note["code"] == "chain_broken" and note["after_module"] == after, note
        st = link.request("status")
        assert st["chain"] == {"code": "chain_broken", "fault": "short", "after_module": after}, st
        # the first module not heard: its stations flash amber, two beats and a long dark
        where = next(s for s in range(1, 200) if bits[s - 1] // 8 == after + 1)
        t0 = board.now_ms()
        board.wait_ms(1500)
        amber = shown(CHAIN_RGB, bytes)
        seen = [(t, station_wire(board, wire, where) == amber) for t, _n, wire in board.frames_since(t0)]
        assert any(lit for _t, lit in seen) and not all(lit for _t, lit in seen), seen
        # D1 moved while the chain lies: no move, no lift; the game stands as it was
        board.set_inputs([26, 29, 34, 50, 8])
        board.wait_ms(300)
        st = link.request("status")
        assert st["pieces"]["D1"] == 13 and st["lifted"] is None and st["moves"] == 1, st
        assert not [n for n in link.take_notes() if n.get("note") in ("lifted", "illegal")]
        # whole again: the game waits until the pieces agree with it, then goes on
        board.request("chain", kind=None, after=0)
        while note.get("code") is not None:
            note = link.wait_note("chain", timeout=60)
        board.wait_ms(200)
        st = link.request("status")
        assert "chain" not in st and st["restoring"] and st["pieces"]["D1"] == 13, st
        board.set_inputs(detectives)
        link.wait_note("restored", timeout=60)
        assert not link.request("status")["restoring"]


def test_mister_xs_console_tells_the_players_when_the_chain_lies_and_when_it_is_whole(tmp_path):
    import random
    from host import i18n
    from host.misterx.console import Console
    from host.misterx.secretgame import SecretGame, draw_setup

    class NotesBoard:   # the board's side as the console reads its notes
        def __init__(self, queued):
            self.queued = queued

        def notes(self):
            out, self.queued = self.queued, []
            return out

    i18n.use("en")
    sg = SecretGame.create(draw_setup(3, random.Random(1)), folder=str(tmp_path))
    board = NotesBoard([{"note": "chain", "code": "chain_broken", "fault": "long", "after_module": 11}])
    out = []
    con = Console(sg, board, inp=lambda prompt: "", out=out.append)
    con.board_notes()
    assert out == ["  reader chain broken or mis-clocked after module 11"]
    board.queued = [{"note": "chain", "code": None}]
    con.board_notes()
    assert out[-1] == "  reader chain whole again: the game goes on once the pieces stand where it has them"
