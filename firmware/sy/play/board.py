"""The game on the board: setup, move tracking from the reeds, feedback on the LEDs, saving.

Everything is derived from two things: where the rules core says the pieces are, and which reeds
are closed. After every debounced change the board compares them:
  missing  pieces whose station is open (lifted, knocked off),
  extra    closed stations no piece should be on (a placed piece, a stray magnet).
A placement is a station that closes while a piece that may move is in hand: one missing piece and
one such station is a placement; a legal one is committed, an illegal one blinks until the piece is
put right. A station that closes while no piece that may move is in hand (a stray magnet, a stuck
reed, a piece put down in Mister X's turn) stays extra and is never a destination; a piece lifted
when it may not move (out of turn) stays out of place until it is put back. Several missing pieces,
pieces lifted out of turn and stray magnets are shown, never committed. The frame is drawn from the
state, never allocated.
"""
import json

from sy.rules.game import Game, RuleError, TICKET_NAMES, PHASE_MRX, PHASE_DETECTIVES, PHASE_OVER  # noqa: F401 (Game: type comments)
from sy.storage.stages import IDLE, SETUP, PLAY, OVER, STAGE_NAMES  # noqa: F401 (the handlers take them from here)

try:
    from time import ticks_diff, ticks_us
    from micropython import const
except ImportError:  # CPython
    from sy.compat import ticks_diff, ticks_us, const

# colours (r, g, b), chosen so that each pair players must tell apart stays apart under simulated
# protanopia, deuteranopia and tritanopia (host/leds/colourvision.py, docs/colour-vision.md)
TRANSPORT_RGB = bytes((255, 255, 0,   0, 255, 255,   255, 0, 90))  # taxi yellow, bus turquoise, underground red
PIECE_RGB = bytes((0, 0, 255,   210, 255, 0,   0, 150, 255,   255, 150, 150,   255, 0, 0,  # D1..D5
                   150, 255, 255))  # every bobby (a game's pieces: its detectives, then its bobbies)
BOBBY_RGB = const(15)  # the bobbies' offset in PIECE_RGB; detective i's is 3 * i
# A second channel beside colour, board.json leds.patterns: sy/play/rhythm.py, loaded only then.
# Without it, a station a piece is missing from blinks every 500 ms and a station reachable two
# ways alternates every 600 ms.
_ERROR = (255, 0, 0)
_WAIT = const(0x9600C8)  # Mister X's possible stations while he moves
_ASK_MS = const(100)  # a placement waiting for its ticket blinks: dark, a transport, dark, the other...
_MAX = 8
_OPEN = b"\x00"  # occ values, as bytes for occ.count and occ.find
_CLOSED = b"\x01"
_STRAY = b"\x03"
STATIONS = 199
BUTTON_CONFIRM = 3
HOLD_MS = 1500  # the confirm button held this long and let go: the turn's last move taken back


def _move_line(game, piece, ticket, to):
    line = {"type": "move", "piece": game.piece_name(piece), "to": to}
    if ticket is not None:
        line["ticket"] = TICKET_NAMES[ticket]
    return line


def ticket_mask_names(mask):
    """The names of the tickets in mask (bit t: ticket t)."""
    out = []
    for t in range(3):
        if mask & (1 << t):
            out.append(TICKET_NAMES[t])
    return out


