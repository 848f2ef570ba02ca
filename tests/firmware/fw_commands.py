"""The host's commands that the board's game flow answers (sy/play/newgame.py, mrxturn.py, declare.py,
undo.py, status.py, report.py, verify.py; the wizards' service.py): what each accepts, refuses (by
code) and changes, as the host sees it in replies, events and the record. Plain functions, as tests/firmware/fw_play.py: under CPython and
the MicroPython unix port (tests/test_firmware_units.py), and for `yard bench mutation`."""
import json
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from testkit import TestBoard, read_file, scratch, watch_journal_readers
from sy.rules import commit as commitlib
from sy.play.board import HAND_TAKEN_BACK, REED_OPEN, REED_CLOSED

TMP = scratch("sy-fwtest-commands")
DETECTIVES = (13, 26, 29, 34, 50)
SALT = "ab" * 16


def _board():
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    return tb


def _setup(tb, **args):
    args.setdefault("detectives", list(DETECTIVES))
    args.setdefault("bobbies", [])
    return tb.command("setup", **args)


def _start(**args):
    tb = _board()
    r = _setup(tb, **args)
    assert r["ok"], r
    for s in list(args.get("detectives", DETECTIVES)) + list(args.get("bobbies", ())):
        tb.place(s)
    assert tb.board.stage == 2
    tb.messages()
    return tb


def _refused(r, code):
    """The refusal's detail: (why, *args), the codes and values the host words."""
    assert not r["ok"] and r["error"] == code, r
    assert "message" not in r, r  # no sentence on the link
    return (r.get("why"),) + tuple(r.get("args", ()))


def _events(tb):
    return [m["ev"] for m in tb.messages() if "ev" in m]


def _record(tb, everything=False):
    tb.messages()
    r = tb.command("record", all=True) if everything else tb.command("record")
    lines = [m["line"] for m in tb.messages() if "line" in m]
    assert r["ok"] and r["lines"] == len(lines), (r, lines)
    return lines


def _move(tb, frm, to, ticket=None):
    tb.lift(frm)
    tb.place(to)
    if ticket is not None:
        tb.press(ticket)
    assert tb.board.game.holder_of(to) >= 0, (frm, to)




# --- setup and reset (sy/play/newgame.py) --------------------------------------------------------------
def test_setup_refuses_malformed_fields_with_bad_input():
    tb = _board()
    for args in ({"detectives": "13"}, {"detectives": [13, "26"]}, {"detectives": [13, True]},
                 {"detectives": None}, {"bobbies": [29, 1.5]}, {"bobbies": 29},
                 {"two_player": "yes"}, {"two_player": 1}, {"rounds": "22"}, {"rounds": True},
                 {"reveals": [3, "8"]}, {"tickets": [10, 8, 4]}, {"tickets": {"taxi": 10, "bus": 8}},
                 {"tickets": {"taxi": 10, "bus": True, "underground": 4}}, {"mrx_tickets": {"black": 5}},
                 {"mrx": 45}, {"commit": "ab"}, {"commit": "AB" * 32}, {"commit": "g" * 64},
                 {"commit": "\u00e9" * 64}):
        r = _setup(tb, **args)
        _refused(r, "bad_input")
        assert tb.board.game is None and tb.board.stage == 0, args
    for field, v in (("detectives", [13, "26"]), ("detectives", [13, True]), ("bobbies", [29, "34"]),
                     ("two_player", 0), ("two_player", 1), ("two_player", None), ("detectives", None), ("rounds", "22"), ("rounds", True), ("rounds", 22.0),
                     ("tickets.bus", {"taxi": 10, "bus": "8", "underground": 4}),
                     ("mrx_tickets.double", {"black": 5, "double": 2.0})):
        assert _refused(_setup(tb, **{field.split(".")[0]: v}), "bad_input") == ("field", field), (field, v)  # the field is named
    for args in ({"detectives": [13, 13]}, {"rounds": 0}, {"reveals": [0]}, {"tickets": {"taxi": 300, "bus": 8, "underground": 4}}):
        _refused(_setup(tb, **args), "bad_input")  # well formed, but against the rules
    assert tb.board.game is None and tb.store.seq == 0


def test_setup_takes_its_options_and_journals_them():
    tb = _board()
    opts = {"tickets": {"taxi": 5, "bus": 4, "underground": 3}, "mrx_tickets": {"black": 2, "double": 1},
            "rounds": 6, "reveals": [2, 5], "commit": commitlib.commitment(45, SALT)}
    r = _setup(tb, detectives=[13, 26], bobbies=[29, 34], two_player=True, map="london", **opts)
    assert r["ok"] and r["seq"] == 1, r
    st = tb.command("status")
    assert st["stage"] == "setup" and st["next_reveal"] == 2 and st["pieces"] == {"D1": 13, "D2": 26, "B1": 29, "B2": 34}
    assert st["tickets"] == {"D1": [5, 4, 3], "D2": [5, 4, 3]}
    assert st["mrx_tickets"]["black"] == 2 and st["mrx_tickets"]["double"] == 1
    line = _record(tb)[0]
    want = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": None, "two_player": True}
    want.update(opts)
    assert line == want, line
    # keys the rules do not read are not journalled (a name outside ASCII would break the
    # journal's byte count: Store.jlen counts characters)
    tb = _board()
    extra = {"tickets": {"taxi": 5, "bus": 4, "underground": 3, "tax\u00ef": 9},
             "mrx_tickets": {"black": 2, "double": 1, "note": "x" * 300}}
    r = _setup(tb, **extra)
    assert r["ok"], r
    line = _record(tb)[0]
    assert line["tickets"] == {"taxi": 5, "bus": 4, "underground": 3}, line
    assert line["mrx_tickets"] == {"black": 2, "double": 1}, line
    assert tb.store.jlen == len(read_file(tb.store.journal))
    tb = _board()
    assert tb.command("setup", detectives=list(DETECTIVES))["ok"]  # no bobbies named: none
    assert _record(tb) == [{"type": "setup", "detectives": list(DETECTIVES), "bobbies": [], "mrx": None}]
    st = tb.command("status")
    assert st["next_reveal"] == 3 and st["tickets"]["D1"] == [11, 8, 4], st
    from sy.rules.base import REVEALS, ROUNDS
    g = tb.board.game
    assert tuple(g.reveals) == REVEALS == (3, 8, 13, 18, 24) and g.rounds == ROUNDS == 22  # the rulebook's


def test_setup_on_a_board_with_its_map():
    from sy.rules import mapgraph
    tb = _board()
    tb.board.graph = mapgraph.load("london")  # as sy/start.py builds the board
    for other in ("london1983", "berlin", "zurich"):  # another map, whichever side of "london" its name sorts
        assert _refused(_setup(tb, map=other), "bad_input") == ("other_map", "london")
    assert _setup(tb, map="london")["ok"]
    tb = _board()
    tb.board.graph = mapgraph.load("london1983")
    assert _setup(tb)["ok"]  # no map named: the board's own
    assert _record(tb)[0]["map"] == "london1983"
    assert tb.command("hello", proto=1)["map"] == "london1983"


def test_a_new_setup_abandons_a_game_only_when_told_to():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)
    tb.place(4)
    assert tb.command("guide", piece="D2", to=39, ticket="taxi")["ok"]
    _refused(_setup(tb), "wrong_turn")
    assert tb.board.game.moves == 1
    tb.lift(26)  # D2 in hand
    assert tb.board.piece_in_hand() == 1
    r = _setup(tb, detectives=[13, 26, 29], bobbies=[117], replace=True)
    assert r["ok"] and r["seq"] == 1, r
    b = tb.board
    assert b.stage == 1 and b.game.moves == 0 and b.guided() is None and b.piece_in_hand() == -1 and not b.mrx_piece_on
    assert [line["type"] for line in _record(tb, True)] == ["setup"]  # a new journal
    st = tb.command("status")
    assert st["missing"] == ["D1", "D2", "B1"] and st["extra"] == [4, 34, 50], st  # the old pieces are strays now
    _refused(_setup(tb), "wrong_turn")  # in setup, too
    b.stage = 3
    assert _setup(tb)["ok"]  # a game over is no game in progress


