"""The board in process, for `yard bench firmware` and the tests: the real App (sy/app.py) with
memory-backed hardware, a queue instead of the serial port and a clock the caller advances, and a
scripted game played through it (play_game: Mister X's truth a second Game on the host's side).
Runs under CPython and the MicroPython unix port (host/benchmarks/firmware_mpy.py): it imports
only the firmware. Never flashed: under the unix port it is compiled beside the firmware
(host/device/mpy_build.py compile_inprocess). tests/testkit.py builds the tests' TestBoard on it."""
import json

from sy.hardware import boardconfig
from sy.app import App, SETTLE_GUARD_MS
from sy.hardware.leds import Leds
from sy.storage.store import Store

class MemInputs:
    def __init__(self, nbytes):
        self.bits = bytearray(nbytes)

    def scan(self, bitmap):
        bits = self.bits
        for i in range(len(bits)):
            bitmap[i] = bits[i]

    def set(self, bit, closed):
        if closed:
            self.bits[bit >> 3] |= 0x80 >> (bit & 7)
        else:
            self.bits[bit >> 3] &= ~(0x80 >> (bit & 7)) & 0xFF


class MemStrip:
    def __init__(self, count):
        self.buf = bytearray(3 * count)
        self.seq = 0
        self.cycle = 0
        self.last_cycle = 0

    def write(self):
        self.seq += 1
        self.last_cycle = self.cycle


class QueueLink:
    partial = False  # (Link: a poll read part of a line; here lines come whole)

    def __init__(self):
        self.inbox = []
        self.outbox = []
        self.buf = bytearray(1024)
        self._line = None

    def poll(self):
        if self._line is None and self.inbox:
            self._line = self.inbox.pop(0)
            if len(self._line) > len(self.buf):
                self._line = None
                return 2
        return 1 if self._line is not None else 0

    def take(self):
        line = self._line
        self._line = None
        return line

    def send(self, text):
        self.outbox.append(text)
        if len(self.outbox) > 24:  # keep the heap flat over a long game
            del self.outbox[0]

    def send_json(self, obj):
        self.send(json.dumps(obj))


def _rmtree(path):
    """Remove the folder at path and everything in it (MicroPython has no shutil)."""
    import os
    try:
        names = os.listdir(path)
    except OSError:
        return
    for n in names:
        p = path + "/" + n
        try:
            os.remove(p)
        except OSError:
            _rmtree(p)
    os.rmdir(path)


