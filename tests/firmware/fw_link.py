"""The link to the host as plain functions (tests/test_firmware_units.py runs them under CPython and
under the MicroPython unix port): sy/link/lines.py (serial bytes -> lines), sy/link/proto.py (a line
-> a command's reply or error reply, what the host sees on the wire) and sy/link/fields.py (a
command's field checks). What tests/firmware/fw_cases.py leaves out: which lines count as JSON, the
error reply of every kind of bad line, the id rules, acks, and the bytes a Link reads."""
import io
import json
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.link import proto
from sy.link.proto import well_formed
from sy.link.lines import Link, MAX_LINE
from sy.link.fields import ProtoError, ticket_arg, station_arg, commit_arg
from sy.rules.base import RuleError
from testkit import TestBoard, scratch

TMP = scratch("sy-fwtest-link")


# --- which lines are JSON (a line that is not must never run as a command) ----------------------
def test_json_values_are_well_formed():
    for text in (b'{}', b'[]', b'{"a": 1}', b'{"a":[1,2,{"b":null}],"c":"d"}', b'[true, false, null]',
                 b' \t{ "id" : 5 , "cmd" : "ping" }\r\n', b'"x"', b'12', b'-1.5e+3', b'[[[[]]]]',
                 b'{"s": "a\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u00e9"}', b'{"s": "\xc3\xa9"}',
                 b'[{}, [], {"a": {}}]', b'{"a": [], "b": {}}', b'{"a b!": "c d #"}', b'["", " "]'):
        assert well_formed(text), text


def test_broken_json_is_not_well_formed():
    for text in (b'', b' ', b'{', b'}', b'[', b']', b'{"a" 1}', b'{"a": 1,}', b'[1,]', b'[1 2]', b'{"a": 1 "b": 2}',
                 b'{1: 2}', b'{"a"}', b'{"a":}', b'"abc', b'"a\\', b'"a\\q"', b'"a\\\xc3"', b'"a\tb"', b'"a\nb"',
                 b'1 2', b'{} {}', b'[}', b'{]', b'{"a": 1]', b'[1}', b'{,}', b'[,1]', b'x', b'\xc3\xa9',
                 b'{"a": x}', b'["a" "b"]', b'\x80', b'[\x80]', b'\x7f', b'[1\x80]', b'-\x80', b'1\xff',
                 b'["a"!"b"]', b'{"a": 1 ! "b": 2}', b'[1#2]',  # a character before ',' is no comma
                 b'"a\\1"', b'"a\\ "', b'"a\\e"', b'"a\\\x80"',  # escapes JSON does not have
                 b'{{}}', b'{[1]}', b'{1}', b'{null}',  # an object's key is a string
                 b'[/]', b'\\', b'{"a": /}', b'[1, \\]',  # characters only a string may hold
                 b'{"a": "b" : "c"}', b':', b','):
        assert not well_formed(text), text


def test_a_long_line_cut_after_a_backslash_is_not_well_formed():
    # lengths past 256 too: the end is found by comparing positions (CPython keeps one object for
    # each int only up to 256)
    for n in (1, 300, 1000):
        assert not well_formed(b'"' + b'a' * n + b'\\'), n
        assert well_formed(b'"' + b'a' * n + b'\\n"'), n


def test_nesting_is_bounded_at_thirty_levels():
    assert well_formed(b'[' * 30 + b']' * 30)
    assert not well_formed(b'[' * 31 + b']' * 31)
    assert well_formed(b'{"a":' * 30 + b'1' + b'}' * 30)
    assert not well_formed(b'{"a":' * 31 + b'1' + b'}' * 31)


