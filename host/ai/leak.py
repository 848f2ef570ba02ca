"""How much a computer Mister X gives away to a detective who knows his code.

The attack: every input of the computer Mister X but his station is public, so a
detective can replay the policy from each station the public information allows and keep those
that would have produced the ticket he played. This module is that attacker, as a Bayesian
filter over Mister X's station:

- belief: a probability for each station, starting uniform over the public possible set;
- at each of his turns, for each station s the belief allows (all of them, or `max_stations`
  drawn by weight when there are more), the policy is run `samples` times from the public state
  with Mister X on s, each time with fresh randomness; the likelihood of what the detectives saw
  (the ticket or tickets, and the station on a surfacing move) and of each destination is the
  fraction of runs that produced them. posterior(to) ∝ Σ_s belief(s) · P(seen, to | s), with a
  small uniform floor (`floor`) over the destinations the ticket allows from s, so that a
  destination the runs happened to miss keeps some weight (the attacker's model is sampled);
- each detective landing removes its station; a surfacing move sets the belief to that station;
  after a double move whose first half surfaced, the belief is the plan's shares for the second
  half from the shown station (his code draws it so, whatever station he came from).

Per hidden turn (his final station not shown; a double move counts once, at its end) it records
log2(|public set|) − H(posterior) (bits leaked beyond public information), whether the
posterior's most likely station is the true one, and 1/|public set| (a uniform guess over the
public set: the public top-1 rate).
"""
import math
import random

from sy.rules import game as rules
from host.ai.model import BLACK, tables
from host.ai.twin import play_detective_move, play_mrx_action


def signature(action):
    """What the detectives see of an action besides surfacing stations: the tickets."""
    if action[0] == "move":
        return ("move", action[1])
    return ("double", action[1], action[3])


def final_station(action):
    return action[2] if action[0] == "move" else action[4]


def _hypothesis(pub, s):
    """The public game with Mister X put on s (what the attacker feeds the policy)."""
    h = rules.Game.load(pub.save(), pub.graph)
    h.mrx = s
    return h


def _steps(tb, here, ticket, pos):
    """Stations one ticket takes him to from here (free of pieces; tickets' counts aside)."""
    if ticket == BLACK:
        return {d for d in tb.any_nbr[here] if d not in pos}
    return {d for d in tb.nbr[ticket][here] if d not in pos}


def _reachable(h, sig, shown1):
    """Where his tickets `sig` can take him from h.mrx (the floor's support)."""
    tb = tables(h.graph)
    pos = set(h.pos)
    first = _steps(tb, h.mrx, sig[1], pos)
    if sig[0] == "move":
        return first
    if shown1:
        first = {shown1} & first
    out = set()
    for s1 in first:
        out |= _steps(tb, s1, sig[2], pos)
    return out


def _entropy(p):
    return -sum(v * math.log2(v) for v in p.values() if v > 0)


