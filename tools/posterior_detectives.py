"""Does a Mister X's strength survive detectives who know his code?

Plays each Mister X (a level of host.ai, or `greedy`: the greedy formula on every move, hidden or
not, with the safety filter's guard) against the heuristic detectives (the easy level: the public
possible set) and against the posterior-guided ones (the normal level: the heuristic chasing the
posterior his code implies, host/ai/belief.py; for a Mister X without a plan they replay his code
from the stations they believe in). `yard bench ai` measures the same panel and more; this tool
keeps the one comparison cheap to rerun for a new policy.

    PYTHONPATH=. python tools/posterior_detectives.py --games 100 --mrx greedy,easy

Prints one JSON line per Mister X: win rate with its 95 % Wilson interval against each, blunder
rate, leak. Same start cards as `yard bench ai` (bench.game_setup).
"""
import argparse
import json
import sys
import time

from host.ai import bench, hiding, policy
from host.ai.agents import _MrX, make_detective_agent
from host.ai.model import Sim


class GreedyMrX(_MrX):
    """The greedy formula on every move (the easy level before it hid by a plan), guarded; the
    hidden second half of a double that surfaces first from the plan, as at every level."""

    def __init__(self, level, seed):
        super().__init__(level, seed)
        self.hider = hiding.Hider(hiding.BETA["easy"])

    def _choose(self, game):
        action = policy.heuristic_mrx(Sim.from_game(game, game.mrx), self.rnd)
        return self.hider.second_half(game, action, self.rnd)


def maker(kind, iterations):
    if kind == "greedy":
        return lambda seed: GreedyMrX("greedy", seed)
    return lambda seed: bench.mrx_agent(kind, seed, iterations, None)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--mrx", default="greedy,easy")
    ap.add_argument("--iterations", type=int, default=150, help="MCTS iterations a move (normal; hard: 4 times)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    for kind in args.mrx.split(","):
        t0 = time.perf_counter()
        make = maker(kind, args.iterations)
        out = {"mrx": kind, "games": args.games}
        for name, level in (("heuristic", "easy"), ("posterior", "normal")):
            wins = moves = blunders = 0
            for k in range(args.games):
                dets, bobbies, x = bench.game_setup(args.seed, k, 5)
                seed = args.seed * 100003 + k
                det = make_detective_agent(level, seed + 1, model=make if level == "normal" else None)
                r = bench.play_measured(make(seed), det, dets, bobbies, x)
                wins += r["result"] == "mrx"
                moves += r["moves"]
                blunders += r["blunders"]
            lo, hi = bench.wilson(wins, args.games)
            out["vs_%s_detectives" % name] = {"win_rate": round(wins / args.games, 3),
                                              "ci95": [round(lo, 3), round(hi, 3)],
                                              "blunder_rate": round(blunders / moves, 4) if moves else None}
        out["seconds"] = round(time.perf_counter() - t0)
        print(json.dumps(out))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
