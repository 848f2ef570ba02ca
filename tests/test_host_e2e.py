"""End to end: `yard play` in a pty, typed input, against the real firmware on the unix port.

The test is every person at the table (tests/yardplay.py): it types Mister X's moves into his
console and moves the detectives' pieces on the simulated board.
"""
import json
import os
import random
import subprocess
import sys
import time

import pytest

from host import ROOT
from host.link.boardlink import BoardLink
from host.misterx.secretgame import SecretGame
from host.ptyterminal import PtyTerminal
from host.simulator.board import SimBoard
from sy.rules.game import PHASE_DETECTIVES
from yardplay import move_one_detective, mrx_input, play_until, secret_log, start_game, yard_env
from mpy import needs_unix_port

pytestmark = needs_unix_port
HEAP = "192k"


@pytest.fixture
def env(tmp_path):
    return yard_env(tmp_path)


def finish_and_verify(host, sim, env):
    text = host.text
    assert "fair play verified" in text, text[-2000:]
    path = secret_log(env)
    r = subprocess.run([sys.executable, "-m", "host", "verify", path], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    return path


def _yard_verify(env, path, board):
    """`yard verify` of the secret log at path against the board's record (the lines, written to
    a file first): the finished process."""
    board_file = os.path.join(env["YARD_HOME"], "board.jsonl")
    with open(board_file, "w") as f:
        f.write("\n".join(json.dumps(x) for x in board) + "\n")
    return subprocess.run([sys.executable, "-m", "host", "verify", path, "--board", board_file],
                          capture_output=True, text=True, cwd=ROOT)


def test_full_game_typed_at_the_console(env):
    rng = random.Random(7)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = start_game(sim, env, 3)
        try:
            assert play_until(host, sim, env, rng) == "over"
            host.expect([r"\n"], timeout=5)
            path = finish_and_verify(host, sim, env)
            assert "Full travel log: start" in host.seen
            # the board's own record agrees with the secret log
            host.proc.wait(10)
            link = BoardLink(sim.port)
            link.open()
            board = link.record()
            link.close()
            r = _yard_verify(env, path, board)
            assert r.returncode == 0, r.stdout + r.stderr
            # a tampered log is rejected
            with open(path) as f:
                lines = [json.loads(t) for t in f]
            k = next(i for i, x in enumerate(lines) if x.get("type") == "mrx" and "double" not in x and not x.get("shown"))
            lines[k]["to"] = lines[k]["to"] % 199 + 1
            bad = os.path.join(env["YARD_HOME"], "tampered.jsonl")
            with open(bad, "w") as f:
                f.write("\n".join(json.dumps(x) for x in lines) + "\n")
            r = subprocess.run([sys.executable, "-m", "host", "verify", bad], capture_output=True, text=True, cwd=ROOT)
            assert r.returncode == 1 and "commitment" in r.stdout
        finally:
            host.close()


def test_resume_after_killing_the_host(env):
    rng = random.Random(11)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = start_game(sim, env, 2, ["--start", "13,26,29,34:172"])
        try:
            # stop in the detectives' turn of round 5: kill the host after one detective moved
            assert play_until(host, sim, env, rng, stop=lambda sg, k: k == 1 and sg.game.round >= 5) == "stopped"
            path = secret_log(env)
            move_one_detective(sim, path, rng)
            host.kill(hard=True)
            # the detectives carry on while the host is gone
            assert move_one_detective(sim, path, rng, logged=False)
            time.sleep(0.3)
            host.close()
            host = PtyTerminal(["play", "--port", sim.port, "--resume"], env)
            host.expect([r"Resumed game [^:]+: 1 detective move\(s\) caught up"], timeout=60)
            assert play_until(host, sim, env, rng) == "over"
            host.expect([r"\n"], timeout=5)
            finish_and_verify(host, sim, env)
        finally:
            host.close()


def test_resume_after_killing_the_firmware(env):
    rng = random.Random(5)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = start_game(sim, env, 4, ["--start", "13,26,29,34:172"])
        cut = []
        try:
            def stop(sg, k):
                return k == 0 and sg.game.round >= 2 and not cut
            assert play_until(host, sim, env, rng, stop=stop) == "stopped"
            cut.append(1)
            sim.power_cut()  # the board dies while Mister X thinks
            sg = SecretGame.load(secret_log(env))
            host.send(mrx_input(sg, rng))  # his move goes nowhere ...
            host.expect([r"does not answer[^\n]*reconnecting"], timeout=30)
            sim.start()  # ... until the board is back: the host resyncs and resends it
            assert play_until(host, sim, env, rng) == "over"
            host.expect([r"\n"], timeout=5)
            finish_and_verify(host, sim, env)
        finally:
            host.close()


def test_capture_is_declared_to_the_board(env):
    rng = random.Random(3)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = start_game(sim, env, 3, ["--start", "103,138,123,141:104"])
        try:
            assert play_until(host, sim, env, rng, hunt=True) == "over"
            host.expect([r"\n"], timeout=5)
            text = host.seen
            assert "you are caught" in text and "The detectives win" in text
            finish_and_verify(host, sim, env)
            host.proc.wait(10)
            link = BoardLink(sim.port)
            info = link.open()
            assert info["stage"] == "over"
            board = link.record()
            link.close()
            assert board[-1].get("capture") is True
        finally:
            host.close()


def test_undo_at_the_console_takes_back_a_detectives_move(env):
    """Mister X types `undo` at his prompt: the board takes back the detectives' last move (the
    piece's station blinks until it is back), the console follows, the detectives move again, and
    the game plays to its end with the move gone from the secret log and the board's record."""
    rng = random.Random(5)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        # start stations, not random cards: Mister X far from the detectives, so the game cannot end
        # before his first prompt after a detectives' turn (random cards ended it there once)
        host = start_game(sim, env, 2, ["--start", "13,26,29,34:172"])
        try:
            state = {}

            def stop(sg, k):  # Mister X's first prompt after a detectives' turn (its moves may be taken back)
                return k == 0 and sg.game.n_turn > 0 and "done" not in state

            assert play_until(host, sim, env, rng, stop=stop) == "stopped"
            path = secret_log(env)
            sg = SecretGame.load(path)
            g = sg.game
            last = [line for line in sg.lines if line["type"] == "move"][-1]
            origin = g.turn[3 * g.n_turn - 2]
            n_lines = len(sg.lines)
            host.send("undo")
            host.expect([r"taken back: %s goes back to %d" % (last["piece"], origin)], timeout=15)
            state["done"] = True
            after = SecretGame.load(path)
            assert len(after.lines) == n_lines - 1 and after.game.phase == PHASE_DETECTIVES
            assert after.game.pos[after.game.piece_index(last["piece"])] == origin
            sim.lift(last["to"])
            sim.place(origin)
            assert move_one_detective(sim, path, rng)
            assert play_until(host, sim, env, rng) == "over"
            host.expect([r"\n"], timeout=5)
            path = finish_and_verify(host, sim, env)
            host.proc.wait(10)
            link = BoardLink(sim.port)
            link.open()
            board = link.record()
            journal = link.record(everything=True)
            link.close()
            assert any(line["type"] == "undo" for line in journal)
            assert not any(line["type"] == "undo" for line in board)
            r = _yard_verify(env, path, board)
            assert r.returncode == 0, r.stdout + r.stderr
        finally:
            host.close()
