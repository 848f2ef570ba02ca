"""`yard replay FILE|-`: check a game record (docs/game-record.md), print the verdicts."""
import json
import sys

from host.errors import UserError
from host.i18n import _
from host.misterx.record import replay
from sy.europe.record import is_europe


def add_arguments(parser):
    parser.add_argument("record", help=_("a JSON Lines game record, or - for standard input"))
    parser.add_argument("--quiet", action="store_true", help=_("print only the final result line"))
    parser.add_argument("--map", metavar="FOLDER", help=_("Europe records: read the map from this map folder (docs/map-format.md)"))


def read_lines(path):
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError as e:
        raise UserError(_("cannot read %(file)s: %(error)s") % {"file": path, "error": e.strerror or e})


IN_PROGRESS = 4  # every line accepted, and the record ends before the game does


def run(args):
    """Exit 0 if every line was accepted and the game is over, 1 if any line was refused,
    IN_PROGRESS if the record stops before the game's end (a file cut short, or a game going on)."""
    refused = 0
    result = None
    lines = read_lines(args.record)
    if not any(line.strip() for line in lines):
        raise UserError(_("%(file)s is empty: a game record has at least its setup line (docs/game-record.md)") % {
            "file": _("standard input") if args.record == "-" else args.record})
    verdicts = replay(lines)
    if lines and is_europe(lines[0]) or args.map:  # Mister X - Flight through Europe (docs/rules-europe.md)
        from host.europe.replay import europe_verdicts
        verdicts = europe_verdicts(lines, args.map)
    for verdict in verdicts:
        if verdict.get("ok") is False:
            refused += 1
        if "result" in verdict:
            result = verdict["result"]
        if not args.quiet or "result" in verdict:
            print(json.dumps(verdict))
    if result is None:
        print(_("yard %(command)s: %(error)s") % {  # as every command's error line (host/commands/cli.py)
            "command": "replay", "error": _("game in progress: the record ends before the game does (a file cut "
                                            "short, or a game not yet over)")}, file=sys.stderr)
    return 1 if refused else 0 if result is not None else IN_PROGRESS