def test_objects_and_arrays_close_by_their_own_bracket_at_every_depth():
    assert well_formed(b'{"a": [1, {"b": [2]}], "c": [{}]}')
    assert not well_formed(b'{"a": [1, {"b": [2}], "c": 3}')
    assert not well_formed(b'[{"a": 1], 2]')
    # an array inside an object inside an array...: after the inner one closes, the outer one's kind counts
    assert well_formed(b'[{"a": [1]}, 2]')
    assert not well_formed(b'[{"a": [1]}, "b": 2]')
    assert well_formed(b'{"a": [{"b": 1}], "c": 2}')
    assert not well_formed(b'{"a": [{"b": 1}], 2}')
    # the kind of each level is kept to the deepest
    assert well_formed(b'{"a":' * 29 + b'[1, 2]' + b'}' * 29)
    assert not well_formed(b'{"a":' * 29 + b'[1, 2}' + b'}' * 29)
    assert well_formed(b'[' * 29 + b'{"a": 1}' + b']' * 29)
    assert not well_formed(b'[' * 29 + b'{"a": 1]' + b']' * 29)


# --- a line in, what the host reads back ------------------------------------------------------
def _board():
    return TestBoard(TMP)


def _send(tb, raw):
    """Send one raw line, run a cycle; every line the board wrote, as dicts."""
    tb.link.inbox.append(raw)
    tb.run(1)
    return tb.messages()


def _error(tb, raw):
    out = _send(tb, raw)
    assert len(out) == 1, out
    assert out[0]["ok"] is False, out
    return out[0]


def test_a_line_that_is_not_json_is_a_bad_input_error_without_an_id():
    tb = _board()
    for raw in (b'{"id": 1, "cmd": "ping"', b'{"id" 1, "cmd": "ping"}', b'{"id": 1, "cmd": "p\\qing"}',
                b'{"id": 1, "cmd": "ping"} x', b'\xff\xfe', b'{"id": 1, "cmd": 1-2}', b'{"id": 1e999999x}'):
        e = _error(tb, raw)
        assert e["error"] == "bad_input" and e["id"] is None, (raw, e)
        assert e["why"] == "not_json" and "message" not in e, (raw, e)  # the one code for "not JSON"


def test_a_line_that_is_json_but_not_an_object_is_refused():
    tb = _board()
    for raw in (b'[1, 2]', b'"ping"', b'5', b'true'):
        e = _error(tb, raw)
        assert e["error"] == "bad_input" and e["id"] is None, (raw, e)
        assert e["why"] == "not_object", e


def test_a_command_needs_a_whole_number_id():
    tb = _board()
    no_id = _error(tb, b'{"cmd": "ping"}')
    assert no_id["error"] == "bad_input" and no_id["id"] is None
    for rid in (b'"7"', b'true', b'false', b'1.5', b'[7]'):
        e = _error(tb, b'{"id": %s, "cmd": "ping"}' % rid)
        assert e["error"] == "bad_input" and e["id"] is None, (rid, e)  # never echoed: the host's id is broken
        assert (e["why"], e["args"]) == (no_id["why"], no_id["args"]) == ("field", ["id"]), e
    ok = _send(tb, b'{"id": 0, "cmd": "ping"}')
    assert ok == [{"id": 0, "ok": True, "seq": 0}], ok
    ok = _send(tb, b'{"id": -3, "cmd": "ping"}')
    assert ok == [{"id": -3, "ok": True, "seq": 0}], ok


def test_an_unknown_command_is_named_in_its_error():
    tb = _board()
    e = _error(tb, b'{"id": 4, "cmd": "fly"}')
    assert (e["error"], e["id"], e["why"]) == ("bad_input", 4, "unknown_command"), e
    for cmd in (b'5', b'null', b'["ping"]', b'{"x": 1}'):
        e = _error(tb, b'{"id": 6, "cmd": %s}' % cmd)
        assert e["error"] == "bad_input" and e["id"] == 6, (cmd, e)
    e = _error(tb, b'{"id": 8}')
    assert e["error"] == "bad_input" and e["id"] == 8, e
    e = _error(tb, b'{"id": 9, "cmd": "c_ping"}')  # the handlers' own names are not commands
    assert e["error"] == "bad_input" and e["id"] == 9, e


