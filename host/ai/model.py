"""A fast, host-only model of the game for the agents' look-ahead (playouts).

The rules core (sy.rules.game.Game) is the single source of truth, written for a microcontroller.
This module mirrors it with plain Python lists and int bitmaps so that a playout costs well
under a millisecond. The map is read from sy.rules.mapgraph (never hard-coded); tests/test_ai_model.py
replays many random games through both and checks they agree move by move.

State (class Sim) knows Mister X's station: the Mister X agent builds it from the real game, the
detective agents from a *determinization* (a station drawn from the public possible set).
"""
import random as _random

from sy.rules import mapgraph, game as rules

TAXI, BUS, UNDERGROUND, BLACK = 0, 1, 2, 3


class Tables:
    """Per-map lookup tables, built once from a MapGraph."""

    def __init__(self, graph):
        self.graph = graph
        n = self.n = graph.stations
        # nbr[t][s]: neighbours of s by transport t (t=3: ferry)
        self.nbr = [[()] * (n + 1) for _ in range(4)]
        for t in range(4):
            for s in range(1, n + 1):
                self.nbr[t][s] = tuple(graph.neighbours(s, t))
        # detective moves of s: ((to, ticket), ...) taxi, bus, underground
        self.det_moves = [()] * (n + 1)
        # Mister X's moves of s: ((to, ticket), ...) plain tickets (no ferry) then black to every
        # distinct neighbour (ferry included)
        self.mrx_plain = [()] * (n + 1)
        self.mrx_black = [()] * (n + 1)
        # spread[t][s]: bitmap of the stations a ticket t takes s to (t=3: black, any transport)
        self.spread = [[0] * (n + 1) for _ in range(4)]
        self.any_nbr = [()] * (n + 1)
        for s in range(1, n + 1):
            dm = []
            for t in range(3):
                for d in self.nbr[t][s]:
                    dm.append((d, t))
                    self.spread[t][s] |= 1 << d
            self.det_moves[s] = tuple(dm)
            self.mrx_plain[s] = tuple(dm)
            allset = []
            for t in range(4):
                for d in self.nbr[t][s]:
                    if d not in allset:
                        allset.append(d)
                    self.spread[BLACK][s] |= 1 << d
            self.any_nbr[s] = tuple(allset)
            self.mrx_black[s] = tuple((d, BLACK) for d in allset)
        # dist[a][b]: fewest detective moves (taxi/bus/underground, tickets ignored) from a to b
        self.dist = [None] * (n + 1)
        for a in range(1, n + 1):
            row = bytearray([255]) * (n + 1)
            row[a] = 0
            frontier = [a]
            d = 0
            while frontier:
                d += 1
                nxt = []
                for s in frontier:
                    for to, _t in self.det_moves[s]:
                        if row[to] == 255:
                            row[to] = d
                            nxt.append(to)
                frontier = nxt
            self.dist[a] = row
        # stations with an underground or ferry link (where a plain ticket says a lot)
        self.hub = bytearray(n + 1)
        for s in range(1, n + 1):
            if self.nbr[UNDERGROUND][s] or self.nbr[3][s]:
                self.hub[s] = 1


_tables = {}


def tables(graph=None):
    graph = graph or mapgraph.load()
    t = _tables.get(graph.name)
    if t is None:
        t = _tables[graph.name] = Tables(graph)
    return t


def bits(mask):
    """The stations of a bitmap, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def cand_mask(game):
    """The rules core's possible-stations bitmap as an int."""
    return int.from_bytes(bytes(game.cand), "little")


