"""Hiding in the crowd: the computer Mister X's mixed strategy for moves that do not surface.

The attack: every input of the computer Mister X but his station is public, so a
detective who knows his code replays it from every station the public information allows and
keeps those that would have produced the ticket he played. A policy that picks its move from his
station with a fixed formula (and randomness only for ties) pinned him to one station in most
hidden moves.

The answer is a plan made from public information only, for every station he may be on: a
probability for each of his moves (tickets and destination) from each possible station s. He then
draws his move from the row of the station he is really on. The plan is balanced (Sinkhorn
scaling) so that, for each ticket (or pair of tickets), every station the public information
allows after it receives the same total probability from the possible stations. A detective who
knows the plan and saw the ticket then finds every publicly possible station equally likely:
knowing the code tells him (almost) nothing more than the board's possible set, and the belief he
starts the next move from is again uniform over the public set, which is what the plan assumes.

Preferences enter as the rows' weights before the balancing: destinations away from the pieces
(policy.mrx_score), black tickets only where policy.black_ok allows them, double moves only from
stations where a piece is next to him. The balancing keeps the proportions within a row but moves
probability toward stations no row wants, so it costs some strength; `iterations` and `beta` set
the trade (the bench reports both the leak and the win rates). Surfacing moves are not planned:
the station is shown anyway, so there he plays his best.

The one preference in the destinations' shares (what the attacker sees after the ticket): a
destination where greedy detectives would step next (policy.landing_risk, computed from public
facts for each ticket; or where their replies leave him no move) keeps only RISKY_SHARE of an
even share, any other station next to a piece ADJACENT_SHARE, both to a power that grows with
the move number (STAGE, stage_weight: the bits go to the late moves, where a capture avoided
is most often a win). Each such share costs bits (a detective who knows the plan knows where he is not),
so a ticket whose shares are closer to even gets more of the mass (SIG_LEAK: which ticket he
plays tells nothing about where he is). A cornered Mister X (the plan would put him on their
steps) whose next move but one surfaces takes a double move there instead (Hider.escapes).
"""
import math

from host.ai import policy, safety
from host.ai.model import BLACK, Sim, bits

BETA = {"random": 0.0, "easy": 3.0, "normal": 3.0, "hard": 3.0}  # row weight = exp(beta * score / 100)
BLACK_WASTE = 0.05  # the weight of a black ticket where black_ok does not call for one
DOUBLE_WEIGHT = 5.0  # the weight of a double move (from a station with a piece next to him)
ITERATIONS = 40
# how far MCTS values bend his row on a hidden move (host/ai/agents.py MctsMrX). 0: not at all,
# the search plays his surfacing moves only. On the landing plan (bench ai, normal vs heuristic
# detectives, 400 games, leak of 6 games of the attacker; docs/host.md): 2.0 wins 0.367 and leaks
# 0.586 bits a move (4 games), 1.0 0.323 and 0.542, 0 0.300 and 0.471 (target 0.5)
TILT = 0.0
# the share of a destination the detectives would step on (RISK), against 1 for any other: the
# public preference in the destinations' shares (bench ai, docs/host.md: with ADJACENT_SHARE 0.5,
# 0.2 leaks 0.44 bits a move; 0.1 with 0.4: 0.50; larger: less strength; all without STAGE)
RISKY_SHARE = 0.2  # (both shares to the power STAGE * stage_weight(moves), below)
CROWD = 0.0  # see plan(): leak grows fast with it (crowd 3: ~1.5 bits a move)
ADJACENT_SHARE = 0.5  # RISK "landing": a station next to a piece keeps this much more (other detectives)
CORNERED = True  # RISK "landing": also where the replies would leave him no move
# the MCTS levels' (normal, hard) settings of the plan where they differ from the easy level's:
# none: the easy level's landing plan wins more games for the search than a plan of their own at
# no greater leak (`yard bench ai`, docs/host.md)
MCTS_PLAN = {}
ESCAPE_AT = 0.99  # Hider.escapes: his row's landing risk from which he takes a surfacing double (0: never)
# RISK "landing": the shares (RISKY_SHARE's and ADJACENT_SHARE's) are raised to the power
# STAGE * stage_weight(moves) (0: not at all): near even early in the game, where a capture
# avoided is worth little (he is likely caught later anyway) and bits cost as much, tight late,
# where it is worth most. bench ai (docs/host.md, 80 games of the attacker): 2.5 leaks 0.47 bits
# a move (the plain shares: 0.467) and wins 0.216 of 2000 games (0.192); 3.0: 0.55 bits
STAGE = 2.5
SIG_LEAK = 1.0  # _tilt_tickets: how strongly tickets with even shares are preferred
RISK = "landing"  # which destinations get the RISKY_SHARE share: "landing" (in proportion to how
# often greedy detectives would step there, policy.landing_risk) or "adjacent" (next to a piece)


