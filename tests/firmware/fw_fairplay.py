"""Fair play on the board (docs/fairplay.md), as plain functions: tests/test_fairplay_firmware.py runs
them under CPython and under the MicroPython unix port. Each is an attack a cheat at the table
could make: a take-back that probes where Mister X is, a line on the serial port that speaks for
him without his host's key, a second reveal after the game was verified.

Round 1 after Mister X's taxi move, detectives on 13, 26, 29, 34, 50: D1 (13) may go to 46 by
underground (he may be there) or to 4 by taxi (he cannot); D2 (26) to 27 by taxi (he cannot)."""
import json
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from testkit import TestBoard, scratch
from sy.rules import commit as commitlib
from sy.storage.stages import PLAY

TMP = scratch("sy-fwtest-fairplay")
KEY = bytes(range(7, 39))
KEY_HEX = "".join("%02x" % b for b in KEY)
DETECTIVES = (13, 26, 29, 34, 50)


def _start(key=None, commit=None):
    """The game in play (with a key, a commitment), and the board's session from its hello."""
    tb = TestBoard(TMP)
    setup = {}
    if key is not None:
        setup["key"] = key
    if commit is not None:
        setup["commit"] = commit
    tb.start_game(DETECTIVES, **setup)
    r = tb.command("hello", proto=1, acked=tb.store.seq)
    tb.messages()
    return tb, r.get("session", "").encode()


def _tag(key, session, payload):
    msg = b"sy-link-1:" + session + b"\n" + payload
    try:
        import hashlib
        import hmac
        return hmac.new(key, msg, hashlib.sha256).hexdigest().encode()
    except ImportError:  # MicroPython: the board's own (tests/test_link_auth.py: it agrees with Python's)
        from sy.link import auth
        return auth.tag_hex(key, session, payload)


def _signed(key, session, n, obj):
    body = dict(obj)
    body["n"] = n
    payload = json.dumps(body).encode()
    return payload[:-1] + b',"mac":"' + _tag(key, session, payload) + b'"}'


def _journal(tb):
    tb.messages()
    r = tb.command("record", all=True)
    assert r["ok"], r
    return [m["line"] for m in tb.messages() if "line" in m]


# --- a take-back never buys information ------------------------------------------------------------
def test_the_confirm_button_cannot_take_back_a_probe():
    tb, _s = _start()
    tb.command("mrx", ticket="taxi")
    g = tb.board.game
    assert g.is_candidate(46)
    tb.lift(13)
    tb.place(46)  # underground: no capture, so he is not on 46
    assert g.pos[0] == 46
    moved = g.save()
    tb.messages()
    tb.hold_confirm()
    msgs = tb.messages()
    assert not [m for m in msgs if "ev" in m], msgs  # no undo
    refused = [m for m in msgs if m.get("note") == "refused"]
    assert len(refused) == 1 and refused[0]["error"] == "needs_consent", msgs
    assert (refused[0]["piece"], refused[0]["from"], refused[0]["to"]) == ("D1", 46, 13)  # the host can ask him
    assert g.save() == moved and g.pos[0] == 46
    r = tb.command("undo")
    assert r["error"] == "needs_consent" and g.save() == moved
    # a move that told nothing comes back as before
    tb.lift(26)
    tb.place(27)
    assert g.pos[1] == 27
    tb.messages()
    tb.hold_confirm()
    evs = [m["ev"] for m in tb.messages() if "ev" in m]
    assert evs == [{"type": "undo", "piece": "D2", "from": 27, "to": 26}], evs


def test_mister_x_s_host_consents_and_the_take_back_is_journalled_as_consented():
    tb, session = _start(KEY_HEX)
    assert tb.send_line(_signed(KEY, session, 1, {"cmd": "mrx", "ticket": "taxi", "id": 900}), 900)["ok"]
    g = tb.board.game
    tb.lift(13)
    tb.place(46)
    moved = g.save()
    r = tb.command("undo", consent=True)  # untagged: anyone on the port could have sent it
    assert r["error"] == "unauthenticated" and g.save() == moved
    r = tb.send_line(_signed(bytes(32), session, 2, {"cmd": "undo", "consent": True, "id": 901}), 901)
    assert r["error"] == "unauthenticated" and g.save() == moved
    r = tb.send_line(_signed(KEY, session, 2, {"cmd": "undo", "consent": True, "id": 902}), 902)
    assert r["ok"], r
    assert g.pos[0] == 13
    assert _journal(tb)[-1] == {"type": "undo", "piece": "D1", "from": 46, "to": 13, "consent": True}


def test_the_turn_s_last_move_is_final_without_his_consent():
    tb, _s = _start()
    tb.command("mrx", ticket="taxi")
    g = tb.board.game
    for frm, to in ((13, 4), (26, 27), (29, 16), (34, 10), (50, 49)):
        tb.lift(frm)
        tb.place(to)
    assert g.phase == 0  # Mister X's turn: whether he is cornered was told
    assert tb.command("undo")["error"] == "needs_consent"
    assert tb.command("undo", consent=True)["ok"]  # a game without a key: the host's consent is taken as it comes


