"""What Mister X's secret page shows, from his secret log (host/misterx/secretgame.py): the game as he knows
it. Only his page (host/web/mrxpage.py) may ever send this: it holds his hidden stations.

The secret log is saved atomically after every change (by the console, in its own thread), so
reading it from disk gives a consistent game without touching the console's objects.
"""
import os

from host.errors import UserError
from host.misterx.secretgame import SecretGame
from sy.rules.game import TICKET_NAMES, PHASE_MRX, PHASE_DETECTIVES

PHASES = ("mrx", "detectives", "over")


def mrx_state(sg):
    """The secret page's game (a JSON-able dict) from a SecretGame."""
    g = sg.game
    over = g.result is not None
    his_turn = g.phase == PHASE_MRX and not over
    legal = {}
    if his_turn:
        for s, t in g.legal_mrx():
            legal.setdefault(str(s), []).append(TICKET_NAMES[t])
    doubles = [[TICKET_NAMES[a[0]], a[1], TICKET_NAMES[b[0]], b[1]] for a, b in sg.double_options()] if his_turn else []
    log = []
    for line in sg.mrx_lines():
        steps = line["double"] if "double" in line else [line]
        for k, st in enumerate(steps):
            log.append({"ticket": st["ticket"], "station": st["to"], "shown": bool(st.get("shown")),
                        "double": len(steps) == 2 and k == 1})
    tomove = g.to_move() if g.phase == PHASE_DETECTIVES and not over else 0
    pieces = []
    for i in range(g.n_pieces):
        p = {"name": g.piece_name(i), "station": g.pos[i], "bobby": g.is_bobby(i), "to_move": bool(tomove & (1 << i))}
        if g.two_player and i == 1:
            p["shares"] = g.piece_name(0)
        elif not g.is_bobby(i):
            p["tickets"] = dict(zip(TICKET_NAMES[:3], g.tickets[i][:3]))
        pieces.append(p)
    return {
        "game": sg.game_id,
        "phase": PHASES[g.phase] if not over else "over",
        "round": g.round, "rounds": g.rounds, "moves": g.moves,
        "mrx": g.mrx, "start": sg.setup["mrx"],
        "reveals": list(g.reveals), "next_reveal": g.next_reveal(),
        "tickets": {"black": g.black, "double": g.double},
        "supply": dict(zip(TICKET_NAMES[:3], g.supply[:3])),
        "pieces": pieces,
        "log": log,
        "legal": legal,
        "doubles": doubles,
        "candidates": g.candidates() if not over else [],
        "can_take_back": his_turn and g.n_turn > 0,
        "result": g.result, "reason": g.reason,
    }


class SecretLogWatch:
    """Re-reads the secret log when it changes (size or mtime); .state is Mister X's current view."""

    def __init__(self, path):
        self.path = path
        self.stamp = None
        self.state = None
        self.error = None

    def poll(self):
        """True when the state changed."""
        try:
            st = os.stat(self.path)
            stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            stamp = None
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        try:
            new = mrx_state(SecretGame.load(self.path))
            self.error = None
        except UserError as e:
            new, self.error = self.state, str(e)
        changed = new != self.state
        self.state = new
        return changed
