"""The computer players: random, heuristic and MCTS agents for both sides, and a game runner."""
import time

from sy.rules import game as rules
from host.ai import belief, hiding, mcts, policy, safety
from host.ai.model import Sim
from host.ai.twin import play_detective_move, play_mrx_action
from host.misterx.randomness import fast_rng, secret_rng

LEVELS = ("random", "easy", "normal", "hard")
SECONDS = {"normal": 1.0, "hard": 4.0}  # per choose() call, one laptop core
# Mister X's answer time at the table, whatever his station: every choice waits for this deadline
# (the MCTS levels: their time budget). Larger than the work takes on a slow laptop, so that the
# time tells nothing; a choice that overruns it is counted (agent.overruns).
DEADLINE = {"random": 0.2, "easy": 0.2}
# how the MCTS levels choose a hidden move: "plan" (the balanced plan, tilted by the search's
# values by hiding.TILT) or "search" (the search's most visited move, as on a surfacing move)
HIDDEN = "search"
# how often the detectives in the MCTS levels' playouts chase him rather than a possible station
PEEK = 0.5
# the easy level's hidden moves: a draw among the safest moves within MIX points of the best one's
# score (policy.heuristic_mrx), so that detectives who replay the formula find several stations
MIX = 0  # off: it lost games and hid little (docs/ai.md, plans measured)
# normal and hard: the search's choice goes through the guard's tiers too (safety.guard two_moves:
# safe for two moves, then not to be shut in, a double where every single move can be)
TIERS = False  # off: no change outside the noise (docs/ai.md)
DETECTIVE_SECONDS = 1.0  # the hard detectives' search a move
# the Mister X whose code the product's informed detectives assume: the easy level's plan, exact and
# cheap to follow (the bench gives them the code of the level they face)
DETECTIVE_MODEL = "easy"


def public_view(game):
    """A secret-mode copy of a rules.Game: what the detectives may know, and nothing else.
    The copy holds no hidden station (its `mrx` is 0 while the game goes on)."""
    if not game.mrx or game.phase == rules.PHASE_OVER:
        view = rules.Game.load(game.save(), game.graph)
        return view
    view = rules.Game.load(game.save(), game.graph)
    view.mrx = 0
    return view


def _check_public(view):
    if view.mrx and view.phase != rules.PHASE_OVER:
        raise ValueError("a detective agent takes a public view (a Game in secret mode, mrx == 0): "
                         "use host.ai.public_view(game)")
    if view.phase != rules.PHASE_DETECTIVES or not view.to_move():
        raise ValueError("it is not the detectives' turn")


def _check_mrx(game):
    if not game.mrx:
        raise ValueError("the Mister X agent needs the full game (his station known)")
    if game.phase != rules.PHASE_MRX:
        raise ValueError("it is not Mister X's turn")


class _Agent:
    def __init__(self, level, seed):
        self.level = level
        # the OS's secure randomness unless seeded (demos and tests): host/misterx/randomness.py
        self.rnd = secret_rng(seed)
        self.last = {}

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, self.level)


# --- Mister X -------------------------------------------------------------------------------
class _Hiding:
    """What host/ai/leak.py reads of a Mister X agent that hides with a plan (hiding.Hider)."""

    def second_half_distribution(self, game, ticket1, to1):
        """{(signature, to): probability} of the hidden second half of a double move whose first
        half (ticket1 to to1) surfaced: the plan's, from public facts (game may be public)."""
        return self.hider.second_half_row(game, ticket1, to1)[0]


class _MrX(_Hiding, _Agent):
    """What every computer Mister X does around his level's choice (_choose):

    - the public safety filter's last check (safety.guard): never a move into a piece's reach
      when a move out of every piece's reach exists (not at the random level);
    - the deadline: the answer waits until `deadline` seconds after the call, so his thinking
      time is the same from every station (0: no waiting, for benches and tests)."""

    guarded = True

    def __init__(self, level, seed, deadline=0.0):
        super().__init__(level, seed)
        self.deadline = deadline
        self.overruns = 0

    def choose(self, game):
        start = time.perf_counter()
        _check_mrx(game)
        action = self._choose(game)
        if self.guarded:
            action = safety.guard(Sim.from_game(game, game.mrx), action, self.rnd)
        if self.deadline:
            rest = start + self.deadline - time.perf_counter()
            if rest > 0:
                time.sleep(rest)
            else:
                self.overruns += 1
        return action


