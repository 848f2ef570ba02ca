"""The reed chain's own check (sy.hardware.reeds.ShiftReeds) as plain test functions: run under
CPython by tests/test_hardware_chain.py and under the MicroPython unix port, where a scan must not
allocate (the heap is locked around it); and a game on the in-process board paused while the
chain lies (its status, its LEDs, no phantom move) and going on when it is whole again."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.hardware.reeds import CHAIN_OK, LONG, SHORT, BoardInputs, ShiftReeds

CHIPS = 25
MARKER = CHIPS * 8 - 1   # the last board's D0, wired to GND


class BitSpi:
    """Shifts out `data`, then ones (the last board's SER pull-up)."""

    def __init__(self):
        self.data = b""

    def readinto(self, buf):
        d = self.data
        for i in range(len(buf)):
            buf[i] = d[i] if i < len(d) else 0xFF


class QuietPin:
    def value(self, v=None):
        return 1


def chain(closed, fault=None, after=0):
    """The bytes a 25-board chain clocks out with the reeds in `closed` (chain bits) closed: a
    closed reed reads low, the marker low, then ones; a bit dropped, doubled, or the chain cut
    after module `after`."""
    bits = [1] * (CHIPS * 8 + 32)
    for b in closed:
        bits[b] = 0
    bits[MARKER] = 0
    at = 8 * (after + 1)
    if fault == "drop":
        del bits[at]
        bits.append(1)
    elif fault == "double":
        bits.insert(at, bits[at])
        bits.pop()
    elif fault == "cut":
        for i in range(at, len(bits)):
            bits[i] = 1
    out = bytearray(CHIPS + 4)
    for j in range(len(out)):
        v = 0
        for i in range(8):
            v = (v << 1) | bits[8 * j + i]
        out[j] = v
    return bytes(out)


def _reeds():
    spi = BitSpi()
    return spi, ShiftReeds(spi, QuietPin(), CHIPS, True)


def _bits(bitmap):
    return [k for k in range(CHIPS * 8) if bitmap[k >> 3] & (0x80 >> (k & 7))]


def test_a_good_chain_reads_its_reeds_and_the_marker():
    spi, reeds = _reeds()
    bm = bytearray(CHIPS)
    spi.data = chain([0, 9, 198])
    reeds.scan(bm)
    assert reeds.fault == CHAIN_OK and reeds.faults == 0
    assert _bits(bm) == [0, 9, 198, MARKER]   # the marker reads as a closed input no station uses


def test_every_dropped_doubled_or_cut_bit_is_refused():
    spi, reeds = _reeds()
    closed = [3, 50, 120, 197]
    good = bytearray(CHIPS)
    spi.data = chain(closed)
    reeds.scan(good)
    n = 0
    for after in range(-1, CHIPS - 1):
        for fault in ("drop", "double", "cut"):
            bm = bytearray(good)
            spi.data = chain(closed, fault, after)
            reeds.scan(bm)
            n += 1
            assert reeds.fault != CHAIN_OK, (fault, after)
            assert reeds.kind == (LONG if fault == "double" else SHORT), (fault, after)
            assert bm == good, (fault, after)   # the last good scan stays: no phantom moves
            assert reeds.faults == n
    spi.data = chain(closed)
    reeds.scan(bm)
    assert reeds.fault == CHAIN_OK and bm == good


def test_the_fault_names_the_last_module_seen_answering():
    spi, reeds = _reeds()
    bm = bytearray(CHIPS)
    spi.data = chain([7 * 8 + 2], "cut", 7)    # a piece on module 7, the ribbon cut after it
    reeds.scan(bm)
    assert reeds.fault == 7 and reeds.kind == SHORT
    spi.data = chain([7 * 8 + 2, 20 * 8], "double", 11)
    reeds.scan(bm)
    assert reeds.fault >= 11 and reeds.kind == LONG
    spi.data = chain([], "drop", 4)             # nothing closed: only "after the controller" is sure
    reeds.scan(bm)
    assert reeds.fault == -1


def test_a_scan_allocates_nothing_good_or_refused():
    if sys.implementation.name != "micropython":
        return   # CPython has no heap lock; the unix port runs this file too
    import micropython
    spi, reeds = _reeds()
    bm = bytearray(CHIPS)
    for data in (chain([5]), chain([5], "drop", 3), chain([5], "double", 3)):
        spi.data = data
        micropython.heap_lock()
        try:
            reeds.scan(bm)
        finally:
            micropython.heap_unlock()


# --- the game paused while the chain lies (sy/app.py, sy/play/board.py, sy/play/status.py) -------
DETECTIVES = (13, 26, 29, 34, 50)


class ChainInputs(BoardInputs):
    """The board's inputs as a real chain clocks them out (the reeds' bits, the marker, the tail),
    and a chain that drops, doubles or cuts a bit after a module (lie)."""

    def __init__(self, chips):
        self.spi = BitSpi()
        self.closed = set()
        self.plan = (None, 0)
        BoardInputs.__init__(self, ShiftReeds(self.spi, QuietPin(), chips, True), None, chips)
        self._load()

    def set(self, bit, closed):   # (the in-process board's switch; buttons are not wired here)
        if bit < MARKER:
            if closed:
                self.closed.add(bit)
            else:
                self.closed.discard(bit)
        self._load()

    def lie(self, kind, after=0):
        self.plan = (kind, after)
        self._load()

    def _load(self):
        self.spi.data = chain(sorted(self.closed), self.plan[0], self.plan[1])


def _game():
    from testkit import TestBoard, scratch
    tb = TestBoard(scratch("sy-chain-cases"), inputs=ChainInputs(CHIPS))
    assert tb.command("hello", proto=1)["ok"]
    assert tb.command("setup", detectives=list(DETECTIVES), bobbies=[])["ok"]
    for s in DETECTIVES:
        tb.place(s)
    assert tb.board.stage == 2   # PLAY
    assert tb.command("mrx", ticket="taxi", commit="ab" * 32)["ok"]
    tb.messages()
    return tb


def _notes(tb, name):
    return [m for m in tb.messages() if m.get("note") == name]


def test_a_lying_chain_pauses_the_game_says_where_and_resumes_when_whole():
    tb = _game()
    bit_of = tb.bit   # station -> chain bit
    assert "chain" not in tb.command("status")   # whole: no pause
    # the chain lies just after the last module a piece stands on: the marker cannot say where a
    # bit went astray, only which module's closed reeds were still heard (sy/hardware/reeds.py)
    after = max(bit_of(s) // 8 for s in DETECTIVES)
    tb.inputs.lie("drop", 1)
    tb.run(2)
    notes = _notes(tb, "chain")
    assert notes == [{"note": "chain", "code": "chain_broken", "fault": "short", "after_module": after}], notes
    st = tb.command("status")
    assert st["chain"] == {"code": "chain_broken", "fault": "short", "after_module": after}, st
    # D1 lifted and put on one of its destinations meanwhile: the board sees nothing, no move is
    # taken or reported
    to, ticket = tb.board.game.legal(0)[0]
    tb.lift(13)
    tb.place(to)
    tb.settle()
    msgs = tb.messages()
    assert not [m for m in msgs if "ev" in m or m.get("note") in ("lifted", "illegal")], msgs
    st = tb.command("status")
    assert st["pieces"]["D1"] == 13 and st["lifted"] is None and st["missing"] == [] and st["moves"] == 1, st
    # the LEDs: the first module not heard flashes amber twice a second; dark between
    from sy.play.chainpause import CHAIN_RGB
    m = after + 1
    shown = [s for s in range(1, 200) if bit_of(s) // 8 == m]
    assert shown
    seen = []
    for k in range(50):   # a second of frames, 20 ms apart
        tb.run(4)
        seen.append(tb.colour(shown[0]) == tuple(CHAIN_RGB))
    lit = [i for i in range(1, len(seen)) if seen[i] and not seen[i - 1]]
    assert len(lit) == 2 and 11 <= lit[1] - lit[0] <= 13, seen   # two flashes 240 ms apart, then dark
    assert sum(seen) < len(seen) // 2, seen
    # a bit taken twice: the same pause, the other fault
    tb.inputs.lie("double", after)
    tb.run(2)
    assert tb.command("status")["chain"]["fault"] == "long"
    assert [n["fault"] for n in _notes(tb, "chain")] == ["long"]
    # whole again: the note; the board reads the pieces as they stand and, as after a power cut,
    # takes nothing the players did while it could not see until they agree with the game again
    tb.inputs.lie(None)
    tb.run(2)
    assert [n["code"] for n in _notes(tb, "chain")] == [None]
    tb.settle()
    st = tb.command("status")
    assert "chain" not in st and st["restoring"] and st["pieces"]["D1"] == 13, st
    assert st["missing"] == ["D1"] and st["extra"] == [to], st
    assert not [m for m in tb.messages() if "ev" in m]
    assert tb.colour(shown[0]) != tuple(CHAIN_RGB)
    # D1 put back: the game goes on, and its move is taken as usual
    tb.lift(to)
    tb.place(13)
    assert [m for m in tb.messages() if m.get("note") == "restored"]
    tb.lift(13)
    tb.place(to)
    if tb.board.asking_at() == to:
        tb.press(ticket)
    msgs = tb.messages()
    assert [m["ev"]["to"] for m in msgs if "ev" in m] == [to], msgs


def test_a_chain_note_that_cannot_be_written_still_pauses_and_resumes_the_game():
    # (a serial line that fails a write: the note is dropped as the board's other unasked lines
    # are, the scan loop goes on, and the status says what the note would have)
    tb = _game()
    link = tb.link
    sent = link.send_json

    def failing(obj):
        if obj.get("note") == "chain":
            raise OSError(5)
        sent(obj)
    link.send_json = failing
    try:
        tb.inputs.lie("drop", 0)
        tb.run(2)
        assert tb.command("status")["chain"]["code"] == "chain_broken"
        tb.inputs.lie(None)
        tb.run(2)
        assert "chain" not in tb.command("status")
    finally:
        link.send_json = sent
    assert _notes(tb, "chain") == []


def test_the_paused_frame_flashes_exactly_the_first_module_not_heard_and_dims_every_piece():
    from testkit import TestBoard, scratch
    from sy.play.chainpause import CHAIN_RGB
    from sy.play.board import BOBBY_RGB, PIECE_RGB
    amber = tuple(CHAIN_RGB)
    # two detectives play with two bobbies. The last module whose closed reeds were heard is the
    # pieces' last: 3 (an odd one: 3 + 1 is not 3 | 1), then module 4 is shown; or the chain's
    # last, 24 (station 197), which is then shown itself
    for dets, bobbies, heard, shown in (((13, 26), (29, 20), 3, 4), ((13, 197), (29, 20), CHIPS - 1, CHIPS - 1)):
        tb = TestBoard(scratch("sy-chain-frame"), inputs=ChainInputs(CHIPS))
        assert tb.command("hello", proto=1)["ok"]
        assert tb.command("setup", detectives=list(dets), bobbies=list(bobbies))["ok"]
        for s in dets + bobbies:
            tb.place(s)
        assert tb.board.stage == 2
        tb.inputs.lie("drop", 1)   # a bit lost after module 1
        tb.run(2)
        assert tb.command("status")["chain"]["after_module"] == heard
        module = {s for s in range(1, 200) if tb.bit(s) // 8 == shown} - set(dets + bobbies)
        assert module
        flashed = set()
        for _ in range(50):   # a second of frames
            tb.run(4)
            flashed |= {s for s in range(1, 200) if tb.colour(s) == amber}
            for i, s in enumerate(dets + bobbies):   # each piece dim in its own colour, all the while
                c = 3 * i if i < len(dets) else BOBBY_RGB
                assert tb.colour(s) == tuple((PIECE_RGB[c + k] * 24) >> 8 for k in range(3)), (s, tb.colour(s))
        assert flashed == module, (heard, sorted(flashed), sorted(module))
