"""A capture and a cornered Mister X are proved to the board, not claimed.

The attack that found the hole, kept as a test: anyone on the serial port sent
`{"cmd": "capture", "piece": "D1"}` after a detective move to a station that was not even a
possible station of Mister X; the board declared the detectives' win while the host kept waiting.
Now the host reveals the commitment of his current station with a capture (or a cornered Mister
X), the board checks it (firmware/sy/play/declare.py), and refuses anything else; a refused claim
changes nothing, so the real game goes on to its end and its reveal verifies.
"""
import os
import secrets
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from host.link.boardlink import BoardLink, BoardCommandError  # noqa: E402
from host.simulator.board import SimBoard  # noqa: E402
from host.simulator.scripted import play_game  # noqa: E402
from mpy import needs_unix_port  # noqa: E402

pytestmark = needs_unix_port

HEAP = os.environ.get("SY_E2E_HEAP", "112k")


@pytest.fixture
def board():
    sim = SimBoard(heapsize=HEAP, debounce_ms=10)
    sim.start()
    link = BoardLink(sim.port, timeout=5)
    link.open()
    yield sim, link
    link.close()
    sim.stop()


def refused(link, cmd, **args):
    try:
        r = link.request(cmd, **args)
    except BoardCommandError as e:
        return e.code, e.message
    raise AssertionError("the board took a forged %s: %s" % (cmd, r))


def _forger(link, sim, stats):
    """on_step hook: after every detective move, and at every Mister X turn, the attacker's lines."""
    def on_step(kind, info):
        if kind == "move":
            piece = info["piece"]
            st = link.request("status")
            at = st["pieces"][piece]
            before = (st["stage"], st["seq"], st["result"])
            # the bare claim, with no proof
            code, msg = refused(link, "capture", piece=piece)
            stats.setdefault(code, []).append(msg)
            # a made-up proof for the station the piece stands on
            code, msg = refused(link, "capture", piece=piece, reveal=[secrets.token_urlsafe(16), at])
            stats.setdefault(code, []).append(msg)
            st = link.request("status")
            assert (st["stage"], st["seq"], st["result"]) == before, "a refused claim changed the board"

    return on_step


@pytest.mark.parametrize("seed,capture_round", [(3, 0), (5, 6)])
def test_forged_captures_are_refused_and_the_game_goes_on(board, seed, capture_round):
    sim, link = board
    stats = {}
    st = play_game(sim, link, seed=seed, capture_round=capture_round, on_step=_forger(link, sim, stats),
                   timeout=5, commit=True)
    # the real end, proved where it was a capture, and the reveal matched every commitment
    assert st["verified"] is True
    if capture_round:
        assert st["result"] == "detectives" and st["reason"] == "capture"
    n = sum(len(v) for v in stats.values())
    assert n >= 20 and set(stats) <= {"unproved", "bad_input", "game_over"}, stats
    # a station he cannot be on is refused outright, with the rules' sentence
    assert any("cannot be on station" in m for m in stats.get("bad_input", [])), stats
    assert any("prove it" in m or "does not match" in m for m in stats.get("unproved", [])), stats


def test_forged_cornered_is_refused(board):
    sim, link = board
    stats = {"tries": 0}

    def on_step(kind, info):
        if kind == "mrx" or kind == "move":
            st = link.request("status")
            if st["stage"] != "play" or st["phase"] != "mrx":
                return
            stats["tries"] += 1
            code, msg = refused(link, "cornered")
            assert code == "unproved" and "prove it" in msg, (code, msg)
            # a proof of a station he is not on, or of his real one where he can still move
            real = salts[-1] if salts else None
            code, msg = refused(link, "cornered", reveal=[secrets.token_urlsafe(16), 45])
            assert code == "unproved", (code, msg)
            if real:
                code, msg = refused(link, "cornered", reveal=real)
                assert code == "bad_input", (code, msg)
            after = link.request("status")
            assert after["stage"] == "play" and after["phase"] == "mrx"

    # play_game keeps its salts inside: watch them as it seals each station
    salts = []
    from sy.rules import commit as commitlib
    orig = commitlib.commitment

    def spy(station, salt):
        salts.append([salt, station])
        return orig(station, salt)
    commitlib.commitment = spy
    try:
        st = play_game(sim, link, seed=4, on_step=on_step, timeout=5, commit=True)
    finally:
        commitlib.commitment = orig
    assert st["verified"] is True and stats["tries"] >= 5


# Mister X on station 104, whose only neighbours (86, 116) hold detectives: he is cornered before
# his first move. His host knows it from his station; the board, which knows only that he is
# somewhere, must be told and shown the proof. Both of the project's game drivers once sent a
# capture instead (the link-cut chaos run stalled on "Mister X cannot be on station 50").
CORNERED = dict(detectives=(86, 116), bobbies=(13, 26), mrx=104)


def test_the_simulated_game_proves_a_cornered_mister_x(board):
    sim, link = board
    st = play_game(sim, link, timeout=5, commit=True, **CORNERED)
    assert (st["result"], st["reason"], st["verified"]) == ("detectives", "mrx_stuck", True)


def test_the_chaos_driver_proves_a_cornered_mister_x():
    import random
    from host.reliability.chaos import ChaosGame
    from host.reliability.common import RelSim
    sim = RelSim(heapsize=HEAP, debounce_ms=10, config={"scan_hz": 500})
    stats = {}
    game = ChaosGame(sim, random.Random(1), mode=None, stats=stats)
    sim.start()
    try:
        out = game.play(CORNERED["detectives"], CORNERED["bobbies"], CORNERED["mrx"])
    finally:
        game.link.close()
        sim.stop()
    assert game.problems == []
    assert (out["result"], game.truth.reason) == ("detectives", "mrx_stuck"), out
