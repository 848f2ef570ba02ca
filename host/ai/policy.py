"""Move policies on the fast model (host/ai/model.py): heuristic choices and ε-greedy playouts.

Mister X's functions may read `sim.mrx` (he knows where he is). The detectives' functions read
only public fields (positions, tickets, `sim.cand`): in a playout they run inside a
determinization, and they never look at `sim.mrx`.
"""
import random as _random

from sy.rules.game import PHASE_DETECTIVES
from host.ai.model import BLACK, random_station
from host.ai.safety import INF, Safety, dmin, mrx_score, reach, reach2



# --- move filtering (Nijssen & Winands): when Mister X may spend a black or a double ticket --
def black_ok(sim, to, ticket_needed_ferry=False):
    """Black tickets: just after surfacing (the detectives know where he stands), or for the ferry.
    Never on a surfacing move (the station is shown anyway)."""
    if (sim.moves + 1) in sim.reveals:
        return ticket_needed_ferry
    return ticket_needed_ferry or sim.moves in sim.reveals


def double_ok(sim):
    """Double moves: when a detective is next to him, or just after surfacing with one close by."""
    if not sim.double:
        return False
    d = dmin(sim.tb, sim.pos, sim.mrx)
    return d <= 1 or (sim.moves in sim.reveals and d <= 2)


def mrx_filtered_options(sim, here=None):
    """Mister X's single moves after filtering: [(to, ticket)]; a black ticket appears only where
    black_ok allows it. Falls back to every legal move if filtering leaves none."""
    here = sim.mrx if here is None else here
    tb = sim.tb
    opts = sim.mrx_options_from(here)
    out = []
    plain = set()
    for to, t in opts:
        if t != BLACK:
            out.append((to, t))
            plain.add(to)
    for to, t in opts:
        if t == BLACK and black_ok(sim, to, to not in plain and to in tb.nbr[3][here]):
            out.append((to, t))
    return out or opts


def spread_size(sim, ticket):
    """How many stations the detectives would consider after this ticket (before removing pieces)."""
    c = sim.cand
    spread = sim.tb.spread[ticket]
    new = 0
    while c:
        low = c & -c
        new |= spread[low.bit_length() - 1]
        c ^= low
    for s in sim.pos:
        new &= ~(1 << s)
    return new.bit_count()


# --- heuristic Mister X (the "easy" agent and the baseline) ---------------------------------
# points of mrx_score per station within two of his moves of a destination and out of every
# piece's two-move reach (_Room): room to run when informed detectives close in (0: off)
ROOM = 0  # off: it lost games (docs/ai.md)


class _Room:
    """For one decision: how many stations within two moves of a destination (by black ticket:
    any transport) no piece can reach within two moves (safety.reach2)."""

    def __init__(self, sim):
        self.black = sim.tb.spread[BLACK]
        self.free = ~reach2(sim)

    def __call__(self, to):
        black = self.black
        one = black[to]
        two = one
        m = one
        while m:
            low = m & -m
            two |= black[low.bit_length() - 1]
            m ^= low
        return (two & self.free).bit_count()


