"""After the game: check Mister X's revealed travel log against what the board was told.

The host sent a commitment (sy/rules/commit.py) with setup and with every Mister X move; at the end it
reveals [salt, station] for the start and for every move in travel-log order, in chunks that fit
a line. The board checks each commitment, that surfacing moves match the stations shown, and that
the route follows the tickets (sy.rules.commit.check_route). Each chunk is checked as it comes, against
the journal read line by line, so the board never holds the whole reveal or the whole log: only
how far the check got, his station there and the first problem found (docs/memory.md).
The host's `reveal` command (sy/link/handlers.py) loads this module for each chunk; it is dropped
after it, with sy/rules/commit.py (sy/link/proto.py's _ONCE_A_GAME).
"""
import json

from sy.rules.game import TICKET_NAMES, RuleError


def _pair(v, what):
    if not isinstance(v, list) or len(v) != 2 or not isinstance(v[0], str) or not isinstance(v[1], int) \
            or isinstance(v[1], bool):
        raise RuleError("unfair", "the revealed moves are malformed (%s must be [salt, station])" % what)
    return v[0], v[1]


def _entries(store):
    """Yield (commit, ticket, shown) for the setup (ticket None) and for every travel-log entry,
    in order, from the journal."""
    for _seq, text in store.lines(1):
        if '"setup"' not in text and '"mrx"' not in text:
            continue  # detectives' moves and notes: not parsed
        obj = json.loads(text)
        kind = obj.get("type")
        if kind == "setup":
            yield obj.get("commit"), None, 0
        elif kind == "mrx":
            for h in obj.get("double") or (obj,):
                yield h.get("commit"), TICKET_NAMES.index(h["ticket"]), h.get("to", 0)


def _entry(commitlib, graph, here, k, commit, ticket, shown, pair):
    """His station after travel-log entry k (0-based) revealed as pair, coming from `here`;
    RuleError("unfair", sentence) if it breaks its commitment or the map."""
    salt, s = _pair(pair, "move %d" % (k + 1))
    if commit and not commitlib.matches(s, salt, commit):
        raise RuleError("unfair", "move %d does not match its commitment" % (k + 1))
    if not commit and not shown:
        raise RuleError("unfair", "move %d was secret but came without a commitment" % (k + 1))
    problem = commitlib.check_route(graph, here, [[ticket, shown]], [s], k + 1)
    if problem:
        raise RuleError("unfair", problem)
    return s


def check_chunk(store, graph, state, start, moves):
    """Check the revealed moves[i] as travel-log entry state[0] + i (and start, with the first
    chunk). state = [entries checked, his station, problem or None, entries logged], updated."""
    from sy.rules import commit as commitlib
    first = state[0]
    k = -1  # the travel-log entry of the journal line at hand (-1: the setup)
    try:
        for commit, ticket, shown in _entries(store):
            if ticket is None:
                if first == 0:
                    salt, state[1] = _pair(start, "start")
                    if commit and not commitlib.matches(state[1], salt, commit):
                        raise RuleError("unfair", "the start station does not match its commitment")
                    if not graph.is_station(state[1]):  # the map has no lines from it to look up
                        raise RuleError("unfair", "the start: %r is not a station" % state[1])
                continue
            k += 1
            if first <= k < first + len(moves):
                state[1] = _entry(commitlib, graph, state[1], k, commit, ticket, shown, moves[k - first])
        state[3] = k + 1
    except RuleError as e:  # the verdict: a sentence for the players
        state[2] = e.message
    except (ValueError, KeyError, TypeError) as e:
        state[2] = "the revealed moves are malformed (%s)" % e


def verdict(b, state):
    """The fair-play check's verdict once every chunk is in (state as check_chunk leaves it),
    journalled: (seq, ok, sentence)."""
    message = state[2]
    if message is None and state[0] != state[3]:
        message = "the board logged %d moves of Mister X; %d were revealed" % (state[3], state[0])
    ok = message is None
    if ok:
        message = "Mister X's %d moves match the commitments and the map" % state[3]
    seq = b.commit_line({"type": "verified", "ok": ok, "message": message})
    return seq, ok, message
