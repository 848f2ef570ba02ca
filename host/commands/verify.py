"""`yard verify RECORD`: did Mister X play fair?

RECORD is a revealed secret log (host/misterx/secretgame.py): a game record whose setup and Mister X lines
carry `commit` (sent to the board during the game) and `salt` (revealed at the end). Every
station is checked against its commitment, then the whole record against the rules. With
`--board BOARD_RECORD` (the board's own copy) the commitments and public facts must also agree
with what the board was told during the game.
"""
import json

from host.errors import UserError
from host.i18n import N_, _, ngettext
from host.words import reason, ticket_name, winner
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
            raise UserError(_("%(file)s line %(line)d is not JSON") % {"file": what, "line": i})
        if not isinstance(obj, dict):
            raise UserError(_("%(file)s line %(line)d is not a JSON object") % {"file": what, "line": i})
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
    objs = _parse(lines, _("the record"))
    problems = []
    if not objs or objs[0].get("type") != "setup":
        return False, [_("the record does not start with a setup line")], None
    setup = objs[0]
    if setup.get("mrx") is None:
        raise UserError(_("this is the board's public record: Mister X's stations are not in it, so there is "
                          "nothing to check against his commitments. Pass Mister X's secret log (the file yard "
                          "play or yard sim names at the end of the game), and this record with --board"))
    plain = not setup.get("commit") and not any(isinstance(s, dict) and s.get("commit") for s in _steps(objs))
    if plain:  # one sentence, not one per move
        problems.append(_("the record carries no commitment at all: it is a plain game record (yard replay checks "
                          "its rules), not Mister X's secret log (written by yard play or yard sim)"))
    elif not setup.get("commit"):
        problems.append(_("the setup carries no commitment to Mister X's start station"))
    elif not commitlib.matches(setup.get("mrx"), setup.get("salt"), setup.get("commit")):
        problems.append(_("the start station %(station)r does not match its commitment") % {"station": setup.get("mrx")})
    for k, step in enumerate([] if plain else _steps(objs), 1):
        if not isinstance(step, dict):
            problems.append(_("move %(move)d is malformed") % {"move": k})
            continue
        if not step.get("commit"):
            problems.append(_("move %(move)d carries no commitment") % {"move": k})
        elif step.get("salt") is None:
            problems.append(_("move %(move)d is not revealed (no salt)") % {"move": k})
        elif not commitlib.valid_salt(step.get("salt")):
            problems.append(_("move %(move)d: the salt is not %(bytes)d+ random bytes (hex or base64url)")
                            % {"move": k, "bytes": commitlib.MIN_SALT_BYTES})
        elif not commitlib.matches(step.get("to"), step["salt"], step["commit"]):
            problems.append(_("move %(move)d: station %(station)r does not match its commitment")
                            % {"move": k, "station": step.get("to")})
    record = [json.dumps(o) for o in objs if o.get("type") in ("setup", "mrx", "move")]
    result = None
    for v in replay(record):
        if v.get("ok") is False:
            problems.append(_("rules: record line %(line)d refused: %(refusal)s")
                            % {"line": v["line"], "refusal": v.get("message") or v.get("error")})
        if "result" in v:
            result = v
    if board_lines is not None:
        problems.extend(_compare_board(objs, _parse(board_lines, _("the board record"))))
    return not problems, problems, result


def _compare_board(objs, board):
    problems = []
    if not board or board[0].get("type") != "setup":
        return [_("the board record does not start with a setup line")]
    if board[0].get("mrx") is not None or "salt" in board[0]:
        raise UserError(_("the --board record holds Mister X's start station: it is a secret log, not the "
                          "board's record (the board never learns his stations)"))
    if board[0].get("commit") and board[0]["commit"] != objs[0].get("commit"):
        problems.append(_("the board holds another commitment to the start station"))
    for key, problem in (("detectives", N_("the board's setup has other detectives")),
                         ("bobbies", N_("the board's setup has other bobbies"))):
        if board[0].get(key, []) != objs[0].get(key, []):
            problems.append(_(problem))
    mine, theirs = _steps(objs), _steps(board)
    if len(mine) != len(theirs):
        problems.append(_("the board logged %(board)d moves of Mister X, the record %(record)d")
                        % {"board": len(theirs), "record": len(mine)})
    for k, (a, b) in enumerate(zip(mine, theirs), 1):
        if a.get("ticket") != b.get("ticket"):
            problems.append(_("move %(move)d: the board saw the ticket %(board)s, the record says %(record)s")
                            % {"move": k, "board": ticket_name(b.get("ticket")), "record": ticket_name(a.get("ticket"))})
        if b.get("commit") != a.get("commit"):
            problems.append(_("move %(move)d: the commitment differs from the one the board received") % {"move": k})
        if b.get("to") and b["to"] != a.get("to"):
            problems.append(_("move %(move)d: he surfaced on %(board)s, the record says %(record)s")
                            % {"move": k, "board": b["to"], "record": a.get("to")})

    def moves(record):
        return [(m.get("piece"), m.get("to")) for m in record if m.get("type") == "move"]

    if moves(board) != moves(objs):
        problems.append(_("the detectives' moves differ between the board and the record"))
    return problems


def run(args):
    board = read_lines(args.board) if args.board else None
    ok, problems, result = verify_lines(read_lines(args.record), board)
    if args.json:
        print(json.dumps({"ok": ok, "problems": problems, "result": result}))
    elif ok:
        n = len(_steps(_parse(read_lines(args.record), "the record")))
        print(ngettext("verified: Mister X played fair: the start and his %(moves)d move match their commitments "
                       "and the rules",
                       "verified: Mister X played fair: the start and all %(moves)d moves match their commitments "
                       "and the rules", n) % {"moves": n})
        if result and result.get("result"):
            print(_("result: %(winner)s (%(reason)s) in round %(round)s")
                  % {"winner": winner(result["result"]), "reason": reason(result["reason"]), "round": result["round"]})
    else:
        print(_("NOT VERIFIED:"))
        for p in problems:
            print("  " + p)
    return 0 if ok else 1
