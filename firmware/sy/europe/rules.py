"""The rules of Mister X – Flight through Europe (docs/rules-europe.md).

Pure: no I/O, no clock, no randomness. Runs unchanged under CPython and MicroPython, and is loaded
only when a Europe game is played: the London board never imports it.

A Game knows Mister X's city and hand (the host, a replayer of a full record: `mrx` given) or not
(`mrx=0`, secret mode: it learns what the detectives learn, and the host declares what only
Mister X knows: the city an investigation shows, the cities a position check shows, a capture,
his arrival, a cornering). Either way it tracks Mister X's possible cities from public
information only (a superset of the exact set once a position check has shown a city: see
docs/rules-europe.md, "What the detectives can deduce").

Tickets are numbered transport * 4 + symbol (0..11): `ticket_name(t)` is "train/magnifier".
Hands: index 0 is Mister X's, 1..k the detective players'.
"""
from sy.rules.base import RuleError  # one refusal for both games: codes and values

CAR = 0
TRAIN = 1
PLANE = 2
COVERT = 3  # the transport of a face-down move, as the detectives see it
TRANSPORT_NAMES = ("car", "train", "plane")
FOOTPRINTS = 0
SILHOUETTES = 1
MAGNIFIER = 2
LAMP = 3
SYMBOL_NAMES = ("footprints", "silhouettes", "magnifier", "lamp")
KINDS = 12
LEVEL_NAMES = ("green", "yellow", "orange")

MRX_HAND = 8
HAND_BASE = 4  # a detective player holds 4 + one per detective he runs
DEFAULT_BAG = (10,) * KINDS  # the rulebook gives no mix: docs/rules-europe.md, ambiguity 2
SPECIAL_COST = 3  # Mister X's double and covert moves
INVESTIGATION_BACK = {3: 4, 4: 3, 5: 2}  # magnifiers -> how many moves back
WINDOW = 5  # a position check covers the five log entries before his current one

PH_DEAL = 0
PH_MRX = 1
PH_MRX_REFILL = 2
PH_DET = 3
PH_DET_REFILL = 4
PH_OVER = 5

RESULTS = (None, "detectives", "mrx")
REASONS = (None, "capture", "mrx_stuck", "destination")


def ticket_name(t):
    return TRANSPORT_NAMES[t >> 2] + "/" + SYMBOL_NAMES[t & 3]


def ticket_number(name):
    if isinstance(name, str):
        transport, _, symbol = name.partition("/")
        if transport in TRANSPORT_NAMES and symbol in SYMBOL_NAMES:
            return TRANSPORT_NAMES.index(transport) * 4 + SYMBOL_NAMES.index(symbol)
    raise RuleError("bad_input", "unknown_ticket", name)


def _bits(n):
    return bytearray((n >> 3) + 1)


def _has(bits, s):
    return bits[s >> 3] & (1 << (s & 7))


def _add(bits, s):
    bits[s >> 3] |= 1 << (s & 7)