# --- only Mister X's host speaks for him ------------------------------------------------------------
def test_forged_lines_change_nothing_in_a_game_with_a_key():
    salt = "cd" * 16
    tb, session = _start(KEY_HEX, commitlib.commitment(45, salt))
    g = tb.board.game
    seq = tb.store.seq
    before = g.save()
    good = _signed(KEY, session, 5, {"cmd": "mrx", "ticket": "taxi", "commit": "0" * 64, "id": 700})
    forged = [
        (b'{"cmd":"mrx","ticket":"taxi","commit":"' + b"0" * 64 + b'","id":701}', "unauthenticated"),
        (_signed(bytes(32), session, 6, {"cmd": "mrx", "ticket": "taxi", "id": 702}), "unauthenticated"),
        (_signed(KEY, b"0011223344556677", 6, {"cmd": "mrx", "ticket": "taxi", "id": 703}), "unauthenticated"),
        (good.replace(b"taxi", b"bus\x20"), "unauthenticated"),
        (b'{"cmd":"cornered","reveal":["' + salt.encode() + b'",45],"id":704}', "unauthenticated"),
        (b'{"cmd":"capture","piece":"D1","id":705}', "unauthenticated"),
        (b'{"cmd":"reset","confirm":true,"id":706}', "unauthenticated"),
        (b'{"cmd":"setup","detectives":[13,26],"bobbies":[29,34],"replace":true,"id":707}', "unauthenticated"),
        (b'{"cmd":"reveal","offset":0,"start":["' + salt.encode() + b'",45],"moves":[],"id":708}', "unauthenticated"),
    ]
    for k, (line, code) in enumerate(forged):
        rid = json.loads(line)["id"]
        r = tb.send_line(line, rid)
        assert r["ok"] is False and r["error"] == code and "message" not in r, (k, r)
        assert tb.store.seq == seq and g.save() == before and tb.board.stage == PLAY, k
    assert tb.send_line(good, 700)["ok"]
    assert tb.send_line(good, 700)["error"] == "replayed"  # the same line again
    assert tb.store.seq == seq + 1
    assert tb.command("status")["phase"] == "detectives"


def test_a_restarted_board_takes_the_key_again_and_only_the_game_s():
    tb, session = _start(KEY_HEX)
    tb.reboot()
    r = tb.command("hello", proto=1, acked=tb.store.seq)
    new = r["session"].encode()
    assert new != session and r["keyed"] and not r["key_ok"]
    line = _signed(KEY, new, 1, {"cmd": "mrx", "ticket": "taxi", "id": 800})
    assert tb.send_line(line, 800)["error"] == "no_key"
    assert tb.command("hello", proto=1, key="ab" * 32)["key_ok"] is False  # not the game's: not taken
    assert tb.command("hello", proto=1, key="xyz")["error"] == "bad_input"
    r = tb.command("hello", proto=1, key=KEY_HEX)
    assert r["ok"] and r["key_ok"] and r["auth_n"] == 0
    old = _signed(KEY, session, 1, {"cmd": "mrx", "ticket": "taxi", "id": 801})
    assert tb.send_line(old, 801)["error"] == "unauthenticated"  # made before the restart
    assert tb.send_line(line, 800)["ok"]
    assert tb.command("hello", proto=1)["auth_n"] == 1


def test_the_key_is_never_saved_sent_or_journalled():
    tb, _s = _start(KEY_HEX)
    import os
    folder = tb.folder + "/"
    names = os.listdir(tb.folder)
    for name in names:
        f = open(folder + name, "rb")
        data = f.read()
        f.close()
        assert KEY_HEX.encode() not in data and KEY not in data, name
    assert "link.key" in names
    texts = [json.dumps(m) for m in tb.messages()]
    texts.append(json.dumps(tb.command("status")))
    texts.append(json.dumps(tb.command("hello", proto=1)))
    texts.extend(json.dumps(line) for line in _journal(tb))
    for t in texts:
        assert KEY_HEX not in t, t


def test_a_verified_game_stays_verified():
    salt = "ab" * 16
    tb, _s = _start()
    c = commitlib.commitment(46, salt)
    assert tb.command("mrx", ticket="taxi", commit=c)["ok"]
    tb.lift(13)
    tb.place(46)
    assert tb.command("capture", piece="D1", reveal=[salt, 46])["ok"]
    r = tb.command("reveal", start=[salt, 45], moves=[[salt, 46]])
    assert r["ok"] and r["verified"], r
    seq = tb.store.seq
    r = tb.command("reveal", offset=0, start=["xx" * 16, 1], moves=[])
    assert r["error"] == "already_verified" and tb.store.seq == seq, r
    verdicts = [line for line in _journal(tb) if line["type"] == "verified"]
    assert verdicts == [{"type": "verified", "ok": True, "why": "route_ok", "args": verdicts[0]["args"]}], verdicts


def test_a_board_whose_games_have_no_key_never_loads_the_link_s_authentication():
    sys.modules.pop("sy.link.auth", None)  # (another test may have loaded it)
    tb, _s = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(4)
    assert tb.command("undo")["ok"]
    assert tb.command("reset", confirm=True)["ok"]
    assert "sy.link.auth" not in sys.modules
    tb.reboot()
    assert "session" not in tb.command("hello", proto=1)
    assert "sy.link.auth" not in sys.modules


def test_the_key_leaves_ram_when_the_game_loop_stops_for_the_repl():
    tb, session = _start(KEY_HEX)
    auth = tb.app.proto.auth
    assert bytes(auth.key) == KEY
    held = auth.key
    tb.app.proto.stopped()  # main.py, at Ctrl-C
    assert auth.key is None and bytes(held) == bytes(32)
    line = _signed(KEY, session, 1, {"cmd": "mrx", "ticket": "taxi", "id": 600})
    assert tb.send_line(line, 600)["error"] == "no_key"
    assert tb.command("hello", proto=1, key=KEY_HEX)["key_ok"]
    assert tb.send_line(line, 600)["ok"]