def test_an_unknown_command_is_refused_before_the_missing_id():
    tb = _board()
    e = _error(tb, b'{"cmd": "fly"}')
    assert e["why"] == "unknown_command", e


def test_ack_needs_no_id_and_gets_no_reply():
    tb = _board()
    assert _send(tb, b'{"cmd": "ack", "seq": 0}') == []
    assert _send(tb, b'{"id": 3, "cmd": "ack", "seq": 0}') == [{"id": 3, "ok": True}]


def test_ack_of_a_seq_the_board_never_sent_is_refused():
    tb = _board()
    assert tb.command("hello", proto=1)["ok"]
    assert tb.command("setup", detectives=[13, 26, 29, 34, 50])["ok"]
    last = tb.command("ping")["seq"]
    assert last > 0
    for seq in (last, 0, 1):
        assert tb.command("ack", seq=seq) == {"id": tb.next_id - 1, "ok": True}, seq
    for seq in (last + 1, -1, "1", None, 1.0, [1]):
        r = tb.command("ack", seq=seq)
        assert not r["ok"] and r["error"] == "bad_input", (seq, r)
    tb.messages()
    e = _error(tb, b'{"cmd": "ack", "seq": %d}' % (last + 1))  # without an id, the error still comes
    assert e["id"] is None and e["error"] == "bad_input", e


def test_ping_tells_the_last_event_seq():
    tb = _board()
    assert tb.command("ping") == {"id": 1, "ok": True, "seq": 0}
    tb.command("hello", proto=1)
    tb.command("setup", detectives=[13, 26, 29, 34, 50])
    assert tb.command("ping")["seq"] == tb.store.seq > 0


def test_mem_reports_the_heap_under_micropython_and_resets_its_peaks():
    tb = _board()
    r = tb.command("mem")
    assert r["ok"], r
    if sys.implementation.name != "micropython":
        assert r == {"id": 1, "ok": True, "watching": False}  # CPython's gc has no mem_alloc
        return
    assert r["alloc"] > 0 and r["free"] > 0 and r["watching"] is False and "cycle_max_us" not in r
    r = tb.command("mem", watch=True)  # the loop measured from now on (sy/cyclewatch.py)
    names = ("peak", "cycle_max_us", "save_cycle_max_us", "command_cycle_max_us", "frame_cycle_max_us",
             "plain_cycle_max_us", "save_max_us")
    for key in names:
        assert isinstance(r[key], int) and r[key] >= 0, (key, r)
    watch = tb.app.watch
    big = 10 ** 8  # more than any stretch of this test measures
    watch.mem_peak = tb.board.save_max_us = big
    for k in range(len(watch.max_us)):
        watch.max_us[k] = big
    r = tb.command("mem")
    assert [r[k] for k in names] == [big] * len(names), r
    assert tb.command("mem", reset=True)["ok"]  # the next stretch is measured on its own
    r = tb.command("mem")
    assert all(0 <= r[k] < big for k in names), r
    assert tb.command("mem", watch=False)["watching"] is False and "cycle_max_us" not in tb.command("mem")


def test_choose_without_a_pending_choice_is_refused():
    tb = _board()
    tb.command("hello", proto=1)
    tb.command("setup", detectives=[13, 26, 29, 34, 50])
    for name in ("taxi", "bus", "underground", "black"):
        r = tb.command("choose", ticket=name)
        assert not r["ok"] and r["error"] == "wrong_turn", (name, r)
    r = tb.command("choose", ticket="boat")
    assert not r["ok"] and (r["error"], r["why"], r["args"]) == ("bad_input", "field", ["ticket"]), r


