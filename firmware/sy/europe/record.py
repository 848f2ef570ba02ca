"""Europe game records (docs/game-record.md, "Europe, version 1"): one JSON line in, one verdict out.

A full record (the host's) has Mister X's start, cities and tickets; a public one (the board's)
has `"mrx": null` and only what the detectives see: the host's declarations (shown cities,
capture, cornered) are keys of the lines. `yard replay` reads both.
"""
import json

from sy.europe.rules import (Game, RuleError, ticket_number, ticket_name, LEVEL_NAMES, KINDS,
                             TRANSPORT_NAMES)

VERSION = 1
MAX_LINE = 4096


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _tickets(obj, key, required=True):
    v = obj.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, list):
        raise RuleError("bad_input", "field", key)
    return [ticket_number(t) for t in v]


def _spend(g, obj):
    """The detectives' spent tickets: {"P1": [...], "P2": [...]} -> [(hand, ticket)]."""
    v = obj.get("spend")
    if not isinstance(v, dict):
        raise RuleError("bad_input", "field", "spend")
    out = []
    for name in sorted(v):
        h = g.hand_index(name)
        if h == 0:
            raise RuleError("bad_input", "own_hands")
        if not isinstance(v[name], list):
            raise RuleError("bad_input", "field", "spend")
        for t in v[name]:
            out.append((h, ticket_number(t)))
    return out


def _city(obj, key, g):
    v = obj.get(key)
    if not _is_int(v) or not g.graph.is_station(v):
        raise RuleError("bad_input", "field", key)
    return v


def setup_game(obj, load_graph):
    if obj.get("version", VERSION) != VERSION:
        raise RuleError("bad_input", "record_version", VERSION)
    name = obj.get("map")
    try:
        graph = load_graph(name)
    except (ValueError, TypeError, OSError):
        raise RuleError("bad_input", "field", "map")
    level = obj.get("level")
    if level not in LEVEL_NAMES:
        raise RuleError("bad_input", "field", "level")
    det = obj.get("detectives")
    if not isinstance(det, list) or not all(_is_int(s) for s in det):
        raise RuleError("bad_input", "field", "detectives")
    players = obj.get("players")
    if players is not None and (not isinstance(players, list) or not all(_is_int(p) for p in players)):
        raise RuleError("bad_input", "field", "players")
    mrx = obj.get("mrx")
    if mrx is not None and not (_is_int(mrx) and graph.is_station(mrx)):
        raise RuleError("bad_input", "field", "mrx")
    hand = obj.get("mrx_hand", 8)
    if not _is_int(hand):
        raise RuleError("bad_input", "field", "mrx_hand")
    bag = None
    if obj.get("bag") is not None:
        b = obj["bag"]
        if not isinstance(b, dict):
            raise RuleError("bad_input", "field", "bag")
        bag = bytearray(KINDS)
        for k in b:
            if not _is_int(b[k]) or not 0 <= b[k] <= 255:
                raise RuleError("bad_input", "field", "bag")
            bag[ticket_number(k)] = b[k]
    return Game(graph, det, players, LEVEL_NAMES.index(level), mrx or 0, hand, bag)


