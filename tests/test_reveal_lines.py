"""Mister X's salts reach the board after the game a few moves per line (host.link.boardlink's
reveal_requests), from every host path that plays Mister X: here the web simulator's automatic
Mister X, against the board's real code (sy/play/verify.py) in process."""
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from host.link.boardlink import reveal_requests  # noqa: E402
from host.misterx.secretgame import SecretGame, draw_setup, public_line  # noqa: E402
from host.web.automrx import AutoMrX  # noqa: E402
import testkit  # noqa: E402


class _Link:
    """BoardLink.request on the in-process board."""

    def __init__(self, tb):
        self.tb = tb
        self.sent = []

    def request(self, cmd, **args):
        self.sent.append((cmd, args))
        r = self.tb.command(cmd, **args)
        assert r["ok"], r
        return r


def _captured_game(tmp_path):
    """A two-player game ended by a capture in round 1, Mister X's side kept by a SecretGame."""
    tb = testkit.TestBoard(str(tmp_path / "board"))
    link = _Link(tb)
    secret = SecretGame.create(draw_setup(1, random.Random(3), (13, 26, 29, 34), 45), folder=str(tmp_path))
    link.request("hello", proto=1)
    pub = public_line(secret.setup)
    args = {k: v for k, v in pub.items() if k not in ("type", "game", "started") and v is not None}
    link.request("setup", mrx=None, **args)
    for s in (13, 26, 29, 34):
        tb.place(s)
    link.request("mrx", **{k: v for k, v in public_line(secret.mrx_move(0, 46)).items() if k != "type"})
    tb.lift(13)
    tb.place(46)
    secret.detective_move("D1", "underground", 46)
    assert secret.game.result == "detectives"
    if tb.board.game.result is None:
        link.request("capture", piece="D1", reveal=secret.current_proof())
    return tb, link, secret


def _verified(tb):
    """The board's verdict on the reveal: its journal's last line (type verified)."""
    seq, text = list(tb.store.lines(1))[-1]
    line = json.loads(text)
    assert line["type"] == "verified", line
    return line["ok"]


def test_the_web_mister_x_reveal_is_verified(tmp_path):
    tb, link, secret = _captured_game(tmp_path)
    auto = AutoMrX("unused", folder=str(tmp_path))
    auto.secret, auto.link = secret, link
    auto._reveal()
    cmd, args = link.sent[-1]
    assert cmd == "reveal" and isinstance(args["moves"][0][0], str)  # [salt, station]
    assert _verified(tb) is True


def test_reveal_lines_chain_their_offsets():
    lines = list(reveal_requests(["s0", 45], [["s%d" % k, k] for k in range(1, 6)], chunk=2))
    assert [a["offset"] for a in lines] == [0, 2, 4]
    assert [a.get("more") for a in lines] == [True, True, None]
    assert lines[0]["start"] == ["s0", 45] and "start" not in lines[1]
    assert [m for a in lines for m in a["moves"]] == [["s%d" % k, k] for k in range(1, 6)]


def test_the_web_mister_x_proves_he_is_cornered(tmp_path):
    """Mister X goes 104 -> 116 -> 104 (whose only neighbours are 86 and 116); in round 2 D1 takes
    86 and D2 116: his secret game ends ("mrx_stuck"). The web simulator's Mister X tells the
    board, proved, then reveals."""
    tb = testkit.TestBoard(str(tmp_path / "board"))
    link = _Link(tb)
    secret = SecretGame.create(draw_setup(4, detectives=(103, 117, 13, 26), mrx=104), folder=str(tmp_path))
    link.request("hello", proto=1)
    pub = public_line(secret.setup)
    link.request("setup", mrx=None, **{k: v for k, v in pub.items() if k not in ("type", "game", "started") and v is not None})
    for s in (103, 117, 13, 26):
        tb.place(s)
    auto = AutoMrX("unused", folder=str(tmp_path))
    auto.secret, auto.link = secret, link
    rounds = ((116, (("D1", 103, 102, "taxi"), ("D2", 117, 108, "taxi"), ("D3", 13, 4, "taxi"), ("D4", 26, 27, "taxi"))),
              (104, (("D1", 102, 86, "bus"), ("D2", 108, 116, "bus"), ("D3", 4, 3, "taxi"), ("D4", 27, 28, "taxi"))))
    for mrx_to, moves in rounds:
        link.request("mrx", **{k: v for k, v in public_line(secret.mrx_move(0, mrx_to)).items() if k != "type"})
        for piece, here, to, ticket in moves:
            tb.lift(here)
            tb.place(to)
            auto._on_event({"type": "move", "piece": piece, "ticket": ticket, "to": to})
    assert (secret.game.result, secret.game.reason) == ("detectives", "mrx_stuck")
    assert [cmd for cmd, _a in link.sent if cmd in ("cornered", "reveal")][:2] == ["cornered", "reveal"]
    g = tb.board.game
    assert (g.result, g.reason) == ("detectives", "mrx_stuck") and _verified(tb) is True