def stage_weight(moves):
    """What a capture avoided on the move after `moves` is worth: about how often the easy level
    wins against heuristic detectives once he has made that many moves uncaught (bench ai, 600
    games with STAGE 5: 0.26 until move 3, 0.3 at 4-7, 0.47 at 8-11, 0.66 at 12-15, 0.84 at
    16-19, 0.97 from 20). Public: the move number only."""
    return 0.26 + 0.74 * min(1.0, moves / 21.0) ** 1.6


def surfaces_next(sim):
    return (sim.moves + 1) in sim.reveals


def _row(sim, s, beta, doubles, sf=None):
    """{(signature, to): weight} of his moves from s. signature: ("move", t) or ("double", t1, t2).

    sf (safety.Safety of the public position): destinations some piece can step on next are
    dropped when a move out of every piece's reach exists (a double move's end counts: doubles
    are offered when no single move is safe), and those safe for one move only weigh
    safety.WEIGHT_ONE_MOVE where one safe for two exists; with no safe move the unfiltered row."""
    tb = sim.tb
    pos = sim.pos
    opts = sim.mrx_options_from(s)
    plain = {to for to, t in opts if t != BLACK}
    probe = sim.copy()
    probe.mrx = s
    can_double = doubles and sim.double and not surfaces_next(sim) and (sim.moves + 2) not in sim.reveals

    def w_of(to, t):
        w = math.exp(beta * policy.mrx_score(tb, pos, to) / 100.0) if beta else 1.0
        if t == BLACK and not policy.black_ok(probe, to, to not in plain and to in tb.nbr[3][s]):
            w *= BLACK_WASTE
        return w

    def singles(safe):
        row = {}
        for to, t in opts:
            w = w_of(to, t) * (sf.weight(to, t) if safe else 1.0)
            if w > 0:
                key = (("move", t), to)
                row[key] = row.get(key, 0.0) + w
        return row

    def doubles_row(safe):
        row = {}
        for to1, t1 in opts:
            second = sim.copy()
            if t1 == BLACK:
                second.black -= 1
            else:
                second.supply[t1] -= 1
            for to2, t2 in second.mrx_options_from(to1):
                if to2 == s and not safe:  # (back where he stood: only when nothing else is safe)
                    continue
                w = DOUBLE_WEIGHT * w_of(to2, t2) / len(opts) * (sf.weight(to2, t1, t2) if safe else 1.0)
                if w > 0:
                    key = (("double", t1, t2), to2)
                    row[key] = row.get(key, 0.0) + w
        return row

    if sf is not None:
        row = singles(True)
        if row:
            return row
        if can_double:
            row = doubles_row(True)
            if row:
                return row
    row = singles(False)
    # a double move only where every single move ends next to a piece (as the heuristic does)
    if can_double and all(policy.dmin(tb, pos, to) <= 1 for to, _t in opts):
        for key, w in doubles_row(False).items():
            row[key] = row.get(key, 0.0) + w
    return row