class Sim:
    """A mutable game state for playouts. Mirrors sy.rules.game.Game with Mister X's station known."""

    __slots__ = ("tb", "pos", "tickets", "two_player", "supply", "mrx", "black", "double",
                 "moves", "round", "rounds", "reveals", "cand", "n_det", "n_pieces", "moved",
                 "result", "reason", "phase", "capturer")

    @classmethod
    def from_game(cls, game, mrx):
        """From a rules.Game (either mode) and Mister X's station (the true one or a guess)."""
        self = cls()
        self.tb = tables(game.graph)
        self.pos = list(game.pos)
        self.two_player = game.two_player
        if game.two_player:
            shared = list(game.tickets[0])
            self.tickets = [shared, shared]
        else:
            self.tickets = [list(t) for t in game.tickets]
        self.supply = list(game.supply)
        self.mrx = mrx
        self.black = game.black
        self.double = game.double
        self.moves = game.moves
        self.round = game.round
        self.rounds = game.rounds
        self.reveals = frozenset(game.reveals)
        self.cand = cand_mask(game)
        self.n_det = game.n_detectives
        self.n_pieces = game.n_pieces
        self.moved = game.moved
        self.result = game.result
        self.reason = game.reason
        self.phase = game.phase
        self.capturer = -1
        return self

    def copy(self):
        o = Sim.__new__(Sim)
        o.tb = self.tb
        o.pos = self.pos[:]
        if self.two_player:
            shared = self.tickets[0][:]
            o.tickets = [shared, shared]
        else:
            o.tickets = [t[:] for t in self.tickets]
        o.two_player = self.two_player
        o.supply = self.supply[:]
        o.mrx = self.mrx
        o.black = self.black
        o.double = self.double
        o.moves = self.moves
        o.round = self.round
        o.rounds = self.rounds
        o.reveals = self.reveals
        o.cand = self.cand
        o.n_det = self.n_det
        o.n_pieces = self.n_pieces
        o.moved = self.moved
        o.result = self.result
        o.reason = self.reason
        o.phase = self.phase
        o.capturer = self.capturer
        return o

    # --- Mister X ---------------------------------------------------------------------------
    def mrx_options_from(self, here):
        """Mister X's legal single moves from `here`: [(to, ticket)] (black listed once per station)."""
        pos = self.pos
        sup = self.supply
        out = [m for m in self.tb.mrx_plain[here] if sup[m[1]] and m[0] not in pos]
        if self.black:
            out.extend(m for m in self.tb.mrx_black[here] if m[0] not in pos)
        return out

    def mrx_can_move(self, here):
        pos = self.pos
        if self.black:
            for d in self.tb.any_nbr[here]:
                if d not in pos:
                    return True
            return False
        sup = self.supply
        for d, t in self.tb.mrx_plain[here]:
            if sup[t] and d not in pos:
                return True
        return False

    def mrx_step(self, ticket, to):
        """One travel-log entry (assumed legal). Returns True if it is a surfacing move."""
        if ticket == BLACK:
            self.black -= 1
        else:
            self.supply[ticket] -= 1
        self.moves += 1
        self.mrx = to
        c = self.cand
        spread = self.tb.spread[ticket]
        new = 0
        while c:
            low = c & -c
            new |= spread[low.bit_length() - 1]
            c ^= low
        for s in self.pos:
            new &= ~(1 << s)
        if self.moves in self.reveals:
            self.cand = 1 << to
            return True
        self.cand = new
        return False

    def mrx_move(self, ticket, to):
        self.mrx_step(ticket, to)
        self._start_detectives()

    def mrx_double(self, t1, to1, t2, to2):
        self.mrx_step(t1, to1)
        self.mrx_step(t2, to2)
        self.double -= 1
        self._start_detectives()

    def _start_detectives(self):
        self.round += 1
        self.phase = rules.PHASE_DETECTIVES
        self.moved = 0
        for i in range(self.n_det):
            if self.can_move(i):
                break
        else:
            self._end("mrx", "detectives_stuck")
            return
        self._close_round_if_done()

    # --- detectives -------------------------------------------------------------------------
    def can_move(self, p):
        pos = self.pos
        if p >= self.n_det:
            for d, _t in self.tb.det_moves[pos[p]]:
                if d not in pos:
                    return True
            return False
        tk = self.tickets[p]
        for d, t in self.tb.det_moves[pos[p]]:
            if tk[t] and d not in pos:
                return True
        return False

    def legal(self, p):
        """[(to, ticket)] of a detective or bobby, in the map's order (not sorted)."""
        pos = self.pos
        if p >= self.n_det:
            return [m for m in self.tb.det_moves[pos[p]] if m[0] not in pos]
        tk = self.tickets[p]
        return [m for m in self.tb.det_moves[pos[p]] if tk[m[1]] and m[0] not in pos]

    def to_move(self):
        if self.phase != rules.PHASE_DETECTIVES:
            return 0
        mask = 0
        for i in range(self.n_pieces):
            if not self.moved & (1 << i) and self.can_move(i):
                mask |= 1 << i
        return mask

    def move(self, p, ticket, to):
        """A detective's or bobby's move (assumed legal; a bobby's ticket is ignored)."""
        self.pos[p] = to
        if p < self.n_det:
            self.tickets[p][ticket] -= 1
            self.supply[ticket] += 1
        self.moved |= 1 << p
        if to == self.mrx:
            self.capturer = p
            self._end("detectives", "capture")
            return
        self.cand &= ~(1 << to)
        self._close_round_if_done()

    def _close_round_if_done(self):
        if self.phase != rules.PHASE_DETECTIVES or self.to_move():
            return
        if self.round >= self.rounds:
            self._end("mrx", "rounds_done")
            return
        self.phase = rules.PHASE_MRX
        self.moved = 0
        if not self.mrx_can_move(self.mrx):
            self._end("detectives", "mrx_stuck")

    def _end(self, result, reason):
        self.phase = rules.PHASE_OVER
        self.result = result
        self.reason = reason


def random_station(mask, rnd=_random):
    """A uniformly drawn station of a non-empty bitmap."""
    n = mask.bit_count()
    k = rnd.randrange(n)
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1
