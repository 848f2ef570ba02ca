"""The public game, read from the board's own journal (its flash): what the side panels show.

The board never learns Mister X's hidden stations (the protocol refuses them), so replaying its
journal with the rules core in secret mode gives exactly the public information: tickets, the
travel log with surfacing stations, the round, and where Mister X may be. Nothing here can know
more than the board does.
"""
import json
import os

from host.misterx import record
from sy.rules.game import RuleError, TICKET_NAMES, PHASE_DETECTIVES

PHASES = ("mrx", "detectives", "over")


def read_journal(path):
    """Complete lines of the board's journal (a line still being written is left out)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return []
    end = data.rfind(b"\n")
    if end < 0:
        return []
    out = []
    for raw in data[:end].split(b"\n"):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def public_state(lines):
    """The side panels' state from journal lines (dicts). {"stage": "idle"} without a game."""
    if not lines or lines[0].get("type") != "setup":
        return {"stage": "idle"}
    setup = lines[0]
    try:
        g = record.setup_game(dict(setup, mrx=None))  # the board's setup never has it; be sure
    except RuleError as e:
        from host import refusals
        return {"stage": "idle", "error": refusals.of(e)}
    stage = "setup"
    log = []  # [ticket, station or null, move number]
    verified = None
    problem = None
    take_backs = []  # every take-back, announced: the board's `undo` lines (docs/fairplay.md)
    for line in lines[1:]:
        kind = line.get("type")
        try:
            if kind == "ready":
                stage = "play"
            elif kind == "mrx":
                steps = line.get("double") or [line]
                tickets = [TICKET_NAMES.index(s["ticket"]) for s in steps]
                tos = [s.get("to") or 0 for s in steps]
                if len(steps) == 2:
                    g.mrx_double(tickets[0], tos[0], tickets[1], tos[1])
                else:
                    g.mrx_move(tickets[0], tos[0])
                for k, s in enumerate(steps):
                    log.append({"ticket": s["ticket"], "station": s.get("to"), "double": len(steps) == 2 and k == 1})
            elif kind == "move":
                p = g.piece_index(line["piece"])
                t = line.get("ticket")
                g.move(p, TICKET_NAMES.index(t) if t else None, line["to"])
                if line.get("capture") and g.result is None:
                    g.capture(p)
            elif kind == "undo":
                g.take_back()  # the detectives' last move of the turn, taken back on the board
                # its public fields only: the piece, the station it had moved to, Mister X's consent
                take_backs.append({"piece": line["piece"], "station": line.get("from"), "round": g.round,
                                   "consent": line.get("consent") is True})
            elif kind == "capture":
                if g.reason != "capture":
                    g.capture(g.piece_index(line["piece"]))
            elif kind == "cornered":
                g.mrx_cornered()
            elif kind == "verified":
                verified = {"ok": line.get("ok"), "error": "unfair", "why": line.get("why"), "args": line.get("args"),
                            "message": line.get("message")}  # codes for the page to word; an older board's sentence
        except (RuleError, KeyError, ValueError, TypeError) as e:
            problem = "journal line %r does not replay: %s" % (kind, e)
            break
    n = g.n_pieces
    names = [g.piece_name(i) for i in range(n)]
    if g.result is not None:
        stage = "over"
    tomove = g.to_move() if g.phase == PHASE_DETECTIVES else 0
    st = {
        "stage": stage,
        "phase": PHASES[g.phase],
        "round": g.round,
        "rounds": g.rounds,
        "moves": g.moves,
        "reveals": list(g.reveals),
        "next_reveal": g.next_reveal(),
        "surfaced": g.surfaced or None,
        "pieces": [{"name": names[i], "index": i, "station": g.pos[i], "bobby": g.is_bobby(i),
                    "start": (setup.get("detectives", []) + setup.get("bobbies", []))[i],
                    "to_move": bool(tomove & (1 << i))} for i in range(n)],
        "tickets": [{"name": names[i], "taxi": g.tickets[i][0], "bus": g.tickets[i][1],
                     "underground": g.tickets[i][2]} for i in range(g.n_detectives)],
        "shared_tickets": g.two_player,
        "mrx_tickets": {"black": g.black, "double": g.double},
        "log": log,
        "result": g.result,
        "reason": g.reason,
        "candidates": g.candidates() if g.phase != 2 else [],
        "verified": verified,
        "problem": problem,
        "take_backs": take_backs,
    }
    if g.result == "detectives" and g.mrx:
        st["caught_at"] = g.mrx  # public once he is caught
    return st


class JournalWatch:
    """Re-reads the journal when it changes (size or mtime); .state is the current public state."""

    def __init__(self, path):
        self.path = path
        self.stamp = None
        self.lines = []
        self.state = {"stage": "idle"}

    def poll(self):
        """True when the public state changed."""
        try:
            st = os.stat(self.path)
            stamp = (st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        self.lines = read_journal(self.path) if stamp else []
        new = public_state(self.lines)
        changed = new != self.state
        self.state = new
        return changed