def plan(sim, beta=1.2, iterations=ITERATIONS, doubles=True, crowd=None, prior=None, near=None, risk=None,
         cornered=None, sig_leak=None, safe=True):
    """The balanced plan for the public state of sim (sim.mrx is not read): {s: {(sig, to): p}}
    for every publicly possible station s from which he can move, each row summing to 1.
    safe: each row keeps only moves out of every piece's reach where it has one (safety.py).

    prior: {station: probability}, what a detective who knows the plan believes before the move
    (Hider tracks it; default uniform over the public set). crowd: how strongly the destinations'
    shares follow their public attractiveness (0: every destination of a ticket gets the same
    share, so the detective learns nothing; larger: safer destinations get more, which the
    detective can compute too: KL(shares || uniform) bits)."""
    crowd = CROWD if crowd is None else crowd
    near = RISKY_SHARE if near is None else near
    stations = bits(sim.cand)
    mass = {}
    for st in stations:
        m = (prior or {}).get(st, 0.0) if prior else 1.0
        if m > 0:
            mass[st] = m
    if not mass:  # a prior that the public facts contradict: start again from them
        mass = dict.fromkeys(stations, 1.0)
    joint = {}
    sf = safety.Safety(sim) if safe else None
    for st, m in mass.items():
        r = _row(sim, st, beta, doubles, sf)
        if r:
            total = sum(r.values())
            joint[st] = {k: m * v / total for k, v in r.items()}
    if not joint:
        return {}
    # each signature keeps the mass the preferences give it; its destinations share it by appeal
    sig_mass = {}
    cols = {}
    for r in joint.values():
        for k, p in r.items():
            cols[k] = 0.0
            sig_mass[k[0]] = sig_mass.get(k[0], 0.0) + p
    risk = risk or RISK
    cornered = CORNERED if cornered is None else cornered
    sig_leak = SIG_LEAK if sig_leak is None else sig_leak
    landings = {}
    stage = STAGE * stage_weight(sim.moves) if STAGE else 1.0  # (risk "landing" only)
    appeal = {}
    sig_appeal = {}
    for (sig, to) in cols:
        if near == 1.0:
            a = 1.0
        elif risk == "landing":
            if sig not in landings:
                landings[sig] = policy.landing_risk(sim, sig[1:], cornered=cornered)
            a = (1.0 - (1.0 - near) * landings[sig].get(to, 0.0)) ** stage
            if ADJACENT_SHARE != 1.0 and policy.dmin(sim.tb, sim.pos, to) <= 1:
                a *= ADJACENT_SHARE ** stage
        else:
            a = near if policy.dmin(sim.tb, sim.pos, to) <= 1 else 1.0
        if crowd:
            a *= math.exp(crowd * policy.mrx_score(sim.tb, sim.pos, to) / 100.0)
        appeal[(sig, to)] = a
        sig_appeal[sig] = sig_appeal.get(sig, 0.0) + a
    sig_count = {}
    for (sig, _to) in cols:
        sig_count[sig] = sig_count.get(sig, 0) + 1
    if sig_leak:
        _tilt_tickets(sig_mass, appeal, sig_appeal, sig_leak)
    # a ticket whose every destination has no appeal (near=0, all where the detectives step): its
    # mass goes to the other tickets; if no ticket has any, each shares its mass evenly, as the
    # rows must still go somewhere
    dead = sum(m for sig, m in sig_mass.items() if sig_appeal[sig] <= 0)
    alive = sum(sig_mass.values()) - dead
    if dead and alive > 0:
        for sig in sig_mass:
            sig_mass[sig] = 0.0 if sig_appeal[sig] <= 0 else sig_mass[sig] * (alive + dead) / alive
    target = {k: sig_mass[k[0]] * (appeal[k] / sig_appeal[k[0]] if sig_appeal[k[0]] > 0
                                   else 1.0 / sig_count[k[0]]) for k in cols}
    for _ in range(iterations):
        colsum = dict.fromkeys(cols, 0.0)
        for r in joint.values():
            for k, p in r.items():
                colsum[k] += p
        scale = {k: target[k] / c if c > 0 else 1.0 for k, c in colsum.items()}
        for st, r in joint.items():
            nr = {k: p * scale[k] for k, p in r.items()}
            total = sum(nr.values())
            if total <= 0:
                continue
            f = mass[st] / total
            joint[st] = {k: p * f for k, p in nr.items()}
    return {st: {k: p / mass[st] for k, p in r.items()} for st, r in joint.items()}, \
        _posteriors(joint)


