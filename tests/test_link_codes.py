"""The board is language-free (docs/protocol.md, "Error codes"): every line it sends holds codes and
values, never a sentence to show, and the host words every code it can send.

The in-process board (the real App, tests/testkit.py) checks each line it sends against the rule
(testkit.sentences: no string value with a space outside the listed data fields; `error` and
`why` are codes); the firmware's whole test corpus runs on it under CPython and the unix port.
Here a whole game, and a corpus of commands the board must refuse at every stage, are sent, and
every refusal is checked against the host's tables: a code the host words, a detail it knows
with as many values as the detail names, never the fallback for an unknown code. The Europe
rules' verdicts are checked the same way over random records."""
import json

import pytest

from host import refusals
from host.benchmarks.inprocess import play_game
from testkit import TestBoard, scratch, sentences

GOOD = {"hello": {"proto": 1}}
# (command, fields) sent at each stage: wrong types, missing fields, values out of range
BAD_COMMANDS = [
    ("hello", {"proto": 9}), ("hello", {"proto": 1, "acked": -1}), ("hello", {"proto": 1, "key": "zz"}),
    ("ack", {"seq": "x"}), ("fly", {}), ("c_ping", {}),
    ("setup", {"detectives": [13, 13]}), ("setup", {"detectives": [13, "26"]}), ("setup", {"detectives": [13]}),
    ("setup", {"detectives": [13, 26], "bobbies": [29]}), ("setup", {"detectives": [13, 26], "mrx": 45}),
    ("setup", {"detectives": [13, 26, 29, 34, 50], "rounds": 0}),
    ("setup", {"detectives": [13, 26, 29, 34, 50], "tickets": {"taxi": 99, "bus": 8, "underground": 4}}),
    ("setup", {"detectives": [13, 26, 29, 34, 50], "two_player": 1}), ("setup", {"detectives": [13, 26, 29, 34, 50], "commit": "ab"}),
    ("setup", {"detectives": [13, 26, 29, 34, 50], "key": "12"}), ("setup", {"detectives": [13, 26, 29, 34, 500]}),
    ("mrx", {"ticket": "taxi", "to": 46}), ("mrx", {"ticket": "boat"}), ("mrx", {"double": 5}),
    ("mrx", {"double": [{"ticket": "taxi"}]}), ("mrx", {"ticket": "black", "to": 46}),
    ("choose", {"ticket": "taxi"}), ("choose", {"ticket": "boat"}),
    ("undo", {}), ("undo", {"piece": "D9"}), ("undo", {"piece": "D3"}), ("undo", {"consent": 1}),
    ("capture", {"piece": "D9"}), ("capture", {"piece": "D2"}), ("capture", {"piece": "D1", "reveal": ["ab", 46]}),
    ("guide", {"piece": "D1", "to": 199, "ticket": "taxi"}), ("guide", {"piece": "D1", "to": "x", "ticket": "taxi"}),
    ("reset", {}), ("reset", {"confirm": 1}),
    ("reveal", {"moves": "x"}), ("reveal", {"offset": 3, "moves": []}),
    ("reed", {"station": 0, "out": True}), ("reed", {"station": 4, "out": 1}),
    ("place", {"piece": "D1", "station": 4}), ("place", {"piece": "D1"}), ("place", {"piece": "D1", "station": 4, "ticket": "black"}),
    ("svc_raw", {}), ("svc_led", {"index": 9999}), ("svc_nothing", {}),
]
IN_GAME = [("setup", {"detectives": [13, 26, 29, 34, 50]})]  # a game in progress: refused
SERVICE = [("svc_led", {"index": 9999}), ("svc_led", {"index": 1, "rgb": [1, 2]}), ("svc_bus", {"baudrates": [1]}),
           ("svc_nothing", {}), ("mrx", {"ticket": "taxi"}), ("setup", {"detectives": [13, 26]})]


def _words(r):
    """The host's sentence for a refusal; fails where the host would not know its codes."""
    code, why, args = r.get("error"), r.get("why"), r.get("args", [])
    assert code in refusals.REFUSALS, r
    if why is not None and code != "internal":
        assert why in refusals.DETAILS, r
        assert len(args) == len(refusals.DETAILS[why][1]), r
        said = refusals.detail(why, args)
        assert said and "%(" not in said, r
    said = refusals.of_reply(r)
    assert said and not said.startswith("the board refused ("), (r, said)
    return said


def _refusals(tb, commands):
    out = []
    for cmd, fields in commands:
        r = tb.command(cmd, **fields)
        if not r["ok"]:
            out.append(r)
    for m in tb.messages():
        if m.get("ok") is False or m.get("note") in ("illegal", "refused"):
            out.append(m)
    return out


def test_the_rule_finds_a_sentence_and_passes_codes():
    assert sentences({"id": 1, "ok": False, "error": "wrong_turn", "why": "put_back", "args": ["D1", 13]}) == []
    assert sentences({"note": "illegal", "error": "no_ticket", "message": "D1 has no taxi ticket left"}) == \
        [(".message", "D1 has no taxi ticket left")]
    assert sentences({"error": "wrong turn"}) == [(".error", "wrong turn")]
    assert sentences({"ok": True, "why": "it is over"}) == [(".why", "it is over")]
    assert sentences({"ev": {"type": "verified", "args": ["two words"]}}) == [(".ev.args[0]", "two words")]
    assert sentences({"longest_command": '{"cmd": "record"}'}) == []  # data, not words


