"""Does a Mister X's strength survive detectives who know his code?

The detectives are the heuristic ones (policy.heuristic_detective), but they chase the stations
the leak attacker (host/ai/leak.py, the same Bayesian filter `yard bench ai` measures the leak
with) still believes in, instead of the whole public possible set: every station whose
posterior is at least KEEP times the most likely one's. Mister X is either the old greedy
formula (policy.heuristic_mrx on every move, the easy level before the balanced plan, ba85cf7^)
or today's easy level (the balanced plan, host/ai/hiding.py).

    PYTHONPATH=. python tools/posterior_detectives.py --games 100 --mrx greedy,easy

Prints one JSON line per Mister X: win rate with its 95 % Wilson interval, against the
posterior-guided detectives and (same games) against the plain heuristic detectives.
Same start cards as `yard bench ai` (bench.game_setup, seed 1).
"""
import argparse
import json
import random
import sys
import time

from sy.rules import game as rules
from host.ai import bench, policy
from host.ai.agents import make_mrx_agent, _Agent, _check_mrx
from host.ai.leak import Attacker, _public_state_of
from host.ai.model import Sim

KEEP = 0.1


class GreedyMrX(_Agent):
    """The old easy level: the greedy formula on every move, hidden or not."""

    def choose(self, game):
        _check_mrx(game)
        return policy.heuristic_mrx(Sim.from_game(game, game.mrx), self.rnd)


def make(kind):
    if kind == "greedy":
        return lambda seed: GreedyMrX("greedy", seed)
    return lambda seed: make_mrx_agent("easy", seed)


def play(make_agent, dets, bobbies, x, seed, informed, samples=4, stations=40):
    rng = random.Random(seed)
    agent = make_agent(rng.getrandbits(64))
    drnd = random.Random(rng.getrandbits(64))
    ref = rules.Game(list(dets), list(bobbies), x)
    pub = rules.Game(list(dets), list(bobbies), 0)
    att = Attacker(make_agent, samples, stations, 0.02, random.Random(rng.getrandbits(64))) if informed else None
    if att:
        att.start(pub)
    while ref.result is None:
        if ref.phase == rules.PHASE_MRX:
            public_state = _public_state_of(agent)
            action = agent.choose(ref)
            before = rules.Game.load(pub.save(), pub.graph)
            shown1 = 0
            if action[0] == "move":
                _k, t, to = action
                shows = (ref.moves + 1) in ref.reveals
                ref.mrx_move(t, to)
                pub.mrx_move(t, to if shows else 0)
                shown = to if shows else 0
            else:
                _k, t1, to1, t2, to2 = action
                s1 = (ref.moves + 1) in ref.reveals
                s2 = (ref.moves + 2) in ref.reveals
                ref.mrx_double(t1, to1, t2, to2)
                pub.mrx_double(t1, to1 if s1 else 0, t2, to2 if s2 else 0)
                shown = to2 if s2 else 0
                shown1 = to1 if s1 else 0
            if att:
                att.observe_mrx(before, action, shown, shown1, public_state)
        else:
            sim = Sim.from_game(pub, 0)
            if att and att.belief:
                top = max(att.belief.values())
                mask = 0
                for s, p in att.belief.items():
                    if p >= KEEP * top and (sim.cand >> s) & 1:
                        mask |= 1 << s
                if mask:
                    sim.cand = mask
            p, t, to = policy.heuristic_detective(sim, drnd)
            bobby = ref.is_bobby(p)
            ref.move(p, None if bobby else t, to)
            if ref.result is None:
                pub.move(p, None if bobby else t, to)
                if att:
                    att.observe_landing(to)
    return ref.result == "mrx"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--mrx", default="greedy,easy")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    for kind in args.mrx.split(","):
        t0 = time.perf_counter()
        out = {"mrx": kind, "games": args.games}
        for informed in (False, True):
            wins = 0
            for k in range(args.games):
                dets, bobbies, x = bench.game_setup(args.seed, k, 5)
                wins += play(make(kind), dets, bobbies, x, args.seed * 1000003 + k, informed)
            lo, hi = bench.wilson(wins, args.games)
            key = "vs_posterior_detectives" if informed else "vs_heuristic_detectives"
            out[key] = {"win_rate": round(wins / args.games, 3), "ci95": [round(lo, 3), round(hi, 3)]}
        out["seconds"] = round(time.perf_counter() - t0)
        print(json.dumps(out))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
