"""The host never spins and never freezes: `yard play` in a pty against the real firmware on the unix
port, with what a cheat or a bad cable does to the serial line between them.

- A second program on the board's port writes one forged `mrx` line during Mister X's turn: the
  board refuses it (it lacks his host's tag: docs/fairplay.md), and the game goes on with his real
  move, printing nothing twice. (Had the board taken it, the board and the secret log would
  disagree on his moves: the host stops with a sentence that says so.)
- Mister X allows the detectives' last move to be taken back and the undo event is lost on the
  wire: the host must follow the board's journal and play on.
"""
import json
import os
import random
import time

import pytest

from host.misterx.secretgame import SecretGame
from host.ptyterminal import PtyTerminal
from host.reliability.hostside import LossyWire  # a cable that loses one line
from host.simulator.board import SimBoard
from sy.rules.game import PHASE_DETECTIVES
from yardplay import move_one_detective, mrx_input, place_start, play_until, secret_log, start_game, yard_env
from mpy import needs_unix_port

pytestmark = needs_unix_port
HEAP = "192k"
START = "13,26,29,34:172"  # Mister X far from the detectives: the game cannot end in the first rounds


@pytest.fixture
def env(tmp_path):
    return yard_env(tmp_path)


def journal(sim):
    """The board's journal on its flash, as line dicts."""
    try:
        with open(os.path.join(sim.folder, "flash", "game.jsonl")) as f:
            return [json.loads(t) for t in f if t.strip()]
    except (OSError, ValueError):
        return []


def wait_for(what, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if what():
            return
        time.sleep(0.05)
    raise AssertionError("waited %.0f s in vain" % timeout)


def read_until_exit(host, timeout=30, limit=200000):
    """What the host prints until it exits, for at most timeout seconds or limit characters (a
    host that spins prints without end); its exit code, None if it still runs."""
    end = time.monotonic() + timeout
    while host.proc.poll() is None and time.monotonic() < end and len(host.buf) < limit:
        host.read(0.2)
    host.read(0.1)
    host.seen += host.buf
    host.buf = ""
    return host.proc.poll()


def test_a_forged_mrx_line_stops_the_host_with_a_clear_message(env):
    rng = random.Random(3)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = start_game(sim, env, 2, ["--start", START])
        try:
            host.expect([r"mister x> "], timeout=60)
            # a second program on the port, once, during Mister X's turn
            other = os.open(sim.port, os.O_WRONLY | os.O_NOCTTY)
            os.write(other, b'{"id":4242,"cmd":"mrx","ticket":"taxi","commit":"%s"}\n' % (b"0" * 64))
            os.close(other)
            before = len(journal(sim))
            time.sleep(1.0)
            assert len(journal(sim)) == before  # refused: it does not carry his host's tag
            host.send(mrx_input(SecretGame.load(secret_log(env)), rng))
            host.expect([r"OK: "], timeout=30)
            host.expect([r"Detectives' turn"], timeout=30)
            assert host.proc.poll() is None
            code = read_until_exit(host, timeout=3)
            text = host.seen
            assert code is None and len(text) < 20000, "the host printed %d characters" % len(text)
            assert text.count("Detectives' turn") <= 1, text[-2000:]
            mine = SecretGame.load(secret_log(env)).mrx_lines()
            on_board = [line for line in journal(sim) if line.get("type") == "mrx"]
            assert len(mine) == 1 and [x.get("commit") for x in on_board] == [mine[0]["commit"]]  # his move only
        finally:
            host.close()


def test_a_lost_take_back_event_is_followed_from_the_board(env):
    rng = random.Random(5)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        wire = LossyWire(sim.port, drop=lambda line: b'"type":"undo"' in line.replace(b" ", b""))
        host = PtyTerminal(["play", "--port", wire.port, "--players", "2", "--start", START], env)
        try:
            place_start(host, sim, env)
            # Mister X's first prompt after a detectives' turn: its moves may be taken back
            assert play_until(host, sim, env, rng, stop=lambda sg, k: k == 0 and sg.game.n_turn > 0) == "stopped"
            path = secret_log(env)
            sg = SecretGame.load(path)
            g = sg.game
            last = [line for line in sg.lines if line["type"] == "move"][-1]
            origin = g.turn[3 * g.n_turn - 2]
            n_lines = len(sg.lines)
            # the turn's last move handed him the turn: only he may take it back (docs/fairplay.md)
            host.send("undo")  # Mister X allows it at his prompt: the board takes it back ...
            wait_for(lambda: journal(sim)[-1].get("type") == "undo")
            wait_for(lambda: wire.dropped)  # ... and its event is lost on the wire
            sim.lift(last["to"])
            sim.place(origin)
            host.expect([r"%s's move to %d taken back: %s goes back to %d \(from the board's journal\)" % (
                last["piece"], last["to"], last["piece"], origin)], timeout=30)
            after = SecretGame.load(path)
            assert len(after.lines) == n_lines - 1 and after.game.phase == PHASE_DETECTIVES
            assert after.game.pos[after.game.piece_index(last["piece"])] == origin
            assert move_one_detective(sim, path, rng)
            assert play_until(host, sim, env, rng) == "over"
            host.expect([r"\n"], timeout=5)
            text = host.seen
            assert "fair play verified" in text
            assert len(text) < 100000, "the host printed %d characters" % len(text)
            turns = [line for line in text.splitlines() if line.startswith("Detectives' turn")]
            assert len(turns) == len(set(turns)), turns  # no line printed twice for one state
        finally:
            host.close()
            wire.close()
