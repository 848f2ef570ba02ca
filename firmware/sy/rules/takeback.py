"""A take-back: the last detective's or bobby's move of this turn undone, the game exactly as it
was before it (the piece's station and ticket, the general supply, where Mister X may be, who
still has to move, the turn). Allowed for the moves of the detectives' turn until Mister X moves
again (his move clears Game.turn); never for the move that ended the game. Moves are taken back
last first. Game.take_back and Game.check_take_back call this; kept apart because the board needs
it seldom: it loads the module at the first take-back.

A take-back never buys information (docs/fairplay.md). A move is answered at once when it lands
on a station where Mister X could have been (a capture is declared the moment a piece lands on
him, as the rulebook says, so no capture means "not here"), and when it hands him the turn (he is
declared cornered at once, or not). Such a move is final: taking it back needs Mister X's consent
(his host's authenticated `undo`; a computer Mister X never gives it). Any other move was
answered by nothing the detectives did not know, and may be taken back freely.
"""
from sy.rules.base import PHASE_DETECTIVES, PHASE_MRX, PHASE_OVER, RuleError

# why the turn's last move needs Mister X's consent to be taken back (check_take_back's answer)
FREE = 0                 # nothing was answered after it: taken back by anyone
LANDED_WHERE_HE_MAY_BE = 1  # it landed on a station he could have been on: "no capture" told them
HANDED_HIM_THE_TURN = 2  # it ended the detectives' turn: "not cornered" (or his move) told them


def consent_needed(g):
    """Why taking back the turn's last move needs Mister X's consent (FREE: it needs none).
    Assumes there is such a move (n_turn > 0)."""
    k = 3 * (g.n_turn - 1)
    if g.turn[k] & 0x80:  # its station was one of his possible ones before it
        return LANDED_WHERE_HE_MAY_BE
    if g.phase == PHASE_MRX:  # the turn's last move closed the round
        return HANDED_HIM_THE_TURN
    return FREE


def check(g, consent):
    """Refuse (RuleError, changing nothing) taking back the turn's last move now: none to take
    back, the game over, or a final move without Mister X's consent. Returns consent_needed."""
    if g.phase == PHASE_OVER:
        raise RuleError("game_over")
    if not g.n_turn:
        raise RuleError("wrong_turn", "nothing_to_take_back")
    why = consent_needed(g)
    if why != FREE and not consent:
        k = 3 * (g.n_turn - 1)
        piece = g.turn[k] & 0x7F
        if why == LANDED_WHERE_HE_MAY_BE:
            raise RuleError("needs_consent", "final_landed", g.piece_name(piece), g.pos[piece])
        raise RuleError("needs_consent", "final_turn", g.piece_name(piece))
    return why


def undo(g):
    """Undo the last move of this turn. Returns (piece, ticket or None, station it is back on,
    station it had moved to); RuleError (changing nothing) when there is none to take back.
    Whether the players may (check) is the board's question: a host mirroring the board's game
    takes back what the board took back."""
    if g.phase == PHASE_OVER:
        raise RuleError("game_over")
    n = g.n_turn
    if not n:
        raise RuleError("wrong_turn", "nothing_to_take_back")
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
