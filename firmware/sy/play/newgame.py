"""A new game (the host's `setup`) or none (`reset`): the setup checked, the Game built in secret
mode, a new journal begun. Loaded for these commands (sy/link/handlers.py) and dropped after them,
with sy/rules/gamestart.py (once a game: sy/link/proto.py's command table)."""
from sy.rules.game import Game, RuleError


def _ints(obj, key, need):
    v = obj.get(key)
    if v is None and not need:
        return []
    ok = isinstance(v, list)
    if ok:
        for x in v:
            if not isinstance(x, int) or isinstance(x, bool):
                ok = False
    if not ok:
        raise RuleError("bad_input", "field", key)
    return v


_DETECTIVE_TICKETS = ("taxi", "bus", "underground")
_MRX_TICKETS = ("black", "double")


def _counts(obj, key, names):
    v = obj.get(key)
    if v is None:
        return None
    if not isinstance(v, dict):
        raise RuleError("bad_input", "field", key)
    out = []
    for n in names:
        c = v.get(n)
        if not isinstance(c, int) or isinstance(c, bool):
            raise RuleError("bad_input", "field", key + "." + n)
        out.append(c)
    return out


def _setup(obj, graph):
    """(Game, setup line) from a setup command; the rules check the rest (RuleError).
    Lean on purpose: the record module is not loaded on the board's heap for this."""
    det = _ints(obj, "detectives", True)
    bob = _ints(obj, "bobbies", False)
    two = obj.get("two_player", False)
    if two is not True and two is not False:
        raise RuleError("bad_input", "field", "two_player")
    rounds = obj.get("rounds", 22)
    if not isinstance(rounds, int) or isinstance(rounds, bool):
        raise RuleError("bad_input", "field", "rounds")
    reveals = _ints(obj, "reveals", False) if obj.get("reveals") is not None else (3, 8, 13, 18, 24)
    name = obj.get("map", graph.name if graph else "london")
    if graph is not None and name != graph.name:
        raise RuleError("bad_input", "other_map", graph.name)
    tickets = _counts(obj, "tickets", _DETECTIVE_TICKETS)
    mrx_tickets = _counts(obj, "mrx_tickets", _MRX_TICKETS)
    game = Game(det, bob, 0, two, tickets, mrx_tickets, rounds, reveals, graph)
    line = {"type": "setup", "detectives": det, "bobbies": bob, "mrx": None}
    # the counts the rules took, not the host's dict: keys they did not read are not journalled
    if tickets is not None:
        line["tickets"] = dict(zip(_DETECTIVE_TICKETS, tickets))
    if mrx_tickets is not None:
        line["mrx_tickets"] = dict(zip(_MRX_TICKETS, mrx_tickets))
    if two:
        line["two_player"] = True
    if name != "london":
        line["map"] = name
    return game, line


def new_game(b, obj):
    """Begin the game set up by obj (the setup's keys: docs/protocol.md); returns the setup line's seq."""
    if obj.get("mrx") is not None:
        raise RuleError("bad_input", "secret_station")
    game, line = _setup(obj, b.graph)
    for k in ("rounds", "reveals", "commit"):
        if obj.get(k) is not None:
            line[k] = obj[k]
    return b.start_game(game, line)



def reset(b):
    """No game: the journal emptied, the board idle."""
    b.clear_game()
