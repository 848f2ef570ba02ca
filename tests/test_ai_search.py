"""Mister X's search (host/ai/mcts.py search_mrx) on a hidden move: with SAMPLE it draws among the
root's safe moves by visits, so a detective who replays the search from his station does not find
one move; on a surfacing move it keeps the most visited one."""
import random

from sy.rules import game as rules
from host.ai import mcts, safety
from host.ai.model import Sim


def _choices(game, seeds, iterations=60):
    """[(action, the most visited root action)] of searches seeded by seeds."""
    out = []
    for s in seeds:
        action, stats = mcts.search_mrx(game, mcts.Budget(None, iterations), random.Random(s), safe=True)
        kind, t, to = max(stats["root"].children.items(), key=lambda kv: (kv[1].n, kv[1].w))[0]
        assert kind == 0  # (a single move in these positions)
        out.append((action, ("move", t, to)))
    return out


def test_a_hidden_move_is_drawn_among_safe_moves(monkeypatch):
    monkeypatch.setattr(mcts, "SAMPLE", 1.0)
    g = rules.Game([13, 26, 29, 34, 50], [], 45)
    assert (g.moves + 1) not in g.reveals
    one = safety.reach(Sim.from_game(g, g.mrx))
    got = _choices(g, range(12))
    for a, _most in got:
        assert not (one >> safety.final(a)) & 1, a  # never into a piece's reach
    assert sum(a != most for a, most in got) >= 2  # a draw, not the most visited move each time


def test_a_surfacing_move_is_the_most_visited(monkeypatch):
    g = rules.Game([13, 26, 29, 34, 50], [], 45)
    g.moves = 2  # his next move is the third: he surfaces
    assert (g.moves + 1) in g.reveals
    monkeypatch.setattr(mcts, "SAMPLE", 1.0)
    for a, most in _choices(g, range(6)):
        assert a == most
