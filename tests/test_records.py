"""Game records: the verdict stream, the shipped examples, `yard replay`."""
import json
import os
import subprocess
import sys

import pytest

from host.misterx.record import Replayer, replay

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")

EXPECTED = {
    "capture.jsonl": ("detectives", "capture"),
    "capture.board.jsonl": ("detectives", "capture"),
    "capture.secret.jsonl": ("detectives", "capture"),
    "escape.jsonl": ("mrx", "rounds_done"),
    "two-player.jsonl": ("detectives", "capture"),
    "double-black-ferry.jsonl": ("mrx", "detectives_stuck"),
}


def lines_of(name):
    with open(os.path.join(EXAMPLES, name)) as f:
        return f.read().splitlines()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_examples_replay(name):
    verdicts = list(replay(lines_of(name)))
    result = verdicts[-1]
    assert (result["result"], result["reason"]) == EXPECTED[name]
    assert result["line"] == len(verdicts) - 1
    refused = [v for v in verdicts[:-1] if not v["ok"]]
    if name == "capture.board.jsonl":  # asks for Mister X's legal moves, which the board cannot know
        assert [v["error"] for v in refused] == ["bad_input"]
    else:
        assert refused == []


def test_examples_show_what_they_promise():
    two = [json.loads(line) for line in lines_of("two-player.jsonl")]
    assert two[0]["two_player"] is True and len(two[0]["detectives"]) == 2 and len(two[0]["bobbies"]) == 2
    ferry = [json.loads(line) for line in lines_of("double-black-ferry.jsonl")]
    assert any("double" in line for line in ferry)
    assert any(line.get("ticket") == "black" for line in ferry if line["type"] == "mrx")
    verdicts = list(replay(lines_of("escape.jsonl")))
    assert verdicts[-1]["round"] == 22
    reveals = [v["reveal"] for v in verdicts if "reveal" in v]
    assert len(reveals) == 5


def test_the_capture_game_three_ways():
    """capture.secret.jsonl is Mister X's secret log of the game in capture.jsonl, capture.board.jsonl
    the board's record of it: the same moves, the board's without his hidden stations."""
    full, secret, board = ([json.loads(line) for line in lines_of(name)]
                           for name in ("capture.jsonl", "capture.secret.jsonl", "capture.board.jsonl"))
    def plain(lines):  # the moves, without the commitments, salts and surfacing marks
        def strip(d):
            return {k: v for k, v in d.items() if k not in ("commit", "salt", "shown")}
        return [dict(strip(line), double=[strip(s) for s in line["double"]]) if "double" in line else strip(line)
                for line in lines if line["type"] in ("mrx", "move")]
    assert plain(secret) == plain(full)
    assert secret[0]["mrx"] == full[0]["mrx"] and board[0]["mrx"] is None and "salt" not in board[0]
    assert board[0]["commit"] == secret[0]["commit"]
    assert len(lines_of("capture.secret.jsonl")) == len(plain(full)) + 1  # the setup, no queries


def test_yard_verify_the_example_secret_log():
    secret, board = os.path.join(EXAMPLES, "capture.secret.jsonl"), os.path.join(EXAMPLES, "capture.board.jsonl")
    for args in ((secret,), (secret, "--board", board)):
        p = run_yard("verify", *args)
        assert p.returncode == 0, p.stdout + p.stderr
        assert p.stdout.startswith("verified: Mister X played fair: the start and all 10 moves")
        assert "result: the detectives win (Mister X was caught) in round 9" in p.stdout
    p = run_yard("verify", secret, "--json")
    assert json.loads(p.stdout)["ok"] is True


def test_yard_verify_refuses_the_boards_public_record():
    secret, board = os.path.join(EXAMPLES, "capture.secret.jsonl"), os.path.join(EXAMPLES, "capture.board.jsonl")
    for args in ((board,), (board, "--json"), (board, "--board", secret)):
        p = run_yard("verify", *args)
        assert p.returncode == 2, (args, p.stdout)
        assert "this is the board's public record" in p.stderr and "Mister X's secret log" in p.stderr
        assert p.stdout == "" and "Traceback" not in p.stderr  # not a line per move "carries no commitment"
    p = run_yard("verify", secret, "--board", secret)  # the two files the wrong way round
    assert p.returncode == 2 and "it is a secret log, not the board's record" in p.stderr


def test_yard_verify_of_a_record_without_commitments_says_so_once(tmp_path):
    p = run_yard("verify", os.path.join(EXAMPLES, "capture.jsonl"))
    assert p.returncode == 1
    assert p.stdout.splitlines() == ["NOT VERIFIED:", "  the record carries no commitment at all: it is a plain game "
                                     "record (yard replay checks its rules), not Mister X's secret log (written by "
                                     "yard play or yard sim)"]
    lines = [json.loads(line) for line in lines_of("capture.secret.jsonl")]
    second = [i for i, line in enumerate(lines) if line["type"] == "mrx"][1]
    assert "double" not in lines[second]
    del lines[second]["commit"]  # one commitment missing: named by its move
    one = tmp_path / "one.jsonl"
    one.write_text("".join(json.dumps(line) + "\n" for line in lines))
    p = run_yard("verify", str(one))
    assert p.returncode == 1 and p.stdout.splitlines()[1:] == ["  move 2 carries no commitment"]


