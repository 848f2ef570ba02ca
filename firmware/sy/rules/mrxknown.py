"""Mister X where his station is known: his legal moves and a move's link from his station (the
host, which knows him), and his end when the host declares it (captured, cornered), which makes
it known. Game.legal_mrx, capture and mrx_cornered and sy/rules/mrxmoves.py call these.

Apart from sy/rules/mrxmoves.py so the board's `mrx` command, which never knows his station, loads
only what it needs; the board loads this module at its first `capture` or `cornered`.
"""
from sy.rules.base import BLACK, PHASE_OVER, RuleError, TICKET_NAMES, check_mrx_turn, is_int
from sy.rules.mapgraph import FERRY


def legal(g):
    """Mister X's legal single moves now (double moves excluded), sorted; needs his station."""
    if not g.mrx:
        raise RuleError("bad_input", "mrx_secret")
    out = []
    g._mrx_options(g.mrx, out)
    out.sort()
    return out


def check_link(graph, here, to, ticket):
    """Refuse a move of his from `here` that no line of the ticket's transport makes."""
    if ticket == BLACK:
        for t in range(4):  # a black ticket: any transport, the ferry too
            if graph.connected(here, to, t):
                return
        raise RuleError("not_connected", "no_link", to, here)
    if graph.connected(here, to, ticket):
        return
    if graph.connected(here, to, FERRY):
        raise RuleError("ferry", "ferry_black")
    raise RuleError("not_connected", "no_line", TICKET_NAMES[ticket], here, to)


def capture(g, piece):
    """The host says: this piece stands on Mister X. Ends the game.

    The board commits a move before the host can answer, so the capture may come after the
    move closed the round, even the last round (which ended the game as 'rounds_done')."""
    g.mrx = check_capture(g, piece)
    g._end("detectives", "capture")


def check_capture(g, piece):
    """The station of a capture by `piece` if the public facts allow it (RuleError if not);
    changes nothing. The proof that he is there comes from his commitment (sy/play/declare.py)."""
    if not (is_int(piece) and 0 <= piece < g.n_pieces):
        raise RuleError("bad_input", "no_piece", piece)
    s = g.pos[piece]
    last = g._landing & 0x7FFF == piece << 8 | s
    if g.phase == PHASE_OVER and not (last and g.reason == "rounds_done"):
        raise RuleError("game_over")
    if g.mrx:
        if s != g.mrx:
            raise RuleError("bad_input", "mrx_not_on", s)
    elif not (g.is_candidate(s) or last and g._landing & 0x8000):
        # the landing cleared the station from his possible ones: it counts if it was one before
        raise RuleError("bad_input", "mrx_cannot_be", s)
    return s


def cornered(g):
    """The host says: Mister X, at the start of his turn, has no legal move. Ends the game."""
    check_mrx_turn(g)
    if g.mrx and g._mrx_options(g.mrx, None):
        raise RuleError("bad_input", "mrx_can_move")
    g._end("detectives", "mrx_stuck")
