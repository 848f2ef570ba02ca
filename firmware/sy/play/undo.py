"""A take-back on the board: the last detective's or bobby's move of this turn undone, by the
confirm button held (Board.release) or by the host's `undo` command. The rules put the game back
as it was before the move (sy/rules/takeback.py); the board journals an `undo` line and saves, so a power
cut before the save leaves the move standing and one after it resumes with the move taken back
(the piece then put back as after any cut: sy/storage/resume.py). Until the piece stands on its station
again its station blinks and nothing commits (Board.back). Loaded at the first take-back (the
host's `undo`: sy/link/handlers.py).
"""
from sy.rules.game import RuleError


def take_back(b, name):
    """Take back the turn's last move (of piece `name`, if given). Returns the event's seq."""
    g = b._ready_game()
    if name is not None:
        k = g.piece_index(name)
        n = g.n_turn
        if not n or g.turn[3 * n - 3] & 0x7F != k:
            for i in range(n):
                if g.turn[3 * i] & 0x7F == k:
                    raise RuleError("wrong_turn", "%s's move is not the last of this turn: take back the "
                                    "later ones first" % g.piece_name(k))
            raise RuleError("wrong_turn", "%s has not moved this turn" % g.piece_name(k))
    piece, _ticket, back, to = g.take_back()
    b.back = piece
    if b.occ[to]:
        b.occ[to] = 3  # the piece still stands there: a stray now, never a placement
    b.gp = -1  # a guided move is guided again by the host
    b._drop_lift()
    b.compare_and_commit(True)
    b.render(b.now)  # the players see it first, as after a move (Board._commit_move)
    seq = b.commit_line({"type": "undo", "piece": g.piece_name(piece), "from": to, "to": back})
    b.compare_and_commit(True)
    return seq