class RandomMrX(_MrX):
    """No preferences: on a surfacing move any legal single move, uniformly; on a hidden one a draw
    from the balanced plan without preferences (host/ai/hiding.py), which, unlike a uniform
    choice, tells a detective who knows it nothing beyond the public possible set. No safety
    filter: the level that walks into the detectives, for tests and benches."""

    guarded = False

    def __init__(self, level, seed, deadline=0.0):
        super().__init__(level, seed, deadline)
        self.hider = hiding.Hider(hiding.BETA["random"], doubles=False, near=1.0, escape_at=0, safe=False)

    def _choose(self, game):
        if hiding.surfaces_next(game):
            to, t = self.rnd.choice(game.legal_mrx())
            return ("move", t, to)
        return self.hider.choose(game, self.rnd)

    def hidden_distribution(self, game):
        """{(signature, to): probability} of his choice on a hidden move (host/ai/leak.py)."""
        return self.hider.row(game)[0] or {}


class HeuristicMrX(_MrX):
    """The greedy formula (policy.heuristic_mrx): away from the nearest piece, keeps escape routes,
    picks the ticket that leaves the detectives the most possible stations; never into a piece's
    reach when he has a way out (host/ai/safety.py). hidden="plan": on a hidden move a draw from
    the balanced plan (host/ai/hiding.py) instead, a mixed strategy that a detective who knows it
    cannot replay to find him — and that wins less often against detectives who know it than the
    formula does (docs/ai.md). Either way the hidden second half of a double whose first half
    surfaces comes from the plan."""

    def __init__(self, level, seed, deadline=0.0, hidden="formula", mix=None):
        super().__init__(level, seed, deadline)
        self.hider = hiding.Hider(hiding.BETA["easy"])
        self.hidden = hidden
        self.mix = MIX if mix is None else mix

    def _choose(self, game):
        if hiding.surfaces_next(game) or self.hidden != "plan":
            sim = Sim.from_game(game, game.mrx)
            action = safety.guard(sim, policy.heuristic_mrx(sim, self.rnd, self.mix), self.rnd, two_moves=True)
            return self.hider.second_half(game, action, self.rnd)
        return self.hider.choose(game, self.rnd)

    @property
    def exact_rows(self):
        """Whether hidden_distribution is his hidden moves' distribution (the plan's); the formula
        is replayed instead (host/ai/leak.py, host/ai/belief.py)."""
        return self.hidden == "plan"

    def hidden_distribution(self, game):
        """{(signature, to): probability} of the plan's choice on a hidden move (host/ai/leak.py);
        none where he escapes into a surfacing instead (hiding.Hider.escapes)."""
        row = self.hider.row(game)[0]
        if not row or self.hider.escapes(game, row):
            return {}
        return row


class MctsMrX(_MrX):
    """MCTS where it shows (a surfacing move: the most visited move among those out of every
    piece's reach, when there are any). On a hidden move a draw from the balanced plan
    (host/ai/hiding.py, the easy level's landing plan), each move's share bent by its MCTS value,
    exp(TILT * (value - best value)); with TILT 0 the search does not run on hidden moves (it
    would not change the move) and the time waits for the deadline.

    His thinking time does not depend on his station: with a time budget the search runs to its
    end (even with a single legal move), and the answer waits for the budget's end."""

    SEARCH_SHARE = 0.8  # of the time budget; the plan and the draw take (much less than) the rest

    def __init__(self, level, seed, seconds=1.0, iterations=None, deadline=None, hidden=None, peek=None):
        super().__init__(level, seed, (seconds or 0.0) if deadline is None else deadline)
        self.peek = PEEK if peek is None else peek
        self.seconds = seconds
        self.budget = mcts.Budget(seconds * self.SEARCH_SHARE if seconds else None, iterations)
        self.hider = hiding.Hider(hiding.BETA.get(level, hiding.BETA["easy"]), **hiding.MCTS_PLAN)
        self.tilt = hiding.TILT
        self.hidden = hidden or HIDDEN

    def _choose(self, game):
        if hiding.surfaces_next(game) or self.hidden == "search":
            action, self.last = mcts.search_mrx(game, self.budget, fast_rng(self.rnd), safe=True, peek=self.peek)
            self.last.pop("root", None)
            if TIERS:
                action = safety.guard(Sim.from_game(game, game.mrx), action, self.rnd, two_moves=True)
            return self.hider.second_half(game, action, self.rnd)
        root = None
        if self.tilt:
            _action, self.last = mcts.search_mrx(game, self.budget, fast_rng(self.rnd))
            root = self.last.pop("root", None)
        return self.hider.choose(game, self.rnd, tilt=hiding.mcts_tilt(root, self.tilt))

    @property
    def exact_rows(self):
        """Whether hidden_distribution is his hidden moves' distribution: with the plan, yes; when
        the search chooses them, a detective who knows the code must replay it (host/ai/leak.py)."""
        return self.hidden == "plan"

    @property
    def random_rows(self):
        """Whether his hidden-move row depends on randomness drawn before the draw: the search's,
        when TILT bends the row by its values (host/ai/leak.py then averages several searches).
        With TILT 0 the row is the plan's alone, a function of his station and public facts."""
        return bool(self.tilt)

    def hidden_distribution(self, game):
        """{(signature, to): probability} of his choice on a hidden move; with a tilt, for one draw
        of the search's randomness (host/ai/leak.py averages several), else exact (no search)."""
        root = None
        if self.tilt:
            _action, stats = mcts.search_mrx(game, self.budget, fast_rng(self.rnd))
            root = stats.get("root")
        row = self.hider.row(game, tilt=hiding.mcts_tilt(root, self.tilt))[0]
        if not row or self.hider.escapes(game, row):
            return {}
        return row