def test_choose_black_is_refused_even_while_a_choice_waits():
    tb = _board()
    tb.command("hello", proto=1)
    tb.command("setup", detectives=[13, 26, 29, 34, 50])
    for s in (13, 26, 29, 34, 50):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)
    tb.place(23)  # taxi and bus both join 13-23: the board waits for a choice
    assert tb.board.asking_at() == 23
    r = tb.command("choose", ticket="black")
    assert not r["ok"] and r["error"] == "wrong_turn", r
    assert tb.board.asking_at() == 23 and tb.board.game.pos[0] == 13
    r = tb.command("choose", ticket="bus")
    assert r["ok"] and r["seq"] == tb.store.seq, r
    assert tb.board.game.pos[0] == 23 and list(tb.board.game.tickets[0]) == [11, 7, 4]


def test_choose_underground_when_bus_or_underground_waits():
    tb = _board()
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[1, 26, 29, 34, 50])["ok"]
    for s in (1, 26, 29, 34, 50):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(1)
    tb.place(46)  # bus and underground both join 1-46
    assert tb.board.asking_at() == 46
    r = tb.command("choose", ticket="underground")
    assert r["ok"] and r["seq"] == tb.store.seq, r
    assert tb.board.game.pos[0] == 46 and list(tb.board.game.tickets[0]) == [11, 8, 3]


def test_game_commands_are_refused_in_service_mode_and_others_answered():
    tb = _board()
    assert tb.command("svc_begin")["ok"]
    for cmd, args in (("setup", {"detectives": [13, 26, 29, 34, 50]}), ("choose", {"ticket": "taxi"}),
                      ("reset", {"confirm": True}), ("mrx", {"ticket": "taxi"}), ("undo", {}),
                      ("place", {"piece": "D1", "station": 13}), ("capture", {"piece": "D1"}), ("cornered", {}),
                      ("guide", {"piece": "D1", "to": 8, "ticket": "taxi"}), ("reveal", {"moves": []})):
        r = tb.command(cmd, **args)
        assert not r["ok"] and r["error"] == "wrong_turn", (cmd, r)
        assert r["why"] == "service_mode", (cmd, r)
    assert tb.command("ping")["ok"] and tb.command("status")["ok"] and tb.command("record")["ok"]
    assert tb.command("svc_info")["ok"]
    assert tb.command("svc_end")["was_active"] is True
    assert "sy.link.service" not in sys.modules
    assert tb.command("setup", detectives=[13, 26, 29, 34, 50])["ok"]


def test_a_handlers_module_stays_once_loaded_and_a_once_a_game_one_is_dropped_after():
    tb = _board()
    r = tb.command("status")
    assert r["ok"] and "stage" in r, r
    assert "sy.link.handlers" in sys.modules and "sy.play.status" in sys.modules  # loaded once used, they stay (docs/memory.md)
    r = tb.command("reset", confirm="no")  # refused: the setup's module dropped all the same
    assert not r["ok"]
    assert "sy.play.newgame" not in sys.modules and "sy.rules.gamestart" not in sys.modules
    assert tb.command("record")["ok"] and "sy.play.report" not in sys.modules
    assert not tb.command("reveal", moves=[])["ok"]
    assert "sy.play.verify" not in sys.modules and "sy.rules.commit" not in sys.modules


def test_every_command_of_the_table_has_its_handler():
    from sy.link import handlers
    for name, (fn, stage, changes_game, reads_journal, drops) in proto.COMMANDS.items():
        if isinstance(fn, str):
            assert callable(getattr(handlers, fn)), name
        else:
            assert callable(fn), name
        assert stage in (0, 1) and changes_game in (True, False) and reads_journal in (True, False), name
        for module in drops:
            assert module.count(".") == 1, (name, module)


def test_the_commands_that_read_the_whole_journal_collect_as_they_go():
    tb = _board()
    paces = []
    reading = tb.app.reading_journal
    tb.app.reading_journal = lambda on: paces.append(on) or reading(on)
    try:
        for cmd, args in (("ping", {}), ("status", {}), ("mem", {}), ("reed", {"station": 0}),
                          ("setup", {"detectives": [13, 26, 29, 34, 50]})):
            assert tb.command(cmd, **args)["ok"] or cmd == "reed", cmd
            assert paces == [], (cmd, paces)
        for s in (13, 26, 29, 34, 50):
            tb.place(s)  # the game in play: Mister X's turn
        for cmd, args in (("hello", {"proto": 1}), ("record", {}), ("reveal", {"moves": []}),
                          ("capture", {"piece": "D1"}), ("cornered", {})):
            tb.command(cmd, **args)
            assert paces == [True, False], (cmd, paces)  # and back to the players' pace, refused or not
            del paces[:]
    finally:
        tb.app.reading_journal = reading