def _tilt_tickets(sig_mass, appeal, sig_appeal, strength):
    """Moves mass between tickets (signatures) toward those whose shares are closest to even:
    a ticket's destinations share its mass by appeal, which tells a detective who knows the plan
    KL(shares || even) bits; each ticket's mass is multiplied by 2 ** (-strength * those bits).
    Public facts only, and which ticket he plays tells nothing more about where he is."""
    count = {}
    for (sig, _to) in appeal:
        count[sig] = count.get(sig, 0) + 1
    total = sum(sig_mass.values())
    for sig in sig_mass:
        if sig_appeal[sig] <= 0:
            continue
        h = 0.0
        for (sg, _to), a in appeal.items():
            if sg == sig and a > 0:
                q = a / sig_appeal[sig]
                h -= q * math.log2(q)
        sig_mass[sig] *= 2.0 ** (-strength * (math.log2(count[sig]) - h))
    now = sum(sig_mass.values())
    for sig in sig_mass:
        sig_mass[sig] *= total / now


def _posteriors(joint):
    """{sig: {to: probability}}: what the detective believes after seeing sig (before landings)."""
    out = {}
    for r in joint.values():
        for (sig, to), p in r.items():
            d = out.setdefault(sig, {})
            d[to] = d.get(to, 0.0) + p
    for sig, d in list(out.items()):
        total = sum(d.values())
        if total > 0:
            out[sig] = {to: p / total for to, p in d.items()}
        else:  # a ticket the plan never plays
            del out[sig]
    return out


class Hider:
    """The plan across a game: keeps what a detective who knows the plan believes after each of
    Mister X's moves (public: computed from public facts only), so that the next plan starts from
    it and the detective's belief stays the planned one instead of drifting."""

    def __init__(self, beta, doubles=True, near=None, escape_at=None, risk=None, cornered=None, sig_leak=None,
                 safe=True):
        self.beta = beta
        self.safe = safe
        self.doubles = doubles
        self.near = near
        self.escape_at = escape_at
        self.risk = risk
        self.cornered = cornered
        self.sig_leak = sig_leak
        self.belief = None
        self.at_moves = -1

    def prior(self, game):
        if self.belief is None or game.moves != self.at_moves:
            return None  # a new game, a resumed one, or a surfacing in between: the public set
        b = {st: p for st, p in self.belief.items() if game.is_candidate(st)}  # minus landings
        return b or None

    def _plan(self, sim, prior, doubles):
        got = plan(sim, self.beta, doubles=doubles, prior=prior, near=self.near, risk=self.risk,
                   cornered=self.cornered, sig_leak=self.sig_leak, safe=self.safe)
        return got if got else ({}, {})

    def row(self, game, tilt=None):
        """(his row: {(sig, to): probability}, the plan's posteriors {sig: {to: p}}) for the game
        (Mister X to move on game.mrx, not surfacing); changes nothing."""
        sim = Sim.from_game(game, game.mrx)
        rows, post = self._plan(sim, self.prior(game), self.doubles)
        row = rows.get(game.mrx)
        if row and tilt:
            row = {k: p * tilt(k) for k, p in row.items()}
            total = sum(row.values())
            row = {k: p / total for k, p in row.items()}
        return row, post

    def escapes(self, game, row=None):
        """Whether he leaves the plan for a double move whose second half surfaces
        (policy.surfacing_escape): only when the plan sends him, from his station, to where the
        detectives would step (every destination of his row in some piece's reach, or his row's
        landing risk at least ESCAPE_AT) and such a double ends on a station no piece reaches in
        one move. The station is shown then anyway; the detectives
        learn from the double move that he was cornered, nothing about where he goes next.
        A function of his station and public facts (no randomness), so the attacker's copy of
        this code knows exactly when he does it."""
        escape_at = ESCAPE_AT if self.escape_at is None else self.escape_at
        if not escape_at or not game.double or (game.moves + 2) not in game.reveals:
            return False
        if row is None:
            row = self.row(game)[0]
        if not row:
            return False
        sim = Sim.from_game(game, game.mrx)
        if self.safe:
            one = safety.reach(sim)
            if all((one >> to) & 1 for (_sig, to) in row):  # nowhere safe to go by the plan
                return policy.surfacing_escape(sim) is not None
        risks = {}
        danger = 0.0
        for (sig, to), p in row.items():
            if sig not in risks:
                risks[sig] = policy.landing_risk(sim, sig[1:])
            danger += p * risks[sig].get(to, 0.0)
        return danger >= escape_at and policy.surfacing_escape(sim) is not None

    def choose(self, game, rnd, tilt=None):
        sim = Sim.from_game(game, game.mrx)
        row, post = self.row(game, tilt)
        if not row:  # (he can always move here: the game would have ended otherwise)
            self.belief = None
            return policy.heuristic_mrx(sim, rnd)
        if self.escapes(game, row):
            self.belief = None
            return policy.surfacing_escape(sim, rnd)
        sig, to = draw(row, rnd)
        self.belief = post.get(sig)
        self.at_moves = game.moves + (1 if sig[0] == "move" else 2)
        if sig[0] == "move":
            return ("move", sig[1], to)
        return _double(sim, sig, to, rnd)

    def second_half_row(self, game, ticket1, to1):
        """(row, posteriors) of the plan for the second half of a double move whose first half,
        ticket1 to to1, surfaces: the plan for one possible station, to1 (the board shows it), with
        the double ticket spent. Public facts only (game.mrx is not read): the same whatever
        station he came from."""
        sim = Sim.from_game(game, game.mrx)
        sim.mrx_step(ticket1, to1)
        sim.double -= 1
        rows, post = self._plan(sim, None, False)
        return rows.get(to1) or {}, post

    def second_half(self, game, action, rnd):
        """The action, with the second half of a double move whose first half surfaces and second
        does not drawn from the plan (second_half_row) instead of the search's or the formula's
        choice: that choice is a function of the shown station, his tickets and public facts, so
        a detective who knows the code would replay it (the hard level leaked 1.1 bits a move on
        these moves). Any other action is returned as it is."""
        if action[0] != "double" or not splits(game):
            return action
        _d, t1, to1, _t2, _to2 = action
        row, post = self.second_half_row(game, t1, to1)
        if not row:  # (cannot happen: the chosen second half is a legal move from to1)
            self.belief = None
            return action
        sig, to = draw(row, rnd)
        self.belief = post.get(sig)
        self.at_moves = game.moves + 2
        return ("double", t1, to1, sig[1], to)


