"""The link's authentication: the host's tags (host/link/auth.py, Python's hmac) and the board's
(firmware/sy/link/auth.py, HMAC written over hashlib.sha256) agree, under CPython and under the
MicroPython unix port, and the board's check refuses every line that does not carry a good tag."""
import json
import os
import sys

import pytest

from host.link import auth as host_auth
from mpy import needs_unix_port, run_script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from sy.link import auth as board_auth  # noqa: E402

# keys of every length HMAC treats apart: shorter than a block, a block, longer (hashed first)
VECTORS = [(bytes(range(n)), "s%02d" % n, json.dumps({"cmd": "mrx", "ticket": "taxi", "k": "x" * n}).encode())
           for n in (0, 1, 31, 32, 63, 64, 65, 200)]


def test_the_board_s_hmac_is_rfc_4231_s():
    # RFC 4231 test case 2: key "Jefe"
    assert board_auth.hmac_sha256(b"Jefe", b"what do ya want for nothing?").hex() == \
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"


@pytest.mark.parametrize("key, session, payload", VECTORS)
def test_host_and_board_tags_agree_under_cpython(key, session, payload):
    assert board_auth.tag_hex(key, session.encode(), payload).decode() == host_auth.tag(key, session, payload)


@needs_unix_port
def test_host_and_board_tags_agree_under_micropython():
    script = "from sy.link import auth\n" + "".join(
        "print(auth.tag_hex(%r, %r, %r).decode())\n" % (k, s.encode(), p) for k, s, p in VECTORS)
    got = run_script(script, heapsize="64k").split()
    assert got == [host_auth.tag(k, s, p) for k, s, p in VECTORS]


@needs_unix_port
def test_the_board_s_randomness_and_sha256_exist_on_the_unix_port():
    out = run_script("import os, hashlib\nprint(len(os.urandom(8)), hashlib.sha256(b'').digest()[0])",
                     heapsize="64k")
    assert out.split() == ["8", "227"]


def _keyed(tmp_path):
    la = board_auth.LinkAuth(str(tmp_path))
    key = host_auth.new_key()
    la.begin(key)
    return la, key


def test_a_signed_line_is_taken_once_and_its_counter_must_grow(tmp_path):
    la, key = _keyed(tmp_path)
    signer = host_auth.Signer(key, la.session.decode())
    line = signer.line({"cmd": "mrx", "ticket": "taxi", "id": 3})
    assert json.loads(line)["n"] == 1
    assert la.verify(line, 1) is None
    assert la.verify(line, 1) == "replayed"
    assert la.verify(signer.line({"cmd": "cornered", "id": 4}), 2) is None


@pytest.mark.parametrize("forge", ["untagged", "tampered", "other_key", "other_session", "tag_moved", "short_tag"])
def test_a_line_without_a_good_tag_is_refused(tmp_path, forge):
    la, key = _keyed(tmp_path)
    obj = {"cmd": "mrx", "ticket": "taxi", "id": 3}
    session = la.session.decode()
    line = {"untagged": lambda: json.dumps(dict(obj, n=1)).encode(),
            "tampered": lambda: host_auth.Signer(key, session).line(obj).replace(b"taxi", b"bus"),
            "other_key": lambda: host_auth.Signer(host_auth.new_key(), session).line(obj),
            "other_session": lambda: host_auth.Signer(key, "0123456789abcdef").line(obj),
            "tag_moved": lambda: _tag_first(host_auth.Signer(key, session).line(obj)),
            "short_tag": lambda: host_auth.Signer(key, session).line(obj)[:-4] + b'"}'}[forge]()
    assert la.verify(line, 1) == "unauthenticated"
    assert la.last_n == 0  # a refused line takes no counter


def _tag_first(line):
    obj = json.loads(line)
    mac = obj.pop("mac")
    return json.dumps(dict(mac=mac, **obj), separators=(",", ":")).encode()


