"""Game records (docs/game-record.md): one JSON line in, one verdict out.

The host's reader (`yard replay`, `yard verify`, the web view's public record). The board never
loads it: it streams its record from its journal (sy/play/report.py), so this module is not flashed.
A rejected line changes nothing. Besides the contract's keys this reader accepts two extensions
(extra keys are allowed by the contract): `"map": "london1983"` on setup, and `"capture": true`
on a move line of a secret record (the host told the board that the piece landed on Mister X).
"""
import json

from sy.rules import mapgraph
from sy.rules.game import Game, RuleError, TICKET_NAMES

MAX_LINE = 4096


def _int(obj, key, what):
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise RuleError("bad_input", "field", what)
    return v


def _station_list(obj, key, required):
    v = obj.get(key)
    if v is None and not required:
        return []
    if not isinstance(v, list):
        raise RuleError("bad_input", "field", key)
    for s in v:
        if not isinstance(s, int) or isinstance(s, bool):
            raise RuleError("bad_input", "field", key)
    return v


def parse_ticket(name, bobby=False):
    if name is None and bobby:
        return None
    if not isinstance(name, str) or name not in TICKET_NAMES:
        raise RuleError("bad_input", "field", "ticket")
    return TICKET_NAMES.index(name)


def setup_game(obj):
    """A Game from a setup line (a dict)."""
    detectives = _station_list(obj, "detectives", True)
    bobbies = _station_list(obj, "bobbies", False)
    mrx = obj.get("mrx")
    if mrx is not None:
        mrx = _int(obj, "mrx", "setup.mrx")
        if mrx == 0:
            raise RuleError("bad_input", "not_station", 0)
    two = obj.get("two_player", False)
    if not isinstance(two, bool):
        raise RuleError("bad_input", "field", "two_player")
    tickets = None
    if obj.get("tickets") is not None:
        t = obj["tickets"]
        if not isinstance(t, dict):
            raise RuleError("bad_input", "field", "tickets")
        tickets = (_int(t, "taxi", "tickets.taxi"), _int(t, "bus", "tickets.bus"),
                   _int(t, "underground", "tickets.underground"))
    mrx_tickets = None
    if obj.get("mrx_tickets") is not None:
        t = obj["mrx_tickets"]
        if not isinstance(t, dict):
            raise RuleError("bad_input", "field", "mrx_tickets")
        mrx_tickets = (_int(t, "black", "mrx_tickets.black"), _int(t, "double", "mrx_tickets.double"))
    rounds = 22
    if obj.get("rounds") is not None:
        rounds = _int(obj, "rounds", "setup.rounds")
    reveals = (3, 8, 13, 18, 24)
    if obj.get("reveals") is not None:
        reveals = _station_list(obj, "reveals", True)
    name = obj.get("map", "london")
    try:
        graph = mapgraph.load(name)
    except (ValueError, TypeError):
        raise RuleError("bad_input", "field", "map")
    return Game(detectives, bobbies, mrx or 0, two, tickets, mrx_tickets, rounds, reveals, graph)


def _step(obj):
    t = obj.get("ticket")
    ticket = parse_ticket(t)
    to = obj.get("to")
    if to is not None and (not isinstance(to, int) or isinstance(to, bool)):
        raise RuleError("bad_input", "field", "to")
    return ticket, to or 0


def ticket_names(pairs):
    return [[s, TICKET_NAMES[t]] for s, t in pairs]


