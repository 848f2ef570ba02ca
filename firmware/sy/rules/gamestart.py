"""How a Game begins: a new game's setup checked against the rules (rules.md: 2 to 5 detectives,
their bobbies, ticket stocks the box can hold, rounds, surfacing moves).

Game (sy/rules/game.py) calls this. Kept apart because the board needs it only at a setup (and when a
saved game is read back, sy/rules/savedgame.py): it loads the module then.
"""
from sy.rules.base import BOBBIES, BOX, RuleError, TICKET_NAMES, is_int


def check(g, detectives, bobbies, mrx, two_player, stock, mt, rounds, reveals):
    """Refuse a setup the rules forbid; (start stations, the general supply) of an allowed one.

    In two parts: the pieces and their start stations, then the tickets."""
    return _pieces(g, detectives, bobbies, mrx, two_player), _supply(len(detectives), two_player, stock, mt,
                                                                      rounds, reveals)


def _pieces(g, detectives, bobbies, mrx, two_player):
    """The start stations (detectives, then bobbies) if the rules allow them."""
    n = len(detectives)
    if two_player and n != 2:
        raise RuleError("bad_input", "two_player")
    if n < 2 or n > 5:
        raise RuleError("bad_input", "detectives_count")
    if len(bobbies) != BOBBIES[n]:
        raise RuleError("bad_input", "bobbies_count", n, BOBBIES[n], len(bobbies))
    start = list(detectives) + list(bobbies)
    for s in start:
        if not g.is_station(s):
            raise RuleError("bad_input", "not_station", s)
    for i in range(len(start)):
        if start[i] in start[:i]:
            raise RuleError("bad_input", "same_start", start[i])
    if mrx:
        if not g.is_station(mrx):
            raise RuleError("bad_input", "not_station", mrx)
        if mrx in start:
            raise RuleError("bad_input", "mrx_start_taken", mrx)
    return start


def _supply(n, two_player, stock, mt, rounds, reveals):
    """The tickets left in the general supply if the counts are allowed."""
    if not (is_int(rounds) and 1 <= rounds <= 99):
        raise RuleError("bad_input", "field", "rounds")
    for r in reveals:
        if not (is_int(r) and 1 <= r <= 99):
            raise RuleError("bad_input", "field", "reveals")
    for c in tuple(stock) + tuple(mt):
        if not (is_int(c) and 0 <= c <= 255):
            raise RuleError("bad_input", "field", "tickets")
    holders = 1 if two_player else n
    supply = bytearray(3)
    for t in range(3):
        left = BOX[t] - holders * stock[t]
        if left < 0:
            raise RuleError("bad_input", "box_only", BOX[t], TICKET_NAMES[t])
        supply[t] = left
    return supply
