"""`yard bench ai`: the computer Mister X's levels against a panel of detectives, and the
detectives' levels against the strongest Mister X. It measures and reports; it asserts nothing.

Every pairing plays the same games: game k draws the detectives' start cards and Mister X's card
from the real start cards with seed (seed, k), so pairings differ only by the agents. MCTS agents
run on a fixed number of iterations per move (deterministic; `--seconds` for a time budget);
nobody waits for the table's answer deadline. Rates have 95 % Wilson intervals.

The panel (detectives who know his code, docs/ai.md): `heuristic` (the easy level: the public
possible set), `posterior` (the normal level: the heuristic chasing the posterior his plan
implies, host/ai/belief.py), `mcts` (the hard level: MCTS drawing his station from that posterior,
with location categorization), `public-mcts` (the same search over the public set) and `random`.

Per Mister X level: `win_rate` against each panel detective (with `ci95`, `games`),
`win_rate_panel_min` (the weakest result counts), `blunder_rate` (moves that end in a piece's reach
when a move out of every piece's reach existed, host/ai/safety.py, over all his moves),
`early_loss_rate` (games lost by round 5), `leak_bits_per_move` (a diagnostic: log2 of the public
set minus the entropy of the posterior his code implies, after each hidden move), and
`seconds_per_move` (his computing time; at the table every answer waits for the level's deadline).
Per detective level: `capture_rate` against the strongest Mister X level (the highest panel
minimum). `targets` says which of the levels' targets the measured figures meet (null: not
measured), judged on the point estimates; the intervals are there to read.
"""
import math
import multiprocessing
import os
import random
import time

from sy.maps import london
from sy.rules import game as rules
from host.errors import UserError
from host.ai import agents, belief, mcts, policy, safety
from host.ai.agents import make_mrx_agent, make_detective_agent
from host.ai.model import Sim
from host.ai.twin import play_detective_move, play_mrx_action
from host.i18n import _

MRX_LEVELS = ("random", "easy", "normal", "hard")
# panel name: (detective level, searches); the detectives' levels are named by what they do
PANEL = {"random": "random", "heuristic": "easy", "posterior": "normal", "mcts": "hard", "public-mcts": "hard"}
DEFAULT_MRX = "easy,normal,hard"
DEFAULT_PANEL = "heuristic,posterior,mcts"
MCTS_MRX = ("normal", "hard")
EARLY_ROUND = 5  # a loss by this round is an early loss
# the levels' targets (docs/ai.md): level: (blunder_rate max, early_loss_rate max, vs heuristic min, panel min)
TARGETS = {"easy": (0.005, 0.02, 0.35, 0.20), "normal": (0.005, 0.02, 0.70, 0.45),
           "hard": (0.005, 0.02, 0.75, 0.50)}
TOP_DETECTIVES_MARGIN = 0.15  # the top detectives catch normal at least this much more often