class Attacker:
    def __init__(self, make_agent, samples=16, max_stations=40, floor=0.02, rng=None, exact_samples=4):
        """make_agent(seed) -> a Mister X agent with that seed (the attacker's copy of his code).
        An agent with hidden_distribution(game) is read exactly (once; where its row depends on a
        search's randomness, `random_rows`, that randomness is drawn exact_samples times); others
        are run `samples` times per station."""
        self.make_agent = make_agent
        self.samples = samples
        self.exact_samples = exact_samples
        self.max_stations = max_stations
        self.floor = floor
        self.rng = rng or random.Random(1)
        self.belief = {}
        self.policy_runs = 0

    def start(self, pub):
        cand = [s for s in range(1, pub.graph.stations + 1) if pub.is_candidate(s)]
        self.belief = {s: 1.0 / len(cand) for s in cand}

    def _stations(self):
        items = sorted(self.belief.items())
        if len(items) <= self.max_stations:
            return items
        stations = [s for s, _p in items]
        weights = [p for _s, p in items]
        drawn = self.rng.choices(stations, weights, k=self.max_stations)
        return [(s, 1.0 / self.max_stations) for s in drawn]  # a particle each

    def observe_mrx(self, pub, action, shown, shown1=0, public_state=None):
        """Update on his action in the public game `pub` before it: its tickets are seen, `shown` is
        his final station if it surfaced (else 0), `shown1` a double move's first station if that
        half surfaced. Returns the posterior over his station after it."""
        if shown:
            self.belief = {shown: 1.0}
            return self.belief
        sig = signature(action)
        probe = self.make_agent(0)  # what his code offers to read (the same for every station)
        if shown1 and hasattr(probe, "second_half_distribution"):
            return self._second_half(pub, sig, shown1)
        exact = getattr(probe, "exact_rows", hasattr(probe, "hidden_distribution")) and not shown1
        runs = self.exact_samples if exact else self.samples
        if exact and not getattr(probe, "random_rows", False):
            runs = 1  # no randomness before the draw: one computation is the distribution
        post = {}
        for s, w in self._stations():
            if not _hypothesis(pub, s).legal_mrx():
                continue  # cornered there: he would not have moved
            counts = {}
            for _ in range(runs):
                agent = self.make_agent(self.rng.getrandbits(64))
                if public_state:
                    public_state(agent)
                self.policy_runs += 1
                if exact:
                    # the attacker has the code: the distribution of the draw, not a sample of it
                    for (sg, to), p in agent.hidden_distribution(_hypothesis(pub, s)).items():
                        if sg == sig:
                            counts[to] = counts.get(to, 0) + p
                    continue
                a = agent.choose(_hypothesis(pub, s))
                if signature(a) == sig and (not shown1 or a[2] == shown1):
                    to = final_station(a)
                    counts[to] = counts.get(to, 0) + 1
            counts = {to: c * self.samples / runs for to, c in counts.items()}
            reach = _reachable(_hypothesis(pub, s), sig, shown1)
            for to in reach:
                like = (1 - self.floor) * counts.get(to, 0) / self.samples + self.floor / len(reach)
                post[to] = post.get(to, 0.0) + w * like
        total = sum(post.values())
        self.belief = {k: v / total for k, v in post.items()} if total > 0 else {}
        return self.belief

    def _second_half(self, pub, sig, shown1):
        """A double move whose first half surfaced on shown1: his code draws the hidden second half
        from the plan for that one station (second_half_distribution, public facts only), whatever
        station he came from, so the posterior is the plan's share of each destination of the
        ticket seen (with the floor), whichever stations the belief held before."""
        agent = self.make_agent(self.rng.getrandbits(64))
        self.policy_runs += 1
        dist = agent.second_half_distribution(pub, sig[1], shown1)
        mine = {to: p for (sg, to), p in dist.items() if sg == ("move", sig[2])}
        total = sum(mine.values())
        reach = _steps(tables(pub.graph), shown1, sig[2], set(pub.pos))
        post = {to: (1 - self.floor) * (mine.get(to, 0.0) / total if total else 0.0) + self.floor / len(reach)
                for to in reach}
        norm = sum(post.values())
        self.belief = {k: v / norm for k, v in post.items()} if norm > 0 else {}
        return self.belief

    def observe_landing(self, station):
        if station in self.belief:
            del self.belief[station]
            total = sum(self.belief.values())
            if total > 0:
                self.belief = {k: v / total for k, v in self.belief.items()}


def _public_state_of(agent):
    """A function that gives a fresh copy of the agent the state the real one kept from public
    facts (the plan's belief, host/ai/hiding.py): the attacker can compute it, so he has it."""
    hider = getattr(agent, "hider", None)
    if hider is None:
        return None
    belief = dict(hider.belief) if hider.belief is not None else None
    at = hider.at_moves

    def load(copy):
        copy.hider.belief = dict(belief) if belief is not None else None
        copy.hider.at_moves = at
    return load


def attack_game(make_agent, detective_agent, detectives, bobbies, mrx, seed=1, samples=16,
                max_stations=40, floor=0.02, exact_samples=4):
    """Play one game (his real agent: make_agent(seed')) while the attacker watches.
    Returns {"rows": [(leak_bits, attacker_top1, public_top1, after a surfacing first half)] per
    hidden turn, "result",
    "policy_runs"}."""
    rng = random.Random(seed)
    agent = make_agent(rng.getrandbits(64))
    ref = rules.Game(list(detectives), list(bobbies), mrx)
    pub = rules.Game(list(detectives), list(bobbies), 0)
    att = Attacker(make_agent, samples, max_stations, floor, random.Random(rng.getrandbits(64)), exact_samples)
    att.start(pub)
    rows = []
    while ref.result is None:
        if ref.phase == rules.PHASE_MRX:
            public_state = _public_state_of(agent)  # before his move: what his code starts from
            action = agent.choose(ref)
            before = rules.Game.load(pub.save(), pub.graph)
            legs = play_mrx_action(ref, pub, action)
            shown = legs[-1]  # his final station where it surfaced, else 0
            shown1 = legs[0] if len(legs) == 2 else 0  # a double's first half, the same
            post = att.observe_mrx(before, action, shown, shown1, public_state)
            if not shown and ref.result is None:
                n_pub = pub.candidates_count()
                h = _entropy(post) if post else math.log2(n_pub)
                top = max(post.items(), key=lambda kv: (kv[1], -kv[0]))[0] if post else None
                rows.append((math.log2(n_pub) - h, top == ref.mrx, 1.0 / n_pub, bool(shown1)))
        else:
            p, t, to = detective_agent.choose(pub)
            play_detective_move(ref, pub, p, t, to)
            if ref.result is None:
                att.observe_landing(to)
    return {"rows": rows, "result": ref.result, "policy_runs": att.policy_runs}


__all__ = ["Attacker", "attack_game", "signature"]
