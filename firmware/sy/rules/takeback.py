"""A take-back: the last detective's or bobby's move of this turn undone, the game exactly as it
was before it (the piece's station and ticket, the general supply, where Mister X may be, who
still has to move, the turn). Allowed for the moves of the detectives' turn until Mister X moves
again (his move clears Game.turn); never for the move that ended the game. Moves are taken back
last first. Game.take_back calls this; kept apart because the board needs it seldom: it loads the
module at the first take-back.
"""
from sy.rules.base import PHASE_DETECTIVES, PHASE_OVER, RuleError


def undo(g):
    """Undo the last move of this turn. Returns (piece, ticket or None, station it is back on,
    station it had moved to); RuleError (changing nothing) when there is none to take back."""
    if g.phase == PHASE_OVER:
        raise RuleError("game_over", "the game is over")
    n = g.n_turn
    if not n:
        raise RuleError("wrong_turn", "no move of this turn is left to take back")
    turn = g.turn
    k = 3 * (n - 1)
    piece = turn[k] & 0x7F
    was_possible = turn[k] & 0x80
    back = turn[k + 1]
    ticket = turn[k + 2]
    ticket = None if ticket == 255 else ticket
    to = g.pos[piece]
    g.pos[piece] = back
    if ticket is not None and not g.is_bobby(piece):
        g.tickets[piece][ticket] += 1
        g.supply[ticket] -= 1
    if was_possible:
        g.cand[to >> 3] |= 1 << (to & 7)
    g.n_turn = n - 1
    moved = 0
    landing = 0
    for i in range(0, k, 3):  # the turn's earlier moves: who has moved, the last landing
        p = turn[i] & 0x7F
        moved |= 1 << p
        landing = (p | (0x80 if g.mrx or turn[i] & 0x80 else 0)) << 8 | g.pos[p]
    g.moved = moved
    g._landing = landing
    g.phase = PHASE_DETECTIVES  # the turn's last move had handed it to Mister X
    return piece, ticket, back, to
