"""The computer players: random, heuristic and MCTS agents for both sides, and a game runner."""
import time

from sy.rules import game as rules
from host.ai import hiding, mcts, policy
from host.ai.model import Sim
from host.misterx.randomness import fast_rng, secret_rng

LEVELS = ("random", "easy", "normal", "hard")
SECONDS = {"normal": 1.0, "hard": 4.0}  # per choose() call, one laptop core


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


class RandomMrX(_Hiding, _Agent):
    """No preferences: on a surfacing move any legal single move, uniformly; on a hidden one a draw
    from the balanced plan without preferences (host/ai/hiding.py), which, unlike a uniform
    choice, tells a detective who knows it nothing beyond the public possible set."""

    def __init__(self, level, seed):
        super().__init__(level, seed)
        self.hider = hiding.Hider(hiding.BETA["random"], doubles=False, near=1.0, escape_at=0)

    def choose(self, game):
        _check_mrx(game)
        if hiding.surfaces_next(game):
            to, t = self.rnd.choice(game.legal_mrx())
            return ("move", t, to)
        return self.hider.choose(game, self.rnd)

    def hidden_distribution(self, game):
        """{(signature, to): probability} of his choice on a hidden move (host/ai/leak.py)."""
        return self.hider.row(game)[0] or {}


class HeuristicMrX(_Hiding, _Agent):
    """Greedy where it shows (a surfacing move): away from the nearest piece, keeps escape routes,
    picks the ticket that leaves the detectives the most possible stations. On a hidden move a
    draw from the balanced plan (host/ai/hiding.py) weighted by the same preferences: a mixed
    strategy that a detective who knows it cannot replay to find him."""

    def __init__(self, level, seed):
        super().__init__(level, seed)
        self.hider = hiding.Hider(hiding.BETA["easy"])

    def choose(self, game):
        _check_mrx(game)
        if hiding.surfaces_next(game):
            action = policy.heuristic_mrx(Sim.from_game(game, game.mrx), self.rnd)
            return self.hider.second_half(game, action, self.rnd)
        return self.hider.choose(game, self.rnd)

    def hidden_distribution(self, game):
        """{(signature, to): probability} of his choice on a hidden move (host/ai/leak.py); none
        where he escapes into a surfacing instead (hiding.Hider.escapes)."""
        row = self.hider.row(game)[0]
        if not row or self.hider.escapes(game, row):
            return {}
        return row


class MctsMrX(_Hiding, _Agent):
    """MCTS where it shows (a surfacing move: the most visited move). On a hidden move a draw from
    the balanced plan (host/ai/hiding.py, the easy level's landing plan), each move's share bent
    by its MCTS value, exp(TILT * (value - best value)): the search's knowledge of his station
    would steer him, but every bit of it is a bit the attacker learns (bench ai:
    leak_bits_per_move), and TILT is 0 since the landing plan (docs/host.md): the search plays
    his surfacing moves.

    His thinking time does not depend on his station (it would tell it): with a time budget the search
    always runs (even with a single legal move), stops on time, and the answer waits for the
    budget's end (the plan's own time depends on public facts only)."""

    SEARCH_SHARE = 0.8  # of the time budget; the plan and the draw take (much less than) the rest

    def __init__(self, level, seed, seconds=1.0, iterations=None):
        super().__init__(level, seed)
        self.seconds = seconds
        self.budget = mcts.Budget(seconds * self.SEARCH_SHARE if seconds else None, iterations)
        self.hider = hiding.Hider(hiding.BETA.get(level, hiding.BETA["easy"]), **hiding.MCTS_PLAN)
        self.tilt = hiding.TILT

    def choose(self, game):
        start = time.perf_counter()
        _check_mrx(game)
        action, self.last = mcts.search_mrx(game, self.budget, fast_rng(self.rnd))
        root = self.last.pop("root", None)
        if hiding.surfaces_next(game):
            action = self.hider.second_half(game, action, self.rnd)
        else:
            action = self.hider.choose(game, self.rnd, tilt=hiding.mcts_tilt(root, self.tilt))
        if self.seconds:
            rest = start + self.seconds - time.perf_counter()
            if rest > 0:
                time.sleep(rest)
        return action

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


class MctsDetectives(_Agent):
    def __init__(self, level, seed, seconds=1.0, iterations=None):
        super().__init__(level, seed)
        self.budget = mcts.Budget(seconds, iterations)

    def choose(self, view):
        _check_public(view)
        action, self.last = mcts.search_detective(view, self.budget, fast_rng(self.rnd))
        return action


def _level(level):
    if level not in LEVELS:
        raise ValueError("unknown level %r: one of %s" % (level, ", ".join(LEVELS)))


def make_mrx_agent(level="normal", seed=None, seconds=None, iterations=None):
    """A computer Mister X. `choose(game)` takes the full rules.Game (Mister X to move) and
    returns ("move", ticket, to) or ("double", ticket1, to1, ticket2, to2)."""
    _level(level)
    if level == "random":
        return RandomMrX(level, seed)
    if level == "easy":
        return HeuristicMrX(level, seed)
    if seconds is None and iterations is None:
        seconds = SECONDS[level]
    return MctsMrX(level, seed, seconds, iterations)


def make_detective_agent(level="normal", seed=None, seconds=None, iterations=None):
    """Computer detectives. `choose(view)` takes a public view (public_view(game), or the board's
    own secret-mode Game) while view.to_move() is not 0 and returns (piece, ticket, to) for one
    piece: the lowest-numbered piece that still has to move. For a bobby the ticket names the
    transport used (pass it on, or None: bobbies pay nothing). Call it once per piece."""
    _level(level)
    if level == "random":
        return RandomDetectives(level, seed)
    if level == "easy":
        return HeuristicDetectives(level, seed)
    if seconds is None and iterations is None:
        seconds = SECONDS[level]
    return MctsDetectives(level, seed, seconds, iterations)


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
            if action[0] == "move":
                _k, t, to = action
                shows = (ref.moves + 1) in ref.reveals
                ref.mrx_move(t, to)
                pub.mrx_move(t, to if shows else 0)
                if record:
                    lines.append({"type": "mrx", "ticket": _name(t), "to": to})
            else:
                _k, t1, to1, t2, to2 = action
                s1 = (ref.moves + 1) in ref.reveals
                s2 = (ref.moves + 2) in ref.reveals
                ref.mrx_double(t1, to1, t2, to2)
                pub.mrx_double(t1, to1 if s1 else 0, t2, to2 if s2 else 0)
                if record:
                    lines.append({"type": "mrx", "double": [{"ticket": _name(t1), "to": to1},
                                                            {"ticket": _name(t2), "to": to2}]})
        else:
            t0 = time.perf_counter()
            p, t, to = detective_agent.choose(pub)
            det_times.append(time.perf_counter() - t0)
            bobby = ref.is_bobby(p)
            ref.move(p, None if bobby else t, to)
            if ref.result is None:
                pub.move(p, None if bobby else t, to)
            if record:
                line = {"type": "move", "piece": ref.piece_name(p), "to": to}
                if not bobby:
                    line["ticket"] = _name(t)
                lines.append(line)
    return {"result": ref.result, "reason": ref.reason, "round": ref.round,
            "mrx_times": mrx_times, "detective_times": det_times, "record": lines}
