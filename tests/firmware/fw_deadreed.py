"""Reeds out of service (sy/play/deadreed.py) as plain functions: tests/test_firmware_units.py runs them
under CPython and under the MicroPython unix port. A reed stuck closed or never closing, at a start
station or at a station the game passes, is taken out of service and a whole game plays to its
end with the board agreeing with Mister X's truth after every move (testkit.play_game)."""
import json
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.hardware import boardconfig
from testkit import TestBoard, MemInputs, play_game, scratch
from sy.play.board import TRANSPORT_RGB, PLAY, HAND_TAKEN_BACK, REED_OPEN, REED_CLOSED, REED_STRAY

TAXI = tuple(TRANSPORT_RGB[0:3])  # the firmware's taxi colour, full scale as tb.colour reads it
WHITE = (255, 255, 255)  # a station out of service: the firmware draws it as 255, 255, 255

TMP = scratch("sy-fwtest-deadreed")


class FaultInputs(MemInputs):
    """Memory inputs with one reed broken: stuck closed (True) or never closing (False)."""

    def __init__(self, nbytes, bit, closed):
        MemInputs.__init__(self, nbytes)
        self.fault = (bit, closed)

    def scan(self, bitmap):
        MemInputs.scan(self, bitmap)
        bit, closed = self.fault
        if closed:
            bitmap[bit >> 3] |= 0x80 >> (bit & 7)
        else:
            bitmap[bit >> 3] &= ~(0x80 >> (bit & 7)) & 0xFF


class DeadBoard(TestBoard):
    """A TestBoard whose players press confirm after putting a piece on a station out of service."""

    def __init__(self, folder, cfg=None, fresh=True, period_ms=5, dead=0, stuck_closed=False):
        cfg = cfg or boardconfig.validate({"board": "pico", "debounce_ms": 30, "scan_hz": 200,
                                           "reeds": {"dead": [dead]}})
        if not isinstance(getattr(self, "inputs", None), FaultInputs):  # a reboot keeps the switches
            self.inputs = FaultInputs(cfg["reeds"]["chips"] + 1, cfg["reeds"]["bits"][dead - 1], stuck_closed)
        self.confirms = 0
        TestBoard.__init__(self, folder, cfg, fresh=fresh, period_ms=period_ms)

    def place(self, station):
        TestBoard.place(self, station)
        bl = self.board.blind
        if bl is not None and bl.dead[station] and self.board.piece_in_hand() >= 0:
            self.confirms += 1
            self.press(3)


def _events(tb):
    r = tb.command("record", all=True)
    assert r["ok"], r
    return [m["line"] for m in tb.messages() if "line" in m]


_BASE = {}


def _game(dead, stuck_closed, detectives=(13, 26, 29, 34, 50), seed=7):
    """The seeded game with `dead` out of service ends as it does with every reed working (and
    play_game checked the board against Mister X's truth after every move)."""
    if seed not in _BASE:
        base = play_game(TestBoard(TMP), detectives=detectives, seed=seed)
        _BASE[seed] = (base["pieces"], base["log"], base["tickets"], base["result"], base["reason"])
    tb = DeadBoard(TMP, dead=dead, stuck_closed=stuck_closed)
    st = play_game(tb, detectives=detectives, seed=seed)
    assert st["dead"] == [dead], st["dead"]
    assert st["stage"] == "over", st
    assert (st["pieces"], st["log"], st["tickets"], st["result"], st["reason"]) == _BASE[seed]
    return tb, st


def _visits(seed=7):
    """The stations detectives go to in the seeded game (with every reed working)."""
    tb = TestBoard(TMP)
    play_game(tb, seed=seed)
    out = []
    for line in _events(tb):
        if line.get("type") == "move" and line.get("piece", "X")[0] in "DB" and line["to"] not in out:
            out.append(line["to"])
    return out


def test_config_dead_list():
    cfg = boardconfig.validate({"reeds": {"dead": [45, 3]}})
    assert cfg["reeds"]["dead"] == [45, 3]
    assert "dead" not in boardconfig.validate({})["reeds"] and "dead" not in boardconfig.validate({"reeds": {"dead": []}})["reeds"]
    for bad in ([0], [200], ["4"], [True], [4, 4], 45, list(range(1, 23))):
        try:
            boardconfig.validate({"reeds": {"dead": bad}})
        except boardconfig.ConfigError as e:
            assert e.key == "reeds.dead", e.key
            assert e.why == "dead_stations" and e.values[:2] == ("20", "199"), str(e)
        else:
            raise AssertionError("accepted reeds.dead %r" % (bad,))


