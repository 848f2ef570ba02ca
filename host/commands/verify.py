"""`yard verify RECORD`: did Mister X play fair?

RECORD is a revealed secret log (host/misterx/secretgame.py): a game record whose setup and Mister X lines
carry `commit` (sent to the board during the game) and `salt` (revealed at the end). Every
station is checked against its commitment, then the whole record against the rules. With
`--board BOARD_RECORD` (the board's own copy) the commitments and public facts must also agree
with what the board was told during the game.
"""
import json

from host.errors import UserError
from host.i18n import _
from host.commands.replay import read_lines
from sy.rules import commit as commitlib
from host.misterx.record import replay


def add_arguments(parser):
    parser.add_argument("record", help=_("the revealed secret log (JSON Lines), or - for standard input"))
    parser.add_argument("--board", metavar="BOARD_RECORD",
                        help=_("the board's record of the same game: its commitments must match"))
    parser.add_argument("--json", action="store_true", help=_("print the findings as one JSON object"))


def _parse(lines, what):
    out = []
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            raise UserError("%s line %d is not JSON" % (what, i))
        if not isinstance(obj, dict):
            raise UserError("%s line %d is not a JSON object" % (what, i))
        out.append(obj)
    return out


def _steps(objs):
    """Mister X's travel-log entries in order (dicts with ticket/to/commit/salt)."""
    out = []
    for obj in objs:
        if obj.get("type") == "mrx":
            d = obj.get("double")
            out.extend(d if isinstance(d, list) else [obj])
    return out


def verify_lines(lines, board_lines=None):
    """Check a revealed log. Returns (ok, problems: [sentence], result line dict)."""
    objs = _parse(lines, "the record")
    problems = []
    if not objs or objs[0].get("type") != "setup":
        return False, ["the record does not start with a setup line"], None
    setup = objs[0]
    if setup.get("mrx") is None:
        raise UserError("this is the board's public record: Mister X's stations are not in it, so there is "
                        "nothing to check against his commitments. Pass Mister X's secret log (the file yard "
                        "play or yard sim names at the end of the game), and this record with --board")
    plain = not setup.get("commit") and not any(isinstance(s, dict) and s.get("commit") for s in _steps(objs))
    if plain:  # one sentence, not one per move
        problems.append("the record carries no commitment at all: it is a plain game record (yard replay checks "
                        "its rules), not Mister X's secret log (written by yard play or yard sim)")
    elif not setup.get("commit"):
        problems.append("the setup carries no commitment to Mister X's start station")
    elif not commitlib.matches(setup.get("mrx"), setup.get("salt"), setup.get("commit")):
        problems.append("the start station %r does not match its commitment" % (setup.get("mrx"),))
    for k, step in enumerate([] if plain else _steps(objs), 1):
        if not isinstance(step, dict):
            problems.append("move %d is malformed" % k)
            continue
        if not step.get("commit"):
            problems.append("move %d carries no commitment" % k)
        elif step.get("salt") is None:
            problems.append("move %d is not revealed (no salt)" % k)
        elif not commitlib.valid_salt(step.get("salt")):
            problems.append("move %d: the salt is not %d+ random bytes (hex or base64url)" % (k, commitlib.MIN_SALT_BYTES))
        elif not commitlib.matches(step.get("to"), step["salt"], step["commit"]):
            problems.append("move %d: station %r does not match its commitment" % (k, step.get("to")))
    record = [json.dumps(o) for o in objs if o.get("type") in ("setup", "mrx", "move")]
    result = None
    for v in replay(record):
        if v.get("ok") is False:
            problems.append("rules: record line %d refused: %s" % (v["line"], v.get("message") or v.get("error")))
        if "result" in v:
            result = v
    if board_lines is not None:
        problems.extend(_compare_board(objs, _parse(board_lines, "the board record")))
    return not problems, problems, result


def _compare_board(objs, board):
    problems = []
    if not board or board[0].get("type") != "setup":
        return ["the board record does not start with a setup line"]
    if board[0].get("mrx") is not None or "salt" in board[0]:
        raise UserError("the --board record holds Mister X's start station: it is a secret log, not the "
                        "board's record (the board never learns his stations)")
    if board[0].get("commit") and board[0]["commit"] != objs[0].get("commit"):
        problems.append("the board holds another commitment to the start station")
    for key in ("detectives", "bobbies"):
        if board[0].get(key, []) != objs[0].get(key, []):
            problems.append("the board's setup has other %s" % key)
    mine, theirs = _steps(objs), _steps(board)
    if len(mine) != len(theirs):
        problems.append("the board logged %d moves of Mister X, the record %d" % (len(theirs), len(mine)))
    for k, (a, b) in enumerate(zip(mine, theirs), 1):
        if a.get("ticket") != b.get("ticket"):
            problems.append("move %d: the board saw a %s ticket, the record says %s" % (k, b.get("ticket"), a.get("ticket")))
        if b.get("commit") != a.get("commit"):
            problems.append("move %d: the commitment differs from the one the board received" % k)
        if b.get("to") and b["to"] != a.get("to"):
            problems.append("move %d: he surfaced on %s, the record says %s" % (k, b["to"], a.get("to")))

    def moves(record):
        return [(m.get("piece"), m.get("to")) for m in record if m.get("type") == "move"]

    if moves(board) != moves(objs):
        problems.append("the detectives' moves differ between the board and the record")
    return problems


def run(args):
    board = read_lines(args.board) if args.board else None
    ok, problems, result = verify_lines(read_lines(args.record), board)
    if args.json:
        print(json.dumps({"ok": ok, "problems": problems, "result": result}))
    elif ok:
        n = len(_steps(_parse(read_lines(args.record), "the record")))
        print("verified: Mister X played fair: the start and all %d moves match their commitments "
              "and the rules" % n)
        if result and result.get("result"):
            print("result: %s (%s) in round %s" % (result["result"], result["reason"], result["round"]))
    else:
        print("NOT VERIFIED:")
        for p in problems:
            print("  " + p)
    return 0 if ok else 1
