"""A Europe game on the board (docs/europe-board.md): the detectives' moves from the reeds, the
host's lines (the bag, Mister X, the operations) checked by the rules, feedback on the LEDs.

The board never learns Mister X's secret: it plays a public record (sy/europe/record.py with
`"mrx": null`), so it knows his tickets' transports, the hands of the detectives and the cities
the host shows. A detective lifted in its turn lights the cities it may reach, in the colour of
the transport (car beige, train red, plane blue); placed on one, the move is committed with a
ticket of its player's hand (the host's guide names it, else sy/europe/board.py pay_choice picks),
or, when two transports join the cities, after the car/train/plane button says which.
"""
import json

from sy.europe import record as europe_record
from sy.europe.rules import PH_DET, PH_OVER, ticket_name, ticket_number

MAX_CITY = 255
# colours chosen so that each pair players must tell apart stays apart under simulated
# protanopia, deuteranopia and tritanopia (host/leds/colourvision.py, docs/colour-vision.md): the
# car a pale beige (a deeper one merged with the train's red for a deuteranope); the detectives
# the London board's D1..D4 and, for D5, its Bobbies' pale cyan (London's red D5 is the train here)
TRANSPORT_RGB = ((255, 195, 150), (255, 0, 0), (0, 70, 255))  # car beige, train red, plane blue
PIECE_RGB = ((0, 0, 255), (210, 255, 0), (0, 150, 255), (255, 150, 150), (150, 255, 255))
_POSSIBLE_RGB = (40, 0, 60)  # Mister X's possible cities (public information), dim
_ERROR_RGB = (255, 0, 0)
_BLINK_MS = 250
_DIM = 24  # a piece's level (of 256) in the paused frame: the London board's for a piece that waits


def pay_choice(hand, transport):
    """The ticket a detective pays for a move by transport when no one said which: first the
    symbols the detectives cannot use (footprints, silhouettes), then the one of magnifier and
    lamp the player holds more of (lamp on a tie), so the scarcer operation stays within reach."""
    base = 4 * transport
    for symbol in (0, 1):
        if hand[base + symbol]:
            return base + symbol
    mag, lamp = hand[base + 2], hand[base + 3]
    if lamp and lamp >= mag:
        return base + 3
    if mag:
        return base + 2
    return -1


def _put(leds, city, rgb):
    # (leds.put(city, *rgb) would allocate on MicroPython: its arguments are unpacked on the heap,
    # and a frame is drawn every 40 ms)
    leds.put(city, rgb[0], rgb[1], rgb[2])


RECORD = "europe-record.jsonl"  # the public record, on the board's filesystem


