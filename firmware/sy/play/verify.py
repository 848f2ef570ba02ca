"""After the game: check Mister X's revealed travel log against what the board was told.

The host sent a commitment (sy/rules/commit.py) with setup and with every Mister X move; at the end it
reveals [salt, station] for the start and for every move in travel-log order, in chunks that fit
a line. The board checks each commitment, that surfacing moves match the stations shown, and that
the route follows the tickets (sy.rules.commit.check_route). Each chunk is checked as it comes, against
the journal read line by line, so the board never holds the whole reveal or the whole log: only
how far the check got, his station there, the first problem found and where in the journal the
next chunk's moves start: a chunk reads the journal from there, not from its first line (on a
Pico, reading the whole journal for each chunk of two moves made 24 KB of garbage, docs/memory.md).
The host's `reveal` command (sy/link/handlers.py) loads this module for each chunk; it is dropped
after it, with sy/rules/commit.py (sy/link/proto.py's command table).
"""
import json

from sy.rules.game import TICKET_NAMES, RuleError
from sy.rules import commit as commitlib  # with this module, in the command's cycle (not a step's)
from sy.storage.store import holds


def _pair(v, move):
    """[salt, station] revealed for travel-log entry `move` (1-based; 0: his start)."""
    if not isinstance(v, list) or len(v) != 2 or not isinstance(v[0], str) or not isinstance(v[1], int) \
            or isinstance(v[1], bool):
        raise RuleError("unfair", "malformed", move)
    return v[0], v[1]


_MARKS = ('"setup"', '"mrx"')


def _entries(store, at):
    """Yield (line_at, i, commit, ticket, shown) for the setup (ticket None) and for every
    travel-log entry, in order, from the journal line at byte offset `at` on: line_at is where the
    entry's line starts, i its place in that line (a double move's second is 1); None for a line
    with none (a detective's move)."""
    lines = store.lines_at(at)
    try:
        for line_at, text in lines:
            if not holds(text, _MARKS):
                yield None  # detectives' moves and notes: not parsed (a step of the check all the same)
                continue
            obj = json.loads(text)
            kind = obj.get("type")
            if kind == "setup":
                yield line_at, 0, obj.get("commit"), None, 0
            elif kind == "mrx":
                i = 0
                for h in obj.get("double") or (obj,):
                    yield line_at, i, h.get("commit"), TICKET_NAMES.index(h["ticket"]), h.get("to", 0)
                    i += 1
    finally:
        lines.close()  # the journal's file (MicroPython closes no generator it drops)


def _entry(commitlib, graph, here, k, commit, ticket, shown, pair):
    """His station after travel-log entry k (0-based) revealed as pair, coming from `here`;
    RuleError("unfair", why, ...) if it breaks its commitment or the map."""
    salt, s = _pair(pair, k + 1)
    if commit and not commitlib.matches(s, salt, commit):
        raise RuleError("unfair", "move_commit", k + 1)
    if not commit and not shown:
        raise RuleError("unfair", "move_uncommitted", k + 1)
    problem = commitlib.check_route(graph, here, [[ticket, shown]], [s], k + 1)
    if problem:
        raise RuleError("unfair", problem[0], *problem[1])
    return s


def new_state():
    """A reveal's state before its first chunk: [entries checked, his station, the first problem
    or None, entries logged, the journal offset of the line holding the next entry to check, the
    entries before that line]."""
    return [0, 0, None, 0, 0, 0]


def check_chunk(store, graph, state, start, moves, last):
    """Check the revealed moves[i] as travel-log entry state[0] + i (and start, with the first
    chunk); state (new_state()) is updated. A chunk that is not the last stops reading the journal
    at the line of the entry after its moves; the last reads on to count the entries logged.
    A generator: it yields after each journal line and each entry checked, so the `reveal` is
    answered a step a scan cycle (sy/link/proto.py step()) and the scan never waits for a chunk."""
    first = state[0]
    end = first + len(moves)
    k = state[5] - 1  # the travel-log entry at hand (-1: the setup; before: the line's first)
    entries = _entries(store, state[4])
    try:
        for got in entries:
            yield
            if got is None:
                continue
            line_at, i, commit, ticket, shown = got
            if ticket is None:
                if first == 0:
                    salt, state[1] = _pair(start, 0)
                    if commit and not commitlib.matches(state[1], salt, commit):
                        raise RuleError("unfair", "move_commit", 0)
                    if not graph.is_station(state[1]):  # the map has no lines from it to look up
                        raise RuleError("unfair", "move_not_station", 0, state[1])
                continue
            k += 1
            if k >= end and not last:
                state[4], state[5] = line_at, k - i  # the next chunk starts with this entry
                return
            if first <= k < end:
                state[1] = _entry(commitlib, graph, state[1], k, commit, ticket, shown, moves[k - first])
        state[3] = k + 1
    except RuleError as e:  # the verdict: its codes, for the host to word
        state[2] = e
    except (ValueError, KeyError, TypeError):  # a salt that is not hex or base64url, say
        state[2] = RuleError("unfair", "malformed", k + 1)
    finally:
        entries.close()


def verdict(state):
    """The fair-play check's verdict once every chunk is in (state as check_chunk leaves it): the
    line to journal, {"type": "verified", "ok", "why", "args"}. (Journalled by the caller, once this
    module and the rules' commitments are dropped: the save's garbage then lands without them.)"""
    problem = state[2]
    if problem is None and state[0] != state[3]:
        problem = RuleError("unfair", "count_mismatch", state[3], state[0])
    if problem is None:
        return {"type": "verified", "ok": True, "why": "route_ok", "args": [state[3]]}
    return {"type": "verified", "ok": False, "why": problem.why, "args": list(problem.values)}
