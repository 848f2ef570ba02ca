"""Mister X's moves: one travel-log entry at a time, checked against the rules, his tickets spent,
and the public update of where he may be. Game.mrx_move and mrx_double call these.

Kept apart from sy/rules/game.py so the Game's module stays about the Game; the board loads this one at
its first `mrx` command. A Game knows his station (`g.mrx`)
or not (secret mode, the board): see sy/rules/game.py. What only a known station needs (his legal moves,
a move's link from his station) and his end (capture, cornered) are in sy/rules/mrxknown.py.
step, spread, snapshot and restore are for the host's planners too (yard play's `legal double`,
the benchmark): one entry without the turn's bookkeeping, and undoing it.
"""
from sy.rules.base import BLACK, PHASE_DETECTIVES, RuleError, TICKET_NAMES, check_mrx_turn, is_int


def single(g, ticket, to):
    """Mister X's single move. In secret mode `to` is given only on a surfacing move.
    Returns the station he surfaces on, or 0. A refused move changes nothing."""
    check_mrx_turn(g)
    snap = snapshot(g)
    try:
        shown = step(g, ticket, to)
    except RuleError:
        restore(g, snap)
        raise
    _start_detectives(g)
    return shown


def double(g, ticket1, to1, ticket2, to2):
    """A double move: two travel-log entries in one turn. Returns the station shown, or 0."""
    check_mrx_turn(g)
    if not g.double:
        raise RuleError("double_used")
    snap = snapshot(g)
    try:
        shown = step(g, ticket1, to1)
        shown = step(g, ticket2, to2) or shown
    except RuleError:
        restore(g, snap)
        raise
    g.double -= 1
    _start_detectives(g)
    return shown


def step(g, ticket, to):
    """Validate and apply one travel-log entry. Returns the station shown, or 0."""
    surfacing = _check(g, ticket, to)
    spread(g, ticket)
    if surfacing and not g.mrx and not g.is_candidate(to):
        raise RuleError("not_connected", "mrx_unreachable", to, TICKET_NAMES[ticket])
    return _apply(g, ticket, to, surfacing)


def _check(g, ticket, to):
    """Refuse an entry the rules forbid whatever the possible stations; True if it surfaces."""
    if not (is_int(ticket) and 0 <= ticket <= 3):
        raise RuleError("bad_input", "field", "ticket")
    if ticket == BLACK:
        if not g.black:
            raise RuleError("no_ticket", "no_black")
    elif not g.supply[ticket]:
        raise RuleError("no_ticket", "supply_empty", TICKET_NAMES[ticket])
    if g.moves >= 255:
        raise RuleError("bad_input", "log_full")
    surfacing = (g.moves + 1) in g.reveals
    if to is not None and to != 0 and not g.graph.is_station(to):
        raise RuleError("bad_input", "not_station", to)
    if g.mrx:
        if not to:
            raise RuleError("bad_input", "name_station")
        from sy.rules import mrxknown  # (the host: the board never knows his station)
        mrxknown.check_link(g.graph, g.mrx, to, ticket)
    elif surfacing:
        if not to:
            raise RuleError("bad_input", "surfacing", g.moves + 1)
    elif to:
        raise RuleError("bad_input", "secret_station")
    if to and not g._free(to):
        raise RuleError("occupied", "held_by", to, g.piece_name(g.holder_of(to)))
    return surfacing


def _apply(g, ticket, to, surfacing):
    """Spend the ticket and write the entry; the station shown, or 0."""
    if ticket == BLACK:
        g.black -= 1
    else:
        g.supply[ticket] -= 1
        g.mrx_used[ticket] += 1
    g.moves += 1
    if g.mrx:
        g.mrx = to
    g.surfaced = to if surfacing else 0
    g.log.append((ticket, to if surfacing else 0))  # a tuple: half a 2-list's heap
    if not surfacing:
        return 0
    cand = g.cand  # he is seen: only that station
    for k in range(32):
        cand[k] = 0
    cand[to >> 3] = 1 << (to & 7)
    return to


def spread(g, ticket):
    """Replace the possible stations by those reachable with this ticket, minus held ones."""
    graph = g.graph
    adj = graph.adj
    old = g.cand
    new = bytearray(32)  # for this call only: g.cand stays the same object (no heap kept per move)
    last = 4 if ticket == BLACK else ticket + 1
    first = 0 if ticket == BLACK else ticket
    for k in range(32):
        byte = old[k]
        if not byte:
            continue
        for b in range(8):
            if byte & (1 << b):
                s = (k << 3) | b
                for t in range(first, last):
                    lo, hi = graph.span(s, t)
                    for i in range(lo, hi):
                        d = adj[i]
                        new[d >> 3] |= 1 << (d & 7)
    for s in g.pos:
        new[s >> 3] &= ~(1 << (s & 7)) & 0xFF
    for k in range(32):
        old[k] = new[k]


def snapshot(g):
    return (bytes(g.cand), bytes(g.supply), bytes(g.mrx_used), g.black, g.moves, g.mrx, g.surfaced, len(g.log))


def restore(g, snap):
    g.cand[:] = snap[0]
    g.supply[:] = snap[1]
    g.mrx_used[:] = snap[2]
    g.black, g.moves, g.mrx, g.surfaced = snap[3], snap[4], snap[5], snap[6]
    del g.log[snap[7]:]


def _start_detectives(g):
    g.round += 1
    g.phase = PHASE_DETECTIVES
    g.moved = 0
    g._landing = 0
    g.n_turn = 0  # moves of an earlier turn cannot be taken back
    for i in range(g.n_detectives):
        if g.can_move(i):
            break
    else:
        g._end("mrx", "detectives_stuck")
        return
    g._close_round_if_done()