def test_max_dead_agrees():
    from sy.play import deadreed
    assert deadreed.MAX_DEAD == boardconfig.MAX_DEAD


def test_start_station_stuck_open():
    tb, _st = _game(13, False)


def test_start_station_stuck_closed():
    tb, _st = _game(26, True)


def test_visited_station_both_kinds():
    dest = _visits()[2]
    for closed in (False, True):
        tb, _st = _game(dest, closed)
        assert tb.confirms >= 1, "the game never put a piece on %d" % dest


def test_reed_command_remembered_in_board_json():
    tb = TestBoard(TMP)
    r = tb.command("reed", station=45, out=True)
    assert r["ok"] and r["dead"] == [45], r
    assert tb.command("reed", station=3, out=True)["dead"] == [3, 45]
    f = open(TMP + "/board.json")
    cfg = json.load(f)
    f.close()
    assert cfg["reeds"]["dead"] == [3, 45]
    assert boardconfig.load(TMP + "/board.json")["reeds"]["dead"] == [3, 45]
    assert tb.command("status")["dead"] == [3, 45]
    tb.reboot()
    assert tb.board.blind.dead[45] and tb.board.blind.dead[3] and tb.board.blind.n == 2
    assert tb.command("reed", station=3, out=False)["dead"] == [45]
    assert tb.command("status")["dead"] == [45]
    assert tb.command("reed", station=45, out=False)["dead"] == []
    assert tb.board.blind is None


def test_reed_command_refuses_bad_input():
    tb = TestBoard(TMP)
    for args in ({"station": 0, "out": True}, {"station": 200, "out": True}, {"station": "4", "out": True},
                 {"station": 4, "out": 1}, {"station": 4, "out": 0}, {"station": 4}, {"out": True}):
        r = tb.command("reed", **args)
        assert not r["ok"] and r["error"] == "bad_input", r
        assert (r["why"], r["args"]) == ("field", ["station" if args.get("station") != 4 else "out"]), r
    assert "dead" not in tb.command("status")
    f = open(TMP + "/board.json")
    assert "dead" not in json.load(f)["reeds"]
    f.close()


def test_taken_out_during_a_game_and_place_by_the_host():
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[13, 26], bobbies=[29, 34])["ok"]
    for s in (13, 26, 29, 34):
        tb.place(s)
    tb.command("mrx", ticket="taxi")
    # station 4 (taxi from 13) and 14 (bus) go out of service; D1 lifted: two blind destinations
    assert tb.command("reed", station=4, out=True)["ok"]
    assert tb.command("reed", station=14, out=True)["ok"]
    tb.messages()
    tb.lift(13)
    tb.run(20)
    notes = [m for m in tb.messages() if m.get("note") == "lifted"]
    assert notes and notes[-1]["confirm"] == [4, 14], notes
    tb.press(3)
    where = [m for m in tb.messages() if m.get("note") == "where"]
    assert where == [{"note": "where", "piece": "D1", "stations": [4, 14]}], where
    assert tb.board.game.pos[0] == 13
    r = tb.command("place", piece="D1", station=26)
    assert not r["ok"], r  # 26 is in service
    r = tb.command("place", piece="D2", station=4)
    assert not r["ok"] and r["error"] == "wrong_turn", r
    for args in ({"piece": "D1"}, {"piece": "D1", "station": 14, "ticket": "black"}):  # no station; no such ride
        r = tb.command("place", **args)
        assert not r["ok"] and r["error"] == "bad_input", r
        assert (r["why"], r["args"]) == ("field", ["ticket" if "ticket" in args else "station"]), r
    r = tb.command("place", piece="D1", station=14)
    assert r["ok"], r
    assert tb.board.game.pos[0] == 14
    evs = [m["ev"] for m in tb.messages() if "ev" in m]
    assert evs == [{"type": "move", "piece": "D1", "ticket": "bus", "to": 14}], evs
    # D1 now stands on 14 (out of service) and is not missing; it moves again next round
    assert tb.board.n_missing == 0 and tb.board.n_extra == 0


class _PowerCutAtRename:
    """The os module for sy.play.deadreed, with the power cut at the n-th rename."""

    def __init__(self, real, n):
        self.real = real
        self.left = n

    def rename(self, a, b):
        self.left -= 1
        if self.left == 0:
            raise OSError(5)  # EIO: the power went
        self.real.rename(a, b)

    def remove(self, p):
        self.real.remove(p)