class Board:
    every_scan = False  # the main loop draws a frame only in a cycle without an event (sy/app.py)

    rhythm = None  # sy/play/rhythm.py where board.json turns the LEDs' rhythms on (set per board then)

    def __init__(self, leds, store, out, graph=None):
        self.leds = leds
        if getattr(leds, "patterns", False):  # board.json leds.patterns
            from sy.play import rhythm
            self.rhythm = rhythm
        self.store = store
        self.out = out  # .event(seq, text), .note(dict)
        self.graph = graph
        # set by sy/play/newgame.py or sy/storage/resume.py
        self.game = None  # type: Game | None
        self.stage = IDLE
        self.restoring = False
        self.occ = bytearray(STATIONS + 1)  # 1 closed, 3 closed while no piece that may move was in hand
        self.x_on = False  # Mister X's own piece stands on his surfacing station
        self.missing = bytearray(_MAX)
        self.n_missing = 0
        self.extra = bytearray(_MAX)
        self.n_extra = 0
        self.off = 0  # bit p: piece p lifted when it could not move, out of place until put back
        self.blind = None  # stations whose reed is out of service (sy/play/blind.py), while there are any
        self.back = -1  # a piece whose move was taken back (sy/play/undo.py), until it is on its station again
        self.held = -1  # when the confirm button went down (ms), while it is down
        self.tomove = 0
        self.lifted = -1
        self.lift_note = -1  # a lifted piece the host has not been told about yet (send_notes)
        self.ask_note = False  # the ticket question of a placement (pend_to) not told yet (send_notes)
        self.dest = bytearray(64)  # legal destinations of the lifted piece
        self.dest_mask = bytearray(64)  # transports (bit t) per destination
        self.n_dest = 0
        self.pre_ticket = -1
        self.pend_to = 0  # a placement waiting for its ticket: the station, the tickets that fit,
        self.pend_mask = 0
        self.pend_at = 0  # and when it was put down (ms)
        self.bad = 0  # station of an illegal placement
        self.gp = -1  # the host's guided move (computer detectives): piece, station, ticket
        self.gto = self.gt = 0
        self.info_until = 0
        self.now = 0
        self.dirty = True
        self.save_max_us = 0  # the longest journal line + snapshot save (bytes to flash)
        self.snap = bytearray(192)  # the game's snapshot is made here (Game.save_into), not allocated

    # --- persistence ----------------------------------------------------------------------
    def header(self):
        stage = self.stage
        if stage == PLAY and self.game.phase == PHASE_OVER:
            stage = OVER  # the commit that ends the game is saved once, already over
        return {"v": 1, "stage": stage, "x_on": 1 if self.x_on else 0}

    def save(self):
        g = self.game
        data = b""
        if g is not None:
            n = g.save_size()
            if len(self.snap) < n:  # a long game: the buffer grows once, by a move's worth and more
                self.snap = bytearray(n + 64)
            g.save_into(self.snap)
            data = memoryview(self.snap)[:n]
        self.store.save(self.header(), data)

    def commit_line(self, line):
        """Journal one event line, snapshot the game, tell the host. Returns the seq."""
        text = json.dumps(line)
        t0 = ticks_us()
        seq = self.store.append(text)
        self.save()
        took = ticks_diff(ticks_us(), t0)
        if took > self.save_max_us:
            self.save_max_us = took
        self.out.event(seq, text)
        return seq

    # --- reed changes and buttons ---------------------------------------------------------
    def switch(self, station, closed):
        if self.blind is not None and self.blind.switch(self, station, closed):
            return
        g = self.game
        v = 1 if closed else 0
        if g is not None:
            p = g.holder_of(station)
            if p >= 0:  # lifted, a piece may move only in its turn; put back, it is in place again
                self.off &= ~(1 << p)
                if not closed and not self._may_now() & (1 << p):
                    self.off |= 1 << p
            elif closed:  # a placement only while a piece that may move is in hand, else stray
                v = 3
                may = self._may_now()
                for i in range(self.n_missing):
                    if may & (1 << self.missing[i]):
                        v = 1
        self.occ[station] = v
        if g is not None and g.surfaced == station:
            x_on = self.x_on
            if not closed:
                self.x_on = False
            elif self.n_missing == 0:
                self.x_on = True  # nobody is in hand: this is Mister X's own piece
                self.out.note({"note": "mrx_piece", "station": station})
            if self.x_on != x_on:
                self.save()  # the snapshot's header keeps it: a resume takes his piece up as his
        self.compare_and_commit(game_changed=False)

    def _may(self, p):
        return bool(self._may_mask() & (1 << p))

    def _may_mask(self, tomove=-1):
        """Bit p: piece p may move now."""
        if self.stage != PLAY or self.restoring or self.back >= 0:
            return 0
        return (self.game.to_move() if tomove < 0 else tomove) & ~self.off

    def _may_now(self):
        """_may_mask from the rules' to_move as the last compare() found it: a reed change comes
        between evaluations, and every change to the game is evaluated (a commit, a host's
        command, a take-back, a resume), so it is the same, without asking the rules again (a
        to_move costs milliseconds on a Pico, and a lift and a placement each evaluate anyway)."""
        return self._may_mask(self.tomove)

    def button(self, k):
        if k == BUTTON_CONFIRM:
            self.info_until = self.now + 4000
            self.held = self.now
            self.dirty = True
            return
        self.choose(k)

    def release(self, k):
        """A button let go: the confirm button held HOLD_MS or longer takes back the turn's last move."""
        if k != BUTTON_CONFIRM or self.held < 0:
            return
        held = ticks_diff(self.now, self.held)
        self.held = -1
        if self.blind is not None and held < HOLD_MS:
            return self.blind.confirm(self)
        if held < HOLD_MS or self.stage != PLAY:
            return
        self.info_until = self.now  # the travel-log view gives way to the take-back
        from sy.play import undo
        try:
            undo.take_back(self, None)
        except RuleError as e:  # nothing to take back: the players are told on the host
            self.out.note({"note": "refused", "error": e.code, "message": e.message})

    def choose(self, ticket):
        """A ticket chosen (button or host) for the pending or the next placement."""
        if self.pend_to and self.pend_mask & (1 << ticket):
            self._commit_move(self.lifted, ticket, self.pend_to)
            return True
        if self.lifted >= 0:
            self.pre_ticket = -1 if self.pre_ticket == ticket else ticket
            self.dirty = True
            self.compare_and_commit(game_changed=False)
            return True
        return False

    # --- the comparison -------------------------------------------------------------------
    def compare(self, game_changed=True):
        """Compare where the rules put the pieces with the closed reeds, and nothing more (no
        commit, no change of stage): fills missing, extra and tomove, the board's view. Returns
        n << 8 | s: n closed stations no piece is on that closed while a piece was in hand
        (placements), s the last of them (an int: the comparison allocates nothing).
        game_changed False (a reed or a ticket button changed, not the game): tomove is the last
        evaluation's, as every change to the game is evaluated (a commit, a host's command, a
        take-back, a resume) and the rules' to_move costs 1-2 ms on a Pico, in the cycle that
        answers a placement."""
        self.dirty = True
        g = self.game
        self.n_missing = self.n_extra = 0
        self.bad = 0
        if g is None:
            return 0
        occ = self.occ
        pos = g.pos
        if self.blind is not None:
            self.blind.sync(self)
        for i in range(g.n_pieces):
            if not occ[pos[i]] and self.n_missing < _MAX:
                self.missing[self.n_missing] = i
                self.n_missing += 1
        n_new = to = 0  # extra stations closed while a piece was in hand: placements
        # the closed stations, found by the bytearray's own search (a Python loop over all 199
        # took 3 ms on a Pico); none but the pieces' own most of the time
        if len(occ) - occ.count(_OPEN) > g.n_pieces - self.n_missing:
            s = 0
            while True:
                a = occ.find(_CLOSED, s + 1)
                b = occ.find(_STRAY, s + 1)
                if a < 0 and b < 0:
                    break
                s = a if b < 0 or 0 <= a < b else b
                if g.holder_of(s) < 0 and not (s == g.surfaced and self.x_on):
                    if self.n_extra < _MAX:
                        self.extra[self.n_extra] = s
                        self.n_extra += 1
                    if occ[s] == 1:
                        n_new += 1
                        to = s
        if not self.n_missing:
            self.off = 0  # every piece in place
        if game_changed:
            self.tomove = g.to_move()
        return n_new << 8 | to

    def compare_and_commit(self, quiet=False, game_changed=True):
        """compare(), then what it decides, committed: a board set up starts the game (`ready`),
        a resumed board whose pieces agree again says so, a piece lifted and put down on a new
        station is a move (committed once its ticket is known); and the lift's feedback (no
        `lift` note if quiet). Called after every change of the reeds or of the game."""
        placed = self.compare(game_changed)
        g = self.game
        if g is None:
            return
        n_new = placed >> 8
        to = placed & 0xFF
        occ = self.occ
        pos = g.pos
        if self.stage == SETUP:
            if self.n_missing == 0 and self.n_extra == 0:
                self.stage = PLAY
                self.commit_line({"type": "ready"})
                self.tomove = g.to_move()
            return
        if self.stage != PLAY:
            return
        if self.restoring:
            if self.n_missing or self.n_extra:
                return
            self.restoring = False
            self.out.note({"note": "restored"})
        if self.back >= 0:  # a move taken back: nothing commits until the piece is on its station
            if not occ[pos[self.back]]:
                self._drop_lift()
                return
            self.out.note({"note": "back", "piece": g.piece_name(self.back), "station": pos[self.back]})
            self.back = -1
        if g.phase != PHASE_DETECTIVES or self.n_missing != 1 or n_new > 1:
            self._drop_lift()
            return
        p = self.missing[0]
        if not self.tomove & ~self.off & (1 << p):
            self._drop_lift()
            return
        if self.lifted != p:
            self._lift(p, quiet)
        if n_new == 1:
            self._place(p, to)
        else:
            self.pend_to = self.pend_mask = 0

    def _drop_lift(self):
        self.lifted = -1
        self.n_dest = 0
        self.pre_ticket = -1
        self.pend_to = self.pend_mask = 0

    def _lift(self, p, quiet):
        g = self.game
        self.lifted = p
        self.pre_ticket = -1
        self.pend_to = self.pend_mask = 0
        n = 0
        for s, t in g.legal(p):
            if n and self.dest[n - 1] == s:
                self.dest_mask[n - 1] |= 1 << t
            elif n < len(self.dest):
                self.dest[n] = s
                self.dest_mask[n] = 1 << t
                n += 1
        self.n_dest = n
        if not quiet:
            self.lift_note = p  # told in a later cycle: the players' frame comes first (sy/app.py)

    def send_notes(self):
        """Tell the host what the players were shown in an earlier cycle (sy/app.py), a note a
        cycle: the piece in hand, if it is still in hand; then the ticket question of its
        placement, if the board still asks it. True if a note went."""
        g = self.game
        p = self.lift_note
        self.lift_note = -1
        if p >= 0 and p == self.lifted:
            legal = [[self.dest[i], ticket_mask_names(self.dest_mask[i])] for i in range(self.n_dest)]
            note = {"note": "lifted", "piece": g.piece_name(p), "station": g.pos[p], "legal": legal}
            if self.blind is not None:
                self.blind.note(self, note)  # its destinations whose reed is out of service
            self.out.note(note)
            return True
        ask = self.ask_note
        self.ask_note = False
        if ask and self.pend_to and self.lifted >= 0:
            self.out.note({"note": "choose", "piece": g.piece_name(self.lifted), "station": self.pend_to,
                           "tickets": ticket_mask_names(self.pend_mask)})
            return True
        return False

    def _place(self, p, to):
        g = self.game
        mask = 0
        for i in range(self.n_dest):
            if self.dest[i] == to:
                mask = self.dest_mask[i]
        if self.pre_ticket >= 0:
            mask &= 1 << self.pre_ticket
        if self.gp >= 0:
            mask &= 1 << self.gt if p == self.gp and to == self.gto else 0
        if not mask:
            self.bad = to
            self.pend_to = self.pend_mask = 0
            if self.gp >= 0:
                code, msg = "guided", "%s goes to %d" % (g.piece_name(self.gp), self.gto)
            else:
                from sy.play import report  # why it is illegal
                code, msg = report.why(self, p, to)
            self.out.note({"note": "illegal", "piece": g.piece_name(p), "station": to, "error": code,
                           "message": msg})
            return
        if g.is_bobby(p):
            self._commit_move(p, None, to)
        elif mask & (mask - 1) == 0:
            self._commit_move(p, (0, 0, 1, 1, 2)[mask], to)
        elif self.pend_to != to:
            self.pend_to = to
            self.pend_mask = mask
            self.pend_at = self.now
            self.ask_note = True  # told in a later cycle, as the lift: the players' frame first

    def _commit_move(self, p, ticket, to):
        g = self.game
        g.move(p, ticket, to)
        self.gp = -1
        line = _move_line(g, p, ticket, to)
        if g.result == "detectives" and g.reason == "capture":
            line["capture"] = True
        self._drop_lift()
        self.compare_and_commit(True)
        # the players see the answer first: the save below may wait for a flash erase (45 ms on
        # a Pico); the host's event follows the save
        self.render(self.now)
        self.commit_line(line)
        self._after_commit()

    def _after_commit(self):
        g = self.game
        if g.phase == PHASE_OVER and self.stage != OVER:
            self.stage = OVER  # saved so already by commit_line (header)
            self.out.note({"note": "game_over", "result": g.result, "reason": g.reason})
        elif g.phase == PHASE_MRX:
            self.out.note({"note": "mrx_turn", "round": g.round + 1})
        self.compare_and_commit(True)

    # --- what the host says ---------------------------------------------------------------
    def _ready_game(self):
        if self.game is None or self.stage == IDLE:
            raise RuleError("wrong_turn", "no game is set up")
        if self.stage == SETUP:
            raise RuleError("wrong_turn", "the pieces are not on their start stations yet")
        if self.stage == OVER:
            raise RuleError("game_over", "the game is over")
        if self.restoring:
            raise RuleError("wrong_turn", "pieces moved while the board was off: put them back first")
        p = self.back
        if p >= 0:
            raise RuleError("wrong_turn", "a move was taken back: put %s back on station %d first",
                            self.game.piece_name(p), self.game.pos[p])
        return self.game

    # --- drawing --------------------------------------------------------------------------
    def render(self, now):
        """Draw the frame for the state at `now` (ms). No allocation."""
        self.now = now
        L = self.leds
        L.clear()
        g = self.game
        slow = (now // 500) & 1
        fast = (now // 125) & 1
        if self.stage == IDLE or g is None:
            head = (now // 40) % STATIONS
            for k in range(6):
                s = (head - k) % STATIONS + 1
                v = 200 >> k
                L.put(s, 0, v >> 2, v)
            L.show()
            return
        occ = self.occ
        pos = g.pos
        if self.stage == OVER:
            self._draw_end(now)
            L.show()
            return
        if self.stage == PLAY and g.phase == PHASE_MRX and not self.restoring:
            L.shimmer(g.cand, _WAIT, now)  # waiting for Mister X: a slow shimmer over where he may be
        if g.surfaced and self.stage == PLAY:
            if self.x_on or slow:
                L.put(g.surfaced, 255, 255, 255)
        pulse = (now >> 2) & 255
        pulse = 96 + ((pulse if pulse < 128 else 255 - pulse) * 159 >> 7)
        nd = g.n_detectives
        rhythm = self.rhythm
        for i in range(g.n_pieces):
            s = pos[i]
            c = 3 * i if i < nd else BOBBY_RGB
            if self.stage == SETUP or self.restoring:
                lvl = 255 if occ[s] or (rhythm.piece_lit(i, nd, now) if rhythm else slow) else 0
            elif not occ[s]:
                lvl = 255 if i == self.lifted or (rhythm.piece_lit(i, nd, now) if rhythm else slow) else 0
            elif self.tomove & (1 << i) and (self.gp < 0 or self.gp == i):
                lvl = pulse
            else:
                lvl = 24
            L.put(s, (PIECE_RGB[c] * lvl) >> 8, (PIECE_RGB[c + 1] * lvl) >> 8, (PIECE_RGB[c + 2] * lvl) >> 8)
        if self.gp >= 0:  # the guided destination: the piece's colour and the ticket's in turn
            if slow:
                c = 3 * self.gp if self.gp < g.n_detectives else BOBBY_RGB
            else:
                c = 3 * self.gt
            rgb = PIECE_RGB if slow else TRANSPORT_RGB
            L.put(self.gto, rgb[c], rgb[c + 1], rgb[c + 2])
        elif self.pend_to:
            # the piece is down where several tickets fit and the board asks which: that station
            # alone blinks its transports, dark first, so the very next frame answers the
            # placement (the piece's only destination looked the same before it was put there)
            k = ticks_diff(now, self.pend_at) // _ASK_MS
            if k & 1:
                t = 3 * self._pick(self.pend_mask, k >> 1)
                L.put(self.pend_to, TRANSPORT_RGB[t], TRANSPORT_RGB[t + 1], TRANSPORT_RGB[t + 2])
        elif self.lifted >= 0:
            # a dozen destinations and more (an underground station): kept lean, as every frame
            # of a piece in hand draws them (the scan cycle's 10 ms on a Pico)
            dest = self.dest
            masks = self.dest_mask
            only = 7 if self.pre_ticket < 0 else 1 << self.pre_ticket
            step = now // (rhythm.PATTERN_MS if rhythm else 600)  # with rhythms, each shown for a whole one
            for i in range(self.n_dest):
                m = masks[i] & only
                if not m:
                    continue
                t = self._pick(m, step) if m & (m - 1) else m >> 1  # one transport (1, 2, 4): its own
                lvl = rhythm.transport_level(t, now) if rhythm else 256
                t *= 3
                L.put(dest[i], (TRANSPORT_RGB[t] * lvl) >> 8, (TRANSPORT_RGB[t + 1] * lvl) >> 8,
                      (TRANSPORT_RGB[t + 2] * lvl) >> 8)
            if self.blind is not None and slow:
                self.blind.draw(self)
        for i in range(self.n_extra):
            if self.extra[i] != self.pend_to:  # a placement waiting for its ticket is no error
                L.put(self.extra[i], _ERROR[0] if fast else 0, 0, 0)
        if ticks_diff(self.info_until, now) > 0:
            nxt = g.next_reveal()
            for s in range(1, min(STATIONS, max(g.moves, nxt)) + 1):
                if s <= g.moves:
                    L.put(s, 60, 60, 60)
                elif s == nxt:
                    L.put(s, 255, 255, 255)
                else:
                    L.put(s, 0, 0, 80)
        L.show()

    def _pick(self, mask, step):
        """One transport of mask, cycling with step: a station joined by two shows both in turn."""
        n = 0
        for t in range(3):
            if mask & (1 << t):
                n += 1
        k = step % n
        for t in range(3):
            if mask & (1 << t):
                if k == 0:
                    return t
                k -= 1
        return 0

    def _draw_end(self, now):
        g = self.game
        L = self.leds
        if g.result == "detectives":
            # capture: the pieces strobe in their colours, Mister X's station flashes red/white
            on = (now // 100) & 1
            for i in range(g.n_pieces):
                c = 3 * i if i < g.n_detectives else BOBBY_RGB
                if on:
                    L.put(g.pos[i], PIECE_RGB[c], PIECE_RGB[c + 1], PIECE_RGB[c + 2])
            if g.mrx:
                if on:
                    L.put(g.mrx, 255, 255, 255)
                else:
                    L.put(g.mrx, 255, 0, 0)
        else:
            # escape: a white wave runs over the whole board, the detectives glow dim
            front = (now // 15) % (STATIONS + 40)
            for s in range(max(1, front - 19), min(STATIONS, front) + 1):
                v = 255 - (front - s) * 12
                L.put(s, v, v, v)
            for i in range(g.n_pieces):
                c = 3 * i if i < g.n_detectives else BOBBY_RGB
                L.put(g.pos[i], PIECE_RGB[c] >> 3, PIECE_RGB[c + 1] >> 3, PIECE_RGB[c + 2] >> 3)