def test_setup_while_a_resumed_board_restores_starts_afresh():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.set(13, False)
    tb.reboot()
    assert tb.board.restoring
    assert _setup(tb, replace=True)["ok"]
    assert not tb.board.restoring and tb.board.stage == 1
    tb.place(13)
    assert tb.board.stage == 2


def test_reset_forgets_the_game():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    r = tb.command("reset", confirm=True)
    assert r["ok"] and r["seq"] == 0
    st = tb.command("status")
    assert st == {"stage": "idle", "restoring": False, "seq": 0, "id": st["id"], "ok": True}, st
    tb.reboot()
    assert tb.board.game is None and tb.board.stage == 0
    tb.set(13, False)
    tb.reboot()
    tb.command("reset", confirm=True)
    assert not tb.board.restoring


def test_a_reset_while_a_piece_is_in_hand_forgets_it():
    """The `lifted` note waits for a cycle without a frame to draw: a reset in between dropped the
    game under it (AttributeError in the main loop)."""
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.set(13, False)
    tb.settle()
    assert tb.board.piece_in_hand() == 0 and tb.board.lift_note == 0  # D1 in hand, not yet told
    assert tb.command("reset", confirm=True)["ok"]
    tb.messages()
    tb.run(20)
    assert [m for m in tb.messages() if "note" in m] == [] and tb.board.piece_in_hand() == -1
    assert tb.command("status")["stage"] == "idle"


def test_a_setup_resends_events_from_its_first():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.command("ack", seq=3)
    assert _setup(tb, replace=True)["ok"]
    tb.messages()
    r = tb.command("hello", proto=1)  # the pieces stand on the same stations: ready at once
    assert r["seq"] == 2
    assert [m["seq"] for m in tb.messages() if "ev" in m] == [1, 2]


# --- Mister X's moves (sy/play/mrxturn.py) ----------------------------------------------------------------
def test_mrx_moves_are_journaled_and_announced():
    tb = _start(commit=commitlib.commitment(45, SALT))
    c1 = commitlib.commitment(46, SALT)
    r = tb.command("mrx", ticket="taxi", commit=c1)
    assert r["ok"] and r["seq"] == 3 and r["reveal"] == 0 and r["round"] == 1, r
    msgs = tb.messages()
    assert [m["ev"] for m in msgs if "ev" in m] == [{"type": "mrx", "ticket": "taxi", "commit": c1}]
    assert [m for m in msgs if "note" in m] == []  # the detectives' turn: no note
    tb.detectives_round()
    tb.messages()
    r = tb.command("mrx", ticket="black")
    assert r["ok"] and r["round"] == 2
    assert _events(tb) == [{"type": "mrx", "ticket": "black"}]
    tb.detectives_round()
    tb.messages()
    g = tb.board.game
    reach = [n for c in g.candidates() for n in g.graph.neighbours(c, 1) if g.holder_of(n) < 0]
    r = tb.command("mrx", ticket="bus", to=min(reach))
    assert r["ok"] and r["reveal"] == min(reach) and g.surfaced == min(reach), r
    st = tb.command("status")
    assert (st["surfaced"], st["moves"], st["next_reveal"], st["log"]) == (min(reach), 3, 8, ["taxi", "black", "bus"]), st
    assert _events(tb) == [{"type": "mrx", "ticket": "bus", "to": min(reach)}]


def test_mrx_refusals():
    tb = _start()
    for args in ({"ticket": "boat"}, {"ticket": "taxi", "to": 0}, {"ticket": "taxi", "to": 200},
                 {"ticket": "taxi", "to": True}, {"ticket": "taxi", "commit": "x" * 63},
                 {"ticket": "taxi", "to": 46}, {"double": [{"ticket": "taxi"}]},
                 {"double": [{"ticket": "taxi"}, "bus"]}, {"double": ["taxi", {"ticket": "bus"}]},
                 {"double": {"ticket": "taxi"}}, {"double": [{"ticket": "taxi"}, {"ticket": "bus"}, {}]},
                 {"double": [{"ticket": "taxi", "to": 46}, {"ticket": "bus"}]},
                 {"double": [{"ticket": "taxi"}, {"ticket": "bus", "to": 46}]}):
        _refused(tb.command("mrx", **args), "bad_input")
    assert tb.board.game.moves == 0 and tb.store.seq == 2
    assert tb.command("mrx", ticket="taxi")["ok"]
    _refused(tb.command("mrx", ticket="taxi"), "wrong_turn")  # the detectives' turn


def test_a_double_move_is_one_journal_line_with_both_halves():
    tb = _start(reveals=[4, 8])
    c1, c2 = commitlib.commitment(46, SALT), commitlib.commitment(47, SALT)
    r = tb.command("mrx", double=[{"ticket": "taxi", "commit": c1}, {"ticket": "bus", "commit": c2}])
    assert r["ok"] and r["round"] == 1 and r["reveal"] == 0, r
    assert _events(tb) == [{"type": "mrx", "double": [{"ticket": "taxi", "commit": c1}, {"ticket": "bus", "commit": c2}]}]
    g = tb.board.game
    assert g.moves == 2 and g.double == 1 and g.phase == 1
    tb.detectives_round()
    tb.messages()
    # the second half of the next double move surfaces (move 4): a station two taxi rides away
    reach = sorted(set(n for c in g.candidates() for n in g.graph.neighbours(c, 0) if g.holder_of(n) < 0))
    to = min(n for s in reach for n in g.graph.neighbours(s, 0) if g.holder_of(n) < 0)
    r = tb.command("mrx", double=[{"ticket": "taxi"}, {"ticket": "taxi", "to": to}])
    assert r["ok"] and r["reveal"] == to and r["round"] == 2, r
    assert _events(tb) == [{"type": "mrx", "double": [{"ticket": "taxi"}, {"ticket": "taxi", "to": to}]}]


def test_a_double_move_after_a_single_one_surfaces_on_its_second_half():
    tb = _start(reveals=[3])
    g = tb.board.game
    assert tb.command("mrx", ticket="taxi")["ok"]  # move 1
    tb.detectives_round()
    tb.messages()
    reach = sorted(set(n for c in g.candidates() for n in g.graph.neighbours(c, 0) if g.holder_of(n) < 0))
    to = min(n for s in reach for n in g.graph.neighbours(s, 0) if g.holder_of(n) < 0)
    r = tb.command("mrx", double=[{"ticket": "taxi"}, {"ticket": "taxi", "to": to}])  # moves 2 and 3
    assert r["ok"] and r["reveal"] == to, r
    assert _events(tb) == [{"type": "mrx", "double": [{"ticket": "taxi"}, {"ticket": "taxi", "to": to}]}]


def test_a_surfacing_first_half_of_a_double_move_shows_its_station():
    tb = _start(reveals=[1, 8])
    g = tb.board.game
    to1 = g.graph.neighbours(45, 0)[0]  # from start card 45
    r = tb.command("mrx", double=[{"ticket": "taxi", "to": to1}, {"ticket": "black"}])
    assert r["ok"] and r["reveal"] == to1, r
    assert _events(tb) == [{"type": "mrx", "double": [{"ticket": "taxi", "to": to1}, {"ticket": "black"}]}]
    assert g.black == 4