class Replayer:
    def __init__(self, load_graph=None):
        if load_graph is None:
            from sy.europe.graph import load as load_graph
        self.load_graph = load_graph
        self.game = None
        self.line = 0
        self.end_line = None

    def feed(self, text):
        self.line += 1
        try:
            out = self._apply(text)
        except RuleError as e:
            return e.reply({"line": self.line, "ok": False})
        verdict = {"line": self.line, "ok": True}
        if out:
            verdict.update(out)
        return verdict

    def _apply(self, text):
        if len(text) > MAX_LINE:
            raise RuleError("bad_input", "line_long", MAX_LINE)
        try:
            obj = json.loads(text)
        except (ValueError, RuntimeError):  # RuntimeError: CPython's RecursionError on deep nesting
            raise RuleError("bad_input", "not_json")
        if not isinstance(obj, dict):
            raise RuleError("bad_input", "not_object")
        kind = obj.get("type")
        g = self.game
        if kind == "setup":
            if g is not None:
                raise RuleError("bad_input", "set_up_already")
            if obj.get("game") != "europe":
                raise RuleError("bad_input", "field", "game")
            self.game = setup_game(obj, self.load_graph)
            return None
        if g is None:
            raise RuleError("bad_input", "setup_first")
        if kind == "query":
            return self._query(g, obj)
        over = g.result is not None
        out = self._action(g, kind, obj)
        if not over and g.result is not None:
            self.end_line = self.line
        return out

    def _action(self, g, kind, obj):
        if kind == "draw" or kind == "discard":
            h = g.hand_index(obj.get("hand"))
            tickets = _tickets(obj, "tickets", False)
            count = None
            if tickets is None:
                count = obj.get("count")
                if not _is_int(count):
                    raise RuleError("bad_input", "field", "tickets")
            if kind == "draw":
                g.draw(h, tickets, count)
            else:
                g.discard(h, tickets, count)
            return None
        if kind == "mrx":
            special = obj.get("special")
            if special not in (None, "double", "covert"):
                raise RuleError("bad_input", "field", "special")
            spend = _tickets(obj, "spend", False) or []
            moves = obj.get("moves")
            if not isinstance(moves, list) or not all(isinstance(m, dict) for m in moves):
                raise RuleError("bad_input", "field", "moves")
            steps = []
            for m in moves:
                t = m.get("ticket")
                to = m.get("to", 0)
                if to is not None and not _is_int(to) or to and not g.graph.is_station(to):
                    raise RuleError("bad_input", "field", "to")
                if g.known and (t is None or not to):
                    raise RuleError("bad_input", "name_station")
                steps.append((None if t is None else ticket_number(t), to or 0))
            g.mrx_turn(special, spend, steps)
            return None
        if kind == "move":
            i = g.piece_index(obj.get("piece"))
            t = ticket_number(obj.get("ticket"))
            to = _city(obj, "to", g)
            found = self._declared_capture(g, obj, to)
            g.move(i, t, to)
            if found and g.result is None:
                g.capture(i)
            return None
        if kind == "investigate":
            shown = 0 if g.known else _city(obj, "city", g)
            entry, city = g.investigate(_spend(g, obj), shown)
            return {"reveal": {"entry": entry, "city": city}}
        if kind == "extra":
            i = g.piece_index(obj.get("piece"))
            to = _city(obj, "to", g)
            found = self._declared_capture(g, obj, to)
            g.extra_move(i, _spend(g, obj), to)
            if found and g.result is None:
                g.capture(i)
            return None
        if kind == "check":
            shown = None
            if not g.known:
                shown = obj.get("shown", [])
                if not isinstance(shown, list) or not all(_is_int(c) for c in shown):
                    raise RuleError("bad_input", "field", "shown")
            return {"shown": g.position_check(shown)}
        if kind == "cornered":
            g.cornered()
            return None
        raise RuleError("bad_input", "field", "type")

    @staticmethod
    def _declared_capture(g, obj, to):
        """A public record's "capture": true, checked before the move so a refusal changes nothing."""
        if obj.get("capture") is not True or g.known:
            return False
        if not g.is_candidate(to):
            raise RuleError("bad_input", "mrx_cannot_be", to)
        return True

    def _query(self, g, obj):
        what = obj.get("what")
        if what == "candidates":
            return {"candidates": g.candidates()}
        if what == "legal":
            name = obj.get("piece")
            if name == "X":
                return {"legal": [[s, ticket_name(t)] for s, t in g.legal_mrx()]}
            return {"legal": [[s, TRANSPORT_NAMES[t]] for s, t in g.legal(g.piece_index(name))]}
        if what == "hands":
            out = {}
            for h in range(len(g.hand_size)):
                if h or g.known:
                    out[g.hand_name(h)] = sorted(ticket_name(t) for t in range(KINDS) for _ in range(g.hands[h][t]))
            return {"hands": out}
        raise RuleError("bad_input", "field", "ask")

    def result(self):
        g = self.game
        if g is None or g.result is None:
            return {"result": None, "reason": None, "round": g.round if g else 0, "line": self.line}
        return {"result": g.result, "reason": g.reason, "round": g.round, "line": self.end_line}


def replay(lines, load_graph=None):
    """Verdicts for an iterable of record lines, then the result line (a generator)."""
    r = Replayer(load_graph)
    for text in lines:
        yield r.feed(text.rstrip("\r\n"))
    yield r.result()


def is_europe(first_line):
    """Does a record (its first line) belong to this reader?"""
    try:
        obj = json.loads(first_line)
    except (ValueError, RuntimeError):
        return False
    return isinstance(obj, dict) and obj.get("game") == "europe"
