"""Playing `yard play` in a pty against a simulated board, as the people at the table do: the
tests of the host's console, its computer players and Mister X's secret page drive their games
with these.

The test types Mister X's moves into his console (choosing them from the secret log on disk, as he
would from his screen) and moves the detectives' pieces on the simulated board (lift, place, a
ticket button when two transports fit).
"""
import os
import time

from host.misterx.secretgame import SecretGame
from host.ptyterminal import PtyTerminal
from sy.play.board import PIECE_RGB, BOBBY_RGB
from sy.rules.game import TICKET_NAMES, PHASE_DETECTIVES

WORDS = ("taxi", "bus", "ug", "black")  # the console's ticket words


def yard_env(tmp_path):
    """The environment of a `yard` process of a test: its own YARD_HOME, unbuffered output."""
    e = dict(os.environ)
    e["YARD_HOME"] = str(tmp_path / "yard")
    e["PYTHONUNBUFFERED"] = "1"
    return e


def secret_log(env):
    """The one secret log the game of this YARD_HOME writes."""
    folder = env["YARD_HOME"]
    names = [n for n in os.listdir(folder) if n.endswith(".jsonl")]
    assert len(names) == 1, names
    return os.path.join(folder, names[0])


def place_start(host, sim, env):
    """Once the console asks for it, put every piece on its start station."""
    host.expect([r"Put the pieces on their start stations"], timeout=60)
    for s in SecretGame.load(secret_log(env)).game.pos:
        sim.place(s, settle=False)
    sim.settle()


def start_game(sim, env, players, extra=()):
    """`yard play` on the simulated board (random cards unless `extra` says otherwise), the pieces
    on their start stations: the console."""
    host = PtyTerminal(["play", "--port", sim.port, "--players", str(players), *(extra or ["--cards", "random"])], env)
    place_start(host, sim, env)
    return host


def mrx_input(sg, rng):
    """A legal move of Mister X's, as he types it (a double now and then, a station alone when
    one plain ticket reaches it)."""
    g = sg.game
    if g.double and rng.random() < 0.15:
        opts = sg.double_options()
        if opts:
            (t1, s1), (t2, s2) = rng.choice(opts)
            return "double %s %d %s %d" % (WORDS[t1], s1, WORDS[t2], s2)
    s, t = rng.choice(g.legal_mrx())
    plain = [tt for ss, tt in g.legal_mrx() if ss == s and tt != 3]
    if len(plain) == 1 and t != 3 and rng.random() < 0.5:
        return str(s)  # the forgiving syntax: a station alone
    return "%s %d" % (WORDS[t], s)


def wait_until_lit_to_move(sim, g, piece, timeout=10):
    """Wait until the board shows that `piece` may move, as the people at the table do: it pulses
    (96..255 of its colour) where in Mister X's turn every piece glows at 24. The host logs Mister
    X's move before the board has it: a hand that lifts a piece on the log's word alone lifts it out
    of turn, and the board then takes its placement for no move."""
    c = 3 * piece if piece < g.n_detectives else BOBBY_RGB
    bright = int(sim.config["leds"]["brightness"] * 256)
    dim = max(((PIECE_RGB[c + k] * 24) >> 8) * bright >> 8 for k in range(3))
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if max(sim.leds().get(g.pos[piece], (0, 0, 0))) > 2 * dim + 1:
            return
        time.sleep(0.02)
    raise AssertionError("the board never showed %s's turn" % g.piece_name(piece))


def move_one_detective(sim, path, rng, timeout=15, hunt=False, logged=True):
    """Move the first piece that has to move; wait until the host logged it (logged=False: the
    host is not running, nobody logs it). False when no piece has to move. hunt: the detectives
    cheat (they read the secret log) and step onto Mister X when they can."""
    sg = SecretGame.load(path)
    g = sg.game
    mask = g.to_move()
    if g.phase != PHASE_DETECTIVES or g.result is not None or not mask:
        return False
    piece = min(i for i in range(g.n_pieces) if mask & (1 << i))
    opts = g.legal(piece)
    s, t = rng.choice(opts)
    if hunt:
        s, t = min(opts, key=lambda o: (o[0] != g.mrx, abs(o[0] - g.mrx)))
    fits = [tt for ss, tt in opts if ss == s]
    before = len(sg.lines)
    wait_until_lit_to_move(sim, g, piece)
    sim.lift(g.pos[piece])
    if not g.is_bobby(piece) and len(fits) > 1:
        sim.press(TICKET_NAMES[t])
    sim.place(s)
    if not logged:
        return True
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if len(SecretGame.load(path).lines) > before:
            return True
        time.sleep(0.05)
    raise AssertionError("the host did not log %s's move to %d" % (g.piece_name(piece), s))


def play_until(host, sim, env, rng, stop=None, hunt=False):
    """Drive the game; returns 'over' or 'stopped' (when stop(sg, k) says so; k: 0 at Mister X's
    prompt, 1 at the detectives' turn)."""
    while True:
        k, _m = host.expect([r"mister x> ", r"Detectives' turn", r"GAME OVER[^\n]*\n"], timeout=90)
        path = secret_log(env)
        if k == 2:
            host.expect([r"Secret log: "], timeout=30)
            return "over"
        sg = SecretGame.load(path)
        if stop and stop(sg, k):
            return "stopped"
        if k == 0:
            host.send(mrx_input(sg, rng))
        else:
            while move_one_detective(sim, path, rng, hunt=hunt):
                pass