def test_his_piece_must_go_when_he_moves_on():
    tb = _start(reveals=[1])
    g = tb.board.game
    to = g.graph.neighbours(45, 0)[0]
    assert tb.command("mrx", ticket="taxi", to=to)["ok"]
    tb.place(to)
    assert tb.board.mrx_piece_on
    tb.detectives_round()
    assert tb.command("mrx", ticket="taxi")["ok"]
    assert not tb.board.mrx_piece_on and tb.command("status")["extra"] == [to]
    tb = _start(reveals=[1])  # the same when he moves on by a double move
    assert tb.command("mrx", ticket="taxi", to=to)["ok"]
    tb.place(to)
    assert tb.board.mrx_piece_on
    tb.detectives_round()
    assert tb.command("mrx", double=[{"ticket": "taxi"}, {"ticket": "taxi"}])["ok"]
    assert not tb.board.mrx_piece_on and tb.command("status")["extra"] == [to]


def test_a_double_move_after_a_single_one_surfaces_on_its_first_half():
    tb = _start(reveals=[2])
    g = tb.board.game
    assert tb.command("mrx", ticket="taxi")["ok"]  # move 1
    tb.detectives_round()
    to = min(n for c in g.candidates() for n in g.graph.neighbours(c, 0) if g.holder_of(n) < 0)
    r = tb.command("mrx", double=[{"ticket": "taxi", "to": to}, {"ticket": "black"}])  # moves 2 and 3
    assert r["ok"] and r["reveal"] == to, r


def test_a_game_of_one_round_ends_after_its_detectives_move():
    tb = _start(rounds=1)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3 and tb.command("status")["result"] == "mrx"
    _refused(tb.command("mrx", ticket="taxi"), "game_over")


# --- capture, cornered, guide (sy/play/declare.py) ---------------------------------------------------------
def test_capture_needs_a_game_a_piece_and_the_proof():
    tb = _board()
    _refused(tb.command("capture", piece="D1"), "wrong_turn")
    assert _setup(tb, detectives=[13, 26], bobbies=[29, 34], commit=commitlib.commitment(45, SALT))["ok"]
    _refused(tb.command("capture", piece="D1"), "wrong_turn")  # not in play yet
    for s in (13, 26, 29, 34):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi", commit=commitlib.commitment(46, SALT))["ok"]
    tb.lift(13)
    tb.place(46)
    _refused(tb.command("capture", piece="D9"), "bad_input")
    _refused(tb.command("capture", piece="D2"), "bad_input")  # D2's station is not one he may be on
    for proof in (None, "46", [SALT], [SALT, "46"], [1, 46], [SALT, True], [SALT, 46, 1]):
        args = {"piece": "D1"}
        if proof is not None:
            args["reveal"] = proof
        assert _refused(tb.command("capture", **args), "unproved") == ("no_proof",), proof  # malformed
    _refused(tb.command("capture", piece="D1", reveal=["cd" * 16, 46]), "unproved")  # wrong salt
    assert tb.board.game.result is None
    tb.messages()
    r = tb.command("capture", piece="D1", reveal=[SALT, 46])
    assert r["ok"] and _events(tb) == [{"type": "capture", "piece": "D1"}]
    st = tb.command("status")
    assert st["stage"] == "over" and st["result"] == "detectives" and st["reason"] == "capture"
    assert _record(tb)[-1] == {"type": "move", "piece": "D1", "to": 46, "ticket": "underground", "capture": True}


def test_after_a_double_move_the_proof_is_of_its_second_half():
    tb = _start(commit=commitlib.commitment(45, SALT))
    c1, c2 = commitlib.commitment(32, SALT), commitlib.commitment(46, SALT)
    assert tb.command("mrx", double=[{"ticket": "taxi", "commit": c1}, {"ticket": "taxi", "commit": c2}])["ok"]
    tb.lift(13)
    tb.place(46)
    _refused(tb.command("capture", piece="D1", reveal=[SALT, 45]), "unproved")  # the setup's
    _refused(tb.command("capture", piece="D1", reveal=[SALT, 32]), "unproved")  # the first half's
    assert tb.command("capture", piece="D1", reveal=[SALT, 46])["ok"]


def test_a_capture_declared_after_the_last_round_ended_the_game():
    """The board commits the last move before the host can say it was a capture: the game ends
    as an escape, then the capture replaces it, with a second game_over note."""
    tb = _start(detectives=[13, 26], bobbies=[29, 34], rounds=1)
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 26, 39)
    _move(tb, 29, 41)
    _move(tb, 34, 22)
    _move(tb, 13, 46)
    assert tb.command("status")["result"] == "mrx" and tb.board.stage == 3
    tb.messages()
    assert tb.command("capture", piece="D1")["ok"]
    msgs = tb.messages()
    assert [m for m in msgs if m.get("note") == "game_over"] == [
        {"note": "game_over", "result": "detectives", "reason": "capture"}], msgs
    st = tb.command("status")
    assert (st["stage"], st["result"], st["reason"]) == ("over", "detectives", "capture"), st
    tb.reboot()
    assert tb.command("status")["reason"] == "capture"


def test_a_proof_that_names_another_station_is_refused():
    tb = _start(commit=commitlib.commitment(45, SALT))
    assert tb.command("mrx", ticket="taxi", commit=commitlib.commitment(58, SALT))["ok"]
    tb.lift(13)
    tb.place(46)
    # the proof is sound but for another station: D1 is not on him
    _refused(tb.command("capture", piece="D1", reveal=[SALT, 58]), "unproved")
    assert tb.board.game.result is None
    tb = _start(commit=commitlib.commitment(45, SALT))  # the same with a lower station than D1's
    assert tb.command("mrx", ticket="taxi", commit=commitlib.commitment(32, SALT))["ok"]
    tb.lift(13)
    tb.place(46)
    assert _refused(tb.command("capture", piece="D1", reveal=[SALT, 32]), "unproved") == ("not_on_mrx", "D1", 46)
    assert tb.board.game.result is None


def test_capture_after_a_surfacing_move_without_commitments():
    tb = _start(reveals=[1])
    g = tb.board.game
    to = 46
    # Mister X surfaces on 46 by taxi from his start card 45 (no commitments in this game)
    assert 46 in g.graph.neighbours(45, 0)
    assert tb.command("mrx", ticket="taxi", to=to)["ok"]
    tb.lift(13)
    tb.place(to)  # lands on him: the board sees the capture itself
    assert g.result == "detectives" and tb.board.stage == 3
    _refused(tb.command("capture", piece="D2"), "game_over")


def test_a_surfacing_move_sent_without_its_commitment_is_proved_by_its_station():
    tb = _start(commit=commitlib.commitment(45, SALT), reveals=[1])
    assert tb.command("mrx", ticket="taxi", to=46)["ok"]  # surfaced, no commitment: his station is public
    tb.detectives_round()
    for other in (47, 45):
        assert _refused(tb.command("cornered", reveal=[SALT, other]), "unproved") == ("surfaced_on", 46, other)
    r = tb.command("cornered", reveal=["any salt", 46])
    assert not r["ok"] and r["error"] != "unproved", r  # proved: the rules say he still has a move