def test_a_command_that_needs_the_game_in_play_says_what_is_in_the_way():
    tb = _board()
    for cmd, args in (("mrx", {"ticket": "nonsense"}), ("undo", {}), ("cornered", {}),
                      ("guide", {"piece": "D1", "to": 8, "ticket": "taxi"}), ("place", {"piece": "D1", "station": 8})):
        r = tb.command(cmd, **args)
        assert not r["ok"] and (r["error"], r["why"]) == ("wrong_turn", "no_game"), (cmd, r)
    assert tb.command("setup", detectives=[13, 26, 29, 34, 50])["ok"]
    r = tb.command("mrx", ticket="taxi")
    assert (r["error"], r["why"]) == ("wrong_turn", "not_placed"), r
    r = tb.command("choose", ticket="taxi")  # it needs a piece in hand, not a stage: its own refusal
    assert (r["error"], r["why"]) == ("wrong_turn", "no_choice"), r


def test_hello_replies_then_resends_what_the_host_missed():
    tb = _board()
    tb.command("hello", proto=1)
    tb.command("setup", detectives=[13, 26, 29, 34, 50])
    last = tb.store.seq
    tb.messages()
    tb.link.inbox.append(b'{"id": 70, "cmd": "hello", "proto": 1, "acked": 0}')
    tb.run(2)  # the setup's frame goes first (sy/app.py), then the line
    out = tb.messages()
    assert out[0]["id"] == 70 and out[0]["ok"] is True, out
    assert [m["seq"] for m in out[1:]] == list(range(1, last + 1)), out
    assert all(isinstance(m["ev"], dict) for m in out[1:]), out


def _with_handler(name, fn, raw):
    """The board's replies to raw with the command `name` handled by fn (then put back)."""
    tb = _board()
    was = proto.COMMANDS[name]
    proto.COMMANDS[name] = (fn,) + was[1:]
    try:
        return _send(tb, raw)
    finally:
        proto.COMMANDS[name] = was


def test_a_bug_in_a_command_is_an_internal_error_and_the_board_goes_on():
    def broken(p, msg):
        return {}["missing"]
    out = _with_handler("ping", broken, b'{"id": 2, "cmd": "ping"}')
    assert len(out) == 1 and out[0]["id"] == 2 and out[0]["ok"] is False, out
    assert (out[0]["error"], out[0]["why"]) == ("internal", "KeyError"), out


def test_a_command_out_of_memory_is_a_no_memory_error():
    def greedy(p, msg):
        raise MemoryError
    out = _with_handler("ping", greedy, b'{"id": 3, "cmd": "ping"}')
    assert len(out) == 1 and out[0]["id"] == 3 and out[0]["error"] == "no_memory", out


def test_a_refusal_raised_in_a_command_keeps_its_code():
    def refusing(p, msg):
        raise ProtoError("wrong_turn", "put_back", "D1", 13)
    out = _with_handler("ping", refusing, b'{"id": 4, "cmd": "ping"}')
    assert out == [{"id": 4, "ok": False, "error": "wrong_turn", "why": "put_back", "args": ["D1", 13]}], out


def test_ctrl_c_in_a_command_is_not_swallowed():
    def interrupted(p, msg):
        raise KeyboardInterrupt
    try:
        _with_handler("ping", interrupted, b'{"id": 5, "cmd": "ping"}')
    except KeyboardInterrupt:
        return
    raise AssertionError("KeyboardInterrupt swallowed")


