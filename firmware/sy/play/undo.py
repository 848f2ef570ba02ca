"""A take-back on the board: the last detective's or bobby's move of this turn undone, by the
confirm button held (Board.release) or by the host's `undo` command. The rules put the game back
as it was before the move (sy/rules/takeback.py); the board journals an `undo` line and saves, so a power
cut before the save leaves the move standing and one after it resumes with the move taken back
(the piece then put back as after any cut: sy/storage/resume.py). Until the piece stands on its station
again its station blinks and nothing commits (the Board's hand: HAND_TAKEN_BACK). Loaded at the first take-back (the
host's `undo`: sy/link/handlers.py).

A move the game has answered (it landed where Mister X could have been, or handed him the turn)
is final: taking it back needs his consent, the host's `undo` with `consent: true`, a line that
speaks for him (sy/link/auth.py checks its tag). The confirm button never carries it: the board
refuses and tells the host, which may ask him (docs/fairplay.md).
"""
from sy.rules.game import RuleError


def take_back(b, name, consent=False):
    """Take back the turn's last move (of piece `name`, if given); a final move only with Mister
    X's consent. Returns the event's seq. The caller has checked that the game is in play
    (Board.require_play: the command table's stage)."""
    g = b.game
    if name is not None:
        k = g.piece_index(name)
        n = g.n_turn
        if not n or g.turn_mover(n - 1) != k:
            for i in range(n):
                if g.turn_mover(i) == k:
                    raise RuleError("wrong_turn", "not_last", g.piece_name(k))
            raise RuleError("wrong_turn", "not_moved", g.piece_name(k))
    from sy.rules.takeback import FREE
    consented = g.check_take_back(consent) != FREE
    piece, _ticket, home, left = g.take_back()
    return b.take_back(piece, home, left, consented)


def refusal(b, e):
    """The `refused` note for a take-back the confirm button asked for and the rules refused; a
    final move's names the move, so that Mister X's host can ask him for his consent."""
    note = e.reply({"note": "refused"})
    g = b.game
    if e.code == "needs_consent" and g is not None and g.n_turn:
        piece = g.turn_mover(g.n_turn - 1)
        note["piece"] = g.piece_name(piece)
        note["from"] = g.pos[piece]
        note["to"] = g.turn[3 * g.n_turn - 2]
    return note
