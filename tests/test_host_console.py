"""Mister X's console, the secret log and `yard verify`, against a fake board (no firmware)."""
import json
import os
import random
import stat

import pytest

from host.commands import cli
from host.misterx.console import Console, parse_command, ParseError
from host.errors import BoardError
from host.misterx.secretgame import SecretGame, draw_setup
from host.commands.verify import verify_lines
from sy.rules import commit as commitlib
from sy.rules.game import PHASE_DETECTIVES
from consoleboard import FakeBoard, ReedBoard, random_detectives


def typed_game(tmp_path, seed, players=3):
    rng = random.Random(seed)
    sg = SecretGame.create(draw_setup(players, rng), folder=str(tmp_path))
    board = FakeBoard(rng)
    out = []

    def inp(prompt):
        g = sg.game
        opts = g.legal_mrx()
        s, t = rng.choice(opts)
        words = ["taxi", "bus", "ug", "black"]
        if g.double and rng.random() < 0.1:
            second = sg.double_options()
            if second:
                (t1, s1), (t2, s2) = rng.choice(second)
                return "double %s %d %s %d" % (words[t1], s1, words[t2], s2)
        return "%s %d" % (words[t], s)

    con = Console(sg, board, inp=inp, out=out.append, detectives=random_detectives(board), wait=0)
    assert con.play()
    return sg, board, out


def test_parse_forgiving_syntax():
    assert parse_command("bus 58") == ("move", [(1, 58)])
    assert parse_command("58 Bus") == ("move", [(1, 58)])
    assert parse_command("x 115") == ("move", [(3, 115)])
    assert parse_command("double taxi 14 bus 58") == ("double", [(0, 14), (1, 58)])
    assert parse_command("2 t 14 b 58") == ("double", [(0, 14), (1, 58)])
    assert parse_command("legal double") == ("legal", True)
    with pytest.raises(ParseError):
        parse_command("plane 5")
    with pytest.raises(ParseError):
        parse_command("bus")


def test_commitment_is_salted_and_checked():
    salt = "00" * 16
    c = commitlib.commitment(58, salt)
    assert len(c) == 64 and commitlib.matches(58, salt, c) and not commitlib.matches(59, salt, c)
    with pytest.raises(ValueError):
        commitlib.commitment(58, "00" * 15)  # too short to resist brute force


def test_full_games_with_typed_moves_verify(tmp_path):
    for seed in range(6):
        sg, board, out = typed_game(tmp_path, seed, players=1 + seed % 5)
        assert sg.over
        assert any("GAME OVER" in line for line in out)
        assert stat.S_IMODE(os.stat(sg.path).st_mode) == 0o600
        with open(sg.path) as f:
            lines = f.read().splitlines()
        ok, problems, result = verify_lines(lines)
        assert ok, problems
        assert result["result"] == sg.game.result
        # nothing sent to the board names an unrevealed station
        shown = {e[1] for e in sg.entries() if e[2]}
        for msg in board.sent:
            if "reveal" in msg:
                continue
            text = json.dumps(msg)
            assert "salt" not in text
            for step in msg.get("double", [msg]):
                assert step.get("to") in (None, *shown)


def test_tampered_log_is_rejected(tmp_path):
    sg, _board, _out = typed_game(tmp_path, 11)
    with open(sg.path) as f:
        lines = [json.loads(t) for t in f]
    for k, line in enumerate(lines):
        if line.get("type") == "mrx" and "double" not in line and not line.get("shown"):
            break
    bad = [dict(x) for x in lines]
    # move him elsewhere, keep the rules happy would be hard; the commitment catches it first
    bad[k]["to"] = bad[k]["to"] % 199 + 1
    ok, problems, _ = verify_lines([json.dumps(x) for x in bad])
    assert not ok and any("commitment" in p for p in problems)
    bad = [dict(x) for x in lines]
    bad[0]["mrx"] = bad[0]["mrx"] % 199 + 1
    ok, problems, _ = verify_lines([json.dumps(x) for x in bad])
    assert not ok