def test_cornered_needs_the_proof_and_a_mister_x_with_no_move():
    tb = _start(commit=commitlib.commitment(45, SALT))
    _refused(tb.command("cornered"), "unproved")
    _refused(tb.command("cornered", reveal=[SALT, 44]), "unproved")  # not his commitment
    r = tb.command("cornered", reveal=[SALT, 45])
    assert not r["ok"] and r["error"] != "unproved", r  # proved, but he has moves from 45
    assert tb.board.game.mrx == 0 and tb.board.game.result is None  # the board still does not know him
    tb = _start(commit=commitlib.commitment(13, SALT))  # a commitment to a detective's station
    assert _refused(tb.command("cornered", reveal=[SALT, 13]), "unproved") == ("mrx_cannot_be", 13)  # D1 stands there
    tb = _start()  # no commitments: only the public check, that it is his turn
    assert tb.command("mrx", ticket="taxi")["ok"]
    _refused(tb.command("cornered"), "wrong_turn")
    tb.detectives_round()
    tb.messages()
    assert tb.command("cornered")["ok"]
    assert _events(tb) == [{"type": "cornered"}]
    st = tb.command("status")
    assert (st["stage"], st["phase"], st["result"], st["reason"]) == ("over", "over", "detectives", "mrx_stuck"), st
    tb = _start()  # no commitments, before his first move: the host's word, no station to check
    assert tb.command("cornered")["ok"] and tb.board.game.result == "detectives"


def test_a_guided_move_is_lit_in_the_next_scan_cycle():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    seq = tb.strip.seq
    while tb.strip.seq == seq:  # a frame has just been drawn: the next is not due for 40 ms
        tb.run(1)
    tb.command("guide", piece="D1", to=4, ticket="taxi")  # one cycle: the command
    seq = tb.strip.seq
    tb.run(1)
    assert tb.strip.seq == seq + 1 and tb.colour(4) != (0, 0, 0)


def test_guide_lights_one_move_and_refuses_others():
    tb = _start()
    _refused(tb.command("guide", piece="D1", to=4, ticket="taxi"), "not_connected")  # Mister X's turn
    assert tb.command("mrx", ticket="taxi")["ok"]
    _refused(tb.command("guide", piece="D1", to=4, ticket="bus"), "not_connected")
    _refused(tb.command("guide", piece="D1", to=5, ticket="taxi"), "not_connected")
    _refused(tb.command("guide", piece="D1", to=4, ticket="boat"), "bad_input")
    _refused(tb.command("guide", piece="D1", to=400, ticket="taxi"), "bad_input")
    _refused(tb.command("guide", piece="D7", to=4, ticket="taxi"), "bad_input")
    assert tb.board.guided() is None
    r = tb.command("guide", piece="D1", to=4, ticket="taxi")
    assert r["ok"] and tb.board.guided() == (0, 4, 0)
    tb.lift(13)
    tb.place(4)
    assert tb.board.game.pos[0] == 4 and tb.board.guided() is None
    _refused(tb.command("guide", piece="D1", to=13, ticket="taxi"), "not_connected")  # D1 has moved
    g = tb.board.game
    s, t = g.legal(2)[0]
    tb.lift(29)
    tb.place(s)
    if tb.board.asking_at() == s:
        tb.press(t)
    assert g.pos[2] == s and g.to_move() & 2  # D3 has moved, D2 has not
    for s2, t2 in g.legal(2) or [(29, 0)]:
        _refused(tb.command("guide", piece="D3", to=s2, ticket=("taxi", "bus", "underground")[t2]), "not_connected")


# --- take-backs by the host (sy/play/undo.py) ------------------------------------------------------------------
def test_undo_by_the_host_names_the_piece_or_takes_the_last():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    _refused(tb.command("undo"), "wrong_turn")  # nothing yet
    _move(tb, 13, 4)
    _move(tb, 26, 27)  # (he cannot be on 27: a move that told nothing)
    tb.messages()
    assert _refused(tb.command("undo", piece="D1"), "wrong_turn") == ("not_last", "D1")
    assert _refused(tb.command("undo", piece="D3"), "wrong_turn") == ("not_moved", "D3")
    _refused(tb.command("undo", piece="D8"), "bad_input")
    r = tb.command("undo", piece="D2")
    assert r["ok"] and r["seq"] == 6, r
    assert _events(tb) == [{"type": "undo", "piece": "D2", "from": 27, "to": 26}]
    b = tb.board
    assert (b.hand, b.piece) == (HAND_TAKEN_BACK, 1) and b.game.pos[1] == 26
    st = tb.command("status")
    assert st["extra"] == [27] and st["missing"] == ["D2"]
    _refused(tb.command("mrx", ticket="taxi"), "wrong_turn")  # D2 must go back first
    tb.lift(27)
    assert (b.hand, b.piece) == (HAND_TAKEN_BACK, 1)
    tb.place(26)
    assert b.hand != HAND_TAKEN_BACK
    r = tb.command("undo")
    assert r["ok"] and _events(tb) == [{"type": "undo", "piece": "D1", "from": 4, "to": 13}]


def test_undo_of_a_piece_that_has_not_moved_names_it_so_whatever_moved_before():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 26, 39)  # D2
    assert _refused(tb.command("undo", piece="D1"), "wrong_turn") == ("not_moved", "D1")
    assert _refused(tb.command("undo", piece="D3"), "wrong_turn") == ("not_moved", "D3")


def test_undo_of_a_move_in_the_middle_of_the_turn_is_refused_as_such():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 13, 4)
    _move(tb, 26, 39)
    _move(tb, 29, 16)
    assert _refused(tb.command("undo", piece="D2"), "wrong_turn") == ("not_last", "D2")  # D2 moved, but not last
    assert _refused(tb.command("undo", piece="D1"), "wrong_turn") == ("not_last", "D1")
    assert _refused(tb.command("undo", piece="D4"), "wrong_turn") == ("not_moved", "D4")
    assert tb.command("undo", piece="D3")["ok"]


def test_undo_while_the_piece_is_off_its_station():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 13, 4)
    tb.lift(4)  # already in hand again when the take-back comes
    tb.messages()
    assert tb.command("undo")["ok"]
    b = tb.board
    assert (b.hand, b.piece) == (HAND_TAKEN_BACK, 0) and tb.command("status")["extra"] == []
    tb.place(4)  # put down on the station it was taken back from: a stray, not a move
    assert b.game.pos[0] == 13 and (b.hand, b.piece) == (HAND_TAKEN_BACK, 0)
    tb.lift(4)
    tb.place(13)
    assert b.hand != HAND_TAKEN_BACK


def test_undo_clears_a_guided_move():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    assert tb.command("guide", piece="D1", to=4, ticket="taxi")["ok"]
    _move(tb, 13, 4)
    assert tb.command("guide", piece="D2", to=39, ticket="taxi")["ok"]
    assert tb.command("undo")["ok"]
    assert tb.board.guided() is None


# --- status and hello (sy/play/status.py) ------------------------------------------------------------------------
def test_status_tells_the_whole_game():
    tb = _start(detectives=[13, 26], bobbies=[29, 34])
    st = tb.command("status")
    assert st["phase"] == "mrx" and st["round"] == 0 and st["moves"] == 0 and st["to_move"] == []
    assert st["pieces"] == {"D1": 13, "D2": 26, "B1": 29, "B2": 34} and list(st["tickets"]) == ["D1", "D2"]
    assert st["lifted"] is None and st["pending"] is None and st["log"] == [] and "dead" not in st
    assert st["mrx_tickets"] == {"black": 5, "double": 2, "supply": [35, 29, 15]}, st["mrx_tickets"]
    assert tb.command("mrx", ticket="black")["ok"]
    st = tb.command("status")
    assert st["phase"] == "detectives" and st["round"] == 1 and st["moves"] == 1 and st["log"] == ["black"]
    assert st["to_move"] == ["D1", "D2", "B1", "B2"] and st["surfaced"] == 0 and st["mrx_piece"] is False
    tb.lift(13)
    tb.place(23)
    st = tb.command("status")
    assert st["lifted"] == "D1" and st["pending"] == {"station": 23, "tickets": ["taxi", "bus"]}, st
    tb.press(0)
    st = tb.command("status")
    assert st["to_move"] == ["D2", "B1", "B2"] and st["tickets"]["D1"] == [10, 8, 4]
    assert st["mrx_tickets"]["supply"] == [36, 29, 15] and st["pieces"]["D1"] == 23
    tb.lift(26)
    st = tb.command("status")
    assert st["lifted"] == "D2" and st["missing"] == ["D2"]
    tb.lift(29)
    st = tb.command("status")
    assert st["lifted"] is None and st["missing"] == ["D2", "B1"]


