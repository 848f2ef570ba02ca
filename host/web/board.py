"""The physical side of the simulated board: pieces on stations, hands, faults.

The page never moves a piece in the game: it moves a magnet. Each action here becomes the reed
switch changes a real board would see (a lift opens the station's reed, a placement closes one),
written to SimBoard's simulated inputs; the firmware's own scan, debounce and tracking decide
what happened. Faults are the same: chatter, a piece knocked off, two lifts at once, a stuck reed,
a power cut.
"""
import json
import threading
import time

from host.i18n import _
from sy.play.board import BOBBY_RGB, PIECE_RGB

MRX_PIECE = "X"
STATIONS = 199


def piece_rgb(name):
    """A piece's colour as the board's LEDs show it (sy/play/board.py), full scale: D1..D5 each
    their own, every bobby (B1, B2...) lavender; (r, g, b)."""
    k = 3 * (int(name[1:]) - 1) if name.startswith("D") else BOBBY_RGB
    return tuple(PIECE_RGB[k:k + 3])


def piece_colour(name):
    """piece_rgb as '#rrggbb'."""
    return "#%02x%02x%02x" % piece_rgb(name)


class ActionError(Exception):
    """An action a player cannot do with real pieces (place a piece onto another one...)."""


class Pieces:
    """Where every physical piece is: a station, or None (in a hand / beside the board)."""

    def __init__(self):
        self.names = []   # D1.., B1.., then X (Mister X's own piece)
        self.at = {}
        self.colour = {}
        self.setup_key = None

    def reset(self, state, sim):
        """A new game: the pieces of its setup; those whose start reed is already closed stand there."""
        self.names = [p["name"] for p in state["pieces"]] + [MRX_PIECE]
        self.at = {}
        self.colour = {}
        for p in state["pieces"]:
            self.colour[p["name"]] = piece_colour(p["name"])
            self.at[p["name"]] = p["station"] if sim.switch(p["station"]) else None
        self.colour[MRX_PIECE] = "#1b1b1b"
        self.at[MRX_PIECE] = None

    def holder(self, station):
        for n, s in self.at.items():
            if s == station:
                return n
        return None

    def public(self):
        return [{"name": n, "station": self.at[n], "colour": self.colour[n]} for n in self.names]


class NoteTap:
    """The board's notes (lifted, illegal, choose...) read from SimBoard's copy of the serial
    output. Only notes: replies to Mister X's console are skipped (they are his)."""

    def __init__(self, sim, keep=12):
        self.sim = sim
        self.keep = keep
        self.heard = 0  # how many of the firmware's bytes have been read (SimBoard.console_since)
        self.partial = b""
        self.notes = []
        self.count = 0

    def poll(self):
        new, self.heard = self.sim.console_since(self.heard)
        if not new:
            return False
        data = self.partial + new
        *lines, self.partial = data.split(b"\n")
        changed = False
        for raw in lines:
            try:
                obj = json.loads(raw.strip(b"\r"))
            except ValueError:
                continue
            if isinstance(obj, dict) and "note" in obj:
                obj["at"] = round(time.time(), 3)
                self.count += 1
                obj["n"] = self.count
                self.notes.append(obj)
                changed = True
        del self.notes[:-self.keep]
        return changed