def test_a_rewrite_cut_between_its_own_renames_is_finished_at_boot():
    # the rewrite's own file names, cut where it has moved board.json aside and not yet put the new
    # one in its place: recover() at boot must find what the rewrite left
    import os
    from sy.play import deadreed
    tb = TestBoard(TMP)
    path = TMP + "/board.json"
    deadreed.os = _PowerCutAtRename(os, 2)
    try:
        r = tb.command("reed", station=45, out=True)
    finally:
        deadreed.os = os
    assert not r["ok"], r
    try:
        open(path).close()
        assert False, "board.json is still there: the cut came too late"
    except OSError:
        pass
    assert deadreed.recover(path) and boardconfig.load(path)["reeds"]["dead"] == [45]


def test_a_rewrite_cut_by_a_power_cut_is_finished_at_boot():
    import os
    from sy.play.deadreed import recover
    tb = TestBoard(TMP)
    path = TMP + "/board.json"
    assert tb.command("reed", station=45, out=True)["ok"]
    assert not recover(path)  # nothing to do
    # cut after board.json -> board.old, before board.new -> board.json
    os.rename(path, TMP + "/board.new")
    assert recover(path) and boardconfig.load(path)["reeds"]["dead"] == [45]
    # a board.new left beside a good board.json (cut while writing it) is not taken
    f = open(TMP + "/board.new", "w")
    f.write("{broken")
    f.close()
    assert not recover(path) and boardconfig.load(path)["reeds"]["dead"] == [45]
    os.remove(TMP + "/board.new")
    os.remove(path)
    assert not recover(path)  # nothing to finish: no config at all


def _dead_game(dead, closed, detectives=(13, 26), bobbies=(29, 34)):
    tb = DeadBoard(TMP, dead=dead, stuck_closed=closed)
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=list(detectives), bobbies=list(bobbies))["ok"]
    for s in list(detectives) + list(bobbies):
        tb.place(s)
    assert tb.board.stage == PLAY
    tb.command("mrx", ticket="taxi")
    tb.messages()
    return tb


def _evs(tb):
    return [m["ev"] for m in tb.messages() if "ev" in m]