def test_status_to_move_leaves_out_each_piece_that_has_moved():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 29, 16)  # D3
    assert tb.command("status")["to_move"] == ["D1", "D2", "D4", "D5"]
    _move(tb, 13, 4)
    assert tb.command("status")["to_move"] == ["D2", "D4", "D5"]


def test_hello_checks_the_version_and_resends_what_the_host_missed():
    tb = _start()
    for other in (2, 0, 1.0, True, "1", None):
        assert _refused(tb.command("hello", proto=other), "version") == ("protocol", 1), other
    _refused(tb.command("hello", proto=1, acked=-1), "bad_input")
    _refused(tb.command("hello", proto=1, acked="2"), "bad_input")
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.messages()
    r = tb.command("hello", proto=1, acked=1)
    assert r["proto"] == 1 and r["board"] == "board" and r["map"] == "london" and r["seq"] == 3 and r["stage"] == "play"
    assert [m["seq"] for m in tb.messages() if "ev" in m] == [2, 3]
    r = tb.command("hello", proto=1)
    assert [m["seq"] for m in tb.messages() if "ev" in m] == [1, 2, 3]
    tb.command("hello", proto=1, acked=3)
    assert [m for m in tb.messages() if "ev" in m] == []
    tb.command("reset", confirm=True)
    assert tb.command("hello", proto=1)["map"] == "london"


# --- the record (sy/play/report.py) --------------------------------------------------------------------------------
def test_the_record_leaves_out_what_was_taken_back_and_folds_the_capture_in():
    tb = _start(detectives=[13, 26], bobbies=[29, 34])
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 13, 4)
    _move(tb, 26, 27)
    assert tb.command("undo")["ok"]  # D2's move
    tb.lift(27)
    tb.place(26)
    assert tb.command("undo")["ok"]  # and D1's
    tb.lift(4)
    tb.place(13)
    _move(tb, 13, 46)
    assert tb.command("capture", piece="D1")["ok"]
    lines = _record(tb)
    assert [(line["type"], line.get("to")) for line in lines] == [("setup", None), ("mrx", None), ("move", 46)], lines
    assert lines[-1]["capture"] is True
    everything = _record(tb, True)
    assert [line["type"] for line in everything] == ["setup", "ready", "mrx", "move", "move", "undo", "undo", "move",
                                                    "capture"], everything
    assert "capture" not in everything[-2]


def test_a_take_back_applies_to_its_own_turn_only():
    tb = _start(detectives=[13, 26], bobbies=[29, 34])
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 13, 4)
    _move(tb, 26, 39)
    _move(tb, 29, 41)
    _move(tb, 34, 22)  # the round's last move: Mister X's turn
    assert tb.command("mrx", ticket="taxi")["ok"]
    _move(tb, 4, 13)
    assert tb.command("undo")["ok"]
    lines = _record(tb)
    assert [(line["type"], line.get("piece"), line.get("to")) for line in lines] == [
        ("setup", None, None), ("mrx", None, None), ("move", "D1", 4), ("move", "D2", 39), ("move", "B1", 41),
        ("move", "B2", 22), ("mrx", None, None)], lines


def test_why_a_placement_is_illegal():
    tb = _start(detectives=[13, 26, 29, 34, 194], bobbies=[])
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.board.game.tickets[0][1] = 0  # D1 has no bus ticket left
    tb.board.game.tickets[0][2] = 0  # nor an underground one
    cases = (
        (13, 14, None, "no_ticket", ("no_ticket_left", ["D1", "bus"])),
        (13, 46, None, "no_ticket", ("no_ticket_left", ["D1", "underground"])),
        (13, 100, None, "not_connected", ("no_link", [100, 13])),
        (13, 14, 0, "not_connected", ("no_line", ["taxi", 13, 14])),
        (13, 14, 1, "no_ticket", ("no_ticket_left", ["D1", "bus"])),
        (13, 4, 2, "not_connected", ("no_line", ["underground", 13, 4])),
        (194, 157, None, "ferry", ("ferry_black", [])),
    )
    for frm, to, pre, code, message in cases:
        tb.messages()
        tb.lift(frm)
        if pre is not None:
            tb.press(pre)
        tb.place(to)
        notes = [m for m in tb.messages() if m.get("note") == "illegal"]
        assert [(n["error"], (n["why"], n["args"])) for n in notes] == [(code, message)], (frm, to, pre, notes)
        tb.lift(to)
        tb.place(frm)
    # a taxi ride from a ferry's end (157) with no taxi ticket: the taxi is named, not the ferry's black
    tb = _start(detectives=[13, 26, 29, 34, 157], bobbies=[])
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.board.game.tickets[4][0] = 0  # D5 has bus tickets: it may still move
    tb.messages()
    tb.lift(157)
    tb.place(158)  # a taxi line only
    notes = [m for m in tb.messages() if m.get("note") == "illegal"]
    assert [(n["error"], n["why"], n["args"]) for n in notes] == [("no_ticket", "no_ticket_left", ["D5", "taxi"])], notes
    tb.lift(158)
    tb.press(0)  # the taxi chosen first: the same
    tb.place(158)
    notes = [m for m in tb.messages() if m.get("note") == "illegal"]
    assert [(n["error"], n["why"], n["args"]) for n in notes] == [("no_ticket", "no_ticket_left", ["D5", "taxi"])], notes