class InProcessBoard:
    """The App on memory-backed hardware in folder (its flash): switches set, buttons pressed,
    commands sent, cycles run by the caller."""

    def __init__(self, folder, cfg=None, fresh=True, debounce_ms=30, period_ms=5, inputs=None):
        """inputs: the switches (MemInputs) as they stand, for a board powered on again."""
        if fresh:
            _rmtree(folder)
        self.folder = folder
        cfg = cfg or boardconfig.validate({"board": "pico", "debounce_ms": debounce_ms, "scan_hz": 1000 // period_ms})
        self.cfg = cfg
        self.period = period_ms
        chips = cfg["reeds"]["chips"]
        self.inputs = inputs or getattr(self, "inputs", None) or MemInputs(chips + 1)
        self.strip = MemStrip(cfg["leds"]["count"])
        c = cfg["leds"]
        self.leds = Leds(self.strip, c["count"], c["index"], c["order"], c["brightness"], c["current_limit_ma"],
                         c["ma_per_channel"], c["idle_ma_per_led"], c.get("patterns", False))
        self.link = QueueLink()
        self.store = Store(folder)
        from sy.hardware.backends import compact
        path = folder + "/board.json"  # reeds.dead is rewritten here (sy/play/deadreed.py)
        if fresh:
            f = open(path, "w")
            json.dump(cfg, f)
            f.close()
        else:  # a reboot reads the config back, as a board does
            self.cfg = cfg = boardconfig.load(path)
        small = compact(cfg)
        self.app = App(small, self.inputs, self.leds, self.link, self.store)
        self.app.config_path = path
        if small["dead"]:  # as sy/start.py does
            from sy.play.blind import Blind
            self.app.board.blind = Blind(small["dead"])
        self.board = self.app.board
        self.now = 1000
        self.next_id = 1
        self.ptf_max = 0
        self.app.start(self.now)

    def reboot(self):
        """A power cut and a restart: same flash folder, same switches, a new App."""
        inputs = self.inputs
        self.__init__(self.folder, self.cfg, fresh=False, period_ms=self.period)
        self.inputs = inputs
        self.app.inputs = inputs
        self.app.start(self.now)

    def bit(self, station):
        return self.cfg["reeds"]["bits"][station - 1]

    def set(self, station, closed):
        self.inputs.set(self.bit(station), closed)

    def button(self, k, down):
        self.inputs.set(self.cfg["reeds"]["chips"] * 8 + k, down)

    def run(self, cycles=1):
        for _ in range(cycles):
            self.now += self.period
            self.app.cycle(self.now)

    def settle(self):
        self.run(self.cfg["debounce_ms"] // self.period + 2)

    def place(self, station):
        """Close a reed and run until it is debounced and answered; records in ptf_max how many
        scan cycles passed between the debounced change and the frame that shows it."""
        self.set(station, True)
        before = self.app.changes
        for _ in range(self.cfg["debounce_ms"] // self.period + 4):
            self.run(1)
            if self.app.changes != before:
                break
        c = self.app.cycles
        for _ in range(10):
            if self.strip.last_cycle >= c:
                break
            self.run(1)
        if self.strip.last_cycle - c > self.ptf_max:
            self.ptf_max = self.strip.last_cycle - c
        self.settle()

    def lift(self, station):
        self.set(station, False)
        self.settle()


    def press(self, k):
        self.button(k, True)
        self.settle()
        self.button(k, False)
        self.settle()

    def command(self, cmd, **args):
        """Send a command, run cycles until its reply (dict); events/notes stay in outbox. One
        cycle, unless a reed change settles within sy/app.py's SETTLE_GUARD_MS (the line waits) or
        the answer comes in steps, a step a cycle (the record: sy/link/proto.py step())."""
        args["cmd"] = cmd
        args["id"] = rid = self.next_id
        self.next_id += 1
        return self.send_line(json.dumps(args).encode(), rid)

    def send_line(self, line, rid):
        """Send one line as it is (bytes: a tagged line, a forged one) and run cycles until the
        reply to id `rid` (dict), as command() does."""
        self.link.inbox.append(line)
        cycles = 0
        while cycles < SETTLE_GUARD_MS // self.period + 2 or self.app.proto.job is not None:
            cycles += 1
            self.run(1)
            for k in range(len(self.link.outbox)):
                msg = json.loads(self.link.outbox[k])
                if msg.get("id") == rid and "ok" in msg:
                    del self.link.outbox[k]
                    return msg
        raise AssertionError("no reply to %r" % line)

    def start_game(self, detectives=(13, 26, 29, 34, 50), bobbies=(), **setup):
        """The start of a game: hello, setup (with `setup`'s own fields: key, commit...), every
        piece put on its start station; the game is in play."""
        self.command("hello", proto=1)
        r = self.command("setup", detectives=list(detectives), bobbies=list(bobbies), **setup)
        assert r["ok"], r
        for s in list(detectives) + list(bobbies):
            self.place(s)
        assert self.board.stage == 2, "setup not complete"


class Dealer:
    """Deterministic choices (a tiny LCG: the same game under CPython and MicroPython)."""

    def __init__(self, seed=7):
        self.x = seed

    def pick(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def _mrx_second(truth, s1, t1):
    """A legal second half of a double move from s1 (after ticket t1), or None."""
    g = truth.graph
    for t in (0, 1, 2):
        if truth.supply[t] - (1 if t == t1 else 0) <= 0:
            continue
        for s in g.neighbours(s1, t):
            if truth.holder_of(s) < 0:
                return s, t
    if truth.black - (1 if t1 == 3 else 0) > 0:
        for s in g.all_neighbours(s1):
            if truth.holder_of(s) < 0:
                return s, 3
    return None


def play_game(tb, detectives=(13, 26, 29, 34, 50), bobbies=(), mrx=45, seed=7, capture_round=0,
              on_cycle=None, on_place=None):
    """Play a whole game through the board: the host side (Mister X's truth) is a second Game.

    Mister X plays a black ticket in round 2, a double move in round 5 (and 12); detectives pick
    legal moves, never onto Mister X unless capture_round says so; ambiguous placements are
    resolved with the ticket button. Returns the final status reply."""
    from sy.rules.game import Game
    deal = Dealer(seed)
    truth = Game(list(detectives), list(bobbies), mrx)
    tb.start_game(detectives, bobbies)
    board = tb.board
    while truth.result is None:
        # Mister X
        opts = truth.legal_mrx()
        if not opts:
            assert tb.command("cornered")["ok"]
            break
        s1, t1 = opts[deal.pick(len(opts))]
        rnd = truth.round + 1
        if rnd == 2 and truth.black:
            for s, t in opts:
                if t == 3:
                    s1, t1 = s, t
                    break
        second = _mrx_second(truth, s1, t1) if rnd in (5, 12) and truth.double else None
        if second:
            s2, t2 = second
            first = truth.moves + 1
            truth.mrx_double(t1, s1, t2, s2)
            d = [{"ticket": TN[t1]}, {"ticket": TN[t2]}]
            if first in truth.reveals:
                d[0]["to"] = s1
            if first + 1 in truth.reveals:
                d[1]["to"] = s2
            r = tb.command("mrx", double=d)
        else:
            truth.mrx_move(t1, s1)
            args = {"ticket": TN[t1]}
            if truth.moves in truth.reveals:
                args["to"] = s1
            r = tb.command("mrx", **args)
        assert r["ok"], r
        if truth.result is not None:
            break
        # detectives and bobbies
        while truth.phase == 1 and truth.result is None:
            g = board.game
            mask = g.to_move()
            assert mask == truth.to_move(), (mask, truth.to_move())
            p = 0
            while not mask & (1 << p):
                p += 1
            legal = g.legal(p)
            catch = capture_round and truth.round >= capture_round
            hits = [m for m in legal if m[0] == truth.mrx]
            if catch and hits:
                s, t = hits[0]
            else:
                legal = [m for m in legal if m[0] != truth.mrx] or legal
                s, t = legal[deal.pick(len(legal))]
            origin = g.pos[p]
            tb.lift(origin)
            if on_place:
                on_place(tb, s)
            tb.place(s)
            if board.asking_at() == s:
                tb.press(t)
            bobby = g.is_bobby(p)
            truth.move(p, None if bobby else t, s)
            assert board.game.pos[p] == s, "move not committed: %s %d->%d" % (g.piece_name(p), origin, s)
            if truth.result is not None and board.game.result is None:
                assert tb.command("capture", piece=g.piece_name(p))["ok"]
    st = tb.command("status")
    assert st["result"] == truth.result, (st["result"], truth.result)
    return st


TN = ("taxi", "bus", "underground", "black")