def add_arguments(parser):
    parser.add_argument("--games", type=int, default=100,
                        help=_("games per pairing without an MCTS side (default 100; 0: skip the pairings)"))
    parser.add_argument("--games-mcts", type=int, default=20,
                        help=_("games per pairing with an MCTS side (normal or hard Mister X, mcts detectives; default 20)"))
    parser.add_argument("--iterations", type=int, default=150,
                        help=_("MCTS iterations per move: normal Mister X and the mcts detectives (hard Mister X: 4 times; "
                             "default 150; at the table normal searches 1 s, hard 4 s)"))
    parser.add_argument("--seconds", type=float, default=None,
                        help=_("MCTS time per move instead of a fixed iteration count (hard: 4 times; not reproducible)"))
    parser.add_argument("--mrx", default=DEFAULT_MRX, help=_("Mister X levels (comma-separated: random, easy, normal, hard)"))
    parser.add_argument("--matchups", default="",
                        help=_("only these pairings instead of every level against the panel: MRX-DETECTIVES,... "
                             "(e.g. easy-heuristic,normal-mcts; heuristic and mcts name easy and normal Mister X)"))
    parser.add_argument("--panel", default=DEFAULT_PANEL,
                        help=_("the detectives (comma-separated: %(panel)s)") % {"panel": ", ".join(PANEL)})
    parser.add_argument("--detectives", type=int, default=5, choices=(2, 3, 4, 5),
                        help=_("number of detectives (bobbies added by the rules for 2 or 3)"))
    parser.add_argument("--seed", type=int, default=1, help=_("tournament seed (default 1)"))
    parser.add_argument("--workers", type=int, default=0, help=_("processes (default: one per core)"))
    parser.add_argument("--replay-stations", type=int, default=8,
                        help=_("informed detectives facing a Mister X without a plan replay his code from this many "
                             "stations a move (drawn by belief; default 8)"))
    parser.add_argument("--replay-samples", type=int, default=2, help=_("... this many times each (default 2)"))
    parser.add_argument("--hidden", choices=("level", "plan"), default="level",
                        help=_("how easy, normal and hard choose hidden moves: as the level does (default), or by the "
                             "balanced plan (host/ai/hiding.py), for comparison"))
    parser.add_argument("--peek", type=float, default=None,
                        help=_("normal and hard: the share of their playouts' detective moves that chase him "
                             "(default: the level's, agents.PEEK)"))
    parser.add_argument("--demo-games", type=int, default=0,
                        help=_("also play this many demo-like games (yard sim --demo's players, in the rules core) and "
                             "report how long a demo game lasts (rounds: mean, spread)"))
    parser.add_argument("--mrx-iterations", type=int, default=None,
                        help=_("normal Mister X's MCTS iterations a move (hard: 4 times) when they differ from the "
                             "detectives' (default: --iterations)"))
    parser.add_argument("--two-moves", choices=("on", "off"), default=None,
                        help=_("normal and hard: search only the moves safe for two moves where there are some "
                             "(default: the level's, mcts.TWO_MOVES)"))
    parser.add_argument("--sample", type=float, default=None,
                        help=_("normal and hard: on a hidden move draw the root action by visits ** SAMPLE instead "
                             "of the most visited (default: the level's, mcts.SAMPLE)"))
    parser.add_argument("--room", type=float, default=None,
                        help=_("easy: points per station of room to run (policy.ROOM; default the level's)"))
    parser.add_argument("--trap-tier", choices=("on", "off"), default=None,
                        help=_("the guard's tier for one-move-safe stations the pieces cannot close in on "
                             "(safety.TRAP_TIER; default the level's)"))
    parser.add_argument("--double-escape", type=float, default=None,
                        help=_("the guard: double moves too where no single move reaches a safety tier above this "
                             "(safety.DOUBLE_ESCAPE: 0.5, 0.25 or 0 for never; default the level's)"))
    parser.add_argument("--tiers", choices=("on", "off"), default=None,
                        help=_("normal and hard: pass the search's choice through the guard's safety tiers "
                             "(agents.TIERS; default the level's)"))
    parser.add_argument("--mix", type=float, default=None,
                        help=_("easy: draw hidden moves among the safest within this many points of the best "
                             "(default: the level's, agents.MIX)"))
    parser.add_argument("--leak-levels", default="",
                        help=_("Mister X levels also measured by the station-by-station attacker of host/ai/leak.py "
                             "(slow; leak_bits_per_move comes from every game anyway)"))
    parser.add_argument("--leak-games", type=int, default=12, help=_("games per level for that attacker (random, easy)"))
    parser.add_argument("--leak-games-mcts", type=int, default=12, help=_("the same for the MCTS levels"))
    parser.add_argument("--leak-stations", type=int, default=40,
                        help=_("stations the attacker replays per move at most (drawn by weight beyond)"))
    parser.add_argument("--leak-stations-mcts", type=int, default=40, help=_("the same for the MCTS levels"))
    parser.add_argument("--leak-samples", type=int, default=48,
                        help=_("runs per station for a policy without a readable distribution"))
    parser.add_argument("--leak-search-samples", type=int, default=4,
                        help=_("MCTS searches per station for the MCTS levels, where the search bends the hidden moves"))


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


PEEK = None  # --peek: the MCTS levels' PEEK for this run (None: the level's)
MRX_ITERATIONS = None  # --mrx-iterations: normal Mister X's iterations a move (hard: 4 times), if not --iterations


