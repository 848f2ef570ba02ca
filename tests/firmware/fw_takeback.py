"""Take-back tests as plain functions (tests/test_firmware_units.py runs them under CPython and under
the MicroPython unix port, as tests/firmware/fw_cases.py; a file of their own, so each file's
compiled test code fits the unix port's test heap)."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.play.board import PIECE_RGB
from testkit import TestBoard, scratch
from sy.play.board import HAND_TAKEN_BACK

TMP = scratch("sy-fwtest-takeback")


def _start(detectives=(13, 26, 29, 34, 50)):
    tb = TestBoard(TMP)
    tb.start_game(detectives)
    return tb


def _record(tb, everything=False):
    tb.messages()
    r = tb.command("record", all=everything) if everything else tb.command("record")
    assert r["ok"], r
    return [m["line"] for m in tb.messages() if "line" in m]


def test_take_back_by_the_confirm_button_held():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    g = tb.board.game
    before = (bytes(g.pos), list(g.tickets[0]), bytes(g.supply), g.candidates(), g.to_move())
    tb.lift(13)
    tb.place(23)
    tb.press(1)  # bus
    assert g.pos[0] == 23 and list(g.tickets[0]) == [11, 7, 4]
    tb.press(3)  # a short press only shows the travel log
    assert g.pos[0] == 23
    tb.messages()
    tb.hold_confirm()
    evs = [m["ev"] for m in tb.messages() if "ev" in m]
    assert evs == [{"type": "undo", "piece": "D1", "from": 23, "to": 13}], evs
    assert (bytes(g.pos), list(g.tickets[0]), bytes(g.supply), g.candidates(), g.to_move()) == before
    b = tb.board
    assert (b.hand, b.piece) == (HAND_TAKEN_BACK, 0) and b.n_missing == 1 and list(b.extra[:b.n_extra]) == [23]
    blink = set()
    for _ in range(120):
        tb.run(1)
        blink.add(tb.colour(13))
    lit = tuple((c * 255) >> 8 for c in PIECE_RGB[0:3])
    assert (0, 0, 0) in blink and lit in blink, blink  # D1's station blinks in its colour
    # nothing commits until D1 stands on 13 again: not the piece lifted and put down elsewhere,
    # not another piece, not the host's commands
    tb.lift(23)
    tb.place(4)
    assert g.pos[0] == 13 and g.moved == 0 and (b.hand, b.piece) == (HAND_TAKEN_BACK, 0)
    assert tb.command("mrx", ticket="taxi")["error"] == "wrong_turn"
    r = tb.command("undo")
    assert (r["error"], r["why"], r["args"]) == ("wrong_turn", "put_back", ["D1", 13]), r
    tb.lift(4)
    tb.place(13)
    assert b.hand != HAND_TAKEN_BACK and any(m.get("note") == "back" for m in tb.messages())
    assert b.n_extra == 0 and g.pos[0] == 13
    # the piece moves again as if it had never moved
    tb.lift(13)
    tb.place(4)
    assert g.pos[0] == 4 and list(g.tickets[0]) == [10, 8, 4]
    moves = [line for line in _record(tb) if line["type"] == "move"]
    assert moves == [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}], moves
    every = [line["type"] for line in _record(tb, True)]
    assert every[-3:] == ["move", "undo", "move"], every


def test_the_confirm_button_on_a_final_move_names_that_move():
    # the turn's last move handed Mister X the turn: final; the button's refusal names it (D5, not
    # the turn's first mover), so that his host can ask him for his consent
    tb = _start()
    tb.command("mrx", ticket="taxi")
    g = tb.board.game
    finish = [(i, g.legal(i)[0][0]) for i in range(5)]
    for i, to in finish:
        tb.lift(g.pos[i])
        tb.place(to)
    assert g.phase == 0
    moved = g.save()
    tb.messages()
    tb.hold_confirm()
    msgs = tb.messages()
    refused = [m for m in msgs if m.get("note") == "refused"]
    assert len(refused) == 1 and refused[0]["error"] == "needs_consent", msgs
    assert (refused[0]["piece"], refused[0]["from"], refused[0]["to"]) == ("D5", finish[4][1], 50), refused  # back to 50
    assert not [m for m in msgs if "ev" in m] and g.save() == moved


def test_take_back_by_the_host_and_its_refusals():
    tb = _start()
    r = tb.command("undo")
    assert (r["error"], r["why"]) == ("wrong_turn", "nothing_to_take_back"), r
    tb.command("mrx", ticket="taxi")
    assert tb.command("undo")["error"] == "wrong_turn"
    g = tb.board.game
    finish = [(i, g.legal(i)[0][0]) for i in range(5)]
    for i, to in finish:
        tb.lift(g.pos[i])
        tb.place(to)
    assert g.phase == 0  # the turn is over: Mister X's; its moves can be taken back until he moves
    r = tb.command("undo", piece="D2")
    assert (r["error"], r["why"]) == ("wrong_turn", "not_last"), r
    assert tb.command("undo", piece="D9")["error"] == "bad_input"
    r = tb.command("undo", piece="D5")  # the move that handed him the turn is final (docs/fairplay.md)
    assert r["error"] == "needs_consent", r
    assert tb.command("undo", piece="D5", consent=True)["ok"]
    assert g.phase == 1 and g.to_move() == 1 << 4 and g.pos[4] == 50
    tb.lift(finish[4][1])
    tb.place(50)
    assert tb.command("undo", piece="D4")["ok"]
    tb.lift(finish[3][1])
    tb.place(34)
    assert g.to_move() == 3 << 3
    for i in (3, 4):
        tb.lift(g.pos[i])
        tb.place(finish[i][1])
    assert g.phase == 0 and tb.command("mrx", ticket="taxi")["ok"]
    r = tb.command("undo")
    assert r["error"] == "wrong_turn"  # Mister X moved: the earlier turn stands
    moves = [line for line in _record(tb) if line["type"] == "move"]
    assert [m["piece"] for m in moves] == ["D1", "D2", "D3", "D4", "D5"], moves


def test_power_cut_before_during_and_after_a_take_back():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(4)
    moved = tb.board.game.save()
    # before: the move stands, and can still be taken back after the restart
    tb.reboot()
    assert tb.board.game.save() == moved and not tb.board.restoring and tb.store.seq == 4

    # during: the undo line journaled, the cut before the snapshot: the move stands
    class Cut(Exception):
        pass

    def cut(*_a):
        raise Cut()
    tb.board.save = cut
    r = tb.command("undo")
    assert not r["ok"]
    tb.reboot()
    b = tb.board
    assert b.game.save() == moved and not b.restoring and b.store.seq == 4
    assert [line["type"] for line in _record(tb, True)] == ["setup", "ready", "mrx", "move"]
    # after: taken back, the cut while D1 still stands on 4: it resumes taken back, D1 to put back
    assert tb.command("undo")["ok"]
    tb.reboot()
    b = tb.board
    g = b.game
    assert g.pos[0] == 13 and g.moved == 0 and list(g.tickets[0]) == [11, 8, 4] and b.restoring
    r = tb.command("status")
    assert r["missing"] == ["D1"] and r["extra"] == [4]
    tb.lift(4)
    tb.place(13)
    assert not b.restoring
    assert tb.command("undo")["error"] == "wrong_turn"  # nothing left to take back
    tb.lift(13)
    tb.place(14)  # bus
    assert g.pos[0] == 14
    moves = [line for line in _record(tb) if line["type"] == "move"]
    assert moves == [{"type": "move", "piece": "D1", "ticket": "bus", "to": 14}], moves
    # a take-back after a restart: the turn's moves are in the snapshot
    tb.reboot()
    assert tb.command("undo")["ok"] and tb.board.game.pos[0] == 13
