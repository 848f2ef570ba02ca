"""The Europe board's game paused while the reader chain lies (sy/europe/app.py with
sy/play/chainpause.py), as plain test functions: tests/test_europe_chain.py runs them under CPython
and under the MicroPython unix port. The real EuropeApp and EuropeBoard on memory-backed LEDs, a
queue for the serial line and the 74HC165 chain of tests/hardware_chain_cases.py, which drops,
doubles or cuts a bit after a module; the map made for the tests (sy/maps/europe_testmap). Under
the unix port the loop's scans and frames are run with the heap locked: they allocate nothing."""
import json
import os
import sys

if sys.implementation.name != "micropython":
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)
    from host.benchmarks.inprocess import MemStrip, QueueLink, _rmtree
else:
    from inprocess import MemStrip, QueueLink, _rmtree

from hardware_chain_cases import CHIPS, ChainInputs
from testkit import drained, scratch, station_colour, watch_language_free
from sy.hardware import boardconfig
from sy.hardware.backends import compact
from sy.hardware.leds import Leds
from sy.europe.app import EuropeApp

DETECTIVES = [9, 5, 10, 14, 22]  # D1..D5 on the test map (cities are stations: the default wiring)
HAND = ["car/lamp", "train/lamp", "plane/lamp", "car/magnifier", "train/magnifier"]  # each player's
PERIOD = 5  # ms a scan
DEBOUNCE = 30


