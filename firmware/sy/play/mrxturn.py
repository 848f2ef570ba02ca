"""Mister X's public move, told by the host (the `mrx` command, sy/link/handlers.py), on the board.

Loaded at the first `mrx` command (the rules core loads sy/rules/mrxmoves.py, the rules of his
moves, the same way). The board never learns a station he does not surface on: a `to` on a secret
move is refused before the rules run. The game is in play when these run (Board.require_play: the
command table's stage, sy/link/proto.py).
"""
from sy.rules.game import RuleError, TICKET_NAMES


def _line(ticket, to):
    line = {"type": "mrx", "ticket": TICKET_NAMES[ticket]}
    if to:
        line["to"] = to
    return line


def _check_to(g, move_no, to):
    if to and move_no not in g.reveals:
        raise RuleError("bad_input", "secret_move", move_no)


def single(b, ticket, to, commit):
    """Apply, journal and announce his single move; (seq, station shown or 0)."""
    g = b.game
    _check_to(g, g.moves + 1, to)
    reveal = g.mrx_move(ticket, to)
    line = _line(ticket, reveal)
    if commit:
        line["commit"] = commit
    return b.commit_mrx_move(line), reveal


def double(b, t1, to1, c1, t2, to2, c2):
    """The same for a double move: one journal line with both halves."""
    g = b.game
    _check_to(g, g.moves + 1, to1)
    _check_to(g, g.moves + 2, to2)
    first = g.moves + 1
    reveal = g.mrx_double(t1, to1, t2, to2)
    halves = []
    for t, to, c, k in ((t1, to1, c1, first), (t2, to2, c2, first + 1)):
        h = _line(t, to if k in g.reveals else 0)
        del h["type"]
        if c:
            h["commit"] = c
        halves.append(h)
    return b.commit_mrx_move({"type": "mrx", "double": halves}), reveal