def mrx_agent(level, seed, iterations, seconds, hidden=None):
    if level in MCTS_MRX:
        iterations = MRX_ITERATIONS or iterations
        scale = 4 if level == "hard" else 1
        return make_mrx_agent(level, seed, seconds=seconds and seconds * scale,
                              iterations=None if seconds else iterations * scale, deadline=0, hidden=hidden,
                              peek=PEEK)
    return make_mrx_agent(level, seed, deadline=0, hidden=hidden if level != "random" else None)


def detective_agent(name, seed, iterations, seconds, mrx_level, replay=(8, 2), hidden=None):
    """A panel detective facing `mrx_level`: the informed ones know his code (his plan where his
    hidden moves follow it; else his agent with the same budget, replayed from replay[0] stations
    replay[1] times each)."""
    level = PANEL[name]
    model = None
    if name != "public-mcts" and level in ("normal", "hard"):
        model = Model(mrx_level, iterations, seconds, replay, hidden)
    if level == "hard":
        return make_detective_agent(level, seed, seconds=seconds, iterations=None if seconds else iterations,
                                    model=model)
    return make_detective_agent(level, seed, model=model)


class Model:
    """What informed detectives know of the Mister X they face: a function seed -> his agent (as
    the bench makes it), with how hard they replay it (host/ai/belief.py Tracker)."""

    def __init__(self, level, iterations, seconds, replay, hidden=None):
        self.level, self.iterations, self.seconds, self.hidden = level, iterations, seconds, hidden
        self.replay_stations, self.replay_samples = replay

    def __call__(self, seed):
        return mrx_agent(self.level, seed, self.iterations, self.seconds, self.hidden)


def _entropy(p):
    total = sum(p.values())
    return -sum(v / total * math.log2(v / total) for v in p.values() if v > 0)


def play_measured(mrx, det, dets, bobbies, x, tracker=None):
    """One game; returns {"result", "reason", "round", "moves", "blunders", "seconds", "leak"}:
    his moves, those that were blunders (safety.is_blunder), his computing time, and the bits
    the posterior of a detective who knows his code (tracker: a belief.Tracker) holds beyond the
    public set after each hidden move (a list)."""
    ref = rules.Game(list(dets), list(bobbies), x)
    pub = rules.Game(list(dets), list(bobbies), 0)
    moves = blunders = 0
    seconds = 0.0
    leak = []
    while ref.result is None:
        if ref.phase == rules.PHASE_MRX:
            if tracker:
                tracker.update(pub)
            t0 = time.perf_counter()
            a = mrx.choose(ref)
            seconds += time.perf_counter() - t0
            moves += 1
            blunders += safety.is_blunder(Sim.from_game(ref, ref.mrx), a)
            shown = play_mrx_action(ref, pub, a)[-1]  # his final station where it surfaced, else 0
            if tracker and not shown and ref.result is None:
                post = tracker.update(pub)
                n = pub.candidates_count()
                leak.append(math.log2(n) - _entropy(post) if post and n else 0.0)
        else:
            p, t, to = det.choose(pub)
            play_detective_move(ref, pub, p, t, to)
    return {"result": ref.result, "reason": ref.reason, "round": ref.round, "moves": moves,
            "blunders": blunders, "seconds": seconds, "leak": leak}


def play_one(task):
    global PEEK
    mrx_level, panel, k, seed, n_det, iterations, seconds, replay, hidden, PEEK = task
    dets, bobbies, x = game_setup(seed, k, n_det)
    aseed = seed * 100003 + k
    mrx = mrx_agent(mrx_level, aseed, iterations, seconds, hidden)
    det = detective_agent(panel, aseed + 1, iterations, seconds, mrx_level, replay, hidden)
    # the leak: read by the exact posterior where his hidden moves follow the plan, else by the
    # informed detectives' own (replayed) posterior in their games
    tracker = getattr(det, "tracker", None)
    if getattr(mrx, "exact_rows", True):
        tracker = belief.Tracker(mrx_agent(mrx_level, 0, iterations, seconds, hidden))
    r = play_measured(mrx, det, dets, bobbies, x, tracker=tracker)
    r["mrx"], r["panel"] = mrx_level, panel
    return r