class Replayer:
    """Feeds record lines to a Game and answers each with a verdict dict."""

    def __init__(self):
        self.game = None
        self.line = 0
        self.end_line = None

    def feed(self, text):
        self.line += 1
        try:
            out = self._apply(text)
        except RuleError as e:
            from host import refusals
            return e.reply({"line": self.line, "ok": False, "message": refusals.of(e)})
        verdict = {"line": self.line, "ok": True}
        if out:
            verdict.update(out)
        return verdict

    def _apply(self, text):
        if len(text) > MAX_LINE:
            raise RuleError("bad_input", "line_long", MAX_LINE)
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            raise RuleError("bad_input", "not_json")
        if not isinstance(obj, dict):
            raise RuleError("bad_input", "not_object")
        kind = obj.get("type")
        g = self.game
        if kind == "setup":
            if g is not None:
                raise RuleError("bad_input", "set_up_already")
            self.game = setup_game(obj)
            return None
        if kind not in ("mrx", "move", "query"):
            raise RuleError("bad_input", "field", "type")
        if g is None:
            raise RuleError("bad_input", "setup_first")
        if kind == "query":
            return self._query(g, obj)
        over = g.result is not None
        if kind == "mrx":
            double = obj.get("double")
            if double is not None:
                if not isinstance(double, list) or len(double) != 2 or not all(isinstance(d, dict) for d in double):
                    raise RuleError("bad_input", "field", "double")
                t1, to1 = _step(double[0])
                t2, to2 = _step(double[1])
                shown = g.mrx_double(t1, to1, t2, to2)
            else:
                ticket, to = _step(obj)
                shown = g.mrx_move(ticket, to)
            out = {"reveal": shown} if shown else None
        else:
            piece = g.piece_index(obj.get("piece"))
            ticket = parse_ticket(obj.get("ticket"), g.is_bobby(piece))
            to = obj.get("to")
            if not isinstance(to, int) or isinstance(to, bool):
                raise RuleError("bad_input", "field", "to")
            capture = obj.get("capture", False)
            if capture and g.mrx:
                capture = False  # a full record: the rules see the capture themselves
            if capture:
                # check before moving, so that a refused capture changes nothing
                if not (g.is_candidate(to) or to == g.surfaced):
                    raise RuleError("bad_input", "mrx_cannot_be", to)
            g.move(piece, ticket, to)
            if capture and g.reason != "capture":
                g.capture(piece)
            out = None
        if not over and g.result is not None:
            self.end_line = self.line
        return out

    def _query(self, g, obj):
        what = obj.get("what")
        if what == "candidates":
            return {"candidates": g.candidates()}
        if what == "legal":
            name = obj.get("piece")
            if name == "X":
                return {"legal": ticket_names(g.legal_mrx())}
            return {"legal": ticket_names(g.legal(g.piece_index(name)))}
        raise RuleError("bad_input", "field", "what")

    def result(self):
        g = self.game
        if g is None or g.result is None:
            return {"result": None, "reason": None, "round": g.round if g else 0, "line": self.line}
        return {"result": g.result, "reason": g.reason, "round": g.round, "line": self.end_line}


def replay(lines):
    """Verdicts for an iterable of record lines, then the result line (a generator)."""
    r = Replayer()
    for text in lines:
        yield r.feed(text.rstrip("\r\n"))
    yield r.result()


def record_setup(game, include_mrx=None):
    """The setup line (dict) that recreates `game`'s start (the Game must be fresh)."""
    n = game.n_detectives
    line = {"type": "setup", "detectives": list(game.pos[:n]), "bobbies": list(game.pos[n:game.n_pieces]),
            "mrx": include_mrx}
    if game.two_player:
        line["two_player"] = True
    if game.graph.name != "london":
        line["map"] = game.graph.name
    return line


def mrx_line(ticket, to=None):
    line = {"type": "mrx", "ticket": TICKET_NAMES[ticket]}
    if to:
        line["to"] = to
    return line


def move_line(game, piece, ticket, to):
    line = {"type": "move", "piece": game.piece_name(piece), "to": to}
    if ticket is not None:
        line["ticket"] = TICKET_NAMES[ticket]
    return line


def public_lines(lines):
    """The record as the board keeps it: Mister X's start and hidden stations removed, his
    stations kept only on surfacing moves, captures marked. `lines` are dicts of a full record."""
    out = []
    reveals = (3, 8, 13, 18, 24)
    moves = 0
    mrx = None
    for line in lines:
        kind = line.get("type")
        if kind == "setup":
            line = dict(line)
            mrx = line.get("mrx")
            line["mrx"] = None
            reveals = line.get("reveals") or reveals
        elif kind == "mrx":
            steps = line.get("double") or [line]
            public = []
            for step in steps:
                moves += 1
                mrx = step.get("to")
                kept = {"ticket": step["ticket"]}
                if moves in reveals:
                    kept["to"] = mrx
                public.append(kept)
            line = {"type": "mrx", "double": public} if "double" in line else dict(public[0], type="mrx")
        elif kind == "move" and line.get("to") == mrx:
            line = dict(line, capture=True)
        out.append(line)
    return out
