"""The game on the board: setup, move tracking from the reeds, feedback on the LEDs, saving.

The Board is the one owner of the game flow: the features that come with the host's commands
(sy/play/newgame.py, mrxturn.py, declare.py, undo.py, deadreed.py, status.py) and the boot's
resume call its methods and read its public fields; only its methods change them, and what starts
with an underscore is its own.

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

The hand (docs/architecture.md, "The hand"): one state at a time,
  HAND_EMPTY       no piece that may move is in hand
  HAND_LIFTED      a piece that may move is in hand: its destinations are lit
  HAND_ASKING      it is down where several tickets lead there: the board asks which
  HAND_TAKEN_BACK  its move was taken back: nothing commits until it stands on its station again
Beside it, the host's guided move (computer detectives) limits which placement is taken, and
`restoring` (after a power cut or service mode) holds every commit until the pieces agree.
"""
import json

from sy.rules.game import Game, RuleError, TICKET_NAMES, PHASE_MRX, PHASE_DETECTIVES, PHASE_OVER  # noqa: F401 (Game: type comments)
from sy.storage.stages import IDLE, SETUP, PLAY, OVER, STAGE_NAMES  # noqa: F401 (the handlers take them from here)

try:
    from time import ticks_diff, ticks_us
    from micropython import const
except ImportError:  # CPython
    from sy.compat import ticks_diff, ticks_us, const

# the hand's states (docs/architecture.md, "The hand")
HAND_EMPTY = const(0)
HAND_LIFTED = const(1)
HAND_ASKING = const(2)
HAND_TAKEN_BACK = const(3)

# what a placement came to (Board._place)
_PLACED_MOVE = const(1)  # the move is committed
_PLACED_ASKING = const(2)  # several tickets lead there: it waits for one (Board.choose)
_PLACED_ILLEGAL = const(3)  # not a legal move: nothing changed, the piece is still in hand