def test_the_flash_holds_the_key_s_hash_only_and_a_restart_needs_the_key_again(tmp_path):
    la, key = _keyed(tmp_path)
    stored = (tmp_path / board_auth.KEY_FILE).read_bytes()
    assert key.hex().encode() not in stored and key not in stored and len(stored) == 64
    again = board_auth.LinkAuth(str(tmp_path))  # a power cut: the hash is read back, the key is not
    assert again.key is None and again.keyhash == la.keyhash and again.session != la.session
    line = host_auth.Signer(key, again.session.decode()).line({"cmd": "mrx", "ticket": "bus", "id": 1})
    assert again.verify(line, 1) == "no_key"
    assert not again.present(host_auth.new_key())
    assert again.present(key)
    assert again.verify(line, 1) is None


def test_a_line_from_before_a_restart_is_refused_after_it(tmp_path):
    la, key = _keyed(tmp_path)
    old = host_auth.Signer(key, la.session.decode()).line({"cmd": "mrx", "ticket": "bus", "id": 1})
    assert la.verify(old, 1) is None
    again = board_auth.LinkAuth(str(tmp_path))
    assert again.present(key)
    assert again.verify(old, 1) == "unauthenticated"


def test_a_game_without_a_key_checks_nothing_and_forgets_the_old_hash(tmp_path):
    la, _key = _keyed(tmp_path)
    la.begin(None)
    assert not (tmp_path / board_auth.KEY_FILE).exists()
    assert board_auth.LinkAuth(str(tmp_path)).verify(b'{"cmd":"mrx"}', None) is None


@pytest.mark.parametrize("bad", [1, "00" * 31, "0g" * 32, "AB" * 32, None])
def test_a_key_field_is_64_lowercase_hex_digits(bad):
    if bad is None:
        assert board_auth.key_arg(None) is None
        return
    with pytest.raises(ValueError):
        board_auth.key_arg(bad)


def test_key_arg_reads_hex():
    k = host_auth.new_key()
    assert bytes(board_auth.key_arg(k.hex())) == k


def test_the_host_s_link_key_tags_only_mister_x_s_lines_and_follows_the_board(tmp_path):
    la = board_auth.LinkAuth(str(tmp_path))
    lk = host_auth.LinkKey()
    assert lk.hello_args() == {} and lk.line({"cmd": "mrx"}) is None
    key = host_auth.new_key()
    la.begin(key)
    lk.took("setup", {"key": key.hex()}, {"ok": True, "session": la.session.decode(), "auth_n": 0})
    assert lk.line({"cmd": "status", "id": 1}) is None  # not his: sent as it is
    line = lk.line({"cmd": "mrx", "ticket": "taxi", "id": 2})
    assert la.verify(line, json.loads(line)["n"]) is None
    again = board_auth.LinkAuth(str(tmp_path))  # the board restarted
    assert lk.lost("no_key") and lk.hello_args() == {"key": key.hex()}
    assert again.present(key)
    lk.took("hello", {}, {"ok": True, "session": again.session.decode(), "auth_n": again.last_n, "key_ok": True})
    line = lk.line({"cmd": "cornered", "id": 3})
    assert again.verify(line, json.loads(line)["n"]) is None
    lk.took("setup", {}, {"ok": True, "seq": 1})  # a new game without a key
    assert lk.line({"cmd": "mrx", "id": 4}) is None and not lk.lost("no_key")


def test_only_mister_x_s_commands_need_his_tag():
    """His moves, his game-ending claims and his route need the tag; a take-back only with his
    consent; a new game or a reset only while his keyed game is on. Every other command of the
    board's table (the detectives', the public view's, the link's own) goes without one."""
    from sy.link.proto import COMMANDS
    his = {"mrx", "capture", "cornered", "reveal"}
    for cmd in sorted(COMMANDS):
        for game_on in (False, True):
            want = cmd in his or (game_on and cmd in ("setup", "reset"))
            assert board_auth.speaks_for_mrx(cmd, {}, game_on) is want, (cmd, game_on)
    assert board_auth.speaks_for_mrx("undo", {"consent": True}, True) is True
