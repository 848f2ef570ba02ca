"""The public safety filter: a computer Mister X never ends a move where a piece can step next.

A *blunder* is a move (single, black, or a double move's end) that ends on a station some
detective with a ticket for it, or some bobby, can step on in the detectives' next turn, when
another legal move ended out of every piece's reach. Whether a station is in reach depends on
the pieces' stations and tickets only (public facts), so filtering a hidden move's destinations
by it keeps the plan a function of public facts and his station (host/ai/hiding.py): the same
filter is applied to every station he may be on.

Two tiers: `reach` (one move: what a blunder is) and `reach2` (two moves). A destination out of
`reach` from which he has a next move out of `reach2` is *safe for two moves*: whatever the
pieces do in between, a safe move will still be there. The agents drop the destinations in reach
when a move out of it exists, and prefer the two-move-safe ones among the rest (WEIGHT_ONE_MOVE).
"""
from host.ai.model import BLACK

INF = 99  # farther than any station

# the weight, against 1, of a destination safe for one move only where one safe for two exists
WEIGHT_ONE_MOVE = 0.25
# the guard's and the mixed formula's tier for a one-move-safe destination the pieces cannot close
# in on next move (trappable); TRAP_TIER off: that tier is not used
WEIGHT_OPEN = 0.5
TRAP_TIER = True
# the guard (two_moves): where no single move reaches a tier (Safety.tier) above DOUBLE_ESCAPE, the
# double moves count too (his double tickets kept for when the pieces close in); 0: never
DOUBLE_ESCAPE = WEIGHT_ONE_MOVE


def dmin(tb, pos, s):
    """Fewest moves any detective or bobby needs to reach s."""
    row = tb.dist[s]
    m = INF
    for p in pos:
        d = row[p]
        if d < m:
            m = d
    return m


def mrx_score(tb, pos, to):
    """Distance from the nearest piece (capped), then free neighbours no piece reaches in one."""
    d = dmin(tb, pos, to)
    if d > 4:
        d = 4
    safe = 0
    for n in tb.any_nbr[to]:
        if n not in pos and dmin(tb, pos, n) > 1:
            safe += 1
    return d * 100 + min(safe, 9) * 10


def reach(sim):
    """Bitmap of the stations some detective (with a ticket for the transport) or bobby can step
    on next move, from sim's public fields (positions and tickets; sim.mrx is not read)."""
    spread = sim.tb.spread
    pos = sim.pos
    out = 0
    for p in range(sim.n_pieces):
        here = pos[p]
        if p >= sim.n_det:
            out |= spread[0][here] | spread[1][here] | spread[2][here]
            continue
        tk = sim.tickets[p]
        for t in range(3):
            if tk[t]:
                out |= spread[t][here]
    return out


def reach2(sim):
    """Bitmap of the stations some piece can step on within two moves (tickets held now, counts
    aside): a superset of what it can reach after any reply."""
    spread = sim.tb.spread
    pos = sim.pos
    out = 0
    for p in range(sim.n_pieces):
        transports = (0, 1, 2) if p >= sim.n_det else [t for t in range(3) if sim.tickets[p][t]]
        first = 0
        for t in transports:
            first |= spread[t][pos[p]]
        out |= first
        m = first
        while m:
            low = m & -m
            s = low.bit_length() - 1
            m ^= low
            for t in transports:
                out |= spread[t][s]
    return out


def exits(sim, here, black, supply):
    """Stations Mister X could move to from `here` with `black` black tickets and `supply`."""
    tb = sim.tb
    if black > 0:
        return tb.any_nbr[here]
    return [d for d, t in tb.mrx_plain[here] if supply[t] > 0]


class Safety:
    """The two tiers for one public position (built once per decision)."""

    __slots__ = ("sim", "one", "two")

    def __init__(self, sim):
        self.sim = sim
        self.one = reach(sim)
        self.two = None

    def safe(self, to):
        return not (self.one >> to) & 1

    def safe_two(self, to, black=None, supply=None):
        """Out of reach, and with a next move out of two moves' reach (his tickets after the move:
        `black`, `supply`; default sim's)."""
        if (self.one >> to) & 1:
            return False
        if self.two is None:
            self.two = reach2(self.sim)
        sim = self.sim
        pos = sim.pos
        for d in exits(sim, to, sim.black if black is None else black, sim.supply if supply is None else supply):
            if d not in pos and not (self.two >> d) & 1:
                return True
        return False

    def tier(self, to, ticket=None, ticket2=None):
        """Safety.weight, with a tier between its two: WEIGHT_OPEN for a destination safe for one
        move whose exits the pieces cannot all close next move (trappable)."""
        w = self.weight(to, ticket, ticket2)
        if w != WEIGHT_ONE_MOVE or not TRAP_TIER:
            return w
        sim = self.sim
        black = sim.black - (ticket == BLACK) - (ticket2 == BLACK)
        supply = list(sim.supply)
        for t in (ticket, ticket2):
            if t is not None and t != BLACK:
                supply[t] -= 1
        return WEIGHT_ONE_MOVE if trappable(sim, to, black, supply) else WEIGHT_OPEN

    def weight(self, to, ticket=None, ticket2=None):
        """1 for a two-move-safe destination, WEIGHT_ONE_MOVE for a one-move-safe one, 0 in reach.
        ticket(s): the ones spent to get there (for the exits' tickets)."""
        if (self.one >> to) & 1:
            return 0.0
        sim = self.sim
        black = sim.black
        supply = list(sim.supply)
        for t in (ticket, ticket2):
            if t is None:
                continue
            if t == BLACK:
                black -= 1
            else:
                supply[t] -= 1
        return 1.0 if self.safe_two(to, black, supply) else WEIGHT_ONE_MOVE


