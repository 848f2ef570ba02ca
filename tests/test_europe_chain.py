"""The Europe board knows when its reader chain lies, as the London board does
(tests/test_hardware_chain.py): the in-process cases (tests/firmware/fw_europe_chain.py) under
CPython and the MicroPython unix port, and the board on the emulated Pico, whose 74HC165 model
drops or doubles a bit after a module: the game pauses (its status, a note, the amber beat, no
phantom move), and when the chain is whole again waits until the pieces agree before going on.
The host words the board's notes as London's (host/refusals.py)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))
sys.path.insert(0, HERE)

import fw_europe_chain as cases  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402
from picoenv import BOOTROM, UF2, needs_node, needs_pico  # noqa: E402

from europe_games import TESTMAP  # noqa: E402

CASES = sorted(n for n in dir(cases) if n.startswith("test_"))


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(cases, name)()


@needs_unix_port
def test_micropython():
    # (the in-process harness, the chain model and the London loop inprocess.py imports ride along)
    run_plain_tests(os.path.join(HERE, "firmware", "fw_europe_chain.py"), "256k", cwd=os.path.dirname(HERE),
                    helpers=(os.path.join(HERE, "hardware_chain_cases.py"),))


@needs_pico
@needs_node
def test_the_emulated_pico_pauses_a_europe_game_while_the_chain_lies_and_shows_where():
    """Short: one fault of each kind on a game in its first detectives' turn."""
    from boardleds import shown
    from host.benchmarks.pico import station_wire
    from host.europe.pico import europe_pico
    from host.europe.sim import EuropeLink
    from sy.play.chainpause import CHAIN_RGB
    detectives = cases.DETECTIVES
    said = []
    pico = europe_pico(TESTMAP, UF2, BOOTROM)
    link = None
    try:
        pico.start()
        link = EuropeLink(pico.port, timeout=180, say=said.append)
        link.wait_ready(180)
        for obj in ({"type": "setup", "game": "europe", "map": "europe", "level": "green", "detectives": detectives,
                     "mrx": None}, {"type": "draw", "hand": "X", "count": 8}):
            assert link.request("line", line=obj)["ok"], obj
        for c in detectives:
            pico.place(c)
        for h in range(1, 6):
            assert link.request("line", line={"type": "draw", "hand": "P%d" % h, "tickets": cases.HAND})["ok"]
        for obj in ({"type": "mrx", "moves": [{"ticket": "car/footprints"}]}, {"type": "draw", "hand": "X", "count": 1}):
            assert link.request("line", line=obj)["ok"], obj
        assert link.request("status")["to_move"] == ["D1", "D2", "D3", "D4", "D5"]
        bits = pico.config["reeds"]["bits"]
        after = max(bits[c - 1] // 8 for c in detectives)   # the last module a piece stands on
        for kind, fault in (("double", "long"), ("drop", "short")):
            pico.request("chain", kind=kind, after=after)
            note = link.wait_note("chain", 60)
            assert note["code"] == "chain_broken" and note["fault"] == fault and note["after_module"] >= after, note
        st = link.request("status")
        assert st["chain"] == {"code": "chain_broken", "fault": "short", "after_module": after}, st
        paused = link.request("mem")["alloc"]
        assert said[-1] == "  reader chain broken or mis-clocked after module %d" % after, said
        # the first module not heard: its stations flash amber, two beats and a long dark
        where = next(s for s in range(1, 200) if bits[s - 1] // 8 == after + 1)
        t0 = pico.now_ms()
        pico.wait_ms(1100)
        amber = shown(CHAIN_RGB, bytes)
        seen = [station_wire(pico, wire, where) == amber for _t, _n, wire in pico.frames_since(t0)]
        beats = sum(1 for k in range(1, len(seen)) if seen[k] and not seen[k - 1])
        assert 2 <= beats <= 3 and sum(seen) < len(seen) // 2, seen
        # D1 moved while the chain lies: no move, no lift
        home = detectives[0]
        pico.lift(home)
        pico.place(3)   # car from 9 (the test map)
        pico.wait_ms(200)
        st = link.request("status")
        assert st["pieces"]["D1"] == home and st["lifted"] == -1 and st["moves"] == 1, st
        assert not link.events
        # whole again: the game waits until the pieces agree with it, then goes on
        pico.request("chain", kind=None, after=0)
        while note.get("code") is not None:
            note = link.wait_note("chain", 60)
        assert said[-1] == "  reader chain whole again: the game goes on once the pieces stand where it has them"
        st = link.request("status")
        assert "chain" not in st and st["restoring"] and st["missing"] == ["D1"] and st["extra"] == [3], st
        # the pause's code is dropped when the chain is whole: a second pause leaves the heap as
        # the first did (the first leaves its names interned: MicroPython's string pool keeps them)
        healed = link.request("mem")["alloc"]
        pico.request("chain", kind="cut", after=after)
        assert link.wait_note("chain", 60)["fault"] == "short"
        assert link.request("mem")["alloc"] == paused
        pico.request("chain", kind=None, after=0)
        assert link.wait_note("chain", 60)["code"] is None
        assert link.request("mem")["alloc"] == healed < paused
        print("The Europe board's heap in use: %d B paused, %d B whole again" % (paused, healed))
        pico.lift(3)
        pico.place(home)
        link.wait_note("restored", 60)
        pico.lift(home)
        pico.place(3)
        assert link.event(60) == {"type": "move", "piece": "D1", "ticket": "car/lamp", "to": 3}
    finally:
        if link:
            link.close()
        pico.stop()


def test_the_europe_host_tells_the_players_of_the_chain_in_their_language():
    from host import i18n
    from host.europe.sim import EuropeLink
    said = []
    link = EuropeLink("loop://", timeout=5, say=said.append)   # (pyserial's loopback: the board's lines)
    try:
        for lang in ("en", "de"):
            i18n.use(lang)
            link.ser.write(b'{"note": "chain", "code": "chain_broken", "fault": "long", "after_module": 11}\n'
                           b'{"note": "restored"}\n{"note": "chain", "code": null}\n')
            assert link.wait_note("chain", 5)["after_module"] == 11
            assert link.wait_note("restored", 5) == {"note": "restored"}
            assert link.wait_note("chain", 5)["code"] is None
        assert said[:2] == ["  reader chain broken or mis-clocked after module 11",
                            "  reader chain whole again: the game goes on once the pieces stand where it has them"]
        assert len(said) == 4 and "11" in said[2] and "reader chain" not in said[2] + said[3], said
    finally:
        i18n.use("en")
        link.close()
