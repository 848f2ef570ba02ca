"""Europe records: random games on the map made for the tests (not the real board), each line
judged by sy/europe/record.py and by tests/europe_reference.py (written separately from
docs/rules-europe.md); the verdicts must agree line by line. Also: the public version of a record
(what the board keeps) tracks the same possible cities and ends the same way, and `yard replay`."""
import copy
import json
import subprocess
import sys

import pytest

from europe_games import ROOT, TESTMAP, public, public_pairs, random_record
from europe_reference import Reference
from sy.europe.record import replay
from sy.europe import record as europe_record


def without_messages(verdicts):
    return [{k: v for k, v in d.items() if k not in ("message", "why", "args")} for d in verdicts]


@pytest.mark.parametrize("seed", range(40))
def test_random_games_agree_with_the_reference_line_by_line(seed):
    lines, _ = random_record(seed)
    core = without_messages(replay(lines))
    ref = Reference(TESTMAP)
    expected = [ref.feed(text) for text in lines] + [ref.final()]
    for i, (a, b) in enumerate(zip(core, expected)):
        assert a == b, "line %d: %s\ncore %s\nreference %s" % (i + 1, lines[i] if i < len(lines) else "(result)", a, b)
    assert len(core) == len(expected)


def test_random_games_reach_every_ending_and_every_operation():
    reasons, kinds, codes = set(), set(), set()
    for seed in range(40):
        lines, ref = random_record(seed)
        reasons.add(ref.reason)
        for text in lines:
            o = json.loads(text)
            kinds.add(o.get("special") or o.get("type"))
        for v in replay(lines):
            if v.get("ok") is False:
                codes.add(v["error"])
    assert {"capture", "destination"} <= reasons, reasons
    assert {"double", "covert", "investigate", "extra", "check", "discard"} <= kinds, kinds
    assert {"bad_input", "wrong_turn", "not_connected", "no_ticket", "occupied"} <= codes, codes


@pytest.mark.parametrize("seed", range(12))
def test_the_public_record_tracks_the_same_possible_cities(seed):
    lines, _ = random_record(seed)
    full_verdicts = [v for v in replay(lines) if v.get("ok") is not False]
    pub, exact = public(lines)
    pub_verdicts = list(replay(pub))
    assert all(v.get("ok") is not False for v in pub_verdicts), [v for v in pub_verdicts if v.get("ok") is False][:3]
    full_cands = [v["candidates"] for v in full_verdicts if "candidates" in v]
    pub_cands = [v["candidates"] for v in pub_verdicts if "candidates" in v]
    assert len(full_cands) == len(pub_cands) == len(exact)
    for f, p, same in zip(full_cands, pub_cands, exact):
        if same:
            assert f == p
        else:
            assert set(f) <= set(p)
    assert pub_verdicts[-1]["result"] == full_verdicts[-1]["result"]
    assert pub_verdicts[-1]["reason"] == full_verdicts[-1]["reason"]


def test_mister_x_is_always_among_the_possible_cities():
    for seed in range(15):
        lines, _ = random_record(seed)
        r = europe_record.Replayer()
        for text in lines:
            r.feed(text)
            g = r.game
            if g is not None and g.result is None and g.known:
                assert g.is_candidate(g.mrx), (seed, text)


def test_yard_replay_reads_europe_records(tmp_path):
    lines, ref = random_record(3)
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n")
    p = subprocess.run([sys.executable, "-m", "host", "replay", str(path), "--quiet"], capture_output=True, text=True, cwd=ROOT)
    final = json.loads(p.stdout.strip().splitlines()[-1])
    assert final["result"] == ref.result and final["reason"] == ref.reason
    p2 = subprocess.run([sys.executable, "-m", "host", "replay", str(path), "--map", TESTMAP], capture_output=True,
                        text=True, cwd=ROOT)
    assert json.loads(p2.stdout.strip().splitlines()[-1]) == final
    assert len(p2.stdout.strip().splitlines()) == len(lines) + 1


def test_public_position_checks_are_judged_as_the_reference_reads_them():
    """Each check line of a public record, its shown cities changed: a city twice, a city visited
    this round but not shown, a city not visited. The core accepts exactly the lists the
    reference's public judgement (Reference.showable) allows."""
    judged = 0
    for seed in range(10):
        lines, _ = random_record(seed)
        core = europe_record.Replayer()
        seen = {}

        def before(ref, line):
            if line.get("type") == "check" and ref.phase in ("det", "det_refill"):
                seen["showable"], seen["landed"] = ref.showable(), set(ref.landed)

        for _full, pub, _exact in public_pairs(lines, before):
            if pub["type"] == "check":
                shown, showable, landed = pub["shown"], seen["showable"], seen["landed"]
                assert set(shown) <= showable
                trials = [shown + [c] for c in sorted(landed - set(shown))] + [shown + shown[:1]]
                trials.append(shown + [c for c in range(1, 31) if c not in landed][:1])
                for trial in trials:
                    verdict = copy.deepcopy(core).feed(json.dumps(dict(pub, shown=trial)))
                    allowed = len(set(trial)) == len(trial) and set(trial) <= showable
                    assert verdict["ok"] == allowed, (seed, trial, showable, verdict)
                    judged += 1
            assert core.feed(json.dumps(pub))["ok"]
    assert judged > 100