class Game:
    def __init__(self, graph, detectives, players=None, level=0, mrx=0, mrx_hand=MRX_HAND, bag=None):
        """A new game before the deal; RuleError bad_input if the setup breaks the rules."""
        self.graph = graph
        n = len(detectives)
        if not 1 <= n <= 5:
            raise RuleError("bad_input", "field", "detectives")
        for s in detectives:
            if not graph.is_station(s):
                raise RuleError("bad_input", "not_station", s)
        for i in range(n):
            if detectives[i] in detectives[:i]:
                raise RuleError("bad_input", "same_start", detectives[i])
        players = list(players) if players else [1] * n
        if not 1 <= len(players) <= 5 or sum(players) != n or min(players) < 1:
            raise RuleError("bad_input", "field", "players")
        if not isinstance(level, int) or not 0 <= level <= 2:
            raise RuleError("bad_input", "field", "level")
        if not isinstance(mrx_hand, int) or not 1 <= mrx_hand <= 20:
            raise RuleError("bad_input", "field", "mrx_hand")
        bag = bytearray(bag or DEFAULT_BAG)
        if len(bag) != KINDS:
            raise RuleError("bad_input", "field", "bag")
        self.level = level
        self.n = n
        self.pos = bytearray(detectives)
        self.round_start = bytearray(detectives)
        self.owner = bytearray()
        for p in range(len(players)):
            self.owner += bytes([p + 1]) * players[p]
        self.hand_size = [mrx_hand] + [HAND_BASE + k for k in players]
        self.hands = [bytearray(KINDS) for _ in self.hand_size]
        self.hand_count = [0] * len(self.hand_size)  # Mister X's size is known even when his hand is not
        self.bag = bag
        self.bag_total = sum(bag)
        self.total = self.bag_total
        if self.total < sum(self.hand_size):
            raise RuleError("bad_input", "bag_short")
        # Where the tickets are, kind by kind: bag + hands + out + logged = the setup's bag, so no
        # count passes 255. In secret mode `bag` counts what is not known to be elsewhere: the bag,
        # Mister X's hand and his face-down tickets; a line that would need more is refused.
        self.out = bytearray(KINDS)  # spent special tickets
        self.logged = bytearray(KINDS)  # Mister X's ticket board (face-up moves; covert ones not)
        self.logged_total = 0
        self.out_total = 0
        rings = graph.ring_cities(level)
        self.known = bool(mrx)
        if mrx:
            if not graph.is_station(mrx) or mrx not in rings:
                raise RuleError("bad_input", "mrx_start_ring", LEVEL_NAMES[level])
            if mrx in detectives:
                raise RuleError("bad_input", "mrx_start_taken", mrx)
        self.mrx = mrx
        self.log = bytearray([mrx]) if mrx else bytearray()  # his cities, entry 0 first (full mode)
        self.log_tickets = []  # the ticket of each move (full mode)
        self.moves = 0
        # public trail, one per log entry: [transport or COVERT (None for entry 0), forbidden bits, pinned city]
        self.trail = [[None, self._occupied_bits(), 0]]
        self.round = 1
        self.phase = PH_DEAL
        self.drawn = 0  # hands that drew in this refill phase (bit per hand)
        self.discarded = 0
        self.moved = 0  # detectives that moved this round (bit per detective)
        self.special = False  # the detectives' investigation or extra move of this round
        self.landed = _bits(graph.stations)  # cities a detective ended a move on this round
        self.result = None
        self.reason = None
        self.shown = []  # cities shown by position checks (a note for the detectives)

    # --- helpers -------------------------------------------------------------------------
    def _occupied_bits(self):
        b = _bits(self.graph.stations)
        for s in self.pos:
            _add(b, s)
        return b

    def piece_index(self, name):
        if isinstance(name, str) and len(name) == 2 and name[0] == "D" and "1" <= name[1] <= "9":
            i = int(name[1]) - 1
            if i < self.n:
                return i
        raise RuleError("bad_input", "no_piece", name)

    def hand_index(self, name):
        if name == "X":
            return 0
        if isinstance(name, str) and len(name) == 2 and name[0] == "P" and "1" <= name[1] <= "9":
            i = int(name[1])
            if i < len(self.hand_size):
                return i
        raise RuleError("bad_input", "no_hand", name)

    def hand_name(self, h):
        return "X" if h == 0 else "P%d" % h

    def holder(self, city):
        for i in range(self.n):
            if self.pos[i] == city:
                return i
        return -1

    def _not_over(self):
        if self.phase == PH_OVER:
            raise RuleError("game_over")

    def _end(self, result, reason):
        self.result = result
        self.reason = reason
        self.phase = PH_OVER

    def _take(self, hand, tickets):
        """Check that the hand holds the tickets (a list of numbers, repeats allowed)."""
        need = bytearray(KINDS)
        for t in tickets:
            need[t] += 1
        if self.known or hand:
            have = self.hands[hand]
            for t in range(KINDS):
                if need[t] > have[t]:
                    raise RuleError("no_ticket", "hand_holds", self.hand_name(hand), have[t], ticket_name(t))
        return need

    def _remove(self, hand, tickets):
        if self.known or hand:
            for t in tickets:
                self.hands[hand][t] -= 1
        self.hand_count[hand] -= len(tickets)

    # --- the deal and the refills ----------------------------------------------------------
    def draw(self, hand, tickets, count=None):
        """Hand `hand` draws: `tickets` (numbers) or, for Mister X in secret mode, `count` of them.
        The draw must fill the hand (or empty the bag, which first takes back the spent tickets)."""
        self._not_over()
        if self.phase == PH_DEAL:
            pass
        elif self.phase == PH_MRX_REFILL:
            if hand != 0:
                raise RuleError("wrong_turn", "mrx_refills_first")
        elif self.phase in (PH_DET, PH_DET_REFILL):
            if hand == 0:
                raise RuleError("wrong_turn", "mrx_own_turn")
            self._det_moves_done()
        else:
            raise RuleError("wrong_turn", "mrx_turn")
        if self.drawn & (1 << hand):
            raise RuleError("already_moved", "drawn_already", self.hand_name(hand))
        secret = tickets is None
        if secret and (hand != 0 or self.known):
            raise RuleError("bad_input", "field", "tickets")
        if not secret and hand == 0 and not self.known:
            raise RuleError("bad_input", "secret_hand")
        n = count if secret else len(tickets)
        need = self.hand_size[hand] - self.hand_count[hand]
        recycle = need > self.bag_total
        expected = min(need, self.bag_total + (self.out_total if recycle else 0))
        if n != expected:
            raise RuleError("bad_draw", "draw_count", self.hand_name(hand), expected, n)
        if not secret:
            drawn = bytearray(KINDS)
            for t in tickets:
                drawn[t] += 1
            for t in range(KINDS):
                pool = self.bag[t] + (self.out[t] if recycle else 0)
                # secret mode: `bag` also holds Mister X's hand, so only the upper bound is known
                if drawn[t] > pool or (recycle and self.known and drawn[t] < self.bag[t]):
                    raise RuleError("not_in_bag", "bag_lacks", drawn[t], ticket_name(t))
        if recycle:  # the bag ran empty: the spent tickets go back in (ambiguity 18)
            for t in range(KINDS):
                self.bag[t] += self.out[t]
                self.out[t] = 0
            self.bag_total += self.out_total
            self.out_total = 0
        if not secret:
            for t in tickets:
                self.bag[t] -= 1
                self.hands[hand][t] += 1
        self.bag_total -= n
        self.hand_count[hand] += n
        self.drawn |= 1 << hand
        self._after_draw()

    def discard(self, hand, tickets, count=None):
        """Tickets from a hand back into the bag, before that hand's draw."""
        self._not_over()
        if self.phase == PH_MRX_REFILL:
            if hand != 0:
                raise RuleError("wrong_turn", "mrx_turn")
        elif self.phase in (PH_DET, PH_DET_REFILL):
            if hand == 0:
                raise RuleError("wrong_turn", "mrx_own_turn")
            self._det_moves_done()
        else:
            raise RuleError("wrong_turn", "no_discards")
        if self.drawn & (1 << hand) or self.discarded & (1 << hand):
            raise RuleError("already_moved", "discard_once", self.hand_name(hand))
        secret = tickets is None
        if secret and (hand != 0 or self.known):
            raise RuleError("bad_input", "field", "tickets")
        if not secret and hand == 0 and not self.known:
            raise RuleError("bad_input", "secret_hand")
        if secret:
            if not 0 <= count <= self.hand_count[0]:
                raise RuleError("no_ticket", "mrx_holds", self.hand_count[0])
            tickets = ()
            self.hand_count[0] -= count
            self.bag_total += count
        else:
            self._take(hand, tickets)
            self._remove(hand, tickets)
            for t in tickets:
                self.bag[t] += 1
            self.bag_total += len(tickets)
        self.discarded |= 1 << hand
        if self.phase == PH_DET:
            self.phase = PH_DET_REFILL

    def _after_draw(self):
        everyone = (1 << len(self.hand_size)) - 1
        if self.phase == PH_DEAL and self.drawn == everyone:
            self.phase = PH_MRX
            self.drawn = 0
            self._turn_starts()
        elif self.phase == PH_MRX_REFILL:
            self.phase = PH_DET
            self.drawn = 0
            self.discarded = 0
        elif self.phase == PH_DET:
            self.phase = PH_DET_REFILL

    # --- Mister X ----------------------------------------------------------------------------
    def _turn_starts(self):
        """Mister X's turn begins: cornered (no free neighbour at all) ends the game."""
        if self.known and not self._free_neighbour(self.mrx):
            self._end("detectives", "mrx_stuck")

    def _free_neighbour(self, here):
        g = self.graph
        for t in range(3):
            if g.allows(here, t):
                for s in g.neighbours(here, t):
                    if self.holder(s) < 0:
                        return True
        return False

    def legal_mrx(self, hand=None, here=None):
        """Mister X's single moves with his hand: sorted [city, ticket] (full mode)."""
        if not self.known:
            raise RuleError("bad_input", "mrx_secret")
        hand = self.hands[0] if hand is None else hand
        here = here or self.mrx
        g = self.graph
        out = []
        for t in range(KINDS):
            transport = t >> 2
            if hand[t] and g.allows(here, transport):
                for s in g.neighbours(here, transport):
                    if self.holder(s) < 0:
                        out.append([s, t])
        out.sort()
        return out

    def mrx_turn(self, special, spend, steps):
        """Mister X's move: special None/'double'/'covert', spend (ticket numbers), steps a list of
        (ticket or None, to or 0); no steps = a pass. In secret mode a covert step has no ticket,
        and no step has a city unless it ends the game at his destination."""
        self._not_over()
        if self.phase != PH_MRX:
            raise RuleError("wrong_turn", "detectives_turn" if self.phase != PH_DEAL else "not_dealt")
        g = self.graph
        if special is None:
            if len(spend) or len(steps) > 1:
                raise RuleError("bad_special", "two_moves_double")
        elif special in ("double", "covert"):
            symbol = FOOTPRINTS if special == "double" else SILHOUETTES
            if len(spend) != SPECIAL_COST or any((t & 3) != symbol for t in spend):
                raise RuleError("bad_special", "special_cost", special, SPECIAL_COST, SYMBOL_NAMES[symbol])
            if len(steps) != (2 if special == "double" else 1):
                raise RuleError("bad_special", "special_moves")
        else:
            raise RuleError("bad_input", "field", "special")
        used = list(spend) + [t for t, _to in steps if t is not None]
        need = self._take(0, used)

        if not self.known:  # he cannot show a ticket the detectives know to be elsewhere
            for t in range(KINDS):
                if need[t] > self.bag[t]:
                    raise RuleError("no_ticket", "mrx_cannot_hold", need[t], ticket_name(t))
        if not self.known and len(spend) + len(steps) > self.hand_count[0]:
            raise RuleError("no_ticket", "mrx_holds", self.hand_count[0])
        if not steps:
            if self.known and self.legal_mrx():
                raise RuleError("must_move")
        cities = []
        if self.known:
            here = self.mrx
            for i in range(len(steps)):
                t, to = steps[i]
                if t is None:
                    raise RuleError("bad_input", "name_ticket")
                if not g.is_station(to):
                    raise RuleError("bad_input", "field", "to")
                self._check_step(here, t >> 2, to)
                if self.holder(to) >= 0:
                    raise RuleError("occupied", "held_by", to, "D%d" % (self.holder(to) + 1))
                if to == g.destination(self.level) and i < len(steps) - 1:
                    raise RuleError("bad_special", "ends_at_destination")
                cities.append(to)
                here = to
        else:
            for t, to in steps:
                if special != "covert" and t is None:
                    raise RuleError("bad_input", "name_ticket")
                if special == "covert" and t is not None:
                    raise RuleError("bad_input", "covert_face_down")
                if to and to != g.destination(self.level):
                    raise RuleError("bad_input", "secret_station")
            after = self._sets(self.moves, [COVERT if special == "covert" else t >> 2 for t, _to in steps])
            end = steps[-1][1] if steps else 0
            if not any(after) or (end and not _has(after, end)):
                raise RuleError("not_connected", "mrx_unreachable_eu")
        # apply
        self._not_cornered()
        self._remove(0, used)
        if not self.known:
            for t in used:
                self.bag[t] -= 1
        self.hand_count[0] -= len(spend) + len(steps) - len(used)  # a covert move's face-down ticket
        for t in spend:
            self.out[t] += 1
        self.out_total += len(spend)
        for i in range(len(steps)):
            t, to = steps[i]
            transport = COVERT if special == "covert" else t >> 2
            if t is not None and special != "covert":
                self.logged[t] += 1
            self.logged_total += 1
            self.moves += 1
            forbidden = self._occupied_bits()
            if to != g.destination(self.level):
                _add(forbidden, g.destination(self.level))  # there the game would have ended
            self.trail.append([transport, forbidden, 0])
            self.log_tickets.append(t)
            if self.known:
                self.mrx = cities[i]
                self.log.append(cities[i])
                to = cities[i]
            if to == g.destination(self.level):
                if not self.known:
                    self.trail[-1][2] = to
                self._end("mrx", "destination")
                return
        self.phase = PH_MRX_REFILL

    def _not_cornered(self):
        """His turn went on, so he was not cornered: his cities without a free neighbour leave the
        possible cities of his current entry."""
        forbidden = self.trail[self.moves][1]
        g = self.graph
        for p in self.pos:  # a cornered city has a way out (the map says so), held by a detective
            for t in range(3):
                lo, hi = g.span(p, t)
                for k in range(lo, hi):
                    c = g.adj[k]
                    if not _has(forbidden, c) and not self._free_neighbour(c):
                        _add(forbidden, c)

    def _check_step(self, here, transport, to):
        g = self.graph
        if not g.allows(here, transport):
            raise RuleError("kind", "leave_by", here, g.kinds[here] + 1)
        if not g.connected(here, to, transport):
            raise RuleError("not_connected", "no_line", TRANSPORT_NAMES[transport], here, to)

    # --- the detectives ----------------------------------------------------------------------
    def _targets(self, i, transport, out):
        """Cities detective i may reach by transport now (free, not its city of the round's start)."""
        here = self.pos[i]
        g = self.graph
        if not g.allows(here, transport):
            return
        for s in g.neighbours(here, transport):
            if s != self.round_start[i] and self.holder(s) < 0:
                out.append([s, transport])

    def legal(self, i):
        """Detective i's moves with its player's tickets that leave as many detectives moving as
        possible (docs/rules-europe.md, ambiguity 23): sorted [city, transport]."""
        out = []
        if self.phase != PH_DET or self.special or self.moved & (1 << i):
            return out  # the special operation comes "after all moves": it closes them
        hand = self.hands[self.owner[i]]
        for transport in range(3):
            if hand[4 * transport] or hand[4 * transport + 1] or hand[4 * transport + 2] or hand[4 * transport + 3]:
                self._targets(i, transport, out)
        if out:
            counts = self._transport_counts()
            most = self._most_moves(self.moved, counts)
            k = 0
            while k < len(out):
                if self._moves_after(i, out[k][0], out[k][1], counts) + 1 < most:
                    out.pop(k)
                else:
                    k += 1
        out.sort()
        return out

    # "as many as possible": how many of the detectives that have not moved can still move
    def _transport_counts(self):
        """Each player's tickets by transport: counts[3 * player + transport]."""
        counts = bytearray(3 * len(self.hand_size))
        for h in range(1, len(self.hand_size)):
            hand = self.hands[h]
            for t in range(KINDS):
                counts[3 * h + (t >> 2)] += hand[t]
        return counts

    def _moves_after(self, i, to, transport, counts):
        """The most moves the others can still make once detective i has moved to `to`."""
        here = self.pos[i]
        h = 3 * self.owner[i] + transport
        self.pos[i] = to
        counts[h] -= 1
        n = self._most_moves(self.moved | (1 << i), counts)
        counts[h] += 1
        self.pos[i] = here
        return n

    def _ways_out(self, i, counts, moved):
        """The transports (bits) by which detective i (not moved yet) could leave its city with its
        player's tickets, were every detective that has not moved out of the way (those that
        moved stay where they are)."""
        g = self.graph
        here = self.pos[i]
        ways = 0
        for t in range(3):
            if counts[3 * self.owner[i] + t] and g.allows(here, t):
                lo, hi = g.span(here, t)
                for k in range(lo, hi):
                    j = self.holder(g.adj[k])
                    if j < 0 or not moved & (1 << j):
                        ways |= 1 << t
                        break
        return ways

    def _bound(self, moved, counts):
        """At most how many of the detectives that have not moved can still move: per player, the
        most of his detectives his tickets can pay for (a matching of detectives to tickets by
        transport, as a minimum cut: for each set X of transports, the tickets of X plus the
        detectives that have a way out by a transport outside X)."""
        ways = bytearray(self.n)
        for i in range(self.n):
            ways[i] = 0 if moved & (1 << i) else self._ways_out(i, counts, moved)
        total = 0
        for h in range(1, len(self.hand_size)):
            best = 99
            for cut in range(8):
                n = 0
                for t in range(3):
                    if cut & (1 << t):
                        n += counts[3 * h + t]
                for i in range(self.n):
                    if self.owner[i] == h and ways[i] & ~cut:
                        n += 1
                if n < best:
                    best = n
            total += best
        return total

    def _most_moves(self, moved, counts):
        """The most detective moves still possible (each detective at most once), over every order,
        city and transport. A search, cut short when it reaches the bound (_bound: what the
        tickets allow if nothing stood in the way), which it does unless pieces block each other."""
        bound = self._bound(moved, counts)
        if not bound:
            return 0
        g = self.graph
        best = 0
        for i in range(self.n):
            if moved & (1 << i):
                continue
            here = self.pos[i]
            for t in range(3):
                h = 3 * self.owner[i] + t
                if not counts[h] or not g.allows(here, t):
                    continue
                lo, hi = g.span(here, t)
                tried_free = False
                for k in range(lo, hi):
                    c = g.adj[k]
                    if c == self.round_start[i] or self.holder(c) >= 0:
                        continue
                    # a city next to no other waiting detective blocks nobody: one such is enough
                    free = not self._next_to_waiting(c, moved | (1 << i))
                    if free and tried_free:
                        continue
                    tried_free = tried_free or free
                    self.pos[i] = c
                    counts[h] -= 1
                    n = 1 + self._most_moves(moved | (1 << i), counts)
                    counts[h] += 1
                    self.pos[i] = here
                    if n > best:
                        best = n
                        if best >= bound:
                            return best
        return best

    def _next_to_waiting(self, city, moved):
        g = self.graph
        for j in range(self.n):
            if not moved & (1 << j):
                for t in range(3):
                    if g.connected(self.pos[j], city, t):
                        return True
        return False

    def can_move(self, i):
        return bool(self.legal(i))

    def _det_moves_done(self):
        for i in range(self.n):
            if not self.moved & (1 << i) and self.can_move(i):
                raise RuleError("wrong_turn", "can_still_move", "D%d" % (i + 1))

    def move(self, i, ticket, to):
        """Detective i moves with a ticket of its player's hand."""
        self._not_over()
        if self.phase != PH_DET:
            raise RuleError("wrong_turn", "detectives_after_mrx")
        if self.moved & (1 << i):
            raise RuleError("already_moved", "moved_already", "D%d" % (i + 1))
        if self.special:
            raise RuleError("wrong_turn", "after_special")
        h = self.owner[i]
        self._take(h, [ticket])
        self._land(i, ticket >> 2, to)
        counts = self._transport_counts()
        if self._moves_after(i, to, ticket >> 2, counts) + 1 < self._most_moves(self.moved, counts):
            raise RuleError("fewer_moves")
        self.hands[h][ticket] -= 1
        self.hand_count[h] -= 1
        self.bag[ticket] += 1  # a detective's moving ticket goes back into the bag at once
        self.bag_total += 1
        self.moved |= 1 << i
        self._arrive(i, to)

    def _land(self, i, transport, to):
        if not self.graph.is_station(to):
            raise RuleError("bad_input", "field", "to")
        self._check_step(self.pos[i], transport, to)
        if to == self.round_start[i]:
            raise RuleError("returned", "began_on", "D%d" % (i + 1), to)
        j = self.holder(to)
        if j >= 0:
            raise RuleError("occupied", "held_by", to, "D%d" % (j + 1))

    def _arrive(self, i, to):
        self.pos[i] = to
        _add(self.landed, to)
        if self.known and to == self.mrx:
            self._end("detectives", "capture")
        elif self.known:  # secret mode: the host may still declare a capture; the check counts it
            _add(self.trail[-1][1], to)

    def _spend(self, spend, symbol):
        """spend: [(hand, ticket)] of the detectives; checked, not applied."""
        n = len(spend)
        if n not in INVESTIGATION_BACK:
            raise RuleError("bad_special", "spend_count")
        per = [[] for _ in self.hand_size]
        for h, t in spend:
            if h == 0:
                raise RuleError("bad_input", "own_hands")
            if (t & 3) != symbol:
                raise RuleError("bad_special", "wrong_symbol", ticket_name(t), SYMBOL_NAMES[symbol])
            per[h].append(t)
        for h in range(1, len(per)):
            self._take(h, per[h])
        return per

    def _special_allowed(self):
        self._not_over()
        if self.phase != PH_DET:
            raise RuleError("wrong_turn", "special_when")
        self._det_moves_done()
        if self.special:
            raise RuleError("special_used")

    def _pay(self, per):
        for h in range(1, len(per)):
            for t in per[h]:
                self.hands[h][t] -= 1
                self.out[t] += 1
            self.hand_count[h] -= len(per[h])
            self.out_total += len(per[h])

    def investigate(self, spend, shown=0):
        """3, 4 or 5 magnifiers: Mister X shows log entry m-4, m-3 or m-2. Returns (entry, city).
        In secret mode the host gives the shown city."""
        self._special_allowed()
        per = self._spend(spend, MAGNIFIER)
        entry = self.moves - INVESTIGATION_BACK[len(spend)]
        if entry < 0:
            raise RuleError("too_early", "moves_back", self.moves, INVESTIGATION_BACK[len(spend)])
        if self.known:
            city = self.log[entry]
        else:
            city = shown
            if not self.graph.is_station(city) or not self._possible_at(entry, city):
                raise RuleError("bad_input", "not_at_entry", city, entry)
        self._pay(per)
        self.special = True
        self.trail[entry][2] = city
        return entry, city

    def extra_move(self, i, spend, to):
        """3, 4 or 5 lamps: detective i moves once more by car, train or plane, without a ticket."""
        self._special_allowed()
        per = self._spend(spend, LAMP)
        transport = len(spend) - 3
        self._land(i, transport, to)
        self._pay(per)
        self.special = True
        self._arrive(i, to)

    def capture(self, i):
        """Secret mode: the host says detective i stands on Mister X."""
        self._not_over()
        if self.known:
            raise RuleError("bad_input", "capture_seen")
        if not self.is_candidate(self.pos[i]):
            raise RuleError("bad_input", "mrx_cannot_be", self.pos[i])
        self._end("detectives", "capture")

    def cornered(self):
        """Secret mode: the host says Mister X, at the start of his turn, has no free neighbour."""
        self._not_over()
        if self.known or self.phase != PH_MRX:
            raise RuleError("bad_input", "stuck_by_host")
        self._end("detectives", "mrx_stuck")

    # --- the end of the round ----------------------------------------------------------------
    def position_check(self, shown=None):
        """End of the round. Full mode: returns the cities Mister X shows; secret mode: the host
        gives them. Every visited, not shown city leaves the last five entries' possible cities."""
        self._not_over()
        if self.phase not in (PH_DET, PH_DET_REFILL):
            raise RuleError("wrong_turn", "check_ends_turn")
        self._det_moves_done()
        for h in range(1, len(self.hand_size)):
            if not self.drawn & (1 << h):
                raise RuleError("wrong_turn", "not_refilled", "P%d" % h)
        # "the last five cities he has been in" (docs/rules-europe.md, ambiguity 13): the five log
        # entries before his current one, whose city the next sentence of the rulebook deals with
        first = self.moves - WINDOW
        if first < 0:
            first = 0
        if self.known:
            seen = []
            for e in range(first, self.moves):
                c = self.log[e]
                if _has(self.landed, c) and c not in seen:
                    seen.append(c)
            seen.sort()
        else:
            seen = sorted(shown or [])
            window = _bits(self.graph.stations)
            if self.moves:
                self._sets(self.moves - 1, None, first, window)
            for k in range(len(seen)):
                c = seen[k]
                if not self.graph.is_station(c) or not _has(self.landed, c):
                    raise RuleError("bad_input", "not_visited", c)
                if k and c == seen[k - 1]:
                    raise RuleError("bad_input", "shown_twice", c)
                if not _has(window, c):
                    raise RuleError("bad_input", "not_in_window", c, WINDOW)
        for c in range(1, self.graph.stations + 1):
            if _has(self.landed, c):
                _add(self.trail[self.moves][1], c)  # no capture: he is not there now
                if c not in seen:
                    for e in range(first, self.moves):
                        _add(self.trail[e][1], c)
        self.shown += seen
        self.round += 1
        self.round_start = bytearray(self.pos)
        self.moved = 0
        self.special = False
        self.drawn = 0
        self.discarded = 0
        self.landed = _bits(self.graph.stations)
        self.phase = PH_MRX
        self._turn_starts()
        return seen

    # --- what the detectives know ----------------------------------------------------------
    def _sets(self, upto, extra_steps=None, union_from=None, union=None):
        """The possible cities of entry `upto` (a bit set), walked from the last pinned entry before
        it (and before `union_from`: the sets of entries union_from..upto are OR-ed into `union`)."""
        g = self.graph
        k = upto if union_from is None else union_from
        while k > 0 and not self.trail[k][2]:
            k -= 1
        pinned = self.trail[k][2]
        cur = _bits(g.stations)
        if pinned:
            _add(cur, pinned)
        else:
            for c in g.ring_cities(self.level):
                _add(cur, c)
        self._drop(cur, self.trail[k][1])
        if union is not None and k >= union_from:
            self._or(union, cur)
        for e in range(k + 1, upto + 1):
            cur = self._step(cur, self.trail[e][0])
            self._drop(cur, self.trail[e][1])
            if self.trail[e][2]:
                only = _has(cur, self.trail[e][2])
                cur = _bits(g.stations)
                if only:
                    _add(cur, self.trail[e][2])
            if union is not None and e >= union_from:
                self._or(union, cur)
        for transport in extra_steps or ():
            cur = self._step(cur, transport)
            self._drop(cur, self._occupied_bits())
        return cur

    def _step(self, cur, transport):
        g = self.graph
        nxt = _bits(g.stations)
        for s in range(1, g.stations + 1):
            if _has(cur, s):
                for t in range(3):
                    if (transport == COVERT or transport == t) and g.allows(s, t):
                        for n in g.neighbours(s, t):
                            _add(nxt, n)
        return nxt

    @staticmethod
    def _or(into, bits):
        for i in range(len(into)):
            into[i] |= bits[i]

    @staticmethod
    def _drop(cur, forbidden):
        for i in range(len(cur)):
            cur[i] &= ~forbidden[i] & 0xFF

    def _possible_at(self, entry, city):
        return bool(_has(self._sets(entry), city))

    def candidates(self):
        """Sorted cities where Mister X may be, from public information only."""
        cur = self._sets(self.moves)
        return [s for s in range(1, self.graph.stations + 1) if _has(cur, s)]

    def is_candidate(self, s):
        return bool(_has(self._sets(self.moves), s))
