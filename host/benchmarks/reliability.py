"""`yard bench reliability`: the board on a family table. The real firmware on the
MicroPython unix port (SimBoard) and the real host protocol client (BoardLink), under:

  protocol fuzzing   random and malformed lines; every line answered, no crash, no state change
  power cuts         kill -9 at random moments of whole games (half timed by strace to land inside
                     a flash write), restart, resume, finish
  sensor faults      scripted scenarios: chatter, two pieces lifted, wrong station, knocked off,
                     stuck reeds, a piece moved in Mister X's turn, pieces off at power-on/setup
  link loss          the serial link cut and restored at random moments of whole games
  secrecy            host bytes, flash files and everything the REPL can read, over whole games;
                     and a cheat's attacks (host/reliability/attacks.py): forged captures,
                     the host's files from the board's REPL, the browser view from another site,
                     guessable randomness, the computer Mister X's leak, his thinking time;
                     take-back probing against the computer Mister X (host/reliability/probing.py)
                     and lines that speak for him without his host's key (docs/fairplay.md)
  LED power          every frame a whole game publishes, against the config's current limit

Every failure count should be 0. tests/test_reliability.py runs the same code at the
minimum counts; this command takes any counts (host/reliability/ has the details).
"""
import random
import time

from host.reliability import chaos, faults, fuzz
from host.reliability.common import check_frames
from host.simulator.board import SIM_HEAP
from host.i18n import _

FIGURES = ("fuzz_lines", "fuzz_crashes", "fuzz_unanswered", "fuzz_state_changes",
           "power_cuts", "cuts_during_save", "lost_moves", "corrupt_saves", "resumed_games",
           "fault_scenarios", "wrong_commits", "fault_led_failures",
           "link_cuts", "lost_events", "duplicate_events",
           "secret_leaks", "frames_checked", "frames_over_budget",
           "forged_claims_accepted", "host_files_read", "web_attacks_accepted", "secret_generators_guessable",
           "policy_leak_bits_per_move", "thinking_time_gap_ms",
           "probing_probes_tried", "probing_probes_accepted", "probing_win_rate", "honest_win_rate",
           "forged_lines_sent", "forged_lines_accepted", "second_opens_refused", "board_probes_accepted",
           "host_loops", "lan_bytes_readable")
# the attacks' success counts: each must be 0 (the policy leak is a diagnostic: the computer players
# are judged by winning against detectives who know their code, yard bench ai)
ATTACK_FAILURES = ("forged_claims_accepted", "host_files_read", "web_attacks_accepted", "secret_generators_guessable",
                   "thinking_time_telling", "probing_probes_accepted", "forged_lines_accepted", "board_probes_accepted",
                   "shared_ports_missed", "host_loops", "lan_bytes_readable")
PARTS = ("fuzz", "power", "faults", "link", "secrecy", "leds")


def add_arguments(parser):
    parser.add_argument("--fuzz-lines", type=int, default=10000, help=_("fuzz lines (default 10000)"))
    parser.add_argument("--power-cuts", type=int, default=200, help=_("power cuts, at least (default 200)"))
    parser.add_argument("--power-games", type=int, default=5, help=_("games the power cuts spread over (default 5; "
                        "more are played until the cuts are reached)"))
    parser.add_argument("--link-cuts", type=int, default=40, help=_("link cuts, at least (default 40)"))
    parser.add_argument("--link-games", type=int, default=2, help=_("games the link cuts spread over (default 2)"))
    parser.add_argument("--secrecy-games", type=int, default=1,
                        help=_("games with a REPL dump mid-game (default 1; the chaos games check wire and flash)"))
    parser.add_argument("--probing-games", type=int, default=200,
                        help=_("games per mode of the take-back probing measure (default 200)"))
    parser.add_argument("--seed", type=int, default=None, help=_("random seed (default: a fresh one, printed)"))
    parser.add_argument("--heap", default=SIM_HEAP, help=_("the firmware's heap (default %(default)s)"))
    parser.add_argument("--only", default=",".join(PARTS), help=_("parts to run, comma-separated: %(parts)s") % {"parts": ",".join(PARTS)})
    parser.add_argument("--skip-trim-window", action="store_true",
                        help=_("time no power cut onto the boot's journal trim (where sy/storage/store.py loses the "
                             "journal; the pytest suite skips it and shows the bug in a test of its own)"))
    parser.add_argument("--verbose", "-v", action="store_true", help=_("progress on stderr"))
    parser.add_argument("--details", action="store_true", help=_("add per-part details and failure examples"))


def run(args):
    import sys
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    log = (lambda text: print(text, file=sys.stderr, flush=True)) if args.verbose else None
    return run_all(fuzz_lines=args.fuzz_lines, power_cuts=args.power_cuts, power_games=args.power_games,
                   link_cuts=args.link_cuts, link_games=args.link_games, secrecy_games=args.secrecy_games,
                   probing_games=args.probing_games, seed=seed, heap=args.heap, only=[p.strip() for p in args.only.split(",") if p.strip()],
                   log=log, details=args.details, skip_trim_window=args.skip_trim_window)