# Mister X's levels by the names of what they do (older command lines)
MRX_KINDS = {"heuristic": "easy", "mcts": "normal"}


def parse_matchups(text):
    """[(Mister X level, panel detective)] from 'MRX-DETECTIVES,...' (Mister X: random, easy, normal,
    hard, or heuristic for easy and mcts for normal; detectives: the panel's names)."""
    out = []
    for m in text.split(","):
        m = m.strip()
        if not m:
            continue
        mrx, _sep, det = m.partition("-")
        mrx = MRX_KINDS.get(mrx, mrx)
        if mrx not in MRX_LEVELS or det not in PANEL:
            raise UserError("bad matchup %r: MRX-DETECTIVES, Mister X one of %s, detectives one of %s"
                            % (m, ", ".join(MRX_LEVELS + tuple(MRX_KINDS)), ", ".join(PANEL)))
        out.append((mrx, det))
    return out


def _names(text, known, what):
    out = [v.strip() for v in text.split(",") if v.strip()]
    for v in out:
        if v not in known:
            raise UserError("%s: one of %s (not %r)" % (what, ", ".join(known), v))
    return out


def _rate(k, n):
    lo, hi = wilson(k, n)
    return {"rate": round(k / n, 3) if n else None, "ci95": [round(lo, 3), round(hi, 3)], "games": n}


def tournament(mrx_levels, panel, games, games_mcts, iterations=150, seconds=None, n_det=5, seed=1, workers=0,
               replay=(8, 2), hidden=None, pairs=None):
    """Every Mister X level against every panel detective, or only the (level, detective) pairs."""
    pairs = pairs or [(lv, d) for lv in mrx_levels for d in panel]
    mrx_levels = [lv for lv in MRX_LEVELS if any(p[0] == lv for p in pairs)]
    panel = [d for d in PANEL if any(p[1] == d for p in pairs)]
    tasks = []
    for lv, d in pairs:
        n = games_mcts if (lv in MCTS_MRX or d.endswith("mcts")) else games
        tasks += [(lv, d, k, seed, n_det, iterations, seconds, tuple(replay), hidden, PEEK) for k in range(n)]
    # the expensive games first, so the workers finish together
    tasks.sort(key=lambda t: -((t[0] in MCTS_MRX) * (4 if t[0] == "hard" else 1) + 2 * t[1].endswith("mcts")))
    workers = workers or os.cpu_count() or 1
    start = time.perf_counter()
    if workers > 1 and len(tasks) > 1:
        ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with ctx.Pool(workers) as pool:
            rows = pool.map(play_one, tasks, chunksize=1)
    else:
        rows = [play_one(t) for t in tasks]
    out = {"games": games, "games_mcts": games_mcts, "mcts_iterations_per_move": None if seconds else iterations,
           "mcts_seconds_per_move": seconds, "detectives": n_det, "seed": seed, "workers": workers,
           "wall_seconds": round(time.perf_counter() - start, 1), "panel": list(panel),
           "replay_stations": replay[0], "replay_samples": replay[1], "hidden": hidden or "level",
           "peek": PEEK,
           "mrx_levels": {},
           "detective_levels": {}}
    for lv in mrx_levels:
        mine = [r for r in rows if r["mrx"] == lv]
        if not mine:
            continue
        wr = {}
        for d in panel:
            g = [r for r in mine if r["panel"] == d]
            if g:
                wr[d] = _rate(sum(r["result"] == "mrx" for r in g), len(g))
                rounds = [r["round"] for r in g]
                mean = sum(rounds) / len(rounds)
                wr[d]["rounds_mean"] = round(mean, 1)
                wr[d]["rounds_sd"] = round(math.sqrt(sum((x - mean) ** 2 for x in rounds) / len(rounds)), 1)
        moves = sum(r["moves"] for r in mine)
        leak = [b for r in mine for b in r["leak"]]
        lost_early = sum(r["result"] != "mrx" and r["round"] <= EARLY_ROUND for r in mine)
        out["mrx_levels"][lv] = {
            "win_rate": wr,
            "win_rate_panel_min": min(v["rate"] for v in wr.values()) if wr else None,
            "blunder_rate": round(sum(r["blunders"] for r in mine) / moves, 4) if moves else None,
            "blunders": sum(r["blunders"] for r in mine), "moves": moves,
            "early_loss_rate": round(lost_early / len(mine), 3), "early_losses": lost_early, "games": len(mine),
            "early_loss_rate_by_panel": {d: round(sum(r["result"] != "mrx" and r["round"] <= EARLY_ROUND for r in mine
                                                     if r["panel"] == d) / v["games"], 3) for d, v in wr.items()},
            "leak_bits_per_move": round(sum(leak) / len(leak), 3) if leak else None,
            "seconds_per_move": round(sum(r["seconds"] for r in mine) / moves, 6) if moves else None,
        }
    levels = out["mrx_levels"]
    strongest = max(levels, key=lambda lv: (levels[lv]["win_rate_panel_min"], MRX_LEVELS.index(lv))) if levels else None
    out["strongest_mrx"] = strongest
    for d in panel:
        g = [r for r in rows if r["mrx"] == strongest and r["panel"] == d]
        if g:
            out["detective_levels"][d] = dict(_rate(sum(r["result"] != "mrx" for r in g), len(g)),
                                              level=PANEL[d], against=strongest)
    out["targets"] = targets(out)
    return out