class PhysicalBoard:
    """Pieces, reeds and faults over a SimBoard. Thread-safe: actions come from the web server's
    worker threads."""

    def __init__(self, sim, power_cut_s=1.5):
        self.sim = sim
        self.power_cut_s = power_cut_s
        self.pieces = Pieces()
        self.stuck = {}  # station -> True (stuck closed) / False (stuck open)
        self.powered = True
        self.lock = threading.RLock()
        self.tap = NoteTap(sim)

    # --- reeds ----------------------------------------------------------------------------
    def _reed(self, station):
        """Write the reed of a station as the pieces and faults say it is."""
        closed = self.stuck.get(station)
        if closed is None:
            closed = self.pieces.holder(station) is not None
        if self.sim.switch(station) != closed:
            self.sim.set_switch(station, closed)

    def sync_game(self, state):
        """Follow the board's game: a new setup brings its own pieces (off the board first)."""
        key = json.dumps([p["start"] for p in state.get("pieces", [])])
        if state.get("stage") == "idle" or key == self.pieces.setup_key:
            return False
        with self.lock:
            old = [s for s in self.pieces.at.values() if s]
            self.pieces.reset(state, self.sim)
            self.pieces.setup_key = key
            for s in old:
                self._reed(s)
        return True

    # --- what a player does ---------------------------------------------------------------
    def _piece(self, name):
        if name not in self.pieces.at:
            raise ActionError(_("there is no piece %(piece)r") % {"piece": name})
        return self.pieces.at[name]

    def lift(self, name):
        with self.lock:
            s = self._piece(name)
            if s is None:
                raise ActionError(_("%(piece)s is already in your hand") % {"piece": name})
            self.pieces.at[name] = None
            self._reed(s)

    def place(self, name, station):
        with self.lock:
            if not (isinstance(station, int) and 1 <= station <= STATIONS):
                raise ActionError(_("%(given)r is not a station") % {"given": station})
            if self._piece(name) is not None:
                raise ActionError(_("lift %(piece)s first") % {"piece": name})
            other = self.pieces.holder(station)
            if other:
                raise ActionError(_("%(piece)s already stands on station %(station)d") % {"piece": other, "station": station})
            self.pieces.at[name] = station
            self._reed(station)

    def move(self, name, station):
        """Lift and place (a drag): two reed changes, a human's hand-time apart."""
        if self._piece(name) is not None:
            self.lift(name)
            time.sleep(0.15)
        self.place(name, station)

    def set_up(self, starts):
        """Put every piece still in hand onto its start station, one by one like a person."""
        for name, s in starts:
            with self.lock:
                if self.pieces.at.get(name) is not None or self.pieces.holder(s):
                    continue
            self.place(name, s)
            time.sleep(0.08)

    def press(self, button, hold=False):
        """A button pressed; hold: the confirm button held 1.8 s (the board's take-back)."""
        if button not in ("taxi", "bus", "underground", "confirm"):
            raise ActionError(_("no button %(button)r") % {"button": button})
        self.sim.press(button, hold=1.8 if hold else 0.08)

    # --- faults ---------------------------------------------------------------------------
    def chatter(self, station):
        with self.lock:
            self.sim.chatter(station)
            self._reed(station)

    def knock(self, name):
        """A piece knocked off the board: its reed opens, it lies beside the board."""
        self.lift(name)

    def lift_two(self, a, b):
        """Two pieces lifted in the same instant (well inside one debounce time)."""
        with self.lock:
            sa, sb = self._piece(a), self._piece(b)
            if sa is None or sb is None or a == b:
                raise ActionError(_("pick two pieces that stand on the board"))
            self.pieces.at[a] = None
            self.pieces.at[b] = None
            self._reed(sa)
            self._reed(sb)

    def set_stuck(self, station, closed):
        """closed True/False: the reed sticks that way; None: it works again."""
        with self.lock:
            if closed is None:
                self.stuck.pop(station, None)
            else:
                self.stuck[station] = bool(closed)
            self._reed(station)

    def power(self, on):
        with self.lock:
            if on and not self.powered:
                self.sim.start()
                self.powered = True
            elif not on and self.powered:
                self.sim.power_cut()
                self.powered = False

    def power_cycle(self):
        self.power(False)
        time.sleep(self.power_cut_s)
        self.power(True)

    def public(self):
        with self.lock:
            return {"pieces": self.pieces.public(), "stuck": {str(k): v for k, v in self.stuck.items()},
                    "power": self.powered, "notes": list(self.tap.notes)}