def run_all(fuzz_lines=10000, power_cuts=200, power_games=5, link_cuts=40, link_games=2, secrecy_games=1,
            probing_games=200, seed=1, heap=SIM_HEAP, only=PARTS, log=None, details=False, skip_trim_window=False):
    t0 = time.monotonic()
    out = {"seed": seed}
    problems = []
    extra = {}
    leaks = 0
    frames = []
    if "fuzz" in only:
        r = fuzz.run_fuzz(fuzz_lines, seed=seed, heap=heap, log=log)
        for k in ("fuzz_lines", "fuzz_crashes", "fuzz_unanswered", "fuzz_state_changes", "fuzz_seconds",
                  "fuzz_accepted_changes"):
            out[k] = r[k]
        problems += r["fuzz_examples"]
        extra["fuzz_kinds"] = r["fuzz_kinds"]
    if "power" in only:
        r = chaos.run_games(power_games, "power", cuts_target=power_cuts, seed=seed + 1, heap=heap, log=log,
                            avoid_trim_cut=skip_trim_window)
        for k in ("power_cuts", "cuts_during_save", "lost_moves", "corrupt_saves", "resumed_games"):
            out[k] = r[k]
        out["power_games"] = r["games"]
        out["power_games_unfinished"] = r["games"] - r["finished_games"]
        out["power_seconds"] = r["seconds"]
        leaks += r["secret_leaks"]
        problems += r["problems"]
        out["disagreements"] = out.get("disagreements", 0) + r["disagreements"] + r["lost_events"] + \
            r["duplicate_events"]
    if "faults" in only:
        r = faults.run_faults(heap=heap, log=log)
        for k in ("fault_scenarios", "wrong_commits", "fault_led_failures", "fault_seconds"):
            out[k] = r[k]
        for sc in r["faults"]:
            problems += ["fault %s: %s" % (sc["name"], x) for x in sc["wrong_commits"] + sc["led_failures"]]
    if "link" in only:
        r = chaos.run_games(link_games, "link", cuts_target=link_cuts, seed=seed + 2, heap=heap, log=log)
        for k in ("link_cuts", "lost_events", "duplicate_events"):
            out[k] = r[k]
        out["link_games"] = r["games"]
        out["link_games_unfinished"] = r["games"] - r["finished_games"]
        out["link_seconds"] = r["seconds"]
        out["disagreements"] = out.get("disagreements", 0) + r["disagreements"]
        leaks += r["secret_leaks"]
        problems += r["problems"]
    if "secrecy" in only or "leds" in only:
        rng = random.Random(seed + 3)
        r = chaos.run_games(max(1, secrecy_games), None, seed=seed + 3, heap=heap, log=log, record_frames=True,
                            repl_round=rng.randrange(4, 9) if "secrecy" in only else 0)
        leaks += r["secret_leaks"]
        problems += r["problems"]
        frames += r["_frames"]
        if r.get("repl"):
            out["repl_values_read"] = sum(x["values"] for x in r["repl"])
            out["repl_file_bytes_read"] = sum(x["bytes"] for x in r["repl"])
        out["secrecy_games_unfinished"] = r["games"] - r["finished_games"]
    if "secrecy" in only:
        from host.reliability import attacks
        a = attacks.run_attacks(heap=heap, log=log)
        out.update(a)
        problems += ["attack: %s = %s" % (k, a[k]) for k in ATTACK_FAILURES if a.get(k)]
        if not a.get("forged_claims_game_verified"):
            problems.append("attack: the game with forged claims did not end verified")
        from host.reliability import fairplay
        f = fairplay.run(probing_games=probing_games, seed=seed, heap=heap, log=log)
        out.update(f)
        problems += ["fair play: %s = %s" % (k, f[k]) for k in ATTACK_FAILURES if f.get(k)]
        if f.get("probing_gains_nothing") is False:
            problems.append("fair play: probing won %.3f, above the honest interval %s" % (
                f["probing_win_rate"], f["honest_win_interval"]))
    if "leds" in only:
        # the same game model at full brightness on a 1 A supply: the limiter has work to do
        r = chaos.run_games(1, None, seed=seed + 4, heap=heap, record_frames=True,
                            config={"leds": {"brightness": 1.0, "current_limit_ma": 1000}})
        frames += r["_frames"]
        problems += r["problems"]
        f = check_frames(frames)
        out["frames_checked"] = f["frames_checked"]
        out["frames_over_budget"] = f["frames_over_budget"]
        out["frames_missing"] = f["frames_missing"]
        out["max_frame_ma"] = f["max_frame_ma"]
    if "secrecy" in only or "power" in only or "link" in only:
        out["secret_leaks"] = leaks
    out["seconds"] = round(time.monotonic() - t0, 1)
    out["problems"] = len(problems)
    if details:
        out["problem_list"] = problems[:50]
        out.update(extra)
    return out
