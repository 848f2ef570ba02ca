"""The board's `guide` command (computer detectives, docs/protocol.md): the guided move is lit,
only that placement is taken, any other is refused with the error feedback until the piece is put
on the guided station or back. End to end on the firmware process (SimBoard) over the serial link."""

import pytest

from host.link.boardlink import BoardLink, BoardCommandError
from host.simulator.board import SimBoard
from boardleds import BUS, ERROR, PIECES, TAXI, frames
from mpy import needs_unix_port

pytestmark = needs_unix_port

D1, D2 = PIECES[0], PIECES[1]


@pytest.fixture
def board():
    sim = SimBoard(heapsize="112k", debounce_ms=10)
    sim.start()
    link = BoardLink(sim.port, timeout=5)
    link.open()
    link.request("setup", detectives=[13, 26], bobbies=[29, 34])
    for s in (13, 26, 29, 34):
        sim.place(s, settle=False)
    link.wait_event("ready")
    yield sim, link
    link.close()
    sim.stop()


def test_guided_move_is_lit_and_wrong_placements_are_refused(board):
    sim, link = board
    with pytest.raises(BoardCommandError) as e:
        link.request("guide", piece="D1", to=23, ticket="bus")  # Mister X's turn
    assert e.value.code == "not_connected"
    link.request("mrx", ticket="taxi")
    for bad in ({"piece": "D1", "to": 100, "ticket": "taxi"},   # not connected
                {"piece": "D1", "to": 23, "ticket": "underground"},  # not that way
                {"piece": "D7", "to": 23, "ticket": "bus"}):
        with pytest.raises(BoardCommandError):
            link.request("guide", **bad)
    link.request("guide", piece="D1", to=23, ticket="bus")
    # the guided station shows the piece's colour and the ticket's in turn; the piece pulses,
    # the other piece that still has to move stays dim
    seen = frames(sim, 23)
    assert D1 in seen and BUS in seen, seen
    assert any(c != (0, 0, 0) for c in frames(sim, 13, 0.4))
    assert max(max(c) for c in frames(sim, 26, 0.6)) <= 12  # D2 dim while D1 is guided
    sim.lift(13)
    leds = sim.leds()
    assert leds[4] == (0, 0, 0) and leds[14] == (0, 0, 0)  # no other destination lit
    # a legal move, but not the guided one: refused, red blink
    sim.place(4)
    note = link.wait_note("illegal")
    assert note["station"] == 4 and (note["error"], note["why"], note["args"]) == ("guided", "guided_to", ["D1", 23])
    seen = frames(sim, 4, 0.6)
    assert ERROR in seen and (0, 0, 0) in seen
    st = link.request("status")
    assert st["pieces"]["D1"] == 13 and st["extra"] == [4]
    # back where it was: nothing happened
    sim.lift(4)
    sim.place(13)
    st = link.request("status")
    assert st["pieces"]["D1"] == 13 and st["extra"] == [] and st["to_move"] == ["D1", "D2", "B1", "B2"]
    # another piece may not move while D1 is guided
    sim.lift(26)
    sim.place(27)
    note = link.wait_note("illegal")
    assert note["error"] == "guided" and note["station"] == 27
    sim.lift(27)
    sim.place(26)
    # the guided move: taken with the guided ticket, no button needed (taxi and bus both join 13-23)
    sim.lift(13)
    sim.place(23)
    seq, ev = link.wait_event("move")
    assert ev == {"type": "move", "piece": "D1", "ticket": "bus", "to": 23}
    st = link.request("status")
    assert st["pending"] is None and st["tickets"]["D1"][1] == 7
    # the guidance ends with the move: D2 moves freely again
    sim.lift(26)
    sim.place(39)
    seq, ev = link.wait_event("move")
    assert ev["piece"] == "D2" and ev["to"] == 39
    # a bobby's guide names its transport
    link.request("guide", piece="B1", to=41, ticket="taxi")
    assert frames(sim, 41, 1.2) >= {TAXI}
    sim.lift(29)
    sim.place(41)
    seq, ev = link.wait_event("move")
    assert ev == {"type": "move", "piece": "B1", "to": 41}
