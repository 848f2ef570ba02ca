"""The Europe rules core's scenarios, run again under the MicroPython unix port (compiled to .mpy
as for the board), with the heap a Pico has free for a game."""
import os

from europe_games import public, random_record
from mpy import ROOT, run_plain_tests, run_script


def test_europe_core_under_micropython():
    run_plain_tests(os.path.join(ROOT, "tests", "core", "test_europe_core.py"), "64k")


def test_random_europe_records_replay_the_same_under_micropython(tmp_path):
    """Random games (tests/europe_games.py), full and public, replayed by the board's own
    modules under the MicroPython unix port: every verdict equals CPython's, messages included."""
    import json
    from sy.europe.record import replay
    paths, expected = [], []
    for seed in range(6):
        lines, _ = random_record(seed, max_lines=250)
        for kind, record in (("full", lines), ("public", public(lines)[0])):
            path = tmp_path / ("%d-%s.jsonl" % (seed, kind))
            path.write_text("\n".join(record) + "\n")
            paths.append(str(path))
            expected.append(list(replay(record)))
    script = """
import json
from sy.europe.record import replay
for path in %r:
    with open(path) as f:
        lines = f.read().split("\\n")[:-1]
    print(json.dumps(list(replay(lines))))
""" % paths
    out = run_script(script, heapsize="256k").strip().splitlines()
    assert len(out) == len(expected)
    for got, want, path in zip(out, expected, paths):
        assert json.loads(got) == want, path
