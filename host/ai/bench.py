"""`yard bench ai`: tournaments between the agents, with fixed seeds, on both sides.

Every matchup plays the same games: game k draws 5 detective start cards and 1 Mister X card
from the real start cards with seed (seed, k), so matchups differ only by the agents. MCTS
agents run on a fixed number of iterations per move (deterministic); the time per move is
measured and reported. Win rates are Mister X's, with 95 % Wilson intervals.

`leak`: per Mister X level, what a detective who knows his code learns beyond public
information (host/ai/leak.py): `leak_bits_per_move` = mean over hidden moves of log2(|public set|)
− H(attacker's posterior), `attacker_top1_rate` (the attacker's most likely station is the true
one), `public_top1_rate` (the same for a uniform guess over the public set), against heuristic
detectives. The attacker reads a level's hidden-move distribution from its code where it has one
(hiding plan: exact; MCTS: exact too while hiding.TILT is 0, else its search's randomness drawn
`--leak-search-samples` times per station), else runs it `--leak-samples` times per station.
"""
import math
import multiprocessing
import os
import random
import time

from sy.maps import london
from host.errors import UserError
from host.ai.agents import play_game, make_mrx_agent, make_detective_agent

KINDS = {"random": "random", "heuristic": "easy", "mcts": "normal", "hard": "hard"}
# Mister X kind, detectives kind: the default tournament
# (mcts-mcts, mcts-random, random-mcts, hard-heuristic... are available with --matchups; they cost
# more time; `hard` searches 4 times --iterations, as its 4 s a move against normal's 1 s)
DEFAULT_MATCHUPS = ("random-random", "heuristic-random", "random-heuristic",
                    "heuristic-heuristic", "mcts-heuristic", "heuristic-mcts")