def test_verify_cli_exit_codes(tmp_path, capsys):
    sg, _b, _o = typed_game(tmp_path, 3)
    assert cli.main(["verify", sg.path]) == 0
    assert "verified" in capsys.readouterr().out
    assert cli.main(["verify", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_console_refuses_with_reason(tmp_path):
    rng = random.Random(5)
    sg = SecretGame.create(draw_setup(3, rng), folder=str(tmp_path))
    g = sg.game
    far = next(s for s in range(1, 200) if s not in [x for x, _ in g.legal_mrx()] and s != g.mrx)
    typed = iter(["bus %d" % far, "fly 3", "legal", "quit"])
    out = []
    con = Console(sg, FakeBoard(rng), inp=lambda p: next(typed), out=out.append)
    assert con.play() is False
    text = "\n".join(out)
    assert "refused:" in text or "?" in text
    assert "legal:" in text and "yard play --resume" in text
    assert SecretGame.load(sg.path).game.moves == 0


class UndoBoard(FakeBoard):
    """A fake board that takes back the turn's last move when told to, and says so in an event."""

    def __init__(self, rng, sg):
        super().__init__(rng)
        self.sg = sg

    def undo(self, piece=None):
        g = self.sg.game
        if not g.n_turn:
            raise BoardError("the board refused the take-back: no move of this turn is left to take back")
        k = 3 * g.n_turn - 3
        p = g.turn[k] & 0x7F
        if piece and piece != g.piece_name(p):
            raise BoardError("the board refused the take-back: %s's move is not the last of this turn: take back "
                             "the later ones first" % piece)
        self.sent.append({"undo": piece})
        self.pending.append({"type": "undo", "piece": g.piece_name(p), "from": g.pos[p], "to": g.turn[k + 1]})
        return {"seq": 0}


def test_console_undo_takes_back_the_detectives_last_move(tmp_path):
    """`undo` at Mister X's prompt: the detectives' last move of the turn is taken back (the game as
    before it, the move gone from the secret log), their turn again; before any move, nothing to undo."""
    rng = random.Random(11)
    sg = SecretGame.create(draw_setup(2, rng), folder=str(tmp_path))
    board = UndoBoard(rng, sg)
    mover = random_detectives(board)
    out = []
    seen = {}

    def inp(prompt):
        g = sg.game
        rnd = g.round
        if rnd == 1 and "undo" not in seen:
            seen["undo"] = (g.save(), len(sg.lines))
            return "undo D1"  # not the last move: refused with the reason
        if rnd == 1 and seen.get("undo") and "undone" not in seen:
            seen["undone"] = True
            before = bytes(g.pos), [bytes(t) for t in g.tickets], bytes(g.supply), g.candidates()
            last = [line for line in sg.lines if line["type"] == "move"][-1]
            seen["last"] = last
            seen["before_lines"] = len(sg.lines)
            seen["before"] = before
            return "undo"
        if rnd == 0 and "early" not in seen:
            seen["early"] = True
            return "undo"  # nobody has moved yet"
        s, t = rng.choice(g.legal_mrx())
        return "%s %d" % (["taxi", "bus", "ug", "black"][t], s)

    def detectives(sg_):
        if seen.get("undone") and "again" not in seen:
            seen["again"] = True
            g = sg_.game
            # the taken-back piece is the only one to move: the game is as before that move
            assert g.phase == PHASE_DETECTIVES and bin(g.to_move()).count("1") == 1
            assert len(sg_.lines) == seen["before_lines"] - 1
            assert all(line is not seen["last"] for line in sg_.lines)
        mover(sg_)

    con = Console(sg, board, inp=inp, out=out.append, detectives=detectives, wait=0)
    assert con.play()
    text = "\n".join(out)
    assert "taken back" in text and "again" in seen
    assert "is not the last of this turn" in text or "later ones first" in text, text
    assert "no move of this turn is left to take back" in text
    with open(sg.path) as f:
        ok, problems, result = verify_lines(f.read().splitlines())
    assert ok, problems
    assert not any(line.get("type") == "undo" for line in sg.lines)


def test_parse_undo():
    assert parse_command("undo") == ("undo", None)
    assert parse_command("undo d2") == ("undo", "D2")
    with pytest.raises(ParseError):
        parse_command("undo 14")


def test_the_standing_moves_of_a_journal_leave_out_those_taken_back():
    from host.misterx.boardside import standing
    journal = [{"type": "setup"}, {"type": "ready"}, {"type": "mrx", "ticket": "taxi"},
               {"type": "move", "piece": "D1", "to": 4}, {"type": "move", "piece": "D2", "to": 27},
               {"type": "undo", "piece": "D2", "from": 27, "to": 26}, {"type": "undo", "piece": "D1", "from": 4, "to": 13},
               {"type": "move", "piece": "D1", "to": 14}, {"type": "move", "piece": "D2", "to": 39}]
    assert [(seq, line.get("piece")) for seq, line in standing(journal)] == [(3, None), (8, "D1"), (9, "D2")]


def test_parse_reed_and_place():
    assert parse_command("reed out 45") == ("reed", (45, True))
    assert parse_command("Reed IN 3") == ("reed", (3, False))
    assert parse_command("place d1 45") == ("place", ("D1", 45, None))
    assert parse_command("place B2 45 ug") == ("place", ("B2", 45, "underground"))
    for bad in ("reed 45", "reed out", "reed off 45", "reed out 200", "reed out 0", "place X 45", "place D1",
                "place D1 45 black", "place D1 45 fly"):
        with pytest.raises(ParseError):
            parse_command(bad)


def test_console_takes_a_reed_out_of_service_and_back(tmp_path):
    rng = random.Random(3)
    sg = SecretGame.create(draw_setup(3, rng), folder=str(tmp_path))
    typed = iter(["reed out 45", "reed out 99", "reed out 300", "reed in 45", "quit"])
    out = []
    board = ReedBoard(rng)
    con = Console(sg, board, inp=lambda p: next(typed), out=out.append)
    assert con.play() is False
    text = "\n".join(out)
    assert "Switch of station 45 out of service" in text and "Out of service now: 45" in text
    assert "refused: the board refused: at most 20 reeds" in text
    assert "? reed out 45 takes" in text  # 300 is no station: nothing sent
    assert "Switch of station 45 back in service. Out of service now: none" in text
    assert [m for m in board.sent if "reed" in m] == [{"reed": 45, "out": True}, {"reed": 45, "out": False}]
    assert SecretGame.load(sg.path).game.moves == 0  # Mister X has not moved


def test_console_tells_the_players_and_asks_where(tmp_path):
    rng = random.Random(4)
    sg = SecretGame.create(draw_setup(3, rng), folder=str(tmp_path))
    board = ReedBoard(rng, notes=[{"note": "lifted", "piece": "D1", "station": 13, "legal": [[4, ["taxi"]]],
                                   "confirm": [4]},
                                  {"note": "where", "piece": "D1", "stations": [4, 14]}])
    typed = iter(["7", "14"])
    out = []
    con = Console(sg, board, inp=lambda p: out.append(p) or next(typed), out=out.append)
    con.board_notes()
    text = "\n".join(out)
    assert "D1 in hand: the switch of 4 is out of service: put it there, then press confirm" in text
    assert "D1 went to 4 or 14 (switches out of service): which?" in text
    assert "? one of 4 or 14" in text
    assert board.sent == [{"place": "D1", "station": 14, "ticket": None}]
    # several tickets: the players are told to choose
    board.queued = [{"note": "where", "piece": "D2", "stations": [4, 14]}]
    typed = iter(["4"])
    con.board_notes()
    assert "D2 on 4: which ticket? press taxi or bus on the board" in out[-1]


def test_console_tells_the_board_when_the_detectives_corner_mister_x(tmp_path):
    """Mister X goes 116 -> 104 (whose only neighbours are 86 and 116); D1 takes 86, D2 takes 116.
    His full-knowledge game ends there ("mrx_stuck"); the board, which knows only his possible
    stations, must be told (with the proof, by BoardSide.cornered), or it waits for his move."""
    sg = SecretGame.create(draw_setup(4, detectives=[69, 117, 13, 26], mrx=116), folder=str(tmp_path))
    board = FakeBoard(random.Random(1))
    typed = iter(["taxi 104"])
    out = []

    def detectives(_sg):
        board.pending += [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 86},
                          {"type": "move", "piece": "D2", "ticket": "taxi", "to": 116},
                          {"type": "move", "piece": "D3", "ticket": "taxi", "to": 4},
                          {"type": "move", "piece": "D4", "ticket": "taxi", "to": 27}]

    con = Console(sg, board, inp=lambda p: next(typed), out=out.append, detectives=detectives, wait=0)
    assert con.play() is True
    assert (sg.game.result, sg.game.reason) == ("detectives", "mrx_stuck")
    assert {"cornered": True} in board.sent
    assert board.sent.index({"cornered": True}) < next(k for k, m in enumerate(board.sent) if "reveal" in m)
    assert any("cannot move: every station" in line for line in out), out


class LostUndoBoard(UndoBoard):
    """Takes the move back but its event never comes: the console follows the board's journal."""

    def __init__(self, rng, sg):
        super().__init__(rng, sg)
        self.followed = []

    def undo(self, piece=None):
        reply = super().undo(piece)
        self.lost = self.pending.pop()  # the undo event, lost on the wire
        return reply

    def follow_board(self, reason):
        self.followed.append(reason)
        self.sg.take_back(self.lost["piece"])  # what resync finds in the board's journal


def test_console_undo_whose_event_is_lost_follows_the_board(tmp_path):
    rng = random.Random(11)
    sg = SecretGame.create(draw_setup(2, rng), folder=str(tmp_path))
    board = LostUndoBoard(rng, sg)
    mover = random_detectives(board)
    ticks = [0.0]

    def clock():  # a second per look: the console's five seconds pass at once
        ticks[0] += 1.0
        return ticks[0]

    con = Console(sg, board, inp=lambda prompt: "", out=lambda text: None, detectives=mover, wait=0, clock=clock)
    con.mrx_turn = lambda: True
    s, t = rng.choice(sg.game.legal_mrx())
    sg.mrx_move(t, s)
    con.detectives_turn()
    for ev in board.events(0):
        con.on_event(ev)
    n_turn = sg.game.n_turn
    assert n_turn and not board.followed
    con.take_back(None)
    assert sg.game.n_turn == n_turn - 1 and sg.game.phase == PHASE_DETECTIVES
    assert len(board.followed) == 1 and "did not come" in board.followed[0]


def test_console_undo_before_anyone_moved_does_not_say_mister_x_moved(tmp_path):
    rng = random.Random(6)
    sg = SecretGame.create(draw_setup(3, rng), folder=str(tmp_path))
    typed = iter(["undo", "quit"])
    out = []
    con = Console(sg, FakeBoard(rng), inp=lambda p: next(typed), out=out.append)
    assert con.play() is False
    text = "\n".join(out)
    assert "? no move of this turn is left to take back" in text
    assert "Mister X has moved since" not in text  # round 1: nobody has moved


def test_console_end_of_input_quits_as_quit_does(tmp_path):
    rng = random.Random(7)
    sg = SecretGame.create(draw_setup(3, rng), folder=str(tmp_path))

    def ctrl_d(prompt):
        raise EOFError

    out = []
    con = Console(sg, FakeBoard(rng), inp=ctrl_d, out=out.append)
    con.quit_hint = "Game abandoned. Secret log: %s" % sg.path
    assert con.play() is False
    assert out[-1] == "Game abandoned. Secret log: %s" % sg.path  # he learns where his game is
    assert SecretGame.load(sg.path).game.moves == 0
