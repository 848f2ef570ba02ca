"""What detectives who know the computer Mister X's code believe about his station.

Every input of his hidden moves but his station is public (host/ai/hiding.py): the plan gives,
for every station he may be on, the probability of each ticket and destination. A detective with
the code computes the same plan, reads the tickets he played, and weighs each destination by
Σ_s belief(s) · plan[s](ticket, destination) — the exact posterior his code implies (the plan is
balanced so that this is the plan's own posterior for the ticket: hiding.plan's second result).
Landings remove stations; a surfacing sets the belief to the shown station.

Tracker follows a game from public views only (the detectives' side): it keeps the public state
before each of his turns and reads his tickets from the travel log. Against a player who does not
play the plan (a person) it stays sound: FLOOR keeps every publicly possible station alive, and a
ticket the plan gives no station restarts it from the public set.
"""
from host.ai import hiding
from host.ai.model import BLACK, Sim, bits

FLOOR = 0.02  # the share of the belief spread evenly over the public set (a model may be wrong)
# replaying a Mister X without a plan: from this many stations a move (drawn by belief), this many
# times each (his randomness)
REPLAY_STATIONS = 8
REPLAY_SAMPLES = 2


class Tracker:
    """The posterior over Mister X's station for one game, updated from public views."""

    def __init__(self, model, make_agent=None, stations=REPLAY_STATIONS, samples=REPLAY_SAMPLES):
        """model: a Mister X agent (host.ai.agents) whose hider (hiding.Hider) is the plan assumed.
        Where his hidden moves are not the plan's (model.exact_rows false: a search chooses them),
        his code is replayed instead: make_agent(seed) runs `samples` times from each of at most
        `stations` stations drawn by belief (host/ai/leak.py's attacker)."""
        self.sampled = not getattr(model, "exact_rows", hasattr(model, "hidden_distribution"))
        self.make_agent = make_agent
        self.stations = stations
        self.samples = samples
        self.hider = hiding.Hider(model.hider.beta, doubles=model.hider.doubles, near=model.hider.near,
                                  escape_at=model.hider.escape_at, risk=model.hider.risk,
                                  cornered=model.hider.cornered, sig_leak=model.hider.sig_leak,
                                  safe=model.hider.safe)
        self.model = model
        self.last_cand = None  # the possible set at the detectives' last view
        self.seen_moves = -1
        self.belief = None  # {station: probability}, None: uniform over the public set

    def update(self, view):
        """Bring the belief up to the public view (a secret-mode rules.Game) and return it:
        {station: probability} over the stations the view allows."""
        sim = Sim.from_game(view, 0)
        if view.moves != self.seen_moves:
            self._his_turn(view, sim)
        self.last_cand = sim.cand
        if self.belief is None:
            return _uniform(sim.cand)
        belief = {s: p for s, p in self.belief.items() if (sim.cand >> s) & 1}
        total = sum(belief.values())
        if total <= 0:
            self.belief = None
            return _uniform(sim.cand)
        n = sim.cand.bit_count()
        return {s: (1 - FLOOR) * belief.get(s, 0.0) / total + FLOOR / n for s in bits(sim.cand)}

    def _his_turn(self, view, sim):
        if self.seen_moves < 0 and view.round == 1:  # his first turn: from the X start cards
            self.seen_moves = 0
            self.last_cand = 0
            for s in view.graph.x_cards:
                self.last_cand |= 1 << s
        new = view.log[self.seen_moves:] if self.seen_moves >= 0 else []
        before = self._rebuild_before(view, sim, len(new)) if new else None
        self.seen_moves = view.moves
        if before is None or len(new) not in (1, 2):
            self.belief = None  # a game joined midway, or a turn not seen: the public set
            self.hider.belief = None
            return
        if new[-1][1]:  # he surfaced at the end of his turn
            self.belief = {new[-1][1]: 1.0}
            self.hider.belief = None
            return
        if (before.moves + 1) in before.reveals:  # a surfacing first half, a hidden second
            t1, to1 = new[0]
            t2 = new[1][0]
            game = _game_of(view, before)
            row = self.hider.second_half_row(game, t1, to1)[0]
            self._set({to: p for (sig, to), p in row.items() if sig == ("move", t2)}, sim)
            return
        if self.sampled:
            self._replay(view, before, new, sim)
            return
        sig = ("move", new[0][0]) if len(new) == 1 else ("double", new[0][0], new[1][0])
        prior = self.belief if self.belief is not None else None
        got = hiding.plan(before, self.hider.beta, doubles=self.hider.doubles, prior=prior,
                          near=self.hider.near, risk=self.hider.risk, cornered=self.hider.cornered,
                          sig_leak=self.hider.sig_leak, safe=self.hider.safe)
        post = got[1].get(sig) if got else None
        self._set(post or {}, sim)

    def _replay(self, view, before, new, sim):
        """The posterior by replaying his code from the stations the belief holds."""
        import random

        from host.ai.leak import Attacker
        att = Attacker(self.make_agent, self.samples, self.stations, FLOOR, random.Random(view.moves * 7919 + 1))
        held = {s: p for s, p in (self.belief or {}).items() if (before.cand >> s) & 1}
        att.belief = held or _uniform(before.cand)
        game = _game_of(view, before)
        action = ("move", new[0][0], 0) if len(new) == 1 else ("double", new[0][0], new[0][1], new[1][0], 0)
        post = att.observe_mrx(game, action, 0, new[0][1] if len(new) == 2 else 0)
        self._set(post, sim)

    def _set(self, belief, sim):
        belief = {s: p for s, p in belief.items() if (sim.cand >> s) & 1 and p > 0}
        self.belief = belief or None

    def _rebuild_before(self, view, sim, k):
        """The public Sim at the start of his turn: today's positions and the detectives' tickets
        (nobody has moved since his turn when the first piece is asked), his tickets given back,
        the possible set and prior as they were."""
        if view.moved or self.last_cand is None:
            return None
        b = sim.copy()
        b.cand = self.last_cand
        for s in b.pos:
            b.cand &= ~(1 << s)
        b.moves = view.moves - k
        b.round = view.round - 1
        for t, _to in view.log[b.moves:]:
            if t == BLACK:
                b.black += 1
            else:
                b.supply[t] += 1
        if k == 2:
            b.double += 1
        b.phase = 0
        b.moved = 0
        return b


def _uniform(cand):
    stations = bits(cand)
    return {s: 1.0 / len(stations) for s in stations} if stations else {}


def _game_of(view, before):
    """A rules.Game for the public state `before` (hiding's second_half_row reads a Game)."""
    from sy.rules import game as rules
    g = rules.Game.load(view.save(), view.graph)
    g.mrx = 0
    g.phase = rules.PHASE_MRX
    g.moved = 0
    g.n_turn = 0
    g.moves = before.moves
    g.black = before.black
    g.double = before.double
    g.supply[:] = bytes(before.supply)
    g.cand[:] = before.cand.to_bytes(32, "little")
    g.round = before.round
    return g
