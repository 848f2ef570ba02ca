"""A fake board for Mister X's console (host/misterx/console.py): what the board is told, the
detectives' moves played by a random player, and reeds out of service; shared by the console's tests."""
from host.errors import BoardError
from host.misterx.secretgame import public_line
from sy.rules.game import PHASE_DETECTIVES


class FakeBoard:
    """Records what the board is told; the detectives' moves are scripted by a random player."""

    def __init__(self, rng):
        self.sent = []
        self.rng = rng
        self.pending = []

    def mrx(self, line):
        self.sent.append(public_line(line))

    def capture(self, piece):
        self.sent.append({"capture": piece})

    def cornered(self):
        self.sent.append({"cornered": True})

    def reveal(self, rev):
        self.sent.append({"reveal": rev})
        return True, "ok"

    def events(self, timeout):
        out, self.pending = self.pending, []
        return out


def random_detectives(board):
    def move(sg):
        g = sg.game
        import copy
        trial = copy.deepcopy(g)
        while trial.phase == PHASE_DETECTIVES and trial.result is None:
            mask = trial.to_move()
            i = min(k for k in range(trial.n_pieces) if mask & (1 << k))
            s, t = board.rng.choice(trial.legal(i))
            t = None if trial.is_bobby(i) else t
            trial.move(i, t, s)
            ev = {"type": "move", "piece": trial.piece_name(i), "to": s}
            if t is not None:
                ev["ticket"] = ["taxi", "bus", "underground"][t]
            board.pending.append(ev)
    return move


class ReedBoard(FakeBoard):
    """A fake board with reeds out of service: `reed`, `place` and the board's notes."""

    def __init__(self, rng, notes=()):
        super().__init__(rng)
        self.dead = []
        self.queued = list(notes)

    def reed(self, station, out=True):
        if station == 99:
            raise BoardError("the board refused: at most 20 reeds can be out of service: repair the board")
        self.sent.append({"reed": station, "out": out})
        if out and station not in self.dead:
            self.dead.append(station)
        if not out and station in self.dead:
            self.dead.remove(station)
        return sorted(self.dead)

    def place(self, piece, station, ticket=None):
        self.sent.append({"place": piece, "station": station, "ticket": ticket})
        return {"pending": ["taxi", "bus"]} if ticket is None and station == 4 else {"seq": 9}

    def notes(self):
        out, self.queued = self.queued, []
        return out