def add_arguments(parser):
    parser.add_argument("--games", type=int, default=200, help="games per matchup (default 200; 0: the leak only)")
    parser.add_argument("--iterations", type=int, default=150,
                        help="MCTS iterations per move (default 150, about 50 ms; `normal` play uses 1 s)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="MCTS time per move instead of a fixed iteration count (not reproducible)")
    parser.add_argument("--matchups", default=",".join(DEFAULT_MATCHUPS),
                        help="comma-separated MRX-DETECTIVES pairs of random, heuristic, mcts, hard")
    parser.add_argument("--detectives", type=int, default=5, choices=(2, 3, 4, 5),
                        help="number of detectives (bobbies added by the rules for 2 or 3)")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    parser.add_argument("--workers", type=int, default=0, help="processes (default: one per core)")
    parser.add_argument("--leak-levels", default="random,easy,normal,hard",
                        help="Mister X levels whose leak to a policy-aware attacker is measured ('' for none)")
    parser.add_argument("--leak-games", type=int, default=12, help="games per level for the leak (random, easy)")
    parser.add_argument("--leak-games-mcts", type=int, default=12,
                        help="games per MCTS level for the leak (their search plays his surfacing moves)")
    parser.add_argument("--leak-stations", type=int, default=40,
                        help="stations the attacker replays per move at most (drawn by weight beyond)")
    parser.add_argument("--leak-stations-mcts", type=int, default=40, help="the same for the MCTS levels")
    parser.add_argument("--leak-samples", type=int, default=48,
                        help="runs per station for a policy without a readable distribution")
    parser.add_argument("--leak-search-samples", type=int, default=4,
                        help="MCTS searches per station (the search's randomness) for the MCTS levels, "
                             "where the search bends the hidden moves (hiding.TILT; 0 by default: the row "
                             "is then read once, exactly)")


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
    if level in ("normal", "hard"):
        scale = 4 if level == "hard" else 1
        return make(level, seed, seconds=seconds and seconds * scale,
                    iterations=None if seconds else iterations * scale)
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
            raise UserError("bad matchup %r: MRX-DETECTIVES with random, heuristic, mcts or hard" % m)
        out.append(m)
    return out


def tournament(matchups, games, iterations=150, seconds=None, n_det=5, seed=1, workers=0):
    tasks = [(m, k, seed, n_det, iterations, seconds) for m in matchups for k in range(games)]
    # the expensive games first, so the workers finish together
    tasks.sort(key=lambda t: -(t[0].count("mcts") + 4 * t[0].count("hard")))
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
    """The two targets, when their matchups were played: do the intervals separate?"""
    ms = out["matchups"]
    v = {}

    def sep(a, b, higher):
        if a in ms and b in ms:
            return ms[a]["ci95"][0] > ms[b]["ci95"][1] if higher else ms[a]["ci95"][1] < ms[b]["ci95"][0]
        return None
    v["mcts_mrx_escapes_more_than_heuristic_mrx"] = sep("mcts-heuristic", "heuristic-heuristic", True)
    v["mcts_detectives_catch_more_than_heuristic"] = sep("heuristic-mcts", "heuristic-heuristic", False)
    return v


# --- the leak to a detective who knows the code --------------------------------------------------
LEAK_TARGET_BITS = 0.5


def _leak_agent_maker(level, iterations):
    from host.ai.agents import make_mrx_agent as make
    its = {"normal": iterations, "hard": 4 * iterations}.get(level)  # hard: 4 s against normal's 1 s
    return lambda seed: make(level, seed, iterations=its) if its else make(level, seed)


def leak_one(task):
    from host.ai.leak import attack_game
    level, k, seed, n_det, iterations, stations, samples, search_samples = task
    dets, bobbies, x = game_setup(seed, k, n_det)
    r = attack_game(_leak_agent_maker(level, iterations), make_detective_agent("easy", seed * 7919 + k),
                    dets, bobbies, x, seed=seed * 1000003 + k, samples=samples, max_stations=stations,
                    exact_samples=search_samples)
    return level, r["rows"], r["result"], r["policy_runs"]


def leak_levels(levels, games, games_mcts=12, seed=1, n_det=5, iterations=150, stations=40, stations_mcts=40,
                samples=48, search_samples=4, workers=0):
    mcts_levels = ("normal", "hard")
    tasks = [(lv, k, seed, n_det, iterations, stations_mcts if lv in mcts_levels else stations, samples,
              search_samples) for lv in levels for k in range(games_mcts if lv in mcts_levels else games)]
    tasks.sort(key=lambda t: t[0] not in mcts_levels)  # the slow ones first
    workers = workers or os.cpu_count() or 1
    start = time.perf_counter()
    if workers > 1 and len(tasks) > 1:
        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(workers) as pool:
            done = pool.map(leak_one, tasks, chunksize=1)
    else:
        done = [leak_one(t) for t in tasks]
    out = {"target_bits_per_move": LEAK_TARGET_BITS, "detectives": "heuristic",
           "wall_seconds": round(time.perf_counter() - start, 1), "levels": {}}
    for lv in levels:
        mine = [d for d in done if d[0] == lv]
        rows = [r for d in mine for r in d[1]]
        n = len(rows)
        split = [r for r in rows if r[3]]
        wins = sum(1 for d in mine if d[2] == "mrx")
        lo, hi = wilson(wins, len(mine))
        out["levels"][lv] = {
            "leak_bits_per_move": round(sum(r[0] for r in rows) / n, 3) if n else None,
            "attacker_top1_rate": round(sum(1 for r in rows if r[1]) / n, 3) if n else None,
            "public_top1_rate": round(sum(r[2] for r in rows) / n, 3) if n else None,
            "hidden_moves": n, "games": len(mine), "policy_runs": sum(d[3] for d in mine),
            # doubles whose first half surfaces: the hidden second half is the plan's (hiding.splits)
            "split_double_moves": len(split),
            "split_double_leak_bits": round(sum(r[0] for r in split) / len(split), 3) if split else None,
            "stations_per_move": stations_mcts if lv in mcts_levels else stations,
            "mrx_win_rate": round(wins / len(mine), 3) if mine else None, "ci95": [round(lo, 3), round(hi, 3)],
            "target_met": (sum(r[0] for r in rows) / n <= LEAK_TARGET_BITS) if n else None,
        }
    return out


def run(args):
    if args.games < 0:
        raise UserError("--games must be 0 (the leak only) or more")
    if args.games:
        out = tournament(parse_matchups(args.matchups), args.games, args.iterations, args.seconds,
                         args.detectives, args.seed, args.workers)
        out["targets_met"] = _verdicts(out)
    else:
        out = {}
    levels = [lv.strip() for lv in args.leak_levels.split(",") if lv.strip()]
    for lv in levels:
        if lv not in ("random", "easy", "normal", "hard"):
            raise UserError("--leak-levels: random, easy, normal, hard (not %r)" % lv)
    if levels:
        out["leak"] = leak_levels(levels, args.leak_games, args.leak_games_mcts, args.seed, args.detectives,
                                  args.iterations, args.leak_stations, args.leak_stations_mcts, args.leak_samples,
                                  args.leak_search_samples, args.workers)
    return out