def test_examples_are_what_the_tool_writes(tmp_path):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_example_records.py"), "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path)) == sorted(os.listdir(EXAMPLES)) == sorted(EXPECTED)
    for name in EXPECTED:
        assert (tmp_path / name).read_text() == "\n".join(lines_of(name)) + "\n", name


def test_verdict_shapes():
    r = Replayer()
    assert r.feed('{"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45}') == {"line": 1, "ok": True}
    assert r.feed('{"type": "query", "what": "legal", "piece": "D1"}') == {
        "line": 2, "ok": True, "legal": [[4, "taxi"], [14, "bus"], [23, "taxi"], [23, "bus"], [24, "taxi"],
                                         [46, "underground"], [52, "bus"], [67, "underground"], [89, "underground"]]}
    v = r.feed('{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}')
    assert v == {"line": 3, "ok": False, "error": "wrong_turn", "why": "mrx_turn", "message": "it is Mister X's turn"}
    assert r.feed('{"type": "mrx", "ticket": "taxi", "to": 46}') == {"line": 4, "ok": True}
    v = r.feed('{"type": "move", "piece": "B2", "to": 46}')  # bobby on 34 by bus: capture
    assert v == {"line": 5, "ok": True}
    assert r.result() == {"result": "detectives", "reason": "capture", "round": 1, "line": 5}
    v = r.feed('{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}')
    assert v["error"] == "game_over"


@pytest.mark.parametrize("line, why, words", [
    ("not json", "not_json", "JSON"),
    ("[1, 2]", "not_object", "object"),
    ('{"type": "dance"}', "field", "type"),
    ('{"type": "move", "piece": "D9", "ticket": "taxi", "to": 4}', "no_piece", "no piece D9"),
    ('{"type": "move", "piece": "D1", "ticket": "taxi", "to": 400}', "not_station", "400 is not a station"),
    ('{"type": "move", "piece": "D1", "ticket": "rocket", "to": 4}', "field", "ticket"),
    ('{"type": "move", "piece": "D1", "ticket": "taxi", "to": true}', "field", "to"),
    ('{"type": "mrx", "double": [{"ticket": "taxi", "to": 46}]}', "field", "double"),
    ('{"type": "setup", "detectives": [1, 2], "bobbies": [3, 4]}', "set_up_already", "set up already"),
    ('{"type": "query", "what": "future"}', "field", "what"),
    ("x" * 5000, "line_long", "longer"),
])
def test_bad_input_is_refused_with_a_code_the_host_words(line, why, words):
    r = Replayer()
    r.feed('{"type": "setup", "detectives": [13, 26, 29, 34], "mrx": 45}')
    if "D1" in line:
        r.feed('{"type": "mrx", "ticket": "taxi", "to": 46}')
    before = r.game.save()
    v = r.feed(line)
    assert v["ok"] is False and v["error"] == "bad_input", v
    assert v["why"] == why and words in v["message"], v
    assert r.game.save() == before


def test_setup_must_come_first():
    r = Replayer()
    assert r.feed('{"type": "mrx", "ticket": "taxi", "to": 46}')["error"] == "bad_input"
    assert r.feed('{"type": "setup", "detectives": [13, 26, 29, 34, 50], "mrx": 45, "map": "mars"}')["error"] == "bad_input"
    assert r.feed('{"type": "setup", "detectives": [13, 26, 29, 34, 50], "mrx": 45, "map": "london1983"}')["ok"]
    assert r.feed('{"type": "mrx", "ticket": "taxi", "to": 46}')["ok"]
    assert r.feed('{"type": "move", "piece": "D1", "ticket": "taxi", "to": 14}')["ok"]  # the 1983 taxi line


def run_yard(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "host", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_yard_replay_file_and_stdin():
    p = run_yard("replay", os.path.join(EXAMPLES, "capture.jsonl"))
    assert p.returncode == 0, p.stderr
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert out[-1]["result"] == "detectives" and len(out) == len(lines_of("capture.jsonl")) + 1
    p = run_yard("replay", "-", stdin='{"type": "setup", "detectives": [13, 26, 29, 34], "mrx": 45}\nnonsense\n')
    assert p.returncode == 1
    assert json.loads(p.stdout.splitlines()[1])["error"] == "bad_input"
    assert "Traceback" not in p.stderr


def test_yard_replay_missing_file_is_a_clear_error():
    p = run_yard("replay", "/no/such/record.jsonl")
    assert p.returncode == 2 and "cannot read" in p.stderr and "Traceback" not in p.stderr


def test_yard_replay_refuses_an_empty_record(tmp_path):
    empty = tmp_path / "empty.jsonl"
    for text in ("", "\n  \n"):
        empty.write_text(text)
        for args in (("replay", str(empty)), ("replay", "--map", os.path.join(ROOT, "tests", "data", "europe_testmap"),
                                              str(empty))):
            p = run_yard(*args)
            assert p.returncode == 2, (args, p.stdout)
            assert "is empty" in p.stderr and "Traceback" not in p.stderr
            assert p.stdout == ""  # no verdict, no result line
    p = run_yard("replay", "-", stdin="")
    assert p.returncode == 2 and "standard input is empty" in p.stderr
