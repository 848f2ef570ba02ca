"""The game record read from the journal (record_lines: the host's `record`, sy/link/handlers.py),
and why a placement is illegal (for sy/play/board.py). Loaded when first needed; dropped after each
`record` (sy/link/proto.py's command table)."""
import json

from sy.rules.game import TICKET_NAMES


def _taken_back(store):
    """The seqs of the move lines an `undo` line took back (each takes back the latest move of
    its turn that still stands), as a generator's value: it yields None after each line it reads."""
    gone = []
    turn = []  # the standing moves of the turn at hand
    for seq, text in store.lines(1):
        if '"move"' in text:
            turn.append(seq)
        elif '"undo"' in text and turn:
            gone.append(turn.pop())
        elif '"mrx"' in text:
            turn = []
        yield None
    return gone


def record_lines(store, everything):
    """Yield the journal's lines (dicts) one by one: the game record (setup, Mister X's moves, the
    detectives' moves without those taken back, a capture marked on its move) or, if everything,
    every line (the `undo` lines and the moves they took back too). In between, None: a journal
    line read and nothing to give yet. Each value is one line's work, so the host's `record` is
    answered a step a scan cycle and the scan never waits for the whole journal."""
    gone = ()
    if not everything:
        gone = yield from _taken_back(store)
    prev = None
    for seq, text in store.lines(1):
        if seq in gone:
            yield None
            continue
        obj = json.loads(text)
        kind = obj.get("type")
        if not everything and kind == "capture" and prev is not None:
            prev["capture"] = True  # the record marks a capture on the move line
            yield None
            continue
        if not everything and kind not in ("setup", "mrx", "move"):
            yield None
            continue
        yield prev  # None for the first line: nothing before it
        prev = obj
    if prev is not None:
        yield prev


def why(g, p, to, chosen):
    """(error code, why, args) for an illegal placement of piece p on station to (chosen: the
    ticket chosen before it, or -1)."""
    gr = g.graph
    here = g.pos[p]
    if chosen >= 0 and gr.connected(here, to, chosen):
        return "no_ticket", "no_ticket_left", [g.piece_name(p), TICKET_NAMES[chosen]]
    for t in range(3):
        if gr.connected(here, to, t):
            if chosen >= 0:
                return "not_connected", "no_line", [TICKET_NAMES[chosen], here, to]
            return "no_ticket", "no_ticket_left", [g.piece_name(p), TICKET_NAMES[t]]
    if gr.connected(here, to, 3):
        return "ferry", "ferry_black", []
    return "not_connected", "no_link", [to, here]