def test_a_move_onto_a_dead_station_taken_back_and_made_again():
    for closed in (False, True):
        tb = _dead_game(4, closed)
        g = tb.board.game
        tb.lift(13)
        tb.place(4)  # DeadBoard presses confirm
        assert g.pos[0] == 4 and _evs(tb) == [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]
        tb.button(3, True)  # held: the take-back
        tb.settle()
        tb.run(1600 // tb.period)
        tb.button(3, False)
        tb.settle()
        assert _evs(tb) == [{"type": "undo", "piece": "D1", "from": 4, "to": 13}]
        assert g.pos[0] == 13 and (tb.board.hand, tb.board.piece) == (HAND_TAKEN_BACK, 0)
        tb.lift(4)  # unseen: the piece goes back to 13
        tb.place(13)
        assert tb.board.hand != HAND_TAKEN_BACK and tb.board.n_missing == 0 and tb.board.n_extra == 0
        tb.lift(13)
        tb.place(4)
        assert g.pos[0] == 4 and _evs(tb) == [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]


def test_a_piece_on_a_dead_station_moves_off_it_and_an_illegal_landing_waits():
    for closed in (False, True):
        tb = _dead_game(13, closed)  # D1 starts on the dead station
        g = tb.board.game
        b = tb.board
        tb.place(100)  # not a legal destination of D1 (nor of anyone): an error, nothing committed
        got = tb.messages()
        assert [m for m in got if "ev" in m] == [] and g.pos[0] == 13
        assert [(m["piece"], m["station"]) for m in got if m.get("note") == "illegal"] == [("D1", 100)], got
        tb.lift(100)
        assert b.n_missing == 0 and b.n_extra == 0 and b.piece_in_hand() == -1
        tb.lift(13)  # unseen
        tb.place(4)  # taxi from 13
        assert g.pos[0] == 4 and _evs(tb) == [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]


def test_a_power_cut_with_a_piece_on_a_dead_station_resumes():
    tb = _dead_game(4, True)
    tb.lift(13)
    tb.place(4)
    assert tb.board.game.pos[0] == 4
    tb.reboot()
    b = tb.board
    assert b.blind is not None and b.blind.dead[4]
    tb.run(20)
    assert not b.restoring and b.n_missing == 0 and b.n_extra == 0, (b.restoring, b.n_missing, b.n_extra)
    assert b.game.pos[0] == 4


def test_a_destination_out_of_service_alternates_white_with_its_transport():
    tb = _dead_game(4, False)
    tb.lift(13)
    seen = []
    for _ in range(300):  # 1.5 s of frames
        tb.run(1)
        c = tb.colour(4)
        if c not in seen:
            seen.append(c)
    assert WHITE in seen and TAXI in seen, seen
    other = tb.colour(14)  # a destination in service (bus): never white
    assert other != WHITE


def test_a_reed_back_in_service_reads_its_switch():
    tb = TestBoard(TMP)
    for s in (1, 45, 100, 199):  # bits in different bytes and places of their byte
        byte = [t for t in range(1, 200) if t != s and tb.bit(t) >> 3 == tb.bit(s) >> 3]
        for closed in (True, False):
            assert tb.command("reed", station=s, out=True)["dead"] == [s]
            for t in byte:  # the other switches of its byte closed: its own bit is read
                tb.set(t, True)
            tb.set(s, closed)  # unseen while out of service
            tb.settle()
            tb.run(len(byte) + 1)  # one switch's change a scan cycle
            assert tb.board.reed(s) == REED_OPEN  # its switch is not heard while out of service
            assert tb.command("status")["dead"] == [s]
            assert tb.command("reed", station=s, out=False)["dead"] == []
            assert tb.board.reed(s) == (REED_CLOSED if closed else REED_OPEN), (s, closed)
            for t in byte + [s]:
                tb.set(t, False)
            tb.settle()
            tb.run(len(byte) + 1)
    assert not any(tb.board.reed(s) for s in range(1, 200))


def test_a_reed_that_cannot_be_written_into_board_json_changes_nothing():
    import os
    tb = TestBoard(TMP)
    os.remove(TMP + "/board.json")
    r = tb.command("reed", station=45, out=True)
    assert not r["ok"] and r["error"] == "bad_input", r
    assert r["why"] == "config_write", r
    assert tb.board.blind is None and "dead" not in tb.command("status")


def _host_places():
    """D1 on 13 may move; stations 4 (taxi from 13) and 14 (bus) are out of service."""
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[13, 26], bobbies=[29, 34])["ok"]
    for s in (13, 26, 29, 34):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    assert tb.command("reed", station=4, out=True)["ok"] and tb.command("reed", station=14, out=True)["ok"]
    tb.messages()
    return tb


def test_a_place_with_a_ticket_that_does_not_go_there_is_refused_and_forgets_the_ticket():
    tb = _host_places()
    b = tb.board
    tb.lift(13)
    r = tb.command("place", piece="D1", station=4, ticket="underground")  # 4 is a taxi ride from 13
    assert not r["ok"] and r["error"] == "illegal" and (r["why"], r["args"]) == ("cannot_go", ["D1", 4]), r
    assert b.chosen_ticket() == -1 and b.piece_in_hand() == 0
    r = tb.command("place", piece="D1", station=26)
    assert not r["ok"] and r["error"] == "bad_input" and (r["why"], r["args"]) == ("in_service", [26]), r
    seq = tb.store.seq
    r = tb.command("place", piece="D1", station=4)  # by taxi, the only way: committed at once
    assert r["ok"] and r["seq"] == tb.store.seq == seq + 1 and "pending" not in r and b.game.pos[0] == 4, r
    r = tb.command("place", piece="D1", station=14, ticket="bus")  # D1 has moved: not in hand
    assert not r["ok"] and r["error"] == "wrong_turn" and (r["why"], r["args"]) == ("not_in_hand", ["D1"]), r
    assert b.game.pos[0] == 4 and b.piece_in_hand() == -1


def test_at_most_20_reeds_out_of_service():
    tb = TestBoard(TMP)
    for s in range(1, 21):
        assert tb.command("reed", station=s, out=True)["ok"]
    r = tb.command("reed", station=21, out=True)
    assert not r["ok"] and r["error"] == "bad_input", r
    assert (r["why"], r["args"]) == ("too_many_dead", [20]), r
    assert tb.board.blind.n == 20 and not tb.board.blind.dead[21]
    assert tb.command("reed", station=20, out=True)["dead"] == list(range(1, 21))  # already out: unchanged


