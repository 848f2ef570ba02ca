"""`yard bench ai`: tournaments between the agents, with fixed seeds, on both sides.

Every matchup plays the same games: game k draws 5 detective start cards and 1 Mister X card
from the real start cards with seed (seed, k), so matchups differ only by the agents. MCTS
agents run on a fixed number of iterations per move (deterministic); the time per move is
measured and reported. Win rates are Mister X's, with 95 % Wilson intervals.
"""
import math
import multiprocessing
import os
import random
import time

from sy import london
from host.errors import UserError
from host.ai.agents import play_game, make_mrx_agent, make_detective_agent

KINDS = {"random": "random", "heuristic": "easy", "mcts": "normal"}
# Mister X kind, detectives kind: the default tournament
# (mcts-mcts, mcts-random, random-mcts are available with --matchups; they cost more time)
DEFAULT_MATCHUPS = ("random-random", "heuristic-random", "random-heuristic",
                    "heuristic-heuristic", "mcts-heuristic", "heuristic-mcts")


def add_arguments(parser):
    parser.add_argument("--games", type=int, default=200, help="games per matchup (default 200)")
    parser.add_argument("--iterations", type=int, default=150,
                        help="MCTS iterations per move (default 150, about 50 ms; `normal` play uses 1 s)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="MCTS time per move instead of a fixed iteration count (not reproducible)")
    parser.add_argument("--matchups", default=",".join(DEFAULT_MATCHUPS),
                        help="comma-separated MRX-DETECTIVES pairs of random, heuristic, mcts")
    parser.add_argument("--detectives", type=int, default=5, choices=(2, 3, 4, 5),
                        help="number of detectives (bobbies added by the rules for 2 or 3)")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    parser.add_argument("--workers", type=int, default=0, help="processes (default: one per core)")


def wilson(k, n, z=1.96):
    """95 % Wilson score interval of k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def game_setup(seed, k, n_det):
    rnd = random.Random("%d/%d" % (seed, k))
    cards = rnd.sample(sorted(london.D_CARDS), n_det + (0, 0, 2, 1, 0, 0)[n_det])
    x = rnd.choice(sorted(london.X_CARDS))
    return cards[:n_det], cards[n_det:], x


def _agent(side, kind, seed, iterations, seconds):
    make = make_mrx_agent if side == "mrx" else make_detective_agent
    level = KINDS[kind]
    if level == "normal":
        return make(level, seed, seconds=seconds, iterations=None if seconds else iterations)
    return make(level, seed)


def play_one(task):
    matchup, k, seed, n_det, iterations, seconds = task
    mk, dk = matchup.split("-")
    dets, bobbies, x = game_setup(seed, k, n_det)
    aseed = seed * 100003 + k
    r = play_game(_agent("mrx", mk, aseed, iterations, seconds),
                  _agent("det", dk, aseed + 1, iterations, seconds), dets, bobbies, x)
    return (matchup, r["result"], r["reason"], r["round"], x, sum(r["mrx_times"]), len(r["mrx_times"]),
            max(r["mrx_times"] or [0]), sum(r["detective_times"]), len(r["detective_times"]),
            max(r["detective_times"] or [0]))


def parse_matchups(text):
    out = []
    for m in text.split(","):
        m = m.strip()
        if not m:
            continue
        parts = m.split("-")
        if len(parts) != 2 or parts[0] not in KINDS or parts[1] not in KINDS:
            raise UserError("bad matchup %r: MRX-DETECTIVES with random, heuristic or mcts" % m)
        out.append(m)
    return out


def tournament(matchups, games, iterations=150, seconds=None, n_det=5, seed=1, workers=0):
    tasks = [(m, k, seed, n_det, iterations, seconds) for m in matchups for k in range(games)]
    # the expensive games first, so the workers finish together
    tasks.sort(key=lambda t: -t[0].count("mcts"))
    workers = workers or os.cpu_count() or 1
    start = time.perf_counter()
    if workers > 1 and len(tasks) > 1:
        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(workers) as pool:
            rows = pool.map(play_one, tasks, chunksize=1)
    else:
        rows = [play_one(t) for t in tasks]
    wall = time.perf_counter() - start
    out = {"games_per_matchup": games, "mcts_iterations_per_move": None if seconds else iterations,
           "mcts_seconds_per_move": seconds, "detectives": n_det, "seed": seed, "workers": workers,
           "wall_seconds": round(wall, 1), "matchups": {}}
    for m in matchups:
        mine = [r for r in rows if r[0] == m]
        n = len(mine)
        wins = sum(1 for r in mine if r[1] == "mrx")
        lo, hi = wilson(wins, n)
        reasons = {}
        for r in mine:
            reasons[r[2]] = reasons.get(r[2], 0) + 1
        mt, mn = sum(r[5] for r in mine), sum(r[6] for r in mine)
        dt, dn = sum(r[8] for r in mine), sum(r[9] for r in mine)
        by_start = {}
        for r in mine:
            w, c = by_start.get(r[4], (0, 0))
            by_start[r[4]] = (w + (r[1] == "mrx"), c + 1)
        out["matchups"][m] = {
            "mrx": m.split("-")[0], "detectives": m.split("-")[1], "games": n,
            "mrx_wins": wins, "mrx_win_rate": round(wins / n, 3) if n else None,
            "ci95": [round(lo, 3), round(hi, 3)],
            "reasons": reasons,
            "mean_rounds": round(sum(r[3] for r in mine) / n, 1) if n else None,
            "mrx_ms_per_move": round(1000 * mt / mn, 2) if mn else None,
            "mrx_max_ms_per_move": round(1000 * max(r[7] for r in mine), 1) if mine else None,
            "detective_ms_per_move": round(1000 * dt / dn, 2) if dn else None,
            "detective_max_ms_per_move": round(1000 * max(r[10] for r in mine), 1) if mine else None,
            "mrx_win_rate_by_start": {str(s): round(w / c, 2) for s, (w, c) in sorted(by_start.items())},
        }
    return out


def _verdicts(out):
    """The issue's two targets, when their matchups were played: do the intervals separate?"""
    ms = out["matchups"]
    v = {}

    def sep(a, b, higher):
        if a in ms and b in ms:
            return ms[a]["ci95"][0] > ms[b]["ci95"][1] if higher else ms[a]["ci95"][1] < ms[b]["ci95"][0]
        return None
    v["mcts_mrx_escapes_more_than_heuristic_mrx"] = sep("mcts-heuristic", "heuristic-heuristic", True)
    v["mcts_detectives_catch_more_than_heuristic"] = sep("heuristic-mcts", "heuristic-heuristic", False)
    return v


def run(args):
    if args.games < 1:
        raise UserError("--games must be at least 1")
    out = tournament(parse_matchups(args.matchups), args.games, args.iterations, args.seconds,
                     args.detectives, args.seed, args.workers)
    out["targets_met"] = _verdicts(out)
    return out
