"""Take-back probing, played in the rules core (docs/fairplay.md): does a take-back buy the
detectives information?

The cheat, as the players could do it with the board's own buttons: a detective moves onto a
station where Mister X may be; a capture is declared the moment a piece lands on him, so
"nothing happened" means he is not there; the confirm button held takes the move back; the next
station is tried; the detective then makes his real move knowing where Mister X is not.

The same games (setups, the agents' seeds) are played three ways by heuristic detectives against
the computer Mister X:
  honest    no take-backs;
  probing   the cheat, against the board's rule (Game.check_take_back without Mister X's consent,
            which the computer never gives): a refused take-back leaves the move standing, as
            on the board, and the cheater goes on with his next piece;
  unguarded the cheat, every take-back accepted (the board before the rule): shows that the
            measure sees the cheat where it works.
Each probe tries the station the honest detectives would pick first (when he may be there), then
the other possible stations the piece reaches; after each accepted take-back the cheater knows
one station more where Mister X is not, and his honest choice uses it.
"""
import random
import time

from sy.rules import game as rules
from sy.rules.base import RuleError
from host.ai.agents import make_detective_agent, make_mrx_agent, public_view
from host.ai.twin import play_detective_move, play_mrx_action
from host.ai.bench import game_setup, wilson

MODES = ("honest", "probing", "unguarded")


def _clear(view, stations):
    for s in stations:
        view.cand[s >> 3] &= ~(1 << (s & 7)) & 0xFF


def _take_back(ref, board, guarded, counts):
    """The cheater holds confirm: the board (its secret-mode Game) decides. True if taken back."""
    if guarded:
        try:
            board.check_take_back(consent=False)  # the computer Mister X never consents
        except RuleError:
            counts["probes_refused"] += 1
            return False
    board.take_back()
    ref.take_back()
    counts["probes_accepted"] += 1
    return True


def _detective_move(agent, ref, board, mode, ruled_out, counts):
    """One piece's move: honest, or the cheat first."""
    view = board if mode == "honest" else public_view(board)
    _clear(view, ruled_out)
    p, t, to = agent.choose(view)
    if mode == "honest":
        play_detective_move(ref, board, p, t, to)
        return
    first = [(to, t)] if board.is_candidate(to) and to not in ruled_out else []
    others = [(s, k) for s, k in board.legal(p) if board.is_candidate(s) and s not in ruled_out and s != to]
    seen = set()
    for s, k in first + others:
        if s in seen:
            continue
        seen.add(s)
        counts["probes_tried"] += 1
        play_detective_move(ref, board, p, k, s)
        if ref.result is not None:
            return  # a probe landed on him, or ended the game
        if not _take_back(ref, board, mode == "probing", counts):
            return  # final: the probe is the piece's move
        ruled_out.add(s)
    view = public_view(board)
    _clear(view, ruled_out)
    p2, t2, to2 = agent.choose(view)
    play_detective_move(ref, board, p2, t2, to2)


def play(k, seed, mode, n_det=5, mrx_level="easy", det_level="easy"):
    """One game k of the series `seed` in one mode. Returns (result, counts)."""
    dets, bobbies, x = game_setup(seed, k, n_det)
    aseed = seed * 100003 + k
    # no answer time: the table's deadline (host/ai/agents.py DEADLINE) only waits, and the choice does
    # not depend on it; hundreds of games would wait minutes for nothing
    mrx = make_mrx_agent(mrx_level, aseed, deadline=0)
    det = make_detective_agent(det_level, aseed + 1)
    ref = rules.Game(list(dets), list(bobbies), x)
    board = rules.Game(list(dets), list(bobbies), 0)  # the board's Game: never knows him
    counts = {"probes_tried": 0, "probes_accepted": 0, "probes_refused": 0}
    ruled_out = set()
    while ref.result is None:
        if ref.phase == rules.PHASE_MRX:
            play_mrx_action(ref, board, mrx.choose(ref))
            ruled_out = set()  # he moved: what the probes told is old news
        else:
            _detective_move(det, ref, board, mode, ruled_out, counts)
    return ref.result, counts


def run(games=200, seed=1, n_det=5, mrx_level="easy", det_level="easy", modes=MODES, log=None):
    """Win rates of the detectives in each mode over the same `games` games, with 95 % Wilson
    intervals, and the probes tried, accepted and refused."""
    t0 = time.monotonic()
    out = {"probing_games": games, "probing_seed": seed, "probing_levels": "%s Mister X, %s detectives" % (
        mrx_level, det_level)}
    for mode in modes:
        wins = 0
        totals = {"probes_tried": 0, "probes_accepted": 0, "probes_refused": 0}
        for k in range(games):
            result, counts = play(k, seed, mode, n_det, mrx_level, det_level)
            wins += result == "detectives"
            for key in totals:
                totals[key] += counts[key]
        lo, hi = wilson(wins, games)
        out["%s_win_rate" % mode] = round(wins / games, 3) if games else 0.0
        out["%s_win_interval" % mode] = [round(lo, 3), round(hi, 3)]
        if mode != "honest":
            for key, v in totals.items():
                out["%s_%s" % (mode, key)] = v
        if log:
            log("probing %s: %d/%d detective wins (%.1f s)" % (mode, wins, games, time.monotonic() - t0))
    if "honest" in modes and "probing" in modes:
        lo, hi = out["honest_win_interval"]
        out["probing_within_honest_interval"] = lo <= out["probing_win_rate"] <= hi
        # what a cheat wants is more wins: probing that wins less than honest play bought nothing
        # (its refused probes stand as poor moves), so the check is one-sided
        out["probing_gains_nothing"] = out["probing_win_rate"] <= hi
    out["probing_seconds"] = round(time.monotonic() - t0, 1)
    return out


if __name__ == "__main__":
    import json
    import sys
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(json.dumps(run(n, seed=random.SystemRandom().randrange(1 << 30) if "--fresh" in sys.argv else 1,
                         log=lambda s: print(s, file=sys.stderr)), indent=1))
