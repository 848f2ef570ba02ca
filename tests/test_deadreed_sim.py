"""A whole game on the simulated board (the firmware on the MicroPython unix port, host/simulator/board.py)
with one reed dead, stuck closed or never closing, at a start station or at a station the game
passes, taken out of service in the board's config: the game plays to its end and the board's
record is the record of the same game on a sound board (nothing wrong committed)."""
import pytest

from host.link.boardlink import BoardLink
from host.simulator.board import SimBoard
from host.simulator.scripted import play_game
from mpy import needs_unix_port

pytestmark = needs_unix_port

SEED = 7


def _game(dead=None, closed=None):
    config = {"reeds": {"dead": [dead]}} if dead else {}
    sim = SimBoard(heapsize="112k", debounce_ms=5, config=config)
    if dead:
        sim.stick(dead, closed)
    sim.start()
    try:
        link = BoardLink(sim.port, timeout=5)
        hello = link.open()
        assert hello.get("dead", []) == ([dead] if dead else [])
        st = play_game(sim, link, seed=SEED, dead=(dead,) if dead else ())
        record = link.record(everything=True)
        link.close()
        return st, record
    finally:
        sim.stop()


@pytest.fixture(scope="module")
def sound():
    return _game()


def _moves(record):
    return [line for line in record if line.get("type") in ("move", "mrx", "ready", "over")]


def _visited(record):
    return [line["to"] for line in record if line.get("type") == "move" and line["piece"][0] in "DB"]


def _put_and_left(record):
    """A station a detective is put on and later moves away from (both ways past the dead reed)."""
    moves = [(line["piece"], line["to"]) for line in record if line.get("type") == "move" and line["piece"][0] in "DB"]
    for i, (piece, to) in enumerate(moves):
        if any(p == piece for p, _ in moves[i + 1:]) and to not in (13, 26, 29, 34, 50):
            return to


@pytest.mark.parametrize("closed", (True, False), ids=("stuck_closed", "stuck_open"))
def test_a_visited_station_dead(sound, closed):
    st0, rec0 = sound
    dead = _put_and_left(rec0)
    assert dead
    st, rec = _game(dead, closed)
    assert st["stage"] == "over" and st["result"] == st0["result"] and st["pieces"] == st0["pieces"]
    assert rec == rec0, "the record differs from the sound board's"


@pytest.mark.parametrize("closed", (True, False), ids=("stuck_closed", "stuck_open"))
def test_a_start_station_dead(sound, closed):
    st0, rec0 = sound
    st, rec = _game(26 if closed else 13, closed)
    assert st["stage"] == "over" and st["result"] == st0["result"] and st["pieces"] == st0["pieces"]
    assert rec == rec0