def targets(out):
    """Which of the levels' targets the figures meet (point estimates), None where not measured."""
    v = {}
    for lv, (blunder, early, heuristic, panel_min) in TARGETS.items():
        m = out["mrx_levels"].get(lv)
        if not m:
            continue
        vs_h = m["win_rate"].get("heuristic", {}).get("rate")
        full = set(m["win_rate"]) >= set(DEFAULT_PANEL.split(","))
        v[lv] = {"blunder_rate": m["blunder_rate"] <= blunder, "early_loss_rate": m["early_loss_rate"] <= early,
                 "vs_heuristic": None if vs_h is None else vs_h >= heuristic,
                 "panel_min": m["win_rate_panel_min"] >= panel_min if full else None}
    normal = out["mrx_levels"].get("normal", {}).get("win_rate", {})
    if "heuristic" in normal and len(normal) > 1:
        top = min(normal, key=lambda d: normal[d]["rate"])
        margin = normal["heuristic"]["rate"] - normal[top]["rate"]
        v["top_detectives"] = {"name": top, "catch_margin_vs_normal": round(margin, 3),
                               "met": margin >= TOP_DETECTIVES_MARGIN}
    return v


# --- how long a demo game lasts (`yard sim --demo`: its players, in the rules core) ----------------
DEMO_LEVEL = "easy"  # yard sim's default level, both sides


def demo_game(seed, k, level=DEMO_LEVEL):
    """One game as `yard sim --demo` plays it: 1-5 detective players drawn at random (one: the
    two-player game), start cards drawn, the computer Mister X and detectives at `level`; played in
    the rules core without the board and without the answer deadline. Returns
    {"players", "result", "round", "mrx_moves", "detective_moves"}."""
    from host.misterx.secretgame import draw_setup
    from host.ai.agents import play_game
    rng = random.Random("demo/%d/%d" % (seed, k))
    players = 1 + rng.randrange(5)
    line = draw_setup(players, rng)
    mrx = make_mrx_agent(level, seed * 7907 + k, deadline=0)
    det = make_detective_agent(level, seed * 7907 + k + 1)
    r = play_game(mrx, det, line["detectives"], line["bobbies"], line["mrx"],
                  two_player=line.get("two_player", False))
    return {"players": players, "result": r["result"], "round": r["round"], "mrx_moves": len(r["mrx_times"]),
            "detective_moves": len(r["detective_times"])}


