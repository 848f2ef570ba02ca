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
        raise RuleError("bad_input", "the two-player game has exactly 2 detectives")
    if n < 2 or n > 5:
        raise RuleError("bad_input", "a game has 2 to 5 detectives (one player runs 2 in the two-player game)")
    if len(bobbies) != BOBBIES[n]:
        raise RuleError("bad_input", "%d detectives play with %d bobbies, not %d", n, BOBBIES[n],
                        len(bobbies))
    start = list(detectives) + list(bobbies)
    for s in start:
        if not g.is_station(s):
            raise RuleError("bad_input", "%r is not a station", s)
    for i in range(len(start)):
        if start[i] in start[:i]:
            raise RuleError("bad_input", "two pieces cannot both start on station %d", start[i])
    if mrx:
        if not g.is_station(mrx):
            raise RuleError("bad_input", "%r is not a station", mrx)
        if mrx in start:
            raise RuleError("bad_input", "Mister X cannot start on station %d: a piece stands there", mrx)
    return start


def _supply(n, two_player, stock, mt, rounds, reveals):
    """The tickets left in the general supply if the counts are allowed."""
    if not (is_int(rounds) and 1 <= rounds <= 99):
        raise RuleError("bad_input", "rounds must be a whole number from 1 to 99")
    for r in reveals:
        if not (is_int(r) and 1 <= r <= 99):
            raise RuleError("bad_input", "surfacing moves must be whole numbers from 1 to 99")
    for c in tuple(stock) + tuple(mt):
        if not (is_int(c) and 0 <= c <= 255):
            raise RuleError("bad_input", "ticket counts must be whole numbers from 0 to 255")
    holders = 1 if two_player else n
    supply = bytearray(3)
    for t in range(3):
        left = BOX[t] - holders * stock[t]
        if left < 0:
            raise RuleError("bad_input", "the box has only %d %s tickets", BOX[t],
                            TICKET_NAMES[t])
        supply[t] = left
    return supply