def test_a_reply_is_the_handlers_dict_with_id_and_ok():
    out = _with_handler("ping", lambda p, msg: {"x": [1]}, b'{"id": 6, "cmd": "ping"}')
    assert out == [{"x": [1], "id": 6, "ok": True}], out
    out = _with_handler("ping", lambda p, msg: None, b'{"id": 7, "cmd": "ping"}')
    assert out == [{"id": 7, "ok": True}], out


def test_a_line_too_long_is_reported_with_the_buffers_size():
    tb = _board()
    tb.link.inbox.append(b"x" * 5000)
    tb.run(2)
    out = tb.messages()
    assert len(out) == 1 and out[0]["id"] is None and out[0]["ok"] is False, out
    assert (out[0]["error"], out[0]["why"], out[0]["args"]) == ("too_long", "line_long", [1024]), out


class _Wire:
    def __init__(self, fail=False):
        self.lines = []
        self.fail = fail

    def send(self, text):
        self.lines.append(text)

    def send_json(self, obj):
        if self.fail:
            raise OSError("the port is gone")
        self.lines.append(json.dumps(obj))


def test_events_are_numbered_lines_and_a_note_never_raises():
    w = _Wire()
    p = proto.Protocol(w, "pico", None)
    p.event(7, '{"type": "setup"}')
    assert json.loads(w.lines[-1]) == {"seq": 7, "ev": {"type": "setup"}}
    p.note({"note": "restored"})
    assert json.loads(w.lines[-1]) == {"note": "restored"}
    p = proto.Protocol(_Wire(fail=True), "pico", None)
    p.note({"note": "restored"})  # a note lost is no reason to stop the board


# --- a command's fields -------------------------------------------------------------------------
def _refusal(fn, *args):
    try:
        fn(*args)
    except RuleError as e:
        return e.code, (e.why,) + e.values
    raise AssertionError("%r accepted" % (args,))


def test_ticket_names_are_the_tickets_indices():
    assert [ticket_arg(n) for n in ("taxi", "bus", "underground", "black")] == [0, 1, 2, 3]
    for bad in ("Taxi", "", None, 0, "double"):
        code, message = _refusal(ticket_arg, bad)
        assert (code, message) == ("bad_input", ("field", "ticket")), (bad, message)
    code, message = _refusal(ticket_arg, "boat", "first")
    assert (code, message) == ("bad_input", ("field", "first")), message


def test_stations_are_whole_numbers_of_the_map():
    assert station_arg(None) == 0
    assert [station_arg(s) for s in (1, 2, 198, 199)] == [1, 2, 198, 199]
    for bad in (0, 200, -1, True, False, 1.0, "5", [5]):
        code, message = _refusal(station_arg, bad)
        assert (code, message) == ("bad_input", ("field", "to")), (bad, message)
    code, message = _refusal(station_arg, 0, "from")
    assert message == ("field", "from"), message


def test_commitments_are_64_characters():
    assert commit_arg(None) is None
    c = "ab" * 32
    assert commit_arg(c) == c
    for bad in ("ab" * 31 + "a", "ab" * 32 + "a", "", 5, b"ab" * 32, ["ab" * 32]):
        code, _message = _refusal(commit_arg, bad)
        assert code == "bad_input", bad


# --- serial bytes -> lines (sy/link/lines.py) -----------------------------------------------------
class _Port:
    """A file the test appends bytes to, the Link reading it as it reads USB serial."""

    def __init__(self, name):
        self.path = TMP + "-" + name
        f = open(self.path, "wb")
        f.close()
        self.rx = open(self.path, "rb")
        self.tx = io.StringIO()

    def feed(self, data):
        f = open(self.path, "ab")
        f.write(data)
        f.close()


class _IPoll:
    """CPython's select.poll spelled as MicroPython's (ipoll): the Link is the board's code."""

    def __init__(self, poller):
        self.poller = poller

    def ipoll(self, timeout):
        return self.poller.poll(timeout)