def demo_length(games, seed=1, level=DEMO_LEVEL):
    """How long a demo game lasts: rounds (mean, standard deviation, quartiles, range), moves, and
    how often Mister X wins, over `games` demo-like games (demo_game)."""
    rows = [demo_game(seed, k, level) for k in range(games)]
    rounds = sorted(r["round"] for r in rows)
    n = len(rounds)
    mean = sum(rounds) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in rounds) / (n - 1)) if n > 1 else 0.0
    wins = sum(r["result"] == "mrx" for r in rows)
    return {"games": n, "level": level, "seed": seed,
            "rounds_mean": round(mean, 1), "rounds_sd": round(sd, 1),
            "rounds_quartiles": [rounds[n // 4], rounds[n // 2], rounds[(3 * n) // 4]],
            "rounds_min": rounds[0], "rounds_max": rounds[-1],
            "moves_mean": round(sum(r["mrx_moves"] + r["detective_moves"] for r in rows) / n, 1),
            "mrx_win_rate": _rate(wins, n)}


# --- the policy-aware attacker (host/ai/leak.py): the leak by replaying his code station by station --
LEAK_TARGET_BITS = 0.5


def _leak_agent_maker(level, iterations):
    from host.ai.agents import make_mrx_agent as make
    its = {"normal": iterations, "hard": 4 * iterations}.get(level)  # hard: 4 s against normal's 1 s
    return lambda seed: make(level, seed, iterations=its, deadline=0) if its else make(level, seed, deadline=0)


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


# the plans' knobs (docs/ai.md): option -> (module, its constant, the values it takes)
KNOBS = {
    "tiers": (agents, "TIERS", lambda v: v in ("on", "off")),
    "trap_tier": (safety, "TRAP_TIER", lambda v: v in ("on", "off")),
    "double_escape": (safety, "DOUBLE_ESCAPE", lambda v: 0 <= v <= 1),
    "room": (policy, "ROOM", lambda v: v >= 0),
    "mix": (agents, "MIX", lambda v: v >= 0),
    "sample": (mcts, "SAMPLE", lambda v: v >= 0),
    "two_moves": (mcts, "TWO_MOVES", lambda v: v in ("on", "off")),
}


def run(args):
    global PEEK, MRX_ITERATIONS
    if args.games < 0 or args.games_mcts < 0 or args.demo_games < 0:
        raise UserError("--games, --games-mcts and --demo-games must be 0 or more")
    if args.peek is not None and not 0 <= args.peek <= 1:
        raise UserError("--peek: a share from 0 to 1")
    if args.mrx_iterations is not None and args.mrx_iterations < 1:
        raise UserError("--mrx-iterations: 1 or more")
    mrx = _names(args.mrx, MRX_LEVELS, "--mrx")
    panel = _names(args.panel, PANEL, "--panel")
    pairs = parse_matchups(args.matchups) if args.matchups else None
    levels = _names(args.leak_levels, MRX_LEVELS, "--leak-levels")
    knobs = {}
    for name, (module, attr, ok) in KNOBS.items():
        value = getattr(args, name)
        if value is None:
            continue
        if not ok(value):
            raise UserError("--%s: not a value it takes (%r)" % (name.replace("_", "-"), value))
        knobs[name] = value
    PEEK = args.peek
    MRX_ITERATIONS = args.mrx_iterations
    # before the workers fork: the detectives' model of him (they know his code) plays the same
    for name, value in knobs.items():
        module, attr, _ok = KNOBS[name]
        setattr(module, attr, value == "on" if value in ("on", "off") else value)
    out = {}
    if (args.games or args.games_mcts) and ((mrx and panel) or pairs):
        out = tournament(mrx, panel, args.games, args.games_mcts, args.iterations, args.seconds, args.detectives,
                         args.seed, args.workers, (args.replay_stations, args.replay_samples),
                         None if args.hidden == "level" else args.hidden, pairs)
    if out and knobs:
        out["knobs"] = knobs
    if args.demo_games:
        out["demo"] = demo_length(args.demo_games, args.seed)
    if levels:
        out["leak"] = leak_levels(levels, args.leak_games, args.leak_games_mcts, args.seed, args.detectives,
                                  args.iterations, args.leak_stations, args.leak_stations_mcts, args.leak_samples,
                                  args.leak_search_samples, args.workers)
    return out
