"""The rules of Scotland Yard (docs/rules.md), small enough for the board.

Pure: no I/O, no clock, no hardware. Runs unchanged under CPython and MicroPython.

A Game knows Mister X's station (the host, a replayer) or not (the board: `mrx=0`, "secret mode").
In secret mode it learns only what the detectives learn: ticket kinds, surfacing stations, and a
capture or a cornered Mister X when the host declares it. Either way it tracks the exact set of
stations where Mister X may be, from public information only.
"""
import sys

from sy.rules import mapgraph
from sy.rules.base import (RuleError, is_int, TAXI, BUS, UNDERGROUND, BLACK, TICKET_NAMES, PHASE_MRX,  # noqa: F401
                         PHASE_DETECTIVES, PHASE_OVER, BOX, DETECTIVE_TICKETS, TWO_PLAYER_STOCK, MRX_TICKETS,
                         ROUNDS, REVEALS, BOBBIES, RESULTS, REASONS, SAVE_VERSION, const)

# MicroPython (the board, the simulator). Not "micropython is importable": Adafruit Blinka installs a
# module of that name for CPython.
_BOARD = sys.implementation.name == "micropython"
_ONE = bytearray(1)  # holder_of's needle on the board (one thread there)


class Game:
    def __init__(self, detectives, bobbies=(), mrx=0, two_player=False, tickets=None,
                 mrx_tickets=None, rounds=ROUNDS, reveals=REVEALS, graph=None):
        """A new game; RuleError bad_input if the setup breaks the rules (sy/rules/gamestart.py)."""
        from sy.rules import gamestart
        g = self.graph = graph or mapgraph.load()
        n = len(detectives)
        stock = tickets or (TWO_PLAYER_STOCK if two_player else DETECTIVE_TICKETS)
        mt = mrx_tickets or MRX_TICKETS
        start, supply = gamestart.check(g, detectives, bobbies, mrx, two_player, stock, mt, rounds, reveals)
        self.n_detectives = n
        self.n_pieces = len(start)
        self.two_player = bool(two_player)
        self.rounds = rounds
        self.reveals = bytes(sorted(reveals))
        self.pos = bytearray(start)
        if two_player:
            shared = bytearray(stock)
            self.tickets = [shared, shared]
        else:
            self.tickets = []
            for _ in range(n):
                self.tickets.append(bytearray(stock))
        self.supply = supply
        self.mrx_used = bytearray(3)
        self.black = mt[0]
        self.double = mt[1]
        self.round = 0
        self.moves = 0
        self.phase = PHASE_MRX
        self.moved = 0
        self.result = None
        self.reason = None
        self.mrx = mrx or 0
        self.surfaced = 0
        self.log = []
        self._landing = 0  # the last detective move since Mister X's: piece << 8 | station, bit 15 if
        # the station was publicly possible for him before (the capture check, sy/rules/mrxknown.py)
        # this turn's moves, for a take-back (sy/rules/takeback.py): 3 bytes each, piece | 0x80 if its
        # station was one of his possible ones before, the station it left, the ticket (255: none)
        self.turn = bytearray(3 * self.n_pieces)
        self.n_turn = 0
        self.cand = bytearray(32)
        cards = g.x_cards
        if mrx and mrx not in cards:
            cards = range(1, g.stations + 1)  # a custom start: the detectives know nothing
        for s in cards:
            if s not in start:
                self.cand[s >> 3] |= 1 << (s & 7)
        if mrx and not self._mrx_options(mrx, None):
            self._end("detectives", "mrx_stuck")

    # --- pieces -------------------------------------------------------------------------
    def is_bobby(self, piece):
        return piece >= self.n_detectives

    def piece_name(self, piece):
        if piece < self.n_detectives:
            return "D%d" % (piece + 1)
        return "B%d" % (piece - self.n_detectives + 1)

    def piece_index(self, name):
        if isinstance(name, str) and len(name) == 2 and name[1] in "1234567":
            k = int(name[1]) - 1
            if name[0] == "D" and k < self.n_detectives:
                return k
            if name[0] == "B" and k < self.n_pieces - self.n_detectives:
                return self.n_detectives + k
        raise RuleError("bad_input", "no_piece", name)

    def turn_mover(self, i):
        """The piece that made this turn's i-th move (0: the first since Mister X's)."""
        return self.turn[3 * i] & 0x7F

    def holder_of(self, station):
        """Index of the piece on station, or -1."""
        # pos holds exactly the n_pieces stations: the bytearray's own search, not a Python loop
        # (called for every neighbour of every piece in to_move and legal: slow on a Pico)
        if isinstance(station, int) and 0 <= station < 256:
            if _BOARD:  # MicroPython v1.28 searches bytes for bytes only
                _ONE[0] = station
                return self.pos.find(_ONE)
            return self.pos.find(station)
        return -1

    # --- queries ------------------------------------------------------------------------
    def _free(self, station):
        return self.holder_of(station) < 0

    def legal(self, piece):
        """Legal (station, ticket) moves of a detective or bobby now, sorted."""
        out = []
        self._moves(piece, out)
        out.sort()
        return out

    def can_move(self, piece):
        return self._moves(piece, None)

    def _moves(self, piece, out):
        """Append the piece's moves to out (if given); True if it has any."""
        if self.is_bobby(piece):
            transports = 7  # bobbies pay nothing: every line is open to them
        else:
            held = self.tickets[piece]
            transports = (1 if held[TAXI] else 0) | (2 if held[BUS] else 0) | (4 if held[UNDERGROUND] else 0)
        return self.graph.free_moves(self.pos[piece], transports, self.pos, out)

    def to_move(self):
        """Bitmask of the pieces that still have to move this round (0 outside the detectives' turn)."""
        if self.phase != PHASE_DETECTIVES:
            return 0
        mask = 0
        moved = self.moved
        for i in range(self.n_pieces):
            if not moved & (1 << i) and self._moves(i, None):
                mask |= 1 << i
        return mask

    def _mrx_options(self, here, out):
        """Append Mister X's single moves from `here` to out (if given); True if he has any."""
        g = self.graph
        adj = g.adj
        found = False
        for t in range(4):
            lo, hi = g.span(here, t)
            for i in range(lo, hi):
                s = adj[i]
                if self.holder_of(s) >= 0:
                    continue
                if t < 3 and self.supply[t]:
                    if out is None:
                        return True
                    found = True
                    out.append((s, t))
                if self.black:
                    if out is None:
                        return True
                    found = True
                    if (s, BLACK) not in out:
                        out.append((s, BLACK))
        return found

    def legal_mrx(self):
        """Mister X's legal single moves now (double moves excluded); needs his station."""
        from sy.rules import mrxknown
        return mrxknown.legal(self)

    def is_candidate(self, s):
        return bool(self.cand[s >> 3] & (1 << (s & 7)))

    def candidates(self):
        """Sorted stations where Mister X may be, from public information only."""
        cand = self.cand
        out = []
        for s in range(1, self.graph.stations + 1):
            if cand[s >> 3] & (1 << (s & 7)):
                out.append(s)
        return out

    def next_reveal(self):
        for r in self.reveals:
            if r > self.moves:
                return r
        return 0

    # --- Mister X -----------------------------------------------------------------------
    def mrx_move(self, ticket, to=0):
        """Mister X's single move. In secret mode `to` is given only on a surfacing move.
        Returns the station he surfaces on, or 0 (sy/rules/mrxmoves.py)."""
        from sy.rules import mrxmoves
        return mrxmoves.single(self, ticket, to)

    def mrx_double(self, ticket1, to1, ticket2, to2):
        """A double move: two travel-log entries in one turn. Returns the station shown, or 0."""
        from sy.rules import mrxmoves
        return mrxmoves.double(self, ticket1, to1, ticket2, to2)

    # --- detectives and bobbies -----------------------------------------------------------
    def move(self, piece, ticket, to):
        """A detective's or bobby's move; a bobby's ticket may be None (it pays nothing)."""
        if self.phase == PHASE_OVER:
            raise RuleError("game_over")
        if not (is_int(piece) and 0 <= piece < self.n_pieces):
            raise RuleError("bad_input", "no_piece", piece)
        if not self.graph.is_station(to):
            raise RuleError("bad_input", "not_station", to)
        name = self.piece_name(piece)
        if self.phase != PHASE_DETECTIVES:
            raise RuleError("wrong_turn", "mrx_turn")
        if self.moved & (1 << piece):
            raise RuleError("already_moved", "moved_already", name)
        bobby = self.is_bobby(piece)
        if ticket is not None and not (is_int(ticket) and 0 <= ticket <= 3):
            raise RuleError("bad_input", "field", "ticket")
        if ticket == BLACK:
            if bobby:
                raise RuleError("bad_input", "bobby_ticket")
            raise RuleError("no_ticket", "detective_black")
        here = self.pos[piece]
        g = self.graph
        if ticket is None:
            if not bobby:
                raise RuleError("bad_input", "name_ticket")
            if not (g.connected(here, to, TAXI) or g.connected(here, to, BUS) or g.connected(here, to, UNDERGROUND)):
                self._refuse_link(here, to, None)
        elif not g.connected(here, to, ticket):
            self._refuse_link(here, to, ticket)
        if ticket is not None and not bobby and self.tickets[piece][ticket] == 0:
            raise RuleError("no_ticket", "no_ticket_left", name, TICKET_NAMES[ticket])
        holder = self.holder_of(to)
        if holder >= 0:
            raise RuleError("occupied", "held_by", to, self.piece_name(holder))
        # accepted
        k = 3 * self.n_turn
        turn = self.turn
        turn[k] = piece | (0x80 if self.is_candidate(to) else 0)
        turn[k + 1] = here
        turn[k + 2] = 255 if ticket is None else ticket
        self.n_turn += 1
        self.pos[piece] = to
        if ticket is not None and not bobby:  # (a detective's ticket is never None here)
            self.tickets[piece][ticket] -= 1
            self.supply[ticket] += 1
        self.moved |= 1 << piece
        # bit 15: the station was one of his possible ones before the landing (a capture needs it)
        self._landing = (piece | (0x80 if self.mrx or self.is_candidate(to) else 0)) << 8 | to
        if self.mrx:
            if to == self.mrx:
                self._end("detectives", "capture")
                return
        elif to == self.surfaced or self.is_candidate(to) and self.candidates_count() == 1:
            self.mrx = to  # he is certainly there: the capture is public knowledge
            self._end("detectives", "capture")
            return
        self.cand[to >> 3] &= ~(1 << (to & 7)) & 0xFF
        self._close_round_if_done()

    def take_back(self):
        """Take back the last detective's or bobby's move of this turn (until Mister X moves
        again; never the move that ended the game): the game is exactly as before it.
        Returns (piece, ticket or None, station left, station taken back from) (sy/rules/takeback.py)."""
        from sy.rules import takeback
        return takeback.undo(self)

    def check_take_back(self, consent=False):
        """Refuse (RuleError) taking back the last move of this turn now: none to take back, the
        game over, or a final move (one the game answered: it landed where Mister X could have
        been, or handed him the turn) without his consent (code needs_consent). Returns why it
        needed his consent (sy/rules/takeback.py: FREE, LANDED_WHERE_HE_MAY_BE, HANDED_HIM_THE_TURN)."""
        from sy.rules import takeback
        return takeback.check(self, consent)

    def _refuse_link(self, here, to, ticket):
        if self.graph.connected(here, to, mapgraph.FERRY):
            raise RuleError("ferry")
        if ticket is None:
            raise RuleError("not_connected", "no_link", to, here)
        raise RuleError("not_connected", "no_line", TICKET_NAMES[ticket], here, to)

    def candidates_count(self):
        n = 0
        for byte in self.cand:
            while byte:
                byte &= byte - 1
                n += 1
        return n

    def _close_round_if_done(self):
        if self.phase != PHASE_DETECTIVES or self.to_move():
            return
        if self.round >= self.rounds:
            self._end("mrx", "rounds_done")
            return
        self.phase = PHASE_MRX
        self.moved = 0
        if self.mrx:
            if not self._mrx_options(self.mrx, None):
                self._end("detectives", "mrx_stuck")
        else:
            # secret: he is certainly stuck only if he would be stuck wherever he may be
            cand = self.cand
            for s in range(1, self.graph.stations + 1):
                if cand[s >> 3] & (1 << (s & 7)) and self._mrx_options(s, None):
                    return
            self._end("detectives", "mrx_stuck")

    # --- what the host declares in secret mode ------------------------------------------
    def capture(self, piece):
        """The host says: this piece stands on Mister X. Ends the game (sy/rules/mrxknown.py)."""
        from sy.rules import mrxknown
        mrxknown.capture(self, piece)
    def mrx_cornered(self):
        """The host says: Mister X, at the start of his turn, has no legal move. Ends the game."""
        from sy.rules import mrxknown
        mrxknown.cornered(self)

    def _end(self, result, reason):
        self.phase = PHASE_OVER
        self.result = result
        self.reason = reason

    # --- saving -------------------------------------------------------------------------
    def save(self):
        """A compact snapshot of the game (never holds a station the Game was not told)."""
        buf = bytearray(self.save_size())
        self.save_into(buf)
        return bytes(buf)

    def save_size(self):
        return (59 + len(self.graph.name) + len(self.reveals) + self.n_pieces
                + 3 * (1 if self.two_player else self.n_detectives) + 2 * len(self.log) + 3 * self.n_turn)

    def save_into(self, buf):
        """Write the snapshot into buf (a bytearray of save_size() bytes or more, made once by
        the board, so a save allocates nothing). Returns its length."""
        name = self.graph.name
        buf[0] = SAVE_VERSION
        buf[1] = len(name)
        k = 2
        for c in name:
            buf[k] = ord(c)
            k += 1
        for v in (self.n_detectives, self.n_pieces, 1 if self.two_player else 0, self.rounds, len(self.reveals)):
            buf[k] = v
            k += 1
        for part in (self.reveals, self.pos):
            buf[k:k + len(part)] = part
            k += len(part)
        for i in range(1 if self.two_player else self.n_detectives):
            buf[k:k + 3] = self.tickets[i]
            k += 3
        buf[k:k + 3] = self.supply
        buf[k + 3:k + 6] = self.mrx_used
        k += 6
        for v in (self.black, self.double, self.round, self.moves, self.phase, self.moved,
                  RESULTS.index(self.result), REASONS.index(self.reason), self.mrx, self.surfaced,
                  self._landing & 0xFF, self._landing >> 8):
            buf[k] = v
            k += 1
        buf[k:k + 32] = self.cand
        k += 32
        buf[k] = len(self.log)
        k += 1
        for t, s in self.log:
            buf[k] = t
            buf[k + 1] = s
            k += 2
        buf[k] = self.n_turn
        turn = self.turn
        for i in range(3 * self.n_turn):
            k += 1
            buf[k] = turn[i]
        return k + 1

    @classmethod
    def load(cls, data, graph=None):
        """The Game saved by save(); RuleError bad_input if the data is not a valid snapshot."""
        from sy.rules import savedgame
        return savedgame.load(cls, data, graph)


PYTHON_TO_MOVE = Game.to_move  # (tests compare the machine code with it)


def _native():
    """Game.to_move as machine code where MicroPython compiled it (sy/rules/movesfast.py: .mpy
    files made for this board's architecture); the Python one above everywhere else."""
    if not _BOARD:
        return False
    try:
        from sy.rules import movesfast
    except (ImportError, ValueError, SyntaxError):  # no native code on this port, or another arch
        return False
    Game.to_move = movesfast.to_move
    return True


NATIVE = _native()
