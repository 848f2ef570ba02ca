"""After the game: check Mister X's revealed travel log against what the board was told.

The host sent a commitment (sy/commit.py) with setup and with every Mister X move; at the end it
reveals [salt, station] for the start and for every move in travel-log order. The board checks
each commitment, that surfacing moves match the stations shown, and that the route follows the
tickets (sy.commit.check_route). proto.py loads this module for the reveal command only and
drops it after each chunk.
"""
import json

from sy.rules import TICKET_NAMES
from sy import forget
from sy.proto import ProtoError


def _pair(v, what):
    if not isinstance(v, list) or len(v) != 2 or not isinstance(v[0], str) or not isinstance(v[1], int) \
            or isinstance(v[1], bool):
        raise ValueError("%s must be [salt, station]" % what)
    return v[0], v[1]


def _log(store):
    """(setup commit, [[ticket, shown], ...], [commit or None, ...]) from the journal."""
    start = None
    log = []
    commits = []
    for _seq, text in store.lines(1):
        obj = json.loads(text)
        kind = obj.get("type")
        if kind == "setup":
            start = obj.get("commit")
        elif kind == "mrx":
            for h in obj.get("double") or (obj,):
                log.append([TICKET_NAMES.index(h["ticket"]), h.get("to", 0)])
                commits.append(h.get("commit"))
    return start, log, commits


def check(store, graph, start, moves):
    """(ok, sentence)."""
    from sy import commit as commitlib  # only for the last chunk of a reveal
    try:
        start_commit, log, commits = _log(store)
        if not isinstance(moves, list) or len(moves) != len(log):
            return False, "the board logged %d moves of Mister X; %s were revealed" % (
                len(log), len(moves) if isinstance(moves, list) else "none")
        salt, here = _pair(start, "start")
        if start_commit and not commitlib.matches(here, salt, start_commit):
            return False, "the start station does not match its commitment"
        stations = []
        for k in range(len(log)):
            salt, s = _pair(moves[k], "move %d" % (k + 1))
            if commits[k] and not commitlib.matches(s, salt, commits[k]):
                return False, "move %d does not match its commitment" % (k + 1)
            if not commits[k] and not log[k][1]:
                return False, "move %d was secret but came without a commitment" % (k + 1)
            stations.append(s)
        problem = commitlib.check_route(graph, here, log, stations)
        if problem:
            return False, problem
        return True, "Mister X's %d moves match the commitments and the map" % len(log)
    except (ValueError, KeyError, TypeError) as e:
        return False, "the revealed moves are malformed (%s)" % e


def c_reveal(p, msg):
    """Mister X's route after the game, in chunks that fit a line: offset 0 carries start,
    every chunk but the last says more: true; the last one is checked as a whole."""
    b = p.board
    if b.game is None or b.game.result is None:
        raise ProtoError("wrong_turn", "Mister X's moves are revealed only after the game")
    moves = msg.get("moves")
    offset = msg.get("offset", 0)
    if not isinstance(moves, list):
        raise ProtoError("bad_input", "moves must be a list of [salt, station]")
    if offset == 0:
        p.revealed = [msg.get("start"), []]
    got = p.revealed
    if got is None or offset != len(got[1]):
        raise ProtoError("bad_input", "the next chunk starts at offset %d" % (len(got[1]) if got else 0))
    got[1].extend(moves)
    if msg.get("more"):
        return {"received": len(got[1])}
    p.revealed = None
    try:
        ok, message = check(b.store, b.game.graph, got[0], got[1])
    finally:
        forget("commit")
    b.verified = ok
    seq = b.commit_line({"type": "verified", "ok": ok, "message": message})
    return {"seq": seq, "verified": ok, "message": message, "received": len(got[1])}