def heuristic_mrx(sim, rnd, mix=0):
    """('move', t, to) or ('double', t1, to1, t2, to2) for the state in sim (Mister X to play).
    mix: on a hidden move, draw uniformly among the single moves of the safest tier (safety.Safety
    .tier: safe for two moves, then not to be shut in, then safe for one move) whose score is within `mix` points of mrx_score of the
    best one, instead of the best one: detectives who replay the formula then find several
    destinations per station he may be on, not one."""
    tb = sim.tb
    pos = sim.pos
    opts = mrx_filtered_options(sim)
    spread = {}  # (possible set, ticket) -> spread_size: a few distinct values per call

    def spread_of(s, t):
        key = (s.cand, t)
        v = spread.get(key)
        if v is None:
            v = spread[key] = spread_size(s, t)
        return v
    best = None
    scored = []
    room = _Room(sim) if ROOM else None
    for to, t in opts:
        sc = mrx_score(tb, pos, to) * 1000 + spread_of(sim, t) + rnd.random()
        if room:
            sc += ROOM * 1000 * room(to)
        scored.append((sc, t, to))
        if best is None or sc > best[0]:
            best = (sc, t, to)
    greedy = best
    if mix and (sim.moves + 1) not in sim.reveals:
        best = _mixed(sim, scored, best, mix, rnd)
    if greedy[0] < 200 * 1000 and double_ok(sim):  # the best single move ends next to a piece
        dbest = None
        for to1, t1 in opts:
            probe = sim.copy()
            probe.mrx_step(t1, to1)
            for to2, t2 in mrx_filtered_options(probe, to1):
                sc = mrx_score(tb, pos, to2) * 1000 + spread_of(probe, t2) + rnd.random()
                if dbest is None or sc > dbest[0]:
                    dbest = (sc, t1, to1, t2, to2)
        if dbest and dbest[0] >= 200 * 1000:
            return ("double",) + dbest[1:]
    return ("move", best[1], best[2])


def _mixed(sim, scored, best, mix, rnd):
    """A uniform draw among the scored single moves (sc, t, to) of the safest tier whose score is
    within mix points (of mrx_score) of that tier's best; best itself where no move is safe."""
    sf = Safety(sim)
    tiers = {}
    for m in scored:
        w = sf.tier(m[2], m[1])
        if w:
            tiers.setdefault(w, []).append(m)
    if not tiers:
        return best
    tier = tiers[max(tiers)]
    top = max(m[0] for m in tier)
    near = [m for m in tier if m[0] >= top - mix * 1000]
    return near[rnd.randrange(len(near))]


def surfacing_escape(sim, rnd=None):
    """The double move that ends where the pieces are farthest (policy.mrx_score), among those
    whose end no piece can step on next move (safety.reach; black tickets only where the moves
    black_ok allows leave none): ('double', t1, to1, t2, to2), or None when there is none.
    For a double whose second half surfaces (hiding.Hider.escapes). Ties are broken by rnd (None:
    the first found), so whether there is one does not depend on randomness."""
    tb = sim.tb
    pos = sim.pos
    one = reach(sim)
    for options in (mrx_filtered_options, _all_options):
        best = None
        for to1, t1 in options(sim):
            probe = sim.copy()
            probe.mrx_step(t1, to1)
            for to2, t2 in options(probe, to1):
                if to2 == sim.mrx or (one >> to2) & 1:
                    continue
                sc = mrx_score(tb, pos, to2) + (rnd.random() if rnd else 0.0)
                if best is None or sc > best[0]:
                    best = (sc, t1, to1, t2, to2)
        if best:
            return ("double",) + best[1:]
    return None


def _all_options(sim, here=None):
    return sim.mrx_options_from(sim.mrx if here is None else here)


# --- heuristic detectives -------------------------------------------------------------------
TICKET_COST = (0.0, 0.05, 0.15)  # taxi, bus, underground: keep the rarer tickets when it is a tie


def heuristic_detective(sim, rnd, cands=None):
    """(piece, ticket, to) for the next piece to move; public information only."""
    tb = sim.tb
    mask = sim.to_move()
    p = (mask & -mask).bit_length() - 1
    cands = cands if cands is not None else _bits(sim.cand)
    n = len(cands) or 1
    best = None
    for to, t in sim.legal(p):
        row = tb.dist[to]
        total = 0
        near = INF
        for c in cands:
            d = row[c]
            total += d
            if d < near:
                near = d
        sc = total / n + 0.5 * near + TICKET_COST[t] + rnd.random() * 0.01
        if (sim.cand >> to) & 1:
            sc -= 3.0 / n + 0.5  # he may be right there
        if best is None or sc < best[0]:
            best = (sc, t, to)
    return (p, best[1], best[2])


