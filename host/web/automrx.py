"""A stand-in Mister X for `python -m host.web` and the browser tests: sets up a game over the
board's serial link and answers every Mister X turn with a random legal move (the OS's randomness,
or seeded for tests).

It plays through the same protocol as Mister X's console (BoardLink, the secret log with
commitments), so the board sees exactly what a real game sends. `yard sim` uses the console instead.
"""
import tempfile
import threading
import time

from host.link.boardlink import BoardLink, BoardCommandError, LinkError, reveal_requests
from host.misterx.secretgame import SecretGame, board_pairs, draw_setup, public_line
from host.misterx.randomness import secret_rng
from sy.rules.game import TICKET_NAMES, PHASE_MRX


class AutoMrX:
    def __init__(self, port, players=1, seed=None, detectives=None, mrx=None, delay=1.0, folder=None,
                 moves=None):
        """moves: optional list of (ticket name, station) Mister X plays first (tests)."""
        self.port = port
        self.players = players
        self.rng = secret_rng(seed)  # the OS's unless seeded (tests)
        self.detectives = detectives
        self.mrx = mrx
        self.delay = delay
        self.folder = folder or tempfile.mkdtemp(prefix="yard-automrx-")
        self.moves = list(moves or [])
        self.secret = None
        self.link = None
        self.error = None
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._run, name="auto-mrx", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(3)
        if self.link:
            self.link.close()

    # --- the game -------------------------------------------------------------------------
    def _run(self):
        try:
            self.link = BoardLink(self.port, timeout=5.0)
            self._connect()
            setup = draw_setup(self.players, self.rng, self.detectives, self.mrx)
            self.secret = SecretGame.create(setup, folder=self.folder)
            pub = public_line(self.secret.setup)
            args = {k: v for k, v in pub.items() if k not in ("type", "game", "started") and v is not None}
            args["mrx"] = None
            self.link.request("setup", replace=True, **args)
            while not self._stop.is_set():
                try:
                    events = self.link.poll(0.1)
                except LinkError:
                    self._connect()  # the board restarted (a power cut): hello again
                    continue
                for _seq, ev in events:
                    self._on_event(ev)
                self._maybe_move()
        except Exception as e:  # shown on the console of the standalone server
            self.error = e
            raise

    def _connect(self):
        while not self._stop.is_set():
            try:
                self.link.reconnect(attempts=1)
                return
            except LinkError:
                time.sleep(0.3)

    def _on_event(self, ev):
        kind = ev.get("type")
        g = self.secret.game
        if kind == "undo":  # a detective's move taken back on the board: he sees the position after it
            self.secret.take_back(ev.get("piece"))
        if kind == "move":
            self.secret.detective_move(ev["piece"], ev.get("ticket"), ev["to"])
            if g.result == "detectives" and g.reason == "capture" and not ev.get("capture"):
                self.link.request("capture", piece=ev["piece"], reveal=self.secret.current_proof())
            elif g.result == "detectives" and g.reason == "mrx_stuck":
                # the move left him no move: the board is told, proved (unless it saw it itself)
                if self.link.request("status").get("result") is None:
                    self.link.request("cornered", reveal=self.secret.current_proof())
        if g.result is not None and kind in ("move", "capture", "cornered"):
            self._reveal()

    def _reveal(self):
        """The salts to the board after the game, as [salt, station] pairs, a few per line."""
        start, moves = board_pairs(self.secret.reveal())
        for args in reveal_requests(start, moves):
            self.link.request("reveal", **args)

    def _maybe_move(self):
        g = self.secret.game
        if g.result is not None or g.phase != PHASE_MRX:
            return
        status = self.link.request("status")
        if status.get("stage") != "play" or status.get("phase") != "mrx" or status.get("restoring"):
            return
        if self._stop.wait(self.delay):
            return
        legal = g.legal_mrx()
        if not legal:
            self.secret.cornered()
            self.link.request("cornered", reveal=self.secret.current_proof())
            self._reveal()
            return
        ticket_given = None
        if self.moves:
            ticket_given = self.moves.pop(0)
            ticket, to = ticket_given
            t = TICKET_NAMES.index(ticket)
        else:
            to, t = self.rng.choice(legal)
        line = self.secret.mrx_move(t, to)
        try:
            self.link.request("mrx", ticket=TICKET_NAMES[t], to=to if line.get("shown") else None,
                              commit=line["commit"])
        except BoardCommandError as e:
            if e.code != "wrong_turn":
                raise
            self.secret.withdraw_mrx()  # the detectives took back a move meanwhile: their turn again
            if self.moves is not None and ticket_given:
                self.moves.insert(0, ticket_given)
