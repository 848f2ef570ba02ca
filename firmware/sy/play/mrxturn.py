"""The `mrx` command: Mister X's public move, told by the host, on the board.

sy/link/proto.py loads this module at the first `mrx` command (the rules core loads sy/rules/mrxmoves.py, the rules
of his moves, the same way). The board never
learns a station he does not surface on: a `to` on a secret move is refused before the rules run.
"""
from sy.rules.game import RuleError, TICKET_NAMES
from sy.link.fields import ProtoError, commit_arg, station_arg, ticket_arg


def c_mrx(p, msg):
    b = p.board
    if "double" in msg:
        d = msg["double"]
        if not isinstance(d, list) or len(d) != 2 or not isinstance(d[0], dict) or not isinstance(d[1], dict):
            raise ProtoError("bad_input", "double must be a list of two moves")
        seq, reveal = double(b, ticket_arg(d[0].get("ticket")), station_arg(d[0].get("to")),
                             commit_arg(d[0].get("commit")), ticket_arg(d[1].get("ticket")),
                             station_arg(d[1].get("to")), commit_arg(d[1].get("commit")))
    else:
        seq, reveal = single(b, ticket_arg(msg.get("ticket")), station_arg(msg.get("to")),
                             commit_arg(msg.get("commit")))
    return {"seq": seq, "reveal": reveal, "round": b.game.round}


def _line(ticket, to):
    line = {"type": "mrx", "ticket": TICKET_NAMES[ticket]}
    if to:
        line["to"] = to
    return line


def _check_to(g, move_no, to):
    if to and move_no not in g.reveals:
        raise RuleError("bad_input", "move %d is secret: the board must not learn Mister X's station", move_no)


def single(b, ticket, to, commit):
    """Apply, journal and announce his single move; (seq, station shown or 0)."""
    g = b._ready_game()
    _check_to(g, g.moves + 1, to)
    reveal = g.mrx_move(ticket, to)
    line = _line(ticket, reveal)
    if commit:
        line["commit"] = commit
    b.x_on = False
    seq = b.commit_line(line)
    b._after_commit()
    return seq, reveal


def double(b, t1, to1, c1, t2, to2, c2):
    """The same for a double move: one journal line with both halves."""
    g = b._ready_game()
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
    b.x_on = False
    seq = b.commit_line({"type": "mrx", "double": halves})
    b._after_commit()
    return seq, reveal