def trappable(sim, to, black=None, supply=None):
    """Whether the pieces, each moving once (detectives by a ticket they hold, bobbies by any
    transport), can stand on every station Mister X could leave `to` by (his tickets: `black`,
    `supply`; default sim's): he would be stuck there, and lose, on his next turn. A matching of
    the pieces to his exits (public facts only)."""
    outs = set(exits(sim, to, sim.black if black is None else black, sim.supply if supply is None else supply))
    outs.discard(to)
    if len(outs) > sim.n_pieces:
        return False
    spread = sim.tb.spread
    can = []  # per piece: the bitmap of stations it can step on next move
    for p in range(sim.n_pieces):
        here = sim.pos[p]
        m = 0
        for t in range(3):
            if p >= sim.n_det or sim.tickets[p][t]:
                m |= spread[t][here]
        can.append(m)
    held = {}  # exit -> piece standing there in the matching

    def place(e, seen):
        for p in range(sim.n_pieces):
            if (can[p] >> e) & 1 and p not in seen:
                seen.add(p)
                owner = {q: x for x, q in held.items()}
                if p not in owner or place(owner[p], seen):
                    if p in owner:
                        del held[owner[p]]
                    held[e] = p
                    return True
        return False
    for e in outs:
        if not place(e, set()):
            return False
    return True


def final(action):
    return action[2] if action[0] == "move" else action[4]


def safe_actions(sim, doubles=True):
    """Every legal action of Mister X (from sim.mrx) that ends out of `reach`:
    [("move", t, to) | ("double", t1, to1, t2, to2)]. Doubles are listed only where no single
    move is safe (they cost a double ticket)."""
    sf = Safety(sim)
    out = [("move", t, to) for to, t in sim.mrx_options_from(sim.mrx) if sf.safe(to)]
    if out or not doubles or not sim.double:
        return out
    for to1, t1 in sim.mrx_options_from(sim.mrx):
        probe = sim.copy()
        probe.mrx_step(t1, to1)
        for to2, t2 in probe.mrx_options_from(to1):
            if sf.safe(to2):
                out.append(("double", t1, to1, t2, to2))
    return out


def _doubles(sim, sf):
    """His double moves whose end is out of reach and not where he stands (his escapes)."""
    out = []
    for to1, t1 in sim.mrx_options_from(sim.mrx):
        probe = sim.copy()
        probe.mrx_step(t1, to1)
        for to2, t2 in probe.mrx_options_from(to1):
            if to2 != sim.mrx and sf.safe(to2):
                out.append(("double", t1, to1, t2, to2))
    return out


def guard(sim, action, rnd, two_moves=False):
    """The action, or, if it ends in reach while a safe action exists, the best safe one: safe for
    two moves first (Safety.weight), then away from the pieces (policy.mrx_score), a plain ticket
    before a black one, a single move before a double; ties by rnd. The agents' last check on
    every move (their plans already keep to safe moves; this catches what they do not cover).
    two_moves: also replace a move safe for one move only when one safe for two exists (the
    greedy formula: its score looks one move ahead only)."""
    sf = Safety(sim)
    mine = final(action)
    if sf.safe(mine):
        if not two_moves:
            return action
        w = sf.tier(mine, *_tickets(action))
        if w == 1.0:
            return action
        tiers = [(sf.tier(final(a), *_tickets(a)), a) for a in safe_actions(sim)]
        if DOUBLE_ESCAPE and sim.double and all(a[0] == "move" for _t, a in tiers) \
                and max(t for t, _a in tiers) <= DOUBLE_ESCAPE:
            tiers += [(sf.tier(final(a), *_tickets(a)), a) for a in _doubles(sim, sf)]
        top = max(t for t, _a in tiers)
        if top <= w:
            return action  # nothing safer: his own safe move stands
        acts = [a for t, a in tiers if t == top]
    else:
        acts = safe_actions(sim)
        if not acts:
            return action
    best = None
    for a in acts:
        to = final(a)
        tickets = (a[1],) if a[0] == "move" else (a[1], a[3])
        sc = sf.tier(to, *tickets) * 1000 + mrx_score(sim.tb, sim.pos, to) \
            - 30 * tickets.count(BLACK) - 150 * (a[0] == "double") + rnd.random()
        if best is None or sc > best[0]:
            best = (sc, a)
    return best[1]


def _tickets(action):
    return (action[1],) if action[0] == "move" else (action[1], action[3])


def has_safe_move(sim):
    return bool(safe_actions(sim))


def is_blunder(sim, action):
    """Whether the action (of Mister X on sim.mrx) ends in reach while a safe action existed."""
    if not (reach(sim) >> final(action)) & 1:
        return False
    return has_safe_move(sim)


__all__ = ["INF", "dmin", "mrx_score", "reach", "reach2", "Safety", "safe_actions", "guard", "has_safe_move", "is_blunder", "final",
           "trappable", "WEIGHT_ONE_MOVE", "WEIGHT_OPEN"]