class EuropeChainBoard:
    """The EuropeApp in process, in a folder of its own (its record file is written there)."""

    def __init__(self, name, patterns=False):
        """patterns: board.json's leds.patterns (the LEDs' rhythms beside colour) on."""
        self.home = os.getcwd()
        self.folder = scratch(name)
        _rmtree(self.folder)
        os.mkdir(self.folder)
        os.chdir(self.folder)  # (sy/europe/board.py keeps its record in the working folder)
        cfg = {"board": "pico", "debounce_ms": DEBOUNCE, "scan_hz": 1000 // PERIOD}
        if patterns:
            cfg["leds"] = {"patterns": True}
        cfg = boardconfig.validate(cfg)
        assert cfg["reeds"]["chips"] == CHIPS
        self.cfg = cfg
        self.inputs = ChainInputs(CHIPS)
        c = cfg["leds"]
        self.leds = Leds(MemStrip(c["count"]), c["count"], c["index"], c["order"], c["brightness"],
                         c["current_limit_ma"], c["ma_per_channel"], c["idle_ma_per_led"], c.get("patterns", False))
        self.link = QueueLink()
        watch_language_free(self.link)  # the board sends codes, never words
        self.app = EuropeApp(compact(cfg), self.inputs, self.leds, self.link, "europe_testmap")
        self.now = 1000
        self.next_id = 1
        self.app.start(self.now)

    def close(self):
        os.chdir(self.home)
        _rmtree(self.folder)

    def bit(self, station):
        return self.cfg["reeds"]["bits"][station - 1]

    def run(self, cycles=1):
        for _ in range(cycles):
            self.now += PERIOD
            self.app.cycle(self.now)

    def settle(self):
        self.run(DEBOUNCE // PERIOD + 3)

    def place(self, city):
        self.inputs.set(self.bit(city), True)
        self.settle()

    def lift(self, city):
        self.inputs.set(self.bit(city), False)
        self.settle()

    def command(self, cmd, **args):
        args["cmd"] = cmd
        args["id"] = rid = self.next_id
        self.next_id += 1
        self.link.inbox.append(json.dumps(args).encode())
        for _ in range(4):
            self.run(1)
            for k in range(len(self.link.outbox)):
                msg = json.loads(self.link.outbox[k])
                if msg.get("id") == rid:
                    del self.link.outbox[k]
                    return msg
        raise AssertionError("no reply to %s" % cmd)

    def line(self, obj):
        r = self.command("line", line=obj)
        assert r["ok"], (obj, r)
        return r

    def messages(self):
        return drained(self.link)

    def colour(self, station):
        return station_colour(self.leds, station)


def setup_game(tb):
    tb.line({"type": "setup", "game": "europe", "map": "europe_testmap", "level": "green",
             "detectives": DETECTIVES, "mrx": None})


def first_turn(tb):
    """After setup_game: every detective put on its city, the hands drawn, Mister X moved: the
    detectives' turn of round 1."""
    for c in DETECTIVES:
        tb.place(c)
    tb.line({"type": "draw", "hand": "X", "count": 8})
    for h in range(1, 6):
        tb.line({"type": "draw", "hand": "P%d" % h, "tickets": HAND})
    tb.line({"type": "mrx", "moves": [{"ticket": "car/footprints"}]})
    tb.line({"type": "draw", "hand": "X", "count": 1})


def _game(name):
    """The detectives' turn of round 1: every detective on its city, Mister X moved."""
    tb = EuropeChainBoard(name)
    setup_game(tb)
    first_turn(tb)
    st = tb.command("status")
    assert st["to_move"] == ["D1", "D2", "D3", "D4", "D5"] and st["missing"] == [] and not st["restoring"], st
    tb.messages()
    return tb


def _notes(tb, name):
    return [m for m in tb.messages() if m.get("note") == name]


def _one_transport_destination(tb, i):
    """A city detective i may reach by one transport only (placed there, the move needs no button)."""
    legal = tb.app.board.game.legal(i)
    cities = [c for c, _t in legal]
    return next(c for c in cities if cities.count(c) == 1)


def test_a_lying_chain_pauses_the_europe_game_says_where_and_waits_for_the_pieces_when_whole():
    from sy.play.chainpause import CHAIN_RGB
    tb = _game("sy-europe-chain")
    try:
        assert "chain" not in tb.command("status")
        after = max(tb.bit(c) // 8 for c in DETECTIVES)   # the last module a piece stands on
        tb.inputs.lie("drop", 1)
        tb.run(2)
        assert _notes(tb, "chain") == [{"note": "chain", "code": "chain_broken", "fault": "short",
                                        "after_module": after}]
        assert tb.command("status")["chain"] == {"code": "chain_broken", "fault": "short", "after_module": after}
        # D1 lifted and put on one of its destinations meanwhile: nothing is seen, no move made
        home, to = DETECTIVES[0], _one_transport_destination(tb, 0)
        tb.lift(home)
        tb.place(to)
        msgs = tb.messages()
        assert not [m for m in msgs if "ev" in m or m.get("note") == "refused"], msgs
        st = tb.command("status")
        assert st["pieces"]["D1"] == home and st["lifted"] == -1 and st["missing"] == [] and st["moves"] == 1, st
        # the LEDs: the first module not heard flashes amber twice a second, dark between; every
        # detective dim in its own colour all the while
        from sy.europe.board import PIECE_RGB
        shown = [s for s in range(1, 200) if tb.bit(s) // 8 == after + 1]
        seen = []
        for _ in range(50):   # a second, 20 ms apart
            tb.run(4)
            seen.append(tb.colour(shown[0]) == CHAIN_RGB)
            for i in range(len(DETECTIVES)):
                assert tb.colour(DETECTIVES[i]) == tuple((v * 24) >> 8 for v in PIECE_RGB[i]), i
        lit = [k for k in range(1, len(seen)) if seen[k] and not seen[k - 1]]
        assert len(lit) == 2 and 11 <= lit[1] - lit[0] <= 13, seen   # two beats 240 ms apart
        assert sum(seen) < len(seen) // 2, seen
        flashed = set()
        for _ in range(50):
            tb.run(4)
            flashed |= set(s for s in range(1, 200) if tb.colour(s) == CHAIN_RGB)
        assert flashed == set(shown), (sorted(flashed), shown)
        # a bit taken twice: the same pause, the other fault
        tb.inputs.lie("double", after)
        tb.run(2)
        assert [n["fault"] for n in _notes(tb, "chain")] == ["long"]
        assert tb.command("status")["chain"]["fault"] == "long"
        # whole again: the board reads the pieces as they stand and takes no move until they agree
        tb.inputs.lie(None)
        tb.run(2)
        assert _notes(tb, "chain") == [{"note": "chain", "code": None}]
        tb.settle()
        st = tb.command("status")
        assert "chain" not in st and st["restoring"] and st["pieces"]["D1"] == home, st
        assert st["missing"] == ["D1"] and st["extra"] == [to], st
        assert tb.colour(shown[0]) != CHAIN_RGB
        from sy.europe.board import _ERROR_RGB
        red = []
        for _ in range(25):   # half a second: the piece the game does not have there blinks red
            tb.run(4)
            red.append(tb.colour(to) == _ERROR_RGB)
        assert 0 < sum(red) < len(red), red
        tb.lift(to)   # D1 lifted from where the game does not have it: no lift, no move
        assert tb.command("status")["lifted"] == -1
        assert not [m for m in tb.messages() if "ev" in m]
        tb.place(home)
        assert _notes(tb, "restored") == [{"note": "restored"}]
        assert not tb.command("status")["restoring"]
        # the game goes on: D1's move is taken as usual
        tb.lift(home)
        tb.place(to)
        evs = [m["ev"] for m in tb.messages() if "ev" in m]
        assert len(evs) == 1 and evs[0]["piece"] == "D1" and evs[0]["to"] == to, evs
    finally:
        tb.close()


def test_the_pieces_agreeing_already_when_the_chain_heals_resume_at_once():
    tb = _game("sy-europe-chain-agree")
    try:
        tb.inputs.lie("cut", 0)
        tb.run(2)
        assert tb.command("status")["chain"]["fault"] == "short"
        assert [n["after_module"] for n in _notes(tb, "chain")] == [0]   # D2's module, the last heard
        tb.inputs.lie(None)
        tb.run(2)
        msgs = tb.messages()
        assert [m.get("code", 0) for m in msgs if m.get("note") == "chain"] == [None], msgs
        assert [m for m in msgs if m.get("note") == "restored"], msgs
        st = tb.command("status")
        assert not st["restoring"] and st["extra"] == [] and "chain" not in st, st
        assert "chainpause" not in str(sorted(sys.modules))   # dropped: a whole chain pays no heap for it
    finally:
        tb.close()


def _locked_scans(tb, n):
    """n scan cycles with the heap locked: any allocation raises MemoryError."""
    import gc
    import micropython
    gc.collect()
    micropython.heap_lock()
    try:
        tb.run(n)
    finally:
        micropython.heap_unlock()


def test_the_europe_scan_loop_allocates_nothing_whole_paused_or_with_a_piece_in_hand():
    if sys.implementation.name != "micropython":
        return   # CPython has no heap lock; the unix port runs this file too
    tb = _game("sy-europe-chain-heap")
    try:
        tb.run(10)   # (the frame after the last line caches Mister X's possible cities)
        _locked_scans(tb, 100)   # half a second of scans and frames: the pieces, his possible cities
        tb.lift(DETECTIVES[0])
        tb.run(10)
        _locked_scans(tb, 100)   # ... and D1's destinations by transport
        tb.place(DETECTIVES[0])
        tb.inputs.lie("drop", 3)
        tb.run(2)
        tb.messages()
        _locked_scans(tb, 100)   # ... and paused, the amber beat among them
        assert tb.app.chain_fault != -2
    finally:
        tb.close()