def splits(game):
    """Whether a double move now would surface on its first half and not on its second."""
    return (game.moves + 1) in game.reveals and (game.moves + 2) not in game.reveals


def draw(row, rnd):
    """One (sig, to) from a plan's row, by its probabilities (rnd: the OS's randomness in play)."""
    x = rnd.random()
    acc = 0.0
    last = None
    for k in sorted(row):
        acc += row[k]
        last = k
        if x < acc:
            return k
    return last


def mcts_tilt(root, strength):
    """tilt(key) for Hider.choose from an MCTS root (host/ai/mcts.py): exp(strength * (value -
    best value)); a move the search never tried (its filter leaves out wasted black tickets)
    gets the worst value it found."""
    if root is None or not root.children or not strength:
        return None
    mean = root.w / root.n if root.n else 0.0
    single = {}
    double = {}
    for (kind, t, to), node in root.children.items():
        v = node.w / node.n if node.n else mean
        if kind == 0:
            single[(("move", t), to)] = v
        else:
            for (_k2, t2, to2), n2 in node.children.items():
                key = (("double", t, t2), to2)
                v2 = n2.w / n2.n if n2.n else v
                if v2 > double.get(key, -1.0):
                    double[key] = v2
    values = dict(single)
    values.update(double)
    best = max(list(values.values()) + [mean])
    worst = min(list(values.values()) + [mean])

    def tilt(key):
        return math.exp(strength * (values.get(key, worst) - best))
    return tilt


def _double(sim, sig, to2, rnd):
    """A double move with tickets sig[1], sig[2] ending on to2: a first station drawn among those
    that make it (each public-neutral: the first half does not surface)."""
    _d, t1, t2 = sig
    s = sim.mrx
    firsts = []
    for to1, t in sim.mrx_options_from(s):
        if t != t1:
            continue
        second = sim.copy()
        if t1 == BLACK:
            second.black -= 1
        else:
            second.supply[t1] -= 1
        if any(d == to2 and tt == t2 for d, tt in second.mrx_options_from(to1)):
            firsts.append(to1)
    to1 = sorted(firsts)[int(rnd.random() * len(firsts))]
    return ("double", t1, to1, t2, to2)


__all__ = ["plan", "Hider", "draw", "surfaces_next", "splits", "mcts_tilt", "BETA", "TILT", "MCTS_PLAN"]