def test_the_host_places_a_piece_standing_out_of_sight_without_a_lifted_note():
    tb = _host_places()
    assert tb.command("reed", station=13, out=True)["ok"]  # D1 stands there, unseen
    tb.messages()
    r = tb.command("place", piece="D1", station=14, ticket="taxi")  # 14 is a bus ride from 13
    assert not r["ok"] and r["error"] == "illegal" and tb.board.piece_in_hand() == 0, r
    tb.run(5)
    notes = [m["note"] for m in tb.messages() if "note" in m]
    assert "lifted" not in notes, notes  # the host lifted it: the players are not told
    r = tb.command("place", piece="D1", station=4)
    assert r["ok"] and tb.board.game.pos[0] == 4, r


def test_a_ticket_pressed_leaves_white_only_the_destinations_out_of_service_it_reaches():
    tb = _host_places()
    tb.lift(13)  # D1 in hand: 4 (taxi) and 14 (bus) are out of service

    def whites(cycles):
        seen = set()
        for _ in range(cycles):
            tb.run(1)
            for st in (4, 14):
                if tb.colour(st) == WHITE:
                    seen.add(st)
        return sorted(seen)

    assert whites(300) == [4, 14]
    tb.press(1)  # the bus ticket first
    assert tb.board.chosen_ticket() == 1
    assert whites(300) == [14]


def test_a_short_confirm_after_a_reset_with_a_piece_in_hand_does_nothing():
    tb = _host_places()
    tb.lift(13)
    assert tb.board.piece_in_hand() == 0
    assert tb.command("reset", confirm=True)["ok"] and tb.board.stage == 0
    tb.messages()
    tb.press(3)
    tb.run(5)
    assert [m for m in tb.messages() if "note" in m] == [] and tb.board.stage == 0 and tb.board.game is None
    assert tb.command("status")["ok"]


def test_with_no_piece_out_of_sight_a_closing_station_is_a_stray():
    tb = _host_places()  # 4 and 14 out of service, no piece on them
    b = tb.board
    assert b.blind.hidden_mover(b.game, b.game.to_move()) == -1
    tb.set(100, True)  # nothing in hand: a stray, not a placement of a piece nobody sees lifted
    tb.settle()
    assert b.reed(100) == REED_STRAY and b.n_extra == 1 and b.n_missing == 0 and b.piece_in_hand() == -1
    tb.set(100, False)
    tb.settle()
    assert b.n_extra == 0


def test_a_piece_out_of_sight_is_shown_lifted_for_one_placement_only():
    tb = _host_places()
    b = tb.board
    assert tb.command("reed", station=13, out=True)["ok"]  # D1 stands there, unseen, and may move
    tb.messages()
    tb.set(100, True)  # one station closes: D1 was lifted and put there (not a move of D1: illegal)
    tb.settle()
    assert b.n_missing == 1 and b.piece_in_hand() == 0
    illegal = [m for m in tb.messages() if m.get("note") == "illegal"]
    assert [(m["piece"], m["station"]) for m in illegal] == [("D1", 100)], illegal  # told once
    for s in (101, 102, 103, 104):  # more closing: no longer one placement, D1 is where the game says
        tb.set(s, True)
        tb.settle()
        assert b.n_missing == 0 and b.piece_in_hand() == -1, s


def test_a_short_confirm_after_the_game_ended_with_a_piece_in_hand_does_nothing():
    from sy.rules import commit as commitlib
    salt = "ab" * 16
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[13, 47, 29, 34, 50], bobbies=[], commit=commitlib.commitment(45, salt))["ok"]
    for s in (13, 47, 29, 34, 50):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi", commit=commitlib.commitment(46, salt))["ok"]
    assert tb.command("reed", station=4, out=True)["ok"]  # a taxi ride from 13
    tb.lift(47)
    tb.place(46)  # D2 moves onto him
    tb.lift(13)  # D1 in hand, 4 among its destinations
    assert tb.board.piece_in_hand() == 0
    assert tb.command("capture", piece="D2", reveal=[salt, 46])["ok"] and tb.board.stage == 3
    tb.messages()
    tb.press(3)
    tb.run(5)
    assert tb.board.game.pos[0] == 13 and tb.board.stage == 3
    assert [m for m in tb.messages() if m.get("note") in ("where", "illegal")] == []


def test_a_board_without_a_config_path_of_its_own_rewrites_the_simulators():
    import os
    from sy.play.deadreed import config_path

    class App:
        pass

    assert config_path(App()) == (os.getenv("SY_SIM") or "sim") + "/board.json"  # the unix port: the simulator's
    app = App()
    app.config_path = TMP + "/board.json"
    assert config_path(app) == TMP + "/board.json"
