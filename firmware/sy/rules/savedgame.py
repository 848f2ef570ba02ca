"""A saved game read back: the snapshot Game.save_into wrote (after every commit on the board),
checked as far as a damaged file can be told from a good one.

Game.load (sy/rules/game.py) calls this. Kept apart because the board needs it only at boot, to resume:
a board that starts with no saved game never loads it.
"""
from sy.rules import mapgraph
from sy.rules.base import PHASE_OVER, REASONS, RESULTS, RuleError, SAVE_VERSION


def load(cls, data, graph):
    """The Game (of class cls) saved by Game.save(); RuleError bad_input if data is damaged."""
    try:
        return _load(cls, data, graph)
    except (IndexError, ValueError, TypeError, KeyError):
        raise RuleError("bad_input", "damaged")


def _load(cls, data, graph):
    if data[0] != SAVE_VERSION:
        raise ValueError
    k = 1
    n = data[k]
    name = bytes(data[k + 1:k + 1 + n]).decode()
    k += 1 + n
    graph = graph or mapgraph.load(name)
    if graph.name != name:
        raise ValueError
    n_det, n_pieces, two, rounds, n_rev = data[k:k + 5]
    k += 5
    reveals = bytes(data[k:k + n_rev])
    k += n_rev
    pos = data[k:k + n_pieces]
    k += n_pieces
    g = cls(list(pos[:n_det]), list(pos[n_det:n_pieces]), 0, bool(two), None, None, rounds,
            reveals, graph)
    holders = 1 if two else n_det
    tickets = [bytearray(data[k + 3 * i:k + 3 * i + 3]) for i in range(holders)]
    k += 3 * holders
    g.tickets = [tickets[0], tickets[0]] if two else tickets
    g.supply = bytearray(data[k:k + 3])
    g.mrx_used = bytearray(data[k + 3:k + 6])
    k += 6
    (g.black, g.double, g.round, g.moves, g.phase, g.moved, res, rea, g.mrx, g.surfaced,
     landed, lander) = data[k:k + 12]
    g._landing = lander << 8 | landed
    k += 12
    g.result = RESULTS[res]
    g.reason = REASONS[rea]
    g.cand = bytearray(data[k:k + 32])
    k += 32
    if len(g.cand) != 32 or g.phase > PHASE_OVER:
        raise ValueError
    n_log = data[k]
    k += 1
    g.log = []
    for _ in range(n_log):
        g.log.append((data[k], data[k + 1]))
        k += 2
    if k < len(data):  # this turn's moves, for a take-back (absent in a snapshot before 0.1.2)
        n = data[k]
        if n > g.n_pieces:
            raise ValueError
        g.turn[:3 * n] = data[k + 1:k + 1 + 3 * n]
        g.n_turn = n
        k += 1 + 3 * n
    if len(data) != k:
        raise ValueError
    return g