class EuropeBoard:
    rhythm = None  # sy/play/rhythm.py where board.json turns the LEDs' rhythms on (set per board then)

    def __init__(self, leds, send, load_graph):
        self.leds = leds
        if getattr(leds, "patterns", False):  # board.json leds.patterns: a second channel beside colour
            from sy.play import rhythm
            self.rhythm = rhythm
        self.send = send  # a dict -> one line to the host
        self.load_graph = load_graph
        self.replayer = None
        # the public record is kept in a file, not in RAM: a game has no round limit, and each
        # line held in RAM would cost the heap some 120 bytes for good
        self.occ = bytearray(MAX_CITY + 1)
        self.lifted = -1
        self.options = []  # [city, transport] the lifted piece may reach
        self.pending = 0  # a city placed on where two transports meet: waits for a button
        self.bad = 0  # a city where the lifted piece may not go
        self.guide = None  # the host's move for a person: (piece, city, ticket)
        self.possible = None  # cached possible cities of Mister X
        # sy/play/chainpause.py while the reader chain lies: the game paused (the main loop holds
        # the reeds and the buttons)
        self.chain_pause = None
        # the pieces may have moved while the board could not see: no move is taken until every
        # detective stands on its city and no other city holds a piece (as the London board's)
        self.restoring = False
        self.dirty = True
        self.now = 0

    @property
    def game(self):
        return self.replayer.game if self.replayer else None

    # --- the host's commands ---------------------------------------------------------------
    def command(self, obj):
        cmd = obj.get("cmd")
        if cmd == "hello" or cmd == "status":
            return self.status()
        if cmd == "line":
            return self._line(obj.get("line"))
        if cmd == "guide":
            g = self.game
            try:
                i = g.piece_index(obj.get("piece"))
                t = ticket_number(obj.get("ticket"))
            except (europe_record.RuleError, AttributeError):
                return {"ok": False, "error": "bad_input", "why": "field", "args": ["guide"]}
            to = obj.get("to")
            if [to, t >> 2] not in g.legal(i):
                return {"ok": False, "error": "not_connected"}
            self.guide = (i, to, t)
            self.dirty = True
            return {"ok": True}
        if cmd == "capture":
            return self._capture(obj.get("piece"))
        return {"ok": False, "error": "bad_input", "why": "unknown_command"}

    def _line(self, line):
        if not isinstance(line, dict):
            return {"ok": False, "error": "bad_input", "why": "field", "args": ["line"]}
        kind = line.get("type")
        if kind == "move":
            return {"ok": False, "error": "bad_input", "why": "moves_on_board"}
        if kind == "setup":
            if line.get("mrx") is not None:
                return {"ok": False, "error": "bad_input", "why": "secret_station"}
            self.replayer = europe_record.Replayer(self.load_graph)
            self.guide = None
            self.lifted = -1
            self.restoring = False
        elif self.replayer is None:
            return {"ok": False, "error": "wrong_turn", "why": "no_game"}
        text = json.dumps(line)
        verdict = self.replayer.feed(text)
        if verdict.get("ok"):
            self._keep(text, kind == "setup")
            self.possible = None
            self.dirty = True
            self._check_restored()  # (an extra move may put a piece where it stands)
        elif kind == "setup":
            self.replayer = None
        return verdict

    def _capture(self, name):
        g = self.game
        try:
            i = g.piece_index(name)
            g.capture(i)
        except europe_record.RuleError as e:
            return e.reply({"ok": False})
        except AttributeError:  # no game yet
            return {"ok": False, "error": "wrong_turn", "why": "no_game"}
        self._mark_capture(name)
        self.dirty = True
        return {"ok": True}

    # --- the public record (a file) ------------------------------------------------------------
    @staticmethod
    def _keep(text, first=False):
        with open(RECORD, "w" if first else "a") as f:
            f.write(text)
            f.write("\n")

    @staticmethod
    def record_lines():
        """The public record's lines (text), one at a time."""
        try:
            f = open(RECORD)
        except OSError:
            return
        with f:
            for line in f:
                yield line.rstrip("\n")

    def _mark_capture(self, name):
        """The host's capture goes on the last move of that piece: the file copied line by line."""
        last = -1
        k = 0
        for text in self.record_lines():
            if json.loads(text).get("piece") == name:
                last = k
            k += 1
        with open(RECORD + ".new", "w") as out:
            k = 0
            for text in self.record_lines():
                if k == last:
                    line = json.loads(text)
                    line["capture"] = True
                    text = json.dumps(line)
                out.write(text)
                out.write("\n")
                k += 1
        import os
        os.rename(RECORD + ".new", RECORD)

    def status(self):
        g = self.game
        out = {"ok": True, "game": "europe"}
        if self.chain_pause is not None:  # the reader chain lies: the game is paused
            out["chain"] = self.chain_pause.code()
        if g is None:
            out["stage"] = "idle"
            return out
        out.update({"stage": "over" if g.phase == PH_OVER else "play", "phase": g.phase, "round": g.round,
                    "moves": g.moves, "pieces": {"D%d" % (i + 1): g.pos[i] for i in range(g.n)},
                    "hands": {g.hand_name(h): [ticket_name(t) for t in range(12) for _ in range(g.hands[h][t])]
                              for h in range(1, len(g.hand_size))},
                    "mrx_hand": g.hand_count[0], "to_move": ["D%d" % (i + 1) for i in range(g.n) if g.can_move(i)],
                    "missing": self.missing(), "lifted": self.lifted, "result": g.result, "reason": g.reason,
                    "restoring": self.restoring, "extra": self.extra()})
        return out

    def missing(self):
        g = self.game
        return [] if g is None else ["D%d" % (i + 1) for i in range(g.n) if not self.occ[g.pos[i]]]

    def extra(self):
        """The cities whose reed is closed and that hold no detective."""
        g = self.game
        return [] if g is None else [c for c in range(1, MAX_CITY + 1) if self.occ[c] and g.holder(c) < 0]

    # --- the reader chain's pause (sy/play/chainpause.py) ---------------------------------------
    def pause_for(self, pause):
        """The reader chain lies: the game is paused by `pause` (its status code, its frame), or
        goes on (None)."""
        self.chain_pause = pause
        self.dirty = True

    def read_reeds(self, bitmap, bit_station, nbits):
        """Every city's reed as bitmap says it (bit k: 0x80 >> (k & 7) of byte k >> 3, 1 closed):
        at boot and when the chain is whole again. No evaluation."""
        occ = self.occ
        for bit in range(nbits):
            s = bit_station[bit]
            if s:
                occ[s] = 1 if bitmap[bit >> 3] & (0x80 >> (bit & 7)) else 0

    def await_pieces(self):
        """The chain is whole again: what the players did while the board could not see is not
        taken (it saw only the sum); a game in play waits until the pieces agree with it."""
        self.lifted = -1
        self.pending = self.bad = 0
        g = self.game
        self.restoring = g is not None and g.phase != PH_OVER
        self._check_restored()
        self.dirty = True

    def _check_restored(self):
        if self.restoring and not self.missing() and not self.extra():
            self.restoring = False
            self.send({"note": "restored"})

    # --- the reeds and the buttons -------------------------------------------------------------
    def switch(self, city, closed):
        self.occ[city] = 1 if closed else 0
        self.dirty = True
        if self.restoring:  # no move until the pieces agree with the game
            self._check_restored()
            return
        g = self.game
        if g is None or g.phase != PH_DET:
            return
        if not closed:
            i = g.holder(city)
            if i >= 0 and self.lifted < 0 and not g.moved & (1 << i) and not self.missing_others(i):
                self.lifted = i
                self.options = g.legal(i)
            elif city == self.bad or city == self.pending:
                self.bad = self.pending = 0
            return
        i = self.lifted
        if i < 0:
            return
        if city == g.pos[i]:  # put back where it was
            self.lifted = -1
            return
        transports = [t for c, t in self.options if c == city]
        if not transports:
            self.bad = city
            return
        guide = self.guide
        if guide and guide[0] == i and guide[1] == city:
            self._commit(i, guide[2], city)
        elif len(transports) == 1:
            self._commit(i, pay_choice(g.hands[g.owner[i]], transports[0]), city)
        else:
            self.pending = city

    def missing_others(self, i):
        g = self.game
        for j in range(g.n):
            if j != i and not self.occ[g.pos[j]]:
                return True
        return False

    def button(self, k):
        """Buttons 0, 1, 2: car, train, plane (the London board's taxi, bus, underground)."""
        g = self.game
        if not self.pending or k > 2 or g is None or self.restoring:
            return
        i = self.lifted
        if [self.pending, k] in self.options:
            self._commit(i, pay_choice(g.hands[g.owner[i]], k), self.pending)
        self.dirty = True

    def _commit(self, i, ticket, city):
        line = {"type": "move", "piece": "D%d" % (i + 1), "ticket": ticket_name(ticket), "to": city}
        text = json.dumps(line)
        verdict = self.replayer.feed(text)
        if verdict.get("ok"):
            self._keep(text)
            self.send({"ev": line})
            self.lifted = -1
            self.pending = self.bad = 0
            self.guide = None
            self.possible = None
        else:
            self.bad = city
            note = {"note": "refused", "line": line}
            for k in ("error", "why", "args"):
                if k in verdict:
                    note[k] = verdict[k]
            self.send(note)
        self.dirty = True

    # --- the LEDs ----------------------------------------------------------------------------
    def draw_pieces_dim(self):
        """Every detective dim in its own colour (the paused frame: sy/play/chainpause.py). No allocation."""
        g = self.game
        if g is None:
            return
        leds = self.leds
        for i in range(g.n):
            rgb = PIECE_RGB[i]
            leds.put(g.pos[i], (rgb[0] * _DIM) >> 8, (rgb[1] * _DIM) >> 8, (rgb[2] * _DIM) >> 8)

    def _draw_rhythms(self, rhythm, now):
        """The lifted piece's destinations, each in its transport's rhythm (sy/play/rhythm.py); a
        city two transports reach shows each for a whole rhythm in turn. No allocation."""
        leds = self.leds
        options = self.options  # sorted by city: a city's transports stand together
        step = now // rhythm.PATTERN_MS
        n = len(options)
        k = 0
        while k < n:
            c = options[k][0]
            same = 1
            while k + same < n and options[k + same][0] == c:
                same += 1
            t = options[k + step % same][1]
            lvl = rhythm.transport_level(t, now)
            rgb = TRANSPORT_RGB[t]
            leds.put(c, (rgb[0] * lvl) >> 8, (rgb[1] * lvl) >> 8, (rgb[2] * lvl) >> 8)
            k += same

    def render(self, now):
        leds = self.leds
        leds.clear()
        g = self.game
        if self.chain_pause is not None:  # the reader chain lies: the game is paused
            self.chain_pause.draw(self, now)
            leds.show()
            return
        if g is not None:
            blink = (now // _BLINK_MS) & 1
            if self.lifted < 0 and g.phase != PH_OVER:
                if self.possible is None:
                    self.possible = g.candidates()
                for c in self.possible:
                    _put(leds, c, _POSSIBLE_RGB)
            rhythm = self.rhythm
            if self.lifted >= 0 and rhythm is not None:
                self._draw_rhythms(rhythm, now)
            elif self.lifted >= 0:
                for c, t in self.options:
                    _put(leds, c, TRANSPORT_RGB[t])
            for i in range(g.n):
                c = g.pos[i]
                if self.occ[c]:
                    _put(leds, c, PIECE_RGB[i])
                elif rhythm is None:
                    if blink:
                        _put(leds, c, PIECE_RGB[i])
                elif i == self.lifted or rhythm.piece_lit(i, g.n, now):
                    # with the rhythms, as the London board: the piece in hand's city steady, a
                    # piece missing from its city blinks its number
                    _put(leds, c, PIECE_RGB[i])
            if self.guide and blink:
                _put(leds, self.guide[1], PIECE_RGB[self.guide[0]])
            if self.pending and blink:
                for c, t in self.options:
                    if c == self.pending:
                        _put(leds, c, TRANSPORT_RGB[t])
            if self.bad and blink:
                _put(leds, self.bad, _ERROR_RGB)
            if self.restoring and blink:  # a piece where the game has none: take it away
                occ = self.occ
                for c in range(1, MAX_CITY + 1):
                    if occ[c] and g.holder(c) < 0:
                        _put(leds, c, _ERROR_RGB)
        leds.show()