# --- detectives -----------------------------------------------------------------------------
class RandomDetectives(_Agent):
    """The lowest piece that must move takes any legal move, uniformly."""

    def choose(self, view):
        _check_public(view)
        mask = view.to_move()
        p = (mask & -mask).bit_length() - 1
        to, t = self.rnd.choice(view.legal(p))
        return (p, t, to)


class HeuristicDetectives(_Agent):
    """Greedy: each piece closes in on the possible stations (mean and nearest distance), steps on
    a possible station when it can, keeps bus and underground tickets on a tie."""

    def choose(self, view):
        _check_public(view)
        return policy.heuristic_detective(Sim.from_game(view, 0), self.rnd)


class _Informed(_Agent):
    """Detectives who know the computer Mister X's code: they follow the posterior over his
    station that his code implies (host/ai/belief.py), from public views only. `model`: the
    Mister X level whose code they assume, or a function seed -> his agent (None: the public
    possible set only)."""

    KEEP = 0.1  # the stations they chase: belief at least KEEP times the most likely one's

    def __init__(self, level, seed, model=DETECTIVE_MODEL):
        super().__init__(level, seed)
        self.tracker = None
        if model:
            maker = model if callable(model) else (lambda s: make_mrx_agent(model, s, deadline=0))
            self.tracker = belief.Tracker(maker(0), make_agent=maker,
                                          stations=getattr(model, "replay_stations", belief.REPLAY_STATIONS),
                                          samples=getattr(model, "replay_samples", belief.REPLAY_SAMPLES))

    def focus(self, view):
        """(public Sim of the view with its possible set narrowed to the likely stations, belief)."""
        sim = Sim.from_game(view, 0)
        if self.tracker is None:
            return sim, None
        b = self.tracker.update(view)
        if b:
            top = max(b.values())
            mask = 0
            for st, p in b.items():
                if p >= self.KEEP * top:
                    mask |= 1 << st
            if mask:
                sim.cand = mask
        return sim, b


class PosteriorDetectives(_Informed):
    """The heuristic detectives (policy.heuristic_detective) chasing the stations the posterior
    keeps instead of the whole public possible set."""

    def choose(self, view):
        _check_public(view)
        sim, _b = self.focus(view)
        return policy.heuristic_detective(sim, self.rnd)


class MctsDetectives(_Informed):
    """MCTS (host/ai/mcts.py search_detective): each iteration draws his station from the
    posterior (determinization), weighted by location category."""

    def __init__(self, level, seed, seconds=1.0, iterations=None, model=DETECTIVE_MODEL):
        super().__init__(level, seed, model)
        self.budget = mcts.Budget(seconds, iterations)

    def choose(self, view):
        _check_public(view)
        sim, b = self.focus(view)
        action, self.last = mcts.search_detective(view, self.budget, fast_rng(self.rnd), belief=b,
                                                  focus=sim.cand)
        return action