# a station's reed, one byte each in Board._reeds (and sy/play/blind.py's; found with bytearray.find,
# so as bytes too)
REED_OPEN = const(0)
REED_CLOSED = const(1)  # a piece, or a placement: it closed while a piece that may move was in hand
REED_STRAY = const(3)  # it closed while no piece that may move was in hand: never a destination
_OPEN = b"\x00"
_CLOSED = b"\x01"
_STRAY = b"\x03"

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
_LOG_VIEW_MS = const(4000)  # the confirm button pressed: the travel log shown this long
_WAITING_LEVEL = const(24)  # the brightness (of 255) of a piece that stands and does not move now
_ALL_TICKETS = const(7)  # bit t: ticket t (taxi, bus, underground)
_MAX_SHOWN = const(8)  # missing pieces and extra stations the board tracks at once
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
        # collaborators
        self.leds = leds
        if getattr(leds, "patterns", False):  # board.json leds.patterns
            from sy.play import rhythm
            self.rhythm = rhythm
        self.store = store
        self.out = out  # .event(seq, text), .note(dict)
        self.graph = graph
        self.blind = None  # reeds out of service (sy/play/blind.py), while there are any
        # the fields without an underscore are read by all and changed only by the Board's methods
        self.game = None  # type: Game | None
        self.stage = IDLE
        # the main loop's interface (sy/app.py)
        self.now = 0
        self.dirty = True  # a frame is due
        self.lift_note = -1  # a lifted piece the host has not been told about yet (send_notes)
        self.ask_note = False  # the ticket question of the hand's placement not told yet (send_notes)
        self.save_max_us = 0  # the longest journal line + snapshot save (the `mem` command's)
        # the reeds and what the comparison makes of them (compare): the board's view
        self._reeds = bytearray(STATIONS + 1)  # REED_OPEN, REED_CLOSED, REED_STRAY
        self.missing = bytearray(_MAX_SHOWN)  # missing[:n_missing]: pieces whose station is open
        self.n_missing = 0
        self.extra = bytearray(_MAX_SHOWN)  # extra[:n_extra]: closed stations no piece should be on
        self.n_extra = 0
        self._n_placed = 0  # extra stations that closed while a piece that may move was in hand
        self._placed_at = 0  # the last of them
        self.to_move = 0  # the rules' to_move as the last evaluation found it
        self._out_of_turn = 0  # bit p: piece p lifted when it could not move, out of place until put back
        self.restoring = False  # the pieces moved while the game waited: nothing commits until they agree
        self.mrx_piece_on = False  # Mister X's own piece stands on his surfacing station
        # the hand (HAND_*)
        self.hand = HAND_EMPTY
        self.piece = -1  # the piece in hand (lifted, asking) or taken back
        self._dest = bytearray(64)  # the lifted piece's legal destinations
        self._dest_tickets = bytearray(64)  # the tickets (bit t) to each
        self._n_dest = 0
        self._chosen_ticket = -1  # a ticket chosen before the placement
        self._ask_at = 0  # asking: the station it is down on, the tickets that lead there,
        self._ask_tickets = 0
        self._ask_since = 0  # and when it was put down (ms)
        self._guide = None  # the host's guided move (computer detectives): (piece, station, ticket)
        self._confirm_down_at = -1  # when the confirm button went down (ms), while it is down
        self._log_view_until = 0  # the travel log is shown until then (ms)
        self._snap = bytearray(192)  # the game's snapshot is made here (Game.save_into), not allocated
        self.chain_pause = None  # sy/play/chainpause.py while the reader chain lies: the game paused

    # --- what the others may read besides the fields above --------------------------------
    def piece_in_hand(self):
        """The lifted piece that may move (also while its placement asks for a ticket), or -1."""
        return self.piece if self.hand == HAND_LIFTED or self.hand == HAND_ASKING else -1

    def asking_at(self):
        """The station where the piece in hand is down waiting for its ticket, or 0."""
        return self._ask_at if self.hand == HAND_ASKING else 0

    def asked_tickets(self):
        """The tickets (bit t) that lead to asking_at()."""
        return self._ask_tickets if self.hand == HAND_ASKING else 0

    def chosen_ticket(self):
        """The ticket chosen for the piece in hand before its placement, or -1."""
        return self._chosen_ticket

    def guided(self):
        """The host's guided move, (piece, station, ticket), or None."""
        return self._guide

    def destinations(self):
        """The stations the piece in hand may go to (a new list)."""
        return [self._dest[i] for i in range(self._n_dest)]

    def reed(self, station):
        """What the board holds of station's reed: REED_OPEN, REED_CLOSED or REED_STRAY."""
        return self._reeds[station]

    # --- persistence ----------------------------------------------------------------------
    def header(self):
        stage = self.stage
        if stage == PLAY and self.game.phase == PHASE_OVER:
            stage = OVER  # the commit that ends the game is saved once, already over
        return {"v": 1, "stage": stage, "x_on": 1 if self.mrx_piece_on else 0}

    def save(self):
        g = self.game
        data = b""
        if g is not None:
            n = g.save_size()
            if len(self._snap) < n:  # a long game: the buffer grows once, by a move's worth and more
                self._snap = bytearray(n + 64)
            g.save_into(self._snap)
            data = memoryview(self._snap)[:n]
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

    # --- the game's beginning, end and pauses (newgame, resume, service mode) ---------------
    def start_game(self, game, line):
        """A new game: the journal begun with its setup line; the players set the pieces up."""
        self.store.reset()
        self.game = game
        self.stage = SETUP
        self.restoring = False
        self.mrx_piece_on = False
        self._guide = None
        self._empty_hand()
        seq = self.commit_line(line)
        self.compare_and_commit()
        return seq

    def clear_game(self):
        """No game: the journal emptied, the board idle."""
        self.store.reset()
        self.game = None
        self.stage = IDLE
        self.restoring = False
        self._guide = None
        self._empty_hand()  # a piece in hand is no longer a move: its `lifted` note, if not sent yet, is not sent
        self.compare_and_commit()

    def take_up(self, stage, game, mrx_piece_on):
        """The saved game at boot (sy/storage/resume.py): nothing commits until the pieces agree."""
        self.stage = stage
        self.game = game
        self.mrx_piece_on = mrx_piece_on
        self.restoring = stage == PLAY
        self.compare_and_commit(quiet=True)
        self.dirty = True

    def read_reeds(self, bitmap, bit_station, nbits, only=0):
        """Every station's reed (or only station `only`'s) as bitmap says it (bit k: 0x80 >> (k & 7)
        of byte k >> 3, 1 closed): at boot, after service mode, a reed back in service. No evaluation."""
        reeds = self._reeds
        for bit in range(nbits):
            s = bit_station[bit]
            if s and (not only or s == only):
                reeds[s] = REED_CLOSED if bitmap[bit >> 3] & (0x80 >> (bit & 7)) else REED_OPEN

    def await_pieces(self):
        """After service mode: a game in play waits until the pieces agree with it again."""
        if self.stage == PLAY:
            self.restoring = True
        self.compare_and_commit(quiet=True)
        self.dirty = True

    # --- what the host says ---------------------------------------------------------------
    def require_play(self):
        """The game, when a command may change it now; else RuleError, saying what is in the way."""
        if self.game is None or self.stage == IDLE:
            raise RuleError("wrong_turn", "no_game")
        if self.stage == SETUP:
            raise RuleError("wrong_turn", "not_placed")
        if self.stage == OVER:
            raise RuleError("game_over")
        if self.restoring:
            raise RuleError("wrong_turn", "restoring")
        if self.hand == HAND_TAKEN_BACK:
            p = self.piece
            raise RuleError("wrong_turn", "put_back",
                            self.game.piece_name(p), self.game.pos[p])
        return self.game

    def commit_change(self, line):
        """A change the host made to the game (the rules applied it): journalled, then what follows."""
        seq = self.commit_line(line)
        self._after_commit()
        return seq

    def commit_mrx_move(self, line):
        """Mister X moved: his own piece, if it stood on his surfacing station, is no longer his."""
        self.mrx_piece_on = False
        return self.commit_change(line)

    def commit_capture(self, line):
        """A capture, also after the last round's closing move ended the game: announced again."""
        self.stage = PLAY
        return self.commit_change(line)

    def hide_travel_log(self):
        """The travel log (shown while the confirm button is down) gives way to what follows."""
        self._log_view_until = self.now

    def guide(self, piece, to, ticket):
        """The host's move for piece (computer detectives): lit, and the only placement taken."""
        self._guide = (piece, to, ticket)
        self.dirty = True

    def take_back(self, piece, home, left, consented=False):
        """The rules took back piece's move from station `left` to `home` (consented: a final move,
        with Mister X's consent): journalled; until the piece stands on its station again its
        station blinks and nothing commits."""
        self._empty_hand()
        self.hand = HAND_TAKEN_BACK
        self.piece = piece
        if self._reeds[left]:
            self._reeds[left] = REED_STRAY  # the piece still stands there: a stray now, never a placement
        self._guide = None  # a guided move is guided again by the host
        self.compare_and_commit(quiet=True)
        self.render(self.now)  # the players see it first, as after a move (_commit_move)
        line = {"type": "undo", "piece": self.game.piece_name(piece), "from": left, "to": home}
        if consented:
            line["consent"] = True
        seq = self.commit_line(line)
        self.compare_and_commit(quiet=True)
        return seq

    def choose(self, ticket):
        """A ticket chosen (button or host) for the asking or the next placement. False if no piece
        is in hand."""
        if self.hand == HAND_ASKING and self._ask_tickets & (1 << ticket):
            self._commit_move(self.piece, ticket, self._ask_at)
            return True
        if self.piece_in_hand() >= 0:
            self._chosen_ticket = -1 if self._chosen_ticket == ticket else ticket
            self.dirty = True
            self.compare_and_commit(game_changed=False)
            return True
        return False

    def place_unseen(self, piece, station, ticket=-1):
        """Piece (in hand, or standing on a station out of service) put on a station whose reed
        cannot see it, by ticket (or -1: as the placement decides). The move's seq, or 0 while it
        waits for its ticket (asked_tickets()); RuleError if it cannot go there now."""
        g = self.game
        if self.piece_in_hand() != piece:
            bl = self.blind
            if bl is None or not bl.dead[g.pos[piece]] or not self._may_mask() & (1 << piece) or self.n_missing:
                raise RuleError("wrong_turn", "not_in_hand", g.piece_name(piece))
            self._lift(piece, True)
        if ticket >= 0:
            self._chosen_ticket = ticket
        placed = self._place(piece, station)
        if placed == _PLACED_ILLEGAL:
            if ticket >= 0:
                self._chosen_ticket = -1  # the ticket that came with it is forgotten
            raise RuleError("illegal", "cannot_go", g.piece_name(piece), station)
        return 0 if placed == _PLACED_ASKING else self.store.seq

    # --- reed changes and buttons ---------------------------------------------------------
    def switch(self, station, closed):
        bl = self.blind
        g = self.game
        if bl is not None:
            if bl.dead[station]:
                return  # out of service: compare() makes the station follow the game
            if closed and g is not None and not self.n_missing and g.holder_of(station) < 0 \
                    and g.surfaced != station and bl.hidden_mover(g, self._may_mask()) >= 0:
                # the piece that may move stands out of sight: this closing is it put down (compare()
                # shows it lifted)
                self._reeds[station] = REED_CLOSED
                self.compare_and_commit()
                return
        v = REED_CLOSED if closed else REED_OPEN
        if g is not None:
            p = g.holder_of(station)
            if p >= 0:  # lifted, a piece may move only in its turn; put back, it is in place again
                self._out_of_turn &= ~(1 << p)
                if not closed and not self._may_now() & (1 << p):
                    self._out_of_turn |= 1 << p
            elif closed:  # a placement only while a piece that may move is in hand, else stray
                v = REED_STRAY
                may = self._may_now()
                for i in range(self.n_missing):
                    if may & (1 << self.missing[i]):
                        v = REED_CLOSED
        self._reeds[station] = v
        if g is not None and g.surfaced == station:
            on = self.mrx_piece_on
            if not closed:
                self.mrx_piece_on = False
            elif self.n_missing == 0:
                self.mrx_piece_on = True  # nobody is in hand: this is Mister X's own piece
                self.out.note({"note": "mrx_piece", "station": station})
            if self.mrx_piece_on != on:
                self.save()  # the snapshot's header keeps it: a resume takes his piece up as his
        self.compare_and_commit(game_changed=False)

    def _may_mask(self, to_move=-1):
        """Bit p: piece p may move now."""
        if self.stage != PLAY or self.restoring or self.hand == HAND_TAKEN_BACK:
            return 0
        return (self.game.to_move() if to_move < 0 else to_move) & ~self._out_of_turn

    def _may_now(self):
        """_may_mask from the rules' to_move as the last evaluation found it: a reed change comes
        between evaluations, and every change to the game is evaluated (a commit, a host's
        command, a take-back, a resume), so it is the same, without asking the rules again (a
        to_move costs milliseconds on a Pico, and a lift and a placement each evaluate anyway)."""
        return self._may_mask(self.to_move)

    def button(self, k):
        if k == BUTTON_CONFIRM:
            self._log_view_until = self.now + _LOG_VIEW_MS
            self._confirm_down_at = self.now
            self.dirty = True
            return
        self.choose(k)

    def release(self, k):
        """A button let go: the confirm button held HOLD_MS or longer takes back the turn's last
        move; pressed briefly with a piece in hand, it puts the piece on its one destination out of
        service (with several, the host is asked which: note `where`)."""
        if k != BUTTON_CONFIRM or self._confirm_down_at < 0:
            return
        held = ticks_diff(self.now, self._confirm_down_at)
        self._confirm_down_at = -1
        if self.blind is not None and held < HOLD_MS:
            return self.blind.confirm(self)
        if held < HOLD_MS or self.stage != PLAY:
            return
        self.hide_travel_log()  # it gives way to the take-back
        from sy.play import undo
        try:
            self.require_play()
            undo.take_back(self, None)
        except RuleError as e:  # nothing to take back, or a final move: the players are told on the host
            self.out.note(undo.refusal(self, e))

    # --- the comparison -------------------------------------------------------------------
    def compare(self, game_changed=True):
        """Compare where the rules put the pieces with the closed reeds, and nothing more (no
        commit, no change of stage): fills missing, extra, the placements (_n_placed,
        _placed_at) and to_move, the board's view. Allocates nothing.
        game_changed False (a reed or a ticket button changed, not the game): to_move is the last
        evaluation's, as every change to the game is evaluated (a commit, a host's command, a
        take-back, a resume) and the rules' to_move costs milliseconds on a Pico, in the cycle
        that answers a placement."""
        self.dirty = True
        g = self.game
        self.n_missing = self.n_extra = 0
        self._n_placed = self._placed_at = 0
        if g is None:
            return
        reeds = self._reeds
        pos = g.pos
        if self.blind is not None:
            self.blind.sync(reeds, g, self._may_mask())
        for i in range(g.n_pieces):
            if not reeds[pos[i]] and self.n_missing < _MAX_SHOWN:
                self.missing[self.n_missing] = i
                self.n_missing += 1
        # the closed stations, found by the bytearray's own search (a Python loop over all 199
        # is slow on a Pico); none but the pieces' own most of the time
        if len(reeds) - reeds.count(_OPEN) > g.n_pieces - self.n_missing:
            s = 0
            while True:
                a = reeds.find(_CLOSED, s + 1)
                b = reeds.find(_STRAY, s + 1)
                if a < 0 and b < 0:
                    break
                s = a if b < 0 or 0 <= a < b else b
                if g.holder_of(s) < 0 and not (s == g.surfaced and self.mrx_piece_on):
                    if self.n_extra < _MAX_SHOWN:
                        self.extra[self.n_extra] = s
                        self.n_extra += 1
                    if reeds[s] == REED_CLOSED:
                        self._n_placed += 1
                        self._placed_at = s
        if not self.n_missing:
            self._out_of_turn = 0  # every piece in place
        if game_changed:
            self.to_move = g.to_move()

    def compare_and_commit(self, quiet=False, game_changed=True):
        """compare(), then what it decides, committed: a board set up starts the game (`ready`),
        a resumed board whose pieces agree again says so, a piece lifted and put down on a new
        station is a move (committed once its ticket is known); and the lift's feedback (no
        `lifted` note if quiet: after a command or a commit, not a reed). Called after every
        change of the reeds or of the game."""
        self.compare(game_changed)
        g = self.game
        if g is None:
            return
        if self.stage == SETUP:
            if self.n_missing == 0 and self.n_extra == 0:
                self.stage = PLAY
                self.commit_line({"type": "ready"})
                self.to_move = g.to_move()
            return
        if self.stage != PLAY:
            return
        if self.restoring:
            if self.n_missing or self.n_extra:
                return
            self.restoring = False
            self.out.note({"note": "restored"})
        if self.hand == HAND_TAKEN_BACK:  # nothing commits until the piece is on its station
            p = self.piece
            if not self._reeds[g.pos[p]]:
                return
            self.out.note({"note": "back", "piece": g.piece_name(p), "station": g.pos[p]})
            self.hand = HAND_EMPTY  # home again
            self.piece = -1
        if g.phase != PHASE_DETECTIVES or self.n_missing != 1 or self._n_placed > 1:
            self._put_down()
            return
        p = self.missing[0]
        if not self.to_move & ~self._out_of_turn & (1 << p):
            self._put_down()
            return
        if self.piece_in_hand() != p:
            self._lift(p, quiet)
        if self._n_placed == 1:
            self._place(p, self._placed_at)
        elif self.hand == HAND_ASKING:
            self.hand = HAND_LIFTED  # lifted again from where it was asking
            self._ask_at = self._ask_tickets = 0

    # --- the hand's transitions -----------------------------------------------------------
    def _put_down(self):
        """Lifted or asking -> empty: the piece is back, or no single piece that may move is off."""
        if self.hand == HAND_LIFTED or self.hand == HAND_ASKING:
            self._empty_hand()

    def _empty_hand(self):
        """Any state -> empty (also a new game, no game)."""
        self.hand = HAND_EMPTY
        self.piece = -1
        self._n_dest = 0
        self._chosen_ticket = -1
        self._ask_at = self._ask_tickets = 0

    def _lift(self, p, quiet):
        """Empty, lifted or asking -> lifted: piece p in hand, its destinations found."""
        g = self.game
        self.hand = HAND_LIFTED
        self.piece = p
        self._chosen_ticket = -1
        self._ask_at = self._ask_tickets = 0
        n = 0
        dest = self._dest
        for s, t in g.legal(p):
            if n and dest[n - 1] == s:
                self._dest_tickets[n - 1] |= 1 << t
            elif n < len(dest):
                dest[n] = s
                self._dest_tickets[n] = 1 << t
                n += 1
        self._n_dest = n
        if not quiet:
            self.lift_note = p  # told in a later cycle: the players' frame comes first (sy/app.py)

    def _place(self, p, to):
        """The piece in hand down on station `to`: lifted or asking -> a move committed (empty),
        asking (several tickets lead there), or still lifted (illegal: the players are told)."""
        g = self.game
        mask = 0
        for i in range(self._n_dest):
            if self._dest[i] == to:
                mask = self._dest_tickets[i]
        if self._chosen_ticket >= 0:
            mask &= 1 << self._chosen_ticket
        guide = self._guide
        if guide is not None:
            mask &= 1 << guide[2] if p == guide[0] and to == guide[1] else 0
        if not mask:
            self.hand = HAND_LIFTED
            self._ask_at = self._ask_tickets = 0
            if guide is not None:
                code, why, args = "guided", "guided_to", [g.piece_name(guide[0]), guide[1]]
            else:
                from sy.play import report  # why it is illegal
                code, why, args = report.why(g, p, to, self._chosen_ticket)
            self.out.note({"note": "illegal", "piece": g.piece_name(p), "station": to, "error": code,
                           "why": why, "args": args})
            return _PLACED_ILLEGAL
        if g.is_bobby(p):
            self._commit_move(p, None, to)
        elif mask & (mask - 1) == 0:
            self._commit_move(p, mask >> 1, to)  # one ticket: 1, 2, 4 -> taxi, bus, underground
        else:
            if self.asking_at() != to:
                self.hand = HAND_ASKING
                self._ask_at = to
                self._ask_tickets = mask
                self._ask_since = self.now
                self.ask_note = True  # told in a later cycle, as the lift: the players' frame first
            return _PLACED_ASKING
        return _PLACED_MOVE

    def _commit_move(self, p, ticket, to):
        """Lifted or asking -> empty: the rules apply the move; the players see it, then it is saved."""
        g = self.game
        g.move(p, ticket, to)
        self._guide = None
        line = _move_line(g, p, ticket, to)
        if g.result == "detectives" and g.reason == "capture":
            line["capture"] = True
        self._empty_hand()
        self.compare_and_commit(quiet=True)
        # the players see the answer first: the save below may wait for a flash erase; the
        # host's event follows the save
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
        self.compare_and_commit(quiet=True)

    def send_notes(self):
        """Tell the host what the players were shown in an earlier cycle (sy/app.py), a note a
        cycle: the piece in hand, if it is still in hand; then the ticket question of its
        placement, if the board still asks it. True if a note went."""
        g = self.game
        p = self.lift_note
        self.lift_note = -1
        if p >= 0 and p == self.piece_in_hand():
            legal = [[self._dest[i], ticket_mask_names(self._dest_tickets[i])] for i in range(self._n_dest)]
            note = {"note": "lifted", "piece": g.piece_name(p), "station": g.pos[p], "legal": legal}
            if self.blind is not None:
                self.blind.note(self, note)  # its destinations out of service
            self.out.note(note)
            return True
        ask = self.ask_note
        self.ask_note = False
        if ask and self.hand == HAND_ASKING:
            self.out.note({"note": "choose", "piece": g.piece_name(self.piece), "station": self._ask_at,
                           "tickets": ticket_mask_names(self._ask_tickets)})
            return True
        return False

    def pause_for(self, pause):
        """The reader chain lies: the game is paused by `pause` (sy/play/chainpause.py: the status's
        code, the frame; the reeds and buttons held by sy/app.py), or goes on (None)."""
        self.chain_pause = pause
        self.dirty = True

    # --- drawing --------------------------------------------------------------------------
    def draw_pieces_dim(self):
        """Every piece dim in its own colour (the paused frame: sy/play/chainpause.py). No allocation."""
        g = self.game
        if g is None:
            return
        L = self.leds
        for i in range(g.n_pieces):
            c = 3 * i if i < g.n_detectives else BOBBY_RGB
            L.put(g.pos[i], (PIECE_RGB[c] * _WAITING_LEVEL) >> 8, (PIECE_RGB[c + 1] * _WAITING_LEVEL) >> 8,
                  (PIECE_RGB[c + 2] * _WAITING_LEVEL) >> 8)

    def render(self, now):
        """Draw the frame for the state at `now` (ms). No allocation."""
        self.now = now
        L = self.leds
        L.clear()
        g = self.game
        if self.chain_pause is not None:  # the reader chain lies: the game is paused
            self.chain_pause.draw(self, now)
            L.show()
            return
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
        reeds = self._reeds
        pos = g.pos
        if self.stage == OVER:
            self._draw_end(now)
            L.show()
            return
        if self.stage == PLAY and g.phase == PHASE_MRX and not self.restoring:
            L.shimmer(g.cand, _WAIT, now)  # waiting for Mister X: a slow shimmer over where he may be
        if g.surfaced and self.stage == PLAY:
            if self.mrx_piece_on or slow:
                L.put(g.surfaced, 255, 255, 255)
        pulse = (now >> 2) & 255
        pulse = 96 + ((pulse if pulse < 128 else 255 - pulse) * 159 >> 7)
        nd = g.n_detectives
        lifted = self.piece_in_hand()
        guide = self._guide
        guided = guide[0] if guide is not None else -1
        rhythm = self.rhythm
        for i in range(g.n_pieces):
            s = pos[i]
            c = 3 * i if i < nd else BOBBY_RGB
            if self.stage == SETUP or self.restoring:
                lvl = 255 if reeds[s] or (rhythm.piece_lit(i, nd, now) if rhythm else slow) else 0
            elif not reeds[s]:
                lvl = 255 if i == lifted or (rhythm.piece_lit(i, nd, now) if rhythm else slow) else 0
            elif self.to_move & (1 << i) and (guided < 0 or guided == i):
                lvl = pulse
            else:
                lvl = _WAITING_LEVEL
            L.put(s, (PIECE_RGB[c] * lvl) >> 8, (PIECE_RGB[c + 1] * lvl) >> 8, (PIECE_RGB[c + 2] * lvl) >> 8)
        if guide is not None:  # the guided destination: the piece's colour and the ticket's in turn
            if slow:
                c = 3 * guided if guided < g.n_detectives else BOBBY_RGB
            else:
                c = 3 * guide[2]
            rgb = PIECE_RGB if slow else TRANSPORT_RGB
            L.put(guide[1], rgb[c], rgb[c + 1], rgb[c + 2])
        elif self.hand == HAND_ASKING:
            # the piece is down where several tickets fit and the board asks which: that station
            # alone blinks its transports, dark first, so the very next frame answers the
            # placement (the piece's only destination looked the same before it was put there)
            k = ticks_diff(now, self._ask_since) // _ASK_MS
            if k & 1:
                t = 3 * self._pick(self._ask_tickets, k >> 1)
                L.put(self._ask_at, TRANSPORT_RGB[t], TRANSPORT_RGB[t + 1], TRANSPORT_RGB[t + 2])
        elif self.hand == HAND_LIFTED:
            # a dozen destinations and more (an underground station): kept lean, as every frame
            # of a piece in hand draws them, within the scan cycle
            dest = self._dest
            masks = self._dest_tickets
            only = _ALL_TICKETS if self._chosen_ticket < 0 else 1 << self._chosen_ticket
            step = now // (rhythm.PATTERN_MS if rhythm else 600)  # with rhythms, each shown for a whole one
            dead = self.blind.dead if self.blind is not None and slow else None
            for i in range(self._n_dest):
                m = masks[i] & only
                if not m:
                    continue
                s = dest[i]
                if dead is not None and dead[s]:
                    L.put(s, 255, 255, 255)  # out of service: put it there, then press confirm
                    continue
                t = self._pick(m, step) if m & (m - 1) else m >> 1  # one transport (1, 2, 4): its own
                lvl = rhythm.transport_level(t, now) if rhythm else 256
                t *= 3
                L.put(s, (TRANSPORT_RGB[t] * lvl) >> 8, (TRANSPORT_RGB[t + 1] * lvl) >> 8,
                      (TRANSPORT_RGB[t + 2] * lvl) >> 8)
        ask_at = self.asking_at()
        for i in range(self.n_extra):
            if self.extra[i] != ask_at:  # a placement waiting for its ticket is no error
                L.put(self.extra[i], _ERROR[0] if fast else 0, 0, 0)
        if ticks_diff(self._log_view_until, now) > 0:
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
