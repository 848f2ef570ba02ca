"""What the host declares besides Mister X's moves: a capture, Mister X cornered, the guided move
of a computer detective. proto.py loads this module for these commands only and drops it after
each, so its code is not on the heap during play."""
from sy.rules import RuleError
from sy.proto import ProtoError, _station, _ticket

_PLAY = 2
_OVER = 3


def c_capture(p, msg):
    b = p.board
    g = b.game
    if g is None:
        raise ProtoError("wrong_turn", "no game is set up")
    piece = g.piece_index(msg.get("piece"))
    if b.stage not in (_PLAY, _OVER):
        raise RuleError("wrong_turn", "no game is being played")
    g.capture(piece)  # the rules allow it after the last round's closing move, too
    b.stage = _PLAY
    seq = b.commit_line({"type": "capture", "piece": g.piece_name(piece)})
    b._after_commit()
    return {"seq": seq}


def c_cornered(p, msg):
    b = p.board
    b._ready_game().mrx_cornered()
    seq = b.commit_line({"type": "cornered"})
    b._after_commit()
    return {"seq": seq}


def c_guide(p, msg):
    """The host's move for a piece (computer detectives): lit, and the only placement taken."""
    name = msg.get("piece")
    to = _station(msg.get("to"))
    t = _ticket(msg.get("ticket"))
    b = p.board
    g = b._ready_game()
    k = g.piece_index(name)
    if not g.to_move() & (1 << k) or (to, t) not in g.legal(k):
        raise RuleError("not_connected", "%s cannot go to %d that way now" % (g.piece_name(k), to))
    b.gp, b.gto, b.gt = k, to, t
    b.dirty = True
