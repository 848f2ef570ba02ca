"""Write the example game records in examples/ by playing seeded games with simple heuristics.

    python tools/make_example_records.py [--out FOLDER]

Each record is searched for among seeded games until one shows what it is meant to show (a
capture, an escape after round 22, ...). The capture game also comes as Mister X's secret log
(capture.secret.jsonl, written by host/misterx/secretgame.py's SecretGame as `yard play` writes it, with
commitments and salts) and as the board's public record of it (capture.board.jsonl).
tests/test_records.py replays them, verifies the secret log and checks that this tool writes
exactly the files in examples/.
"""
import argparse
import base64
import json
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "firmware")]

from host.misterx import secretgame  # noqa: E402
from sy.maps import london  # noqa: E402
from sy.rules import game as rules  # noqa: E402
from sy.rules.commit import MIN_SALT_BYTES  # noqa: E402
from host.misterx.record import mrx_line, move_line, public_lines, record_setup  # noqa: E402

# The secret log's game id and start time: fixed, so that every run writes the same file.
EXAMPLE_GAME = "example-capture"
EXAMPLE_STARTED = 1795910400  # 2026-11-29 00:00 UTC


def play(seed, n_det, two_player=False, ferry=False, chase=0.8):
    rnd = random.Random(seed)
    cards = rnd.sample(list(london.D_CARDS), 5)
    bob = (2, 1, 0, 0)[n_det - 2]
    start_x = rnd.choice([115, 108, 157, 194]) if ferry else rnd.choice(list(london.X_CARDS))
    if start_x in cards:
        return None
    g = rules.Game(cards[:n_det], cards[n_det:n_det + bob], start_x, two_player=two_player)
    setup = record_setup(g, start_x)
    lines = [setup]
    while g.result is None:
        if g.phase == rules.PHASE_MRX:
            opts = g.legal_mrx()
            far = max(opts, key=lambda o: min(abs(o[0] - p) for p in g.pos) + rnd.random() * 40)
            if ferry and g.black and any(t == rules.BLACK and g.graph.connected(g.mrx, s, 3) for s, t in opts):
                far = [o for o in opts if o[1] == rules.BLACK and g.graph.connected(g.mrx, o[0], 3)][0]
            if g.double and rnd.random() < 0.15:
                s1, t1 = far
                ahead = rules.Game.load(g.save())
                ahead.mrx = s1  # look one step ahead for the second half
                second = ahead.legal_mrx()
                if second:
                    s2, t2 = rnd.choice(second)
                    try:
                        g.mrx_double(t1, s1, t2, s2)
                        lines.append({"type": "mrx", "double": [
                            {"ticket": rules.TICKET_NAMES[t1], "to": s1}, {"ticket": rules.TICKET_NAMES[t2], "to": s2}]})
                        continue
                    except rules.RuleError:
                        pass
            s, t = far
            g.mrx_move(t, s)
            lines.append(mrx_line(t, s))
        else:
            mask = g.to_move()
            p = rnd.choice([i for i in range(g.n_pieces) if mask >> i & 1])
            opts = g.legal(p)
            if rnd.random() < chase:
                s, t = min(opts, key=lambda o: abs(o[0] - g.mrx) + rnd.random() * 10)
            else:
                s, t = rnd.choice(opts)
            t = None if g.is_bobby(p) else t
            g.move(p, t, s)
            lines.append(move_line(g, p, t, s))
    return g, lines


def find(want, **kw):
    for seed in range(5000):
        got = play(seed, **kw)
        if got and want(*got):
            return got[1]
    raise SystemExit("no seed gives the wanted game for %r" % kw)


def used_black_on_ferry(lines):
    from sy.rules import mapgraph
    pos = lines[0]["mrx"]
    graph = mapgraph.load()
    for line in lines[1:]:
        if line["type"] != "mrx":
            continue
        steps = line.get("double") or [line]
        for step in steps:
            if step["ticket"] == "black" and graph.connected(pos, step["to"], mapgraph.FERRY):
                return True
            pos = step["to"]
    return False


def secret_log(lines, seed=1):
    """Mister X's secret log of the game in `lines` (dicts of a full record), as `yard play` keeps
    it: SecretGame plays every line and writes the log with a commitment and a salt for the start and
    for every move. The salts come from a seeded generator instead of the secrets module, so that the
    example is the same on every run; a real game's salts are unpredictable."""
    rnd = random.Random(seed)
    fresh, secretgame.new_salt = secretgame.new_salt, lambda: base64.urlsafe_b64encode(
        rnd.randbytes(MIN_SALT_BYTES)).rstrip(b"=").decode()
    try:
        with tempfile.TemporaryDirectory() as folder:
            setup = dict(lines[0], game=EXAMPLE_GAME)
            sg = secretgame.SecretGame.create(setup, path=os.path.join(folder, "secret.jsonl"))
            sg.setup["started"] = EXAMPLE_STARTED
            for line in lines[1:]:
                if line["type"] == "mrx" and "double" in line:
                    (a, b) = line["double"]
                    sg.mrx_double(rules.TICKET_NAMES.index(a["ticket"]), a["to"],
                                  rules.TICKET_NAMES.index(b["ticket"]), b["to"])
                elif line["type"] == "mrx":
                    sg.mrx_move(rules.TICKET_NAMES.index(line["ticket"]), line["to"])
                elif line["type"] == "move":
                    sg.detective_move(line["piece"], line.get("ticket"), line["to"])
            return sg.lines
    finally:
        secretgame.new_salt = fresh


def with_commitments(board, secret):
    """The board's record `board` with the commitments the host sent it during the game (the setup's
    and every Mister X entry's, docs/protocol.md), taken from the secret log."""
    commits = iter(step["commit"] for line in secret if line["type"] == "mrx"
                   for step in line.get("double", [line]))
    out = []
    for line in board:
        line = dict(line)
        if line["type"] == "setup":
            line["commit"] = secret[0]["commit"]
        elif line["type"] == "mrx" and "double" in line:
            line["double"] = [dict(step, commit=next(commits)) for step in line["double"]]
        elif line["type"] == "mrx":
            line["commit"] = next(commits)
        out.append(line)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "examples"), metavar="FOLDER",
                        help="where to write the records (default: examples/)")
    out = parser.parse_args().out
    records = {
        "capture.jsonl": find(lambda g, lines: g.reason == "capture" and g.round >= 5, n_det=5),
        "escape.jsonl": find(lambda g, lines: g.reason == "rounds_done", n_det=4, chase=0.3),
        "two-player.jsonl": find(lambda g, lines: g.result is not None and g.round >= 8, n_det=2, two_player=True),
        "double-black-ferry.jsonl": find(
            lambda g, lines: any("double" in line for line in lines) and used_black_on_ferry(lines) and g.round >= 6,
            n_det=3, ferry=True),
    }
    capture = records["capture.jsonl"]
    capture[2:2] = [{"type": "query", "what": "candidates"}, {"type": "query", "what": "legal", "piece": "D1"},
                    {"type": "query", "what": "legal", "piece": "X"}]
    secret = records["capture.secret.jsonl"] = secret_log(capture)  # (a secret log holds no queries)
    records["capture.board.jsonl"] = with_commitments(public_lines(capture), secret)
    for name, lines in records.items():
        with open(os.path.join(out, name), "w") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")
        print("wrote %s (%d lines)" % (os.path.join(out, name), len(lines)))


if __name__ == "__main__":
    main()