def landing_risk(sim, tickets, draws=4, cornered=False):
    """{station: the share of `draws` replies in which a greedy detective steps on it} after
    Mister X plays `tickets` (one, or a double move's two) from the public state of sim: the
    heuristic detectives (heuristic_detective, each draw with its own fixed tie-breaking) reply to
    the public possible set the tickets leave. Public facts only (sim.mrx is not read), so the
    same for every station he may be on; stations no reply steps on are left out.
    cornered: count too the possible stations the replies leave him no move from."""
    hits = {}
    for k in range(draws):
        probe = sim.copy()
        probe.mrx = 0  # nobody is caught: the replies go on as if he stood nowhere
        for t in tickets:
            probe.mrx_step(t, 0)
        if len(tickets) == 2:
            probe.double -= 1
        probe._start_detectives()
        rnd = _random.Random(k)
        while probe.phase == PHASE_DETECTIVES and probe.result is None and probe.to_move():
            p, t, to = heuristic_detective(probe, rnd)
            if (probe.cand >> to) & 1:
                hits[to] = hits.get(to, 0) + 1
            probe.move(p, t, to)
        if cornered:
            for s in _bits(probe.cand):
                if not probe.mrx_can_move(s):
                    hits[s] = hits.get(s, 0) + 1
    return {s: n / draws for s, n in hits.items()}


def _bits(mask):
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


# --- ε-greedy playout policies ----------------------------------------------------------------
def playout_mrx(sim, rnd, eps):
    """Plays Mister X's turn in sim."""
    tb = sim.tb
    pos = sim.pos
    if sim.double and rnd.random() >= eps and double_ok(sim):
        opts = mrx_filtered_options(sim)
        best = max(opts, key=lambda m: dmin(tb, pos, m[0]) + rnd.random())
        if dmin(tb, pos, best[0]) <= 1:
            sim.mrx_step(best[1], best[0])
            opts2 = mrx_filtered_options(sim)
            if opts2:
                b2 = max(opts2, key=lambda m: dmin(tb, pos, m[0]) + rnd.random())
                sim.mrx_step(b2[1], b2[0])
                sim.double -= 1
                sim._start_detectives()
                return
            sim.double -= 1  # (cannot happen: he came from a free station) keep the state sane
            sim._start_detectives()
            return
    opts = mrx_filtered_options(sim)
    if rnd.random() < eps:
        to, t = opts[rnd.randrange(len(opts))]
    else:
        best = -1.0
        to = t = None
        for o, ot in opts:
            sc = dmin(tb, pos, o) + rnd.random()
            if sc > best:
                best, to, t = sc, o, ot
    sim.mrx_move(t, to)


def playout_detective(sim, rnd, eps, mask, peek=0.0):
    """Moves the lowest piece of mask toward a station drawn from the public possible set; with
    probability peek toward Mister X himself (detectives who know more than the public set: in
    his own search, those who know his code)."""
    p = (mask & -mask).bit_length() - 1
    opts = sim.legal(p)
    if rnd.random() < eps or not sim.cand:
        to, t = opts[rnd.randrange(len(opts))]
    else:
        cand = sim.cand
        row = sim.tb.dist[sim.mrx if peek and rnd.random() < peek else random_station(cand, rnd)]
        row2 = sim.tb.dist[random_station(cand, rnd)]
        best = INF * 10
        to = t = None
        for o, ot in opts:
            sc = (row[o] + row2[o]) * 4 + ot + rnd.random() - 6 * ((cand >> o) & 1)
            if sc < best:
                best, to, t = sc, o, ot
    sim.move(p, t, to)


def playout(sim, rnd, eps=0.1, peek=0.0):
    """Plays sim to the end with the ε-greedy policies."""
    while sim.result is None:
        if sim.phase == 0:
            playout_mrx(sim, rnd, eps)
        else:
            mask = sim.to_move()
            playout_detective(sim, rnd, eps, mask, peek)
    return sim