def _link(port, **kw):
    link = Link(port.rx, port.tx, **kw)
    if not hasattr(link.poller, "ipoll"):
        link.poller = _IPoll(link.poller)
    return link


def _polls(link, times):
    """What `times` polls return, with the lines taken when one is complete."""
    out = []
    for _ in range(times):
        r = link.poll()
        if r == 1:
            out.append(link.take())
        elif r:
            out.append(r)
    return out


def test_a_link_assembles_lines_from_bytes():
    port = _Port("lines")
    link = _link(port)
    assert link.poll() == 0 and not link.partial
    port.feed(b'{"id": 1}\n\r\n{"id"')
    assert link.poll() == 1 and link.partial
    assert link.take() == b'{"id": 1}'
    assert link.poll() == 0 and link.partial  # the empty line between is skipped; half a line waits
    port.feed(b': 2}\r')
    assert _polls(link, 2) == [b'{"id": 2}']
    assert link.poll() == 0 and not link.partial


def test_empty_lines_are_skipped_within_one_poll_and_control_bytes_kept():
    port = _Port("blank")
    link = _link(port)
    port.feed(b"\r\n\r\n\n\rab\tc\x01\x0b\x0cd\x00\n")
    assert link.poll() == 1 and link.take() == b"ab\tc\x01\x0b\x0cd\x00"  # only \n and \r end a line


def test_a_link_reads_at_most_64_bytes_a_poll():
    port = _Port("budget")
    link = _link(port)
    port.feed(b"a" * 64 + b"\n")
    assert link.poll() == 0 and link.n == 64
    assert link.poll() == 1 and link.take() == b"a" * 64
    port.feed(b"b" * 63 + b"\n")
    assert link.poll() == 1 and link.take() == b"b" * 63


def test_a_line_longer_than_the_buffer_is_dropped_to_its_newline():
    port = _Port("long")
    link = _link(port, max_line=8)
    port.feed(b"12345678\n")  # exactly the buffer: a line
    assert _polls(link, 3) == [b"12345678"]
    port.feed(b"123456789\nok\n")  # one byte more: too long, then the next line is whole
    assert _polls(link, 3) == [2, b"ok"]
    port.feed(b"x" * 100 + b"\r\n")
    assert _polls(link, 5) == [2]
    assert len(Link(port.rx, port.tx).buf) == MAX_LINE == 1024


class _Quiet:
    """A serial port with nothing waiting: poll says so, and a read would block the board."""

    def ipoll(self, timeout):
        assert timeout == 0, timeout  # never wait in poll either
        return ()

    def readinto(self, buf):
        raise AssertionError("read with nothing waiting: the board would block here")


def test_a_link_never_reads_when_nothing_waits():
    port = _Port("quiet")
    link = _link(port)
    port.feed(b"half a li")
    assert link.poll() == 0 and link.n == 9
    link.poller = link.rx = _Quiet()
    assert link.poll() == 0 and not link.partial and link.n == 9


def test_ctrl_c_on_the_link_raises_keyboard_interrupt():
    port = _Port("ctrlc")
    link = _link(port)
    port.feed(b"ab\x03")
    try:
        link.poll()
    except KeyboardInterrupt:
        return
    raise AssertionError("Ctrl-C read as a byte")


def test_a_link_writes_lines():
    port = _Port("tx")
    link = _link(port)
    link.send('{"seq":1}')
    link.send_json({"a": [1, "b"]})
    lines = port.tx.getvalue().split("\n")
    assert lines[0] == '{"seq":1}' and json.loads(lines[1]) == {"a": [1, "b"]} and lines[2:] == [""], lines


def test_a_reply_that_cannot_be_written_still_ends_its_line():
    port = _Port("half")
    link = _link(port)
    try:
        link.send_json({"a": 1, "b": Link})  # a class is not JSON: json.dump fails part-way
    except TypeError:
        pass
    link.send_json({"c": 2})
    lines = port.tx.getvalue().split("\n")
    assert json.loads(lines[-2]) == {"c": 2} and lines[-1] == "", lines