def test_a_whole_game_and_its_reveal_send_no_sentence():
    tb = TestBoard(scratch("codes-game"))
    st = play_game(tb, seed=3)  # every line checked as it is sent (TestBoard)
    assert st["stage"] == "over", st
    r = tb.command("reveal", start=["ab" * 16, 45], moves=[])
    assert r["ok"] and r["verified"] is False and r["why"] == "count_mismatch", r
    assert refusals.detail(r["why"], r["args"]).startswith("the board logged "), r
    for line in tb.messages() + [tb.command("status"), tb.command("record", all=True), tb.command("mem")]:
        assert sentences(line) == [], line


def test_every_refusal_at_every_stage_is_codes_the_host_words():
    seen = set()
    tb = TestBoard(scratch("codes-refusals"))
    tb.command("hello", proto=1)
    stages = [_refusals(tb, BAD_COMMANDS)]  # idle
    assert tb.command("setup", detectives=[13, 26, 29, 34, 50])["ok"]
    stages.append(_refusals(tb, BAD_COMMANDS + IN_GAME))  # setting up
    for s in (13, 26, 29, 34, 50):
        tb.place(s)
    stages.append(_refusals(tb, BAD_COMMANDS + IN_GAME))  # Mister X's turn
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)
    tb.place(100)  # not connected: the `illegal` note
    tb.lift(100)
    tb.place(13)
    tb.lift(13)
    tb.place(4)
    stages.append(_refusals(tb, [("mrx", {"ticket": "taxi"})] + BAD_COMMANDS + [("undo", {"piece": "D2"})]))  # their turn
    assert tb.board.game.pos[0] == 13  # its `undo` took D1's move back: the piece must go back first
    stages.append(_refusals(tb, [("mrx", {"ticket": "taxi"}), ("cornered", {}), ("undo", {})]))
    tb.lift(4)
    tb.place(13)
    assert tb.command("svc_begin", pause=True)["ok"]
    stages.append(_refusals(tb, SERVICE))
    assert tb.command("svc_end")["ok"]
    tb.link.inbox.append(b"x" * 5000)
    tb.link.inbox.append(b"{not json")
    tb.link.inbox.append(b"[1]")
    tb.run(8)
    stages.append(_refusals(tb, []))
    for replies in stages:
        assert replies, stages
        for r in replies:
            assert sentences(r) == [], r
            _words(r)
            seen.add((r["error"], r.get("why")))
    whys = {w for _c, w in seen if w}
    assert len(whys) >= 30, " ".join(sorted(whys))  # the corpus reaches most of the board's details
    assert {"field", "not_json", "not_object", "line_long", "no_game", "not_placed", "service_mode", "not_service",
            "unknown_command", "protocol", "no_link", "put_back", "secret_move"} <= whys, sorted(whys)


def test_the_europe_rules_verdicts_are_codes_the_host_words():
    from europe_games import random_record
    from sy.europe.record import replay
    refused = 0
    for seed in range(12):
        lines, _ = random_record(seed)
        for v in replay(lines + ["not json", "[1]", json.dumps({"type": "dance"}),
                                 json.dumps({"type": "move", "piece": "D9", "ticket": "car/lamp", "to": 1})]):
            assert sentences(v) == [], v
            if v.get("ok") is False:
                refused += 1
                _words(v)
    assert refused >= 12 * 4


@pytest.mark.parametrize("reply, said", [
    ({"ok": False, "error": "melted", "why": "too_hot", "args": [451]}, "the board refused (melted too_hot: 451)"),
    ({"ok": False, "error": "wrong_turn", "why": "a_newer_reason"}, "it is not that piece's turn"),
    ({"ok": False, "error": "occupied", "why": "held_by", "args": [4]}, "a detective or a Bobby stands on that station"),
    ({"ok": False, "error": "bad_input", "why": "field", "args": [{"nested": [1]}]},
     "the field {'nested': [1]} is missing or not valid"),
])
def test_a_newer_boards_codes_read_clearly_never_a_traceback(reply, said):
    assert refusals.of_reply(reply) == said


def test_the_europe_board_on_the_unix_port_sends_no_sentence():
    """The Europe firmware (europe_main.py on the unix port): its replies to commands and lines it
    refuses are codes the host words."""
    from host.europe.sim import EuropeSimBoard, EuropeLink
    from host import ROOT
    import os
    seen = []

    class Watched(EuropeLink):
        def _lines(self, until):
            for obj in EuropeLink._lines(self, until):
                if obj is not None:
                    assert sentences(obj) == [], obj
                    seen.append(obj)
                yield obj

    sim = EuropeSimBoard(os.path.join(ROOT, "tests", "data", "europe_testmap"), "europe_testmap", heapsize="96k",
                         debounce_ms=10)
    sim.start()
    link = Watched(sim.port)
    try:
        link.wait_ready()
        replies = [link.request("fly"), link.request("line", line=5), link.request("line", line={"type": "move"}),
                   link.request("line", line={"type": "draw"}), link.request("guide", piece="D9"),
                   link.request("capture", piece="D1"),
                   link.request("line", line={"type": "setup", "game": "europe", "version": 1, "map": "europe_testmap",
                                              "detectives": [9, 9], "mrx": None}),
                   link.request("status")]
        link.ser.write(b"[1]\n")
        link.request("status")
    finally:
        link.close()
        sim.stop()
    refused = [r for r in replies if r.get("ok") is False]
    assert len(refused) == 7, replies
    for r in refused:
        _words(r)
    assert {r.get("why") for r in refused} >= {"unknown_command", "field", "moves_on_board", "no_game"}, refused
    assert any(o.get("why") == "not_object" and o.get("id") is None for o in seen), seen