# --- the reveal of Mister X's route after the game (sy/play/verify.py) ---------------------------------
def _committed_game():
    """A game of two rounds with every move committed: a double move, by taxi then by bus, that
    surfaces on its second half (move 2), then a taxi ride. (his stations: 45, 46, x, y)"""
    tb = _start(commit=commitlib.commitment(45, SALT), reveals=[2], rounds=2)
    g = tb.board.game
    x = min(n for n in g.graph.neighbours(46, 1) if g.holder_of(n) < 0)
    assert tb.command("mrx", double=[{"ticket": "taxi", "commit": commitlib.commitment(46, SALT)},
                                     {"ticket": "bus", "to": x, "commit": commitlib.commitment(x, SALT)}])["ok"]
    _refused(tb.command("reveal", start=[SALT, 45], moves=[]), "wrong_turn")  # not before the game ends
    tb.detectives_round()
    y = min(n for n in g.graph.neighbours(x, 0) if g.holder_of(n) < 0)
    assert tb.command("mrx", ticket="taxi", commit=commitlib.commitment(y, SALT))["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3 and g.result == "mrx", (g.result, g.reason)
    tb.messages()
    return tb, x, y


def _verdict(tb, start, moves):
    seq = tb.store.seq
    r = tb.command("reveal", start=start, moves=moves)
    assert r["ok"] and r["received"] == len(moves) and r["seq"] == tb.store.seq == seq + 1, r
    return (r["verified"], r["why"]) + tuple(r["args"])


def test_a_reveal_chunk_out_of_order_is_refused_and_changes_nothing():
    tb, x, y = _committed_game()
    assert tb.command("reveal", start=[SALT, 45], moves=[[SALT, 46], [SALT, x]], more=True)["received"] == 2
    for offset in (1, -1, 3):  # a chunk again, a negative index, a gap: the reveal goes on at 2
        r = tb.command("reveal", offset=offset, moves=[[SALT, y]])
        assert _refused(r, "bad_input") == ("next_chunk", 2), (offset, r)
    r = tb.command("reveal", offset=2, moves=[[SALT, y]])
    assert r["verified"] is True and r["received"] == 3, r


def test_the_reveal_in_chunks_is_checked_and_journaled():
    tb, x, y = _committed_game()
    assert _refused(tb.command("reveal", start=[SALT, 45], moves="46"), "bad_input") == ("field", "moves")
    assert _refused(tb.command("reveal", offset=1, moves=[]), "bad_input") == ("next_chunk", 0)
    r = tb.command("reveal", start=[SALT, 45], moves=[[SALT, 46]], more=True)
    assert r == {"ok": True, "id": r["id"], "received": 1}, r
    assert _refused(tb.command("reveal", offset=2, moves=[]), "bad_input") == ("next_chunk", 1)
    for bad in (1.0, True, "1", None):  # the index of the chunk's first move, a whole number
        assert _refused(tb.command("reveal", offset=bad, moves=[]), "bad_input") == ("field", "offset"), bad
    assert tb.command("reveal", offset=0, moves=[[SALT, 46]], more=True)["received"] == 1  # no start: malformed...
    r = tb.command("reveal", offset=0, start=[SALT, 45], moves=[[SALT, 46]], more=True)  # ...and begun again
    assert r["received"] == 1, r
    seq = tb.store.seq
    r = tb.command("reveal", offset=1, moves=[[SALT, x], [SALT, y]])  # his route goes on from 46
    assert r["ok"] and r["verified"] is True and r["received"] == 3 and r["seq"] == seq + 1, r
    assert (r["why"], r["args"]) == ("route_ok", [3]), r
    assert json.loads([text for _seq, text in tb.store.lines(seq + 1)][-1]) == \
        {"type": "verified", "ok": True, "why": "route_ok", "args": [3]}
    # the reveal is over: the next one starts at offset 0 again, and the game stays verified
    assert _refused(tb.command("reveal", offset=3, moves=[]), "bad_input") == ("next_chunk", 0)
    assert _refused(tb.command("reveal", start=[SALT, 45], moves=[[SALT, 46]], more=True), "already_verified")
    # a chunk after the first is checked from where the one before it left off
    tb, x, y = _committed_game()
    assert tb.command("reveal", start=[SALT, 45], moves=[[SALT, 46]], more=True)["received"] == 1
    r = tb.command("reveal", offset=1, moves=[[SALT, x], ["cd" * 16, y]])
    assert (r["verified"], r["why"], r["args"]) == (False, "move_commit", [3]), r


def test_a_reveal_that_breaks_a_commitment_or_the_log_is_not_verified():
    tb, x, y = _committed_game()
    good = [[SALT, 46], [SALT, x], [SALT, y]]
    assert _verdict(tb, [SALT, 46], good) == (False, "move_commit", 0)
    assert _verdict(tb, [SALT, 45], good[:2] + [["cd" * 16, y]]) == (False, "move_commit", 3)
    assert _verdict(tb, [SALT, 45], [[SALT, 45]] + good[1:]) == (False, "move_commit", 1)
    assert _verdict(tb, [SALT, 45], [good[0], ["cd" * 16, x], good[2]]) == (False, "move_commit", 2)
    assert _verdict(tb, [SALT, 45], good[:2]) == (False, "count_mismatch", 3, 2)
    assert _verdict(tb, [SALT, 45], good + [[SALT, 1]]) == (False, "count_mismatch", 3, 4)
    # more moves than a travel log holds, in chunks of 8 that fit a line: counted to the end
    assert tb.command("reveal", start=[SALT, 45], moves=good + [[SALT, 1]] * 5, more=True)["received"] == 8
    for offset in range(8, 300, 8):
        assert tb.command("reveal", offset=offset, moves=[[SALT, 1]] * 8, more=True)["received"] == offset + 8
    r = tb.command("reveal", offset=304, moves=[])
    assert (r["verified"], r["why"], r["args"]) == (False, "count_mismatch", [3, 304]), r
    assert _verdict(tb, [SALT, 45], [good[0], [SALT], good[2]]) == (False, "malformed", 2)
    assert _verdict(tb, [SALT, 45], good[:2] + [[SALT, "y"]]) == (False, "malformed", 3)
    for bad in (None, [SALT, "45"], [SALT, True], [1, 45], [SALT, 45, 0]):
        assert _verdict(tb, bad, good) == (False, "malformed", 0), bad
    last = [text for _seq, text in tb.store.lines(1)][-1]
    assert json.loads(last) == {"type": "verified", "ok": False, "why": "malformed", "args": [0]}, last
    # the first problem is the verdict, whatever the chunks after it say
    r = tb.command("reveal", start=[SALT, 45], moves=[["cd" * 16, 46]], more=True)
    assert r["received"] == 1, r
    r = tb.command("reveal", offset=1, moves=good[1:])
    assert (r["verified"], r["why"], r["args"], r["received"]) == (False, "move_commit", [1], 3), r
    # a route that did not match may be revealed again; the true one is the last word
    assert _verdict(tb, [SALT, 45], good) == (True, "route_ok", 3)
    assert _refused(tb.command("reveal", start=[SALT, 45], moves=good), "already_verified")


def test_a_reveal_without_commitments_is_checked_against_the_map_and_the_surfacings():
    tb = _start(reveals=[2], rounds=1)
    g = tb.board.game
    x = min(n for n in g.graph.neighbours(46, 1) if g.holder_of(n) < 0)
    assert tb.command("mrx", double=[{"ticket": "taxi"}, {"ticket": "bus", "to": x}])["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3
    assert _verdict(tb, [SALT, 45], [[SALT, 46], [SALT, x]]) == (False, "move_uncommitted", 1)
    tb = _start(reveals=[1], rounds=2)  # move 1 surfaces, move 2 is secret
    g = tb.board.game
    assert tb.command("mrx", ticket="taxi", to=46)["ok"]
    tb.detectives_round()
    x = min(n for n in g.graph.neighbours(46, 0) if g.holder_of(n) < 0)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3
    assert _verdict(tb, [SALT, 45], [[SALT, 46], [SALT, x]]) == (False, "move_uncommitted", 2)
    assert _verdict(tb, [SALT, 45], [[SALT, 46]]) == (False, "count_mismatch", 2, 1)
    tb = _start(reveals=[1, 2], rounds=2)  # both moves surface
    g = tb.board.game
    assert tb.command("mrx", ticket="taxi", to=46)["ok"]
    tb.detectives_round()
    x = min(n for n in g.graph.neighbours(46, 0) if g.holder_of(n) < 0)
    assert tb.command("mrx", ticket="taxi", to=x)["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3
    assert _verdict(tb, [SALT, 45], [[SALT, 46], [SALT, 1]]) == \
        (False, "move_unreachable", 2, 1, 46)
    assert _verdict(tb, [SALT, 45], [[SALT, 46], [SALT, x]]) == (True, "route_ok", 2)
    # four moves, every one surfacing, revealed in chunks of 1 and 3: each checked as its own
    tb = _start(reveals=[1, 2, 3, 4], rounds=4)
    g = tb.board.game
    route = [46]
    assert tb.command("mrx", ticket="taxi", to=46)["ok"]
    for _ in range(3):
        tb.detectives_round()
        route.append(min(n for n in g.graph.neighbours(route[-1], 0) if g.holder_of(n) < 0 and n not in route))
        assert tb.command("mrx", ticket="taxi", to=route[-1])["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3
    assert tb.command("reveal", start=[SALT, 45], moves=[[SALT, route[0]]], more=True)["received"] == 1
    r = tb.command("reveal", offset=1, moves=[[SALT, s] for s in route[1:]])
    assert (r["verified"], r["why"], r["args"]) == (True, "route_ok", [4]), (route, r)
    tb = _start(reveals=[1], rounds=1)
    g = tb.board.game
    x = min(n for n in g.graph.neighbours(45, 0) if n != 46)  # a taxi ride from 45, as 46 is
    assert tb.command("mrx", ticket="taxi", to=46)["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3
    assert _verdict(tb, [SALT, 45], [[SALT, x]]) == (False, "move_surfaced", 1, 46, x)
    assert _verdict(tb, [SALT, 1], [[SALT, 46]]) == (False, "move_unreachable", 1, 46, 1)
    assert _verdict(tb, [SALT, 45], [[SALT, 400]]) == (False, "move_not_station", 1, 400)
    for bad in (0, -1, 200, 1000, 2 ** 40):  # a verdict, not an internal error (the map has no lines from there)
        assert _verdict(tb, [SALT, bad], [[SALT, 46]]) == (False, "move_not_station", 0, bad)
    # no commitment at setup: any start from which the route goes
    assert _verdict(tb, ["x", 47], [["y", 46]]) == (True, "route_ok", 1)


def test_a_chunk_reads_the_journal_from_the_line_of_its_first_move():
    # not from the first line: on a Pico that made 24 KB of garbage for each chunk of two moves
    tb, x, y = _committed_game()
    store = tb.store
    at = [a for a, _line in store.lines_at(0)]
    mrx = [a for a, line in store.lines_at(0) if json.loads(line)["type"] == "mrx"]  # the double (46, x), then y
    read = []
    # a chunk that stops early closes the journal (MicroPython would not)
    open_files, lines_at = watch_journal_readers(store, read)
    try:
        assert tb.command("reveal", start=[SALT, 45], moves=[[SALT, 46]], more=True)["received"] == 1
        assert read == [a for a in at if a <= mrx[0]], read  # up to the line of move 2, the double's half
        assert open_files == [0]
        read.clear()
        assert tb.command("reveal", offset=1, moves=[[SALT, x]], more=True)["received"] == 2
        assert read == [a for a in at if mrx[0] <= a <= mrx[1]], read
        assert open_files == [0]
        read.clear()
        r = tb.command("reveal", offset=2, moves=[[SALT, y]])
        assert r["verified"] is True and (r["why"], r["args"]) == ("route_ok", [3]), r
        assert read == [a for a in at if a >= mrx[1]], read  # the last chunk reads on to the end: the count
    finally:
        store.lines_at = lines_at


def test_a_journal_line_the_reveal_cannot_read_is_a_verdict_not_an_internal_error():
    """Mister X's lines of the journal as the board wrote them; one it did not write (another
    firmware's, a damaged one) ends the check with a verdict."""
    for line in ({"type": "mrx", "ticket": "boat"}, {"type": "mrx", "double": 5}, {"type": "mrx", "double": [{}]}):
        tb, x, y = _committed_game()
        tb.board.commit_line(line)
        verdict = _verdict(tb, [SALT, 45], [[SALT, 46], [SALT, x], [SALT, y]])
        assert verdict[:2] == (False, "malformed"), (line, verdict)


# --- service mode, the wizards' commands (sy/link/service.py) --------------------------------------------
def _led(tb, k):
    """LED chain index k's colour in the frame (full scale, r, g, b)."""
    f = tb.leds.frame
    return f[3 * k], f[3 * k + 1], f[3 * k + 2]


def _lit(tb):
    return [k for k in range(tb.leds.count) if _led(tb, k) != (0, 0, 0)]


def test_service_commands_need_service_mode_and_begin_says_so_once():
    tb = _board()
    for cmd in ("svc_led", "svc_raw", "svc_info", "svc_bus"):
        assert _refused(tb.command(cmd), "wrong_turn") == ("not_service",), cmd
    assert tb.command("svc_end")["was_active"] is False
    r = tb.command("svc_begin")
    assert (r["paused"], r["chips"], r["count"]) == (False, tb.app.chips, tb.leds.count), r
    r = tb.command("svc_begin")  # already: says whether the game is paused, nothing more
    assert r == {"ok": True, "id": r["id"], "paused": False}, r
    for unknown in ("svc_abc", "svc_zzz"):  # before svc_begin, after svc_raw
        assert _refused(tb.command(unknown), "bad_input") == ("unknown_command",)
    assert tb.command("svc_end")["was_active"] is True and tb.app.board is tb.board


def test_service_lights_one_led_every_led_or_none():
    tb = _board()
    assert tb.command("svc_begin")["ok"]
    n = tb.leds.count
    for k in (0, n - 1):
        assert tb.command("svc_led", index=k)["ok"]
        assert _lit(tb) == [k] and _led(tb, k) == (255, 255, 255)  # white by default
    seq = tb.strip.seq
    assert tb.command("svc_led", index=5, rgb=[255, 0, 7])["ok"]
    tb.run(1)
    assert tb.strip.seq > seq and _lit(tb) == [5] and _led(tb, 5) == (255, 0, 7)  # the others dark
    assert tb.command("svc_led", index=9, rgb=[0, 1, 0], keep=True)["ok"]
    assert _lit(tb) == [5, 9] and _led(tb, 9) == (0, 1, 0)  # keep: the others as they were
    seq = tb.strip.seq
    tb.run(3)
    assert tb.strip.seq == seq  # written only when a command changed it
    assert tb.command("svc_led", all=[1, 2, 3])["ok"]
    assert _lit(tb) == list(range(n)) and _led(tb, 0) == _led(tb, n - 1) == (1, 2, 3)
    assert tb.command("svc_led", off=True)["ok"] and _lit(tb) == []
    for bad in (-1, n, True, "3", None, 2.0):
        assert _refused(tb.command("svc_led", index=bad), "bad_input") == ("field", "index"), bad
    for bad in ([256, 0, 0], [0, -1, 0], [0, 0], [0, 0, 0, 0], "red", [True, 0, 0], [0, 0, 1.0], None):
        assert _refused(tb.command("svc_led", index=1, rgb=bad), "bad_input") == ("field", "rgb"), bad
        assert _refused(tb.command("svc_led", all=bad), "bad_input") == ("field", "rgb"), bad
    assert _lit(tb) == []
    assert tb.command("svc_led", index=1, rgb=(0, 0, 255))["ok"] and _led(tb, 1) == (0, 0, 255)


def test_service_raw_latches_every_scan_until_cleared():
    tb = _board()
    assert tb.command("svc_begin")["ok"]
    chips = tb.app.chips
    b57, b60 = tb.bit(57), tb.bit(60)

    def has(hexs, bit):
        return int(hexs[2 * (bit >> 3):2 * (bit >> 3) + 2], 16) & (0x80 >> (bit & 7))

    tb.set(57, True)
    tb.settle()
    tb.set(60, True)
    tb.run(1)  # one scan: raw, not yet debounced
    r = tb.command("svc_raw")
    assert r["chips"] == chips and len(r["raw"]) == len(r["stable"]) == len(r["ever"]) == len(r["ever_stable"]) == 2 * chips
    assert has(r["raw"], b57) and has(r["raw"], b60) and has(r["stable"], b57) and not has(r["stable"], b60), r
    assert r["buttons"] == 0 and r["cycles"] == tb.app.cycles
    tb.set(60, False)
    tb.settle()
    r = tb.command("svc_raw", clear=True)
    assert not has(r["raw"], b60) and has(r["ever"], b60) and not has(r["ever_stable"], b60), r  # latched
    assert has(r["ever_stable"], b57)
    r = tb.command("svc_raw")
    assert not has(r["ever"], b60) and has(r["ever"], b57) and has(r["ever_stable"], b57), r  # cleared, 57 still closed
    assert int(r["ever"], 16) == int(r["raw"], 16) and int(r["ever_stable"], 16) == int(r["stable"], 16)
    tb.button(2, True)
    tb.settle()
    assert tb.command("svc_raw")["buttons"] == 0x80 >> 2
    tb.button(2, False)
    tb.settle()
    assert tb.board.reed(57) == REED_OPEN  # the game does not see switches in service mode
    assert tb.command("svc_end")["ok"]
    tb.run(1)
    assert tb.board.reed(57) == REED_CLOSED and tb.board.reed(60) == REED_OPEN  # it reads them all again after


def test_service_info_maps_every_station_to_its_bit_and_led():
    tb = _board()
    assert tb.command("svc_begin")["ok"]
    info = tb.command("svc_info")
    assert info["chips"] == tb.app.chips and info["count"] == tb.leds.count and info["paused"] is False
    assert len(info["bits"]) == len(info["index"]) == 199
    assert [info["bits"][s - 1] for s in (1, 57, 199)] == [tb.bit(1), tb.bit(57), tb.bit(199)]
    sl = tb.leds.station_led
    assert [info["index"][s - 1] for s in (1, 57, 199)] == [sl[2 * s] | sl[2 * s + 1] << 8 for s in (1, 57, 199)]
    assert info["index"][:3] == [0, 1, 2] and info["index"][198] == 198  # the identity map of this config
    from sy.hardware import boardconfig
    index = [(s * 7) % 199 + 256 * (s % 3) for s in range(199)]  # a chain past 255 LEDs, in no order
    tb = TestBoard(TMP, boardconfig.validate({"board": "pico", "leds": {"count": 720, "index": index}}))
    assert tb.command("svc_begin")["ok"]
    info = tb.command("svc_info")
    assert info["count"] == 720 and info["index"] == index, info["index"][:8]


class _QuietPin:
    def value(self, v=None):
        return 0


def test_service_bus_checks_its_clocks_and_reads():
    from sy.hardware import boardconfig, backends as hw
    tb = _board()
    assert tb.command("svc_begin")["ok"]
    r = tb.command("svc_bus", baudrates=[250000])
    assert _refused(r, "bad_input") == ("no_spi",), r
    tb.app.inputs.reeds = object()  # reeds, but not on an SPI bus
    r = tb.command("svc_bus", baudrates=[250000])
    assert _refused(r, "bad_input") == ("no_spi",), r
    inputs, _leds = hw.real(boardconfig.validate({"board": "pico"}))
    tb.app.inputs.reeds = reeds = inputs.reeds  # a chain on a fake SPI bus, as fw_cases' bus sweep
    reeds.spi.data = bytes([0xFF] * (tb.app.chips - 1) + [0xFE, 0xFF])   # the marker and the tail (sy.hardware.reeds)
    reeds.load = _QuietPin()  # the fake pin logs every level: 500 reads would fill the unix port's heap
    r = tb.command("svc_bus", baudrates=[1000000, 250000])
    assert r["ok"] and r["results"] == [[250000, 0, 20], [1000000, 0, 20]], r  # 20 reads by default
    assert (r["configured"], r["spi_mode"]) == (reeds.baudrate, reeds.spi_mode), r
    r = tb.command("svc_bus", baudrates=[10000, 10000000], reads=2)
    assert r["results"] == [[10000, 0, 2], [10000000, 0, 2]], r
    r = tb.command("svc_bus", baudrates=[10000] * 12, reads=2)
    assert r["ok"] and len(r["results"]) == 12, r
    r = tb.command("svc_bus", baudrates=[10000], reads=500)
    assert r["ok"] and r["results"] == [[10000, 0, 500]], r
    # each clock in the configured SPI mode (CPOL, CPHA), and a read that differs either way counts
    for mode in (0, 1, 2, 3):
        inits = []
        spi = reeds.spi
        real_init = spi.init

        def init(baudrate=None, polarity=None, phase=None):
            inits.append((polarity, phase))
            real_init(baudrate=baudrate, polarity=polarity, phase=phase)

        spi.init = init
        reeds.spi_mode = mode
        for data in (0x00, 0xFF):  # (the chain inverts: a fault reads one bit higher, or lower)
            spi.data = bytes([data] * (tb.app.chips - 1) + [data & 0xFE, 0xFF])
            spi.max_baud = 1000000
            r = tb.command("svc_bus", baudrates=[2000000, 250000], reads=9)
            assert r["results"] == [[250000, 0, 9], [2000000, 3, 9]] and r["spi_mode"] == mode, (mode, data, r)
        spi.max_baud = None
        spi.init = real_init
        assert inits and inits == [(mode >> 1, mode & 1)] * len(inits), (mode, inits)
    for bad in ("fast", [], [10000] * 13, None):
        assert _refused(tb.command("svc_bus", baudrates=bad), "bad_input") == ("field", "baudrates"), bad
    for bad in (9999, 10000001, True, 250000.0, "250000"):
        assert _refused(tb.command("svc_bus", baudrates=[250000, bad]), "bad_input") == ("field", "baudrates"), bad
    for bad in (1, 501, True, 20.0, "20"):
        assert _refused(tb.command("svc_bus", baudrates=[250000], reads=bad), "bad_input") == ("field", "reads"), bad


def test_service_mode_during_a_game_pauses_it_and_gives_it_back():
    tb = _start(detectives=[13, 26], bobbies=[29, 34])
    assert _refused(tb.command("svc_begin"), "wrong_turn") == ("game_on",)
    r = tb.command("svc_begin", pause=True)
    assert r["paused"] is True and tb.command("svc_info")["paused"] is True
    tb.lift(13)  # unseen in service mode
    assert tb.board.reed(13) == REED_CLOSED
    tb.run(10)
    assert tb.command("svc_end")["was_active"] is True
    b = tb.board
    assert b.restoring and b.reed(13) == REED_OPEN and b.now == tb.now  # the game waits for the pieces to agree again
    tb.place(13)
    assert not b.restoring
    assert tb.command("mrx", ticket="taxi")["ok"]


def test_service_mode_after_a_game_ended_leaves_it_ended():
    tb = _start(rounds=1)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.detectives_round()
    assert tb.board.stage == 3
    assert tb.command("svc_begin")["paused"] is False  # no game in progress: nothing to pause
    assert tb.command("svc_end")["was_active"] is True
    st = tb.command("status")
    assert st["stage"] == "over" and st["restoring"] is False, st


def test_service_mode_ends_by_itself_after_two_minutes_without_a_command():
    from sy.link.service import IDLE_MS
    tb = _board()
    assert IDLE_MS == 120000
    assert tb.command("svc_begin")["ok"]
    tb.run((IDLE_MS - 1000) // tb.period)
    assert tb.command("svc_raw")["ok"]  # a command: two more minutes
    tb.run((IDLE_MS - 1000) // tb.period)
    assert tb.app.board is not tb.board
    tb.run(1200 // tb.period)
    assert tb.app.board is tb.board  # left: the game has the switches and the LEDs again
    assert _refused(tb.command("svc_raw"), "wrong_turn") == ("not_service",)
    assert tb.command("svc_begin")["ok"]
    svc = tb.app.board
    tb.run((svc.last_cmd + IDLE_MS - tb.now) // tb.period)
    assert tb.now == svc.last_cmd + IDLE_MS and tb.app.board is svc  # two minutes exactly: not yet
    tb.run(1)
    assert tb.app.board is tb.board
