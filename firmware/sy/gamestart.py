"""How a Game begins: a new game's setup checked against the rules (rules.md: 2 to 5 detectives,
their bobbies, ticket stocks the box can hold, rounds, surfacing moves), or a saved game read back.

Game (rules.py) calls these. Kept apart because the board needs them only at a setup and at boot: it
loads the module then and drops it after (docs/memory.md).
"""
from sy import mapgraph, rules
from sy.rules import const

# refusals: sentences in sy/messages.py
_TWO_PLAYER_COUNT = const(2)
_DETECTIVE_COUNT = const(3)
_BOBBY_COUNT = const(4)
_ROUNDS_RANGE = const(5)
_NOT_A_STATION = const(11)
_SHARED_START = const(24)
_MRX_START_HELD = const(25)
_REVEALS_RANGE = const(26)
_TICKET_COUNT_RANGE = const(27)
_BOX_SHORT = const(28)
_SAVE_DAMAGED = const(36)


def check(g, detectives, bobbies, mrx, two_player, stock, mt, rounds, reveals):
    """Refuse a setup the rules forbid; (start stations, the general supply) of an allowed one."""
    n = len(detectives)
    if two_player and n != 2:
        raise rules.RuleError("bad_input", _TWO_PLAYER_COUNT)
    if n < 2 or n > 5:
        raise rules.RuleError("bad_input", _DETECTIVE_COUNT)
    if len(bobbies) != rules._BOBBIES[n]:
        raise rules.RuleError("bad_input", _BOBBY_COUNT, n, rules._BOBBIES[n], len(bobbies))
    start = list(detectives) + list(bobbies)
    for s in start:
        if not g.is_station(s):
            raise rules.RuleError("bad_input", _NOT_A_STATION, s)
    for i in range(len(start)):
        if start[i] in start[:i]:
            raise rules.RuleError("bad_input", _SHARED_START, start[i])
    if mrx:
        if not g.is_station(mrx):
            raise rules.RuleError("bad_input", _NOT_A_STATION, mrx)
        if mrx in start:
            raise rules.RuleError("bad_input", _MRX_START_HELD, mrx)
    if not (rules._is_int(rounds) and 1 <= rounds <= 99):
        raise rules.RuleError("bad_input", _ROUNDS_RANGE)
    for r in reveals:
        if not (rules._is_int(r) and 1 <= r <= 99):
            raise rules.RuleError("bad_input", _REVEALS_RANGE)
    for c in tuple(stock) + tuple(mt):
        if not (rules._is_int(c) and 0 <= c <= 255):
            raise rules.RuleError("bad_input", _TICKET_COUNT_RANGE)
    holders = 1 if two_player else n
    supply = bytearray(3)
    for t in range(3):
        left = rules.BOX[t] - holders * stock[t]
        if left < 0:
            raise rules.RuleError("bad_input", _BOX_SHORT, rules.BOX[t], rules.TICKET_NAMES[t])
        supply[t] = left
    return start, supply


def load(cls, data, graph):
    """The Game (of class cls) saved by Game.save(); RuleError bad_input if data is damaged."""
    try:
        return _load(cls, data, graph)
    except (IndexError, ValueError, TypeError, KeyError):
        raise rules.RuleError("bad_input", _SAVE_DAMAGED)


def _load(cls, data, graph):
    if data[0] != rules._SAVE_VERSION:
        raise ValueError
    k = 1
    n = data[k]
    name = bytes(data[k + 1:k + 1 + n]).decode()
    k += 1 + n
    graph = graph or mapgraph.load(name)
    if graph.name != name:
        raise ValueError
    n_det, n_pieces, two, rounds, n_rev = data[k:k + 5]
    k += 5
    reveals = bytes(data[k:k + n_rev])
    k += n_rev
    pos = data[k:k + n_pieces]
    k += n_pieces
    g = cls(list(pos[:n_det]), list(pos[n_det:n_pieces]), 0, bool(two), None, None, rounds,
            reveals, graph)
    holders = 1 if two else n_det
    tickets = [bytearray(data[k + 3 * i:k + 3 * i + 3]) for i in range(holders)]
    k += 3 * holders
    g.tickets = [tickets[0], tickets[0]] if two else tickets
    g.supply = bytearray(data[k:k + 3])
    g.mrx_used = bytearray(data[k + 3:k + 6])
    k += 6
    (g.black, g.double, g.round, g.moves, g.phase, g.moved, res, rea, g.mrx, g.surfaced,
     g._landed, g._lander) = data[k:k + 12]
    k += 12
    g.result = rules.RESULTS[res]
    g.reason = rules.REASONS[rea]
    g.cand = bytearray(data[k:k + 32])
    k += 32
    if len(g.cand) != 32 or g.phase > rules.PHASE_OVER:
        raise ValueError
    n_log = data[k]
    k += 1
    g.log = [[data[k + 2 * i], data[k + 2 * i + 1]] for i in range(n_log)]
    if len(data) != k + 2 * n_log:
        raise ValueError
    return g