def _level(level):
    if level not in LEVELS:
        raise ValueError("unknown level %r: one of %s" % (level, ", ".join(LEVELS)))


def make_mrx_agent(level="normal", seed=None, seconds=None, iterations=None, deadline=None, hidden=None,
                   peek=None):
    """A computer Mister X. `choose(game)` takes the full rules.Game (Mister X to move) and
    returns ("move", ticket, to) or ("double", ticket1, to1, ticket2, to2).
    deadline: seconds every answer waits for (default: the level's DEADLINE, or the MCTS time
    budget; 0: answer at once, for benches and tests that play many games).
    hidden="plan": easy, normal and hard draw their hidden moves from the balanced plan
    (host/ai/hiding.py) instead of their formula or search. peek: normal and hard's PEEK."""
    _level(level)
    if level in DEADLINE:
        deadline = DEADLINE[level] if deadline is None else deadline
        if level == "random":
            return RandomMrX(level, seed, deadline)
        return HeuristicMrX(level, seed, deadline, hidden or "formula")
    if seconds is None and iterations is None:
        seconds = SECONDS[level]
    return MctsMrX(level, seed, seconds, iterations, deadline, hidden, peek)


def make_detective_agent(level="normal", seed=None, seconds=None, iterations=None, model=DETECTIVE_MODEL):
    """Computer detectives. `choose(view)` takes a public view (public_view(game), or the board's
    own secret-mode Game) while view.to_move() is not 0 and returns (piece, ticket, to) for one
    piece: the lowest-numbered piece that still has to move. For a bobby the ticket names the
    transport used (pass it on, or None: bobbies pay nothing). Call it once per piece, and use
    one agent per game (the informed levels follow the game's history).

    Levels: random; easy (the heuristic, the public possible set); normal (the heuristic chasing
    the posterior that the computer Mister X's code `model` implies); hard (MCTS drawing his
    station from that posterior, `seconds` or `iterations` a move: default 1 s). model=None:
    the public set only."""
    _level(level)
    if level == "random":
        return RandomDetectives(level, seed)
    if level == "easy":
        return HeuristicDetectives(level, seed)
    if level == "normal":
        return PosteriorDetectives(level, seed, model)
    if seconds is None and iterations is None:
        seconds = DETECTIVE_SECONDS
    return MctsDetectives(level, seed, seconds, iterations, model)


# --- a whole game ------------------------------------------------------------------------------
def _name(t):
    return rules.TICKET_NAMES[t]


def play_game(mrx_agent, detective_agent, detectives, bobbies, mrx, record=False, **setup):
    """Plays one game between two agents. A referee Game knows everything; the detectives see only
    a secret-mode Game kept in step with it (exactly what the board keeps).
    Returns {"result", "reason", "round", "mrx_times", "detective_times", "record"}."""
    ref = rules.Game(list(detectives), list(bobbies), mrx, **setup)
    pub = rules.Game(list(detectives), list(bobbies), 0, **setup)
    lines = []
    if record:
        lines.append({"type": "setup", "detectives": list(detectives), "bobbies": list(bobbies),
                      "mrx": mrx})
    mrx_times = []
    det_times = []
    while ref.result is None:
        if ref.phase == rules.PHASE_MRX:
            t0 = time.perf_counter()
            action = mrx_agent.choose(ref)
            mrx_times.append(time.perf_counter() - t0)
            play_mrx_action(ref, pub, action)
            if record and action[0] == "move":
                lines.append({"type": "mrx", "ticket": _name(action[1]), "to": action[2]})
            elif record:
                _k, t1, to1, t2, to2 = action
                lines.append({"type": "mrx", "double": [{"ticket": _name(t1), "to": to1},
                                                        {"ticket": _name(t2), "to": to2}]})
        else:
            t0 = time.perf_counter()
            p, t, to = detective_agent.choose(pub)
            det_times.append(time.perf_counter() - t0)
            play_detective_move(ref, pub, p, t, to)
            if record:
                line = {"type": "move", "piece": ref.piece_name(p), "to": to}
                if not ref.is_bobby(p):
                    line["ticket"] = _name(t)
                lines.append(line)
    return {"result": ref.result, "reason": ref.reason, "round": ref.round,
            "mrx_times": mrx_times, "detective_times": det_times, "record": lines}
