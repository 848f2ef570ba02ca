"""The reed chain's own check (sy.hardware.reeds.ShiftReeds) as plain test functions: run under
CPython by tests/test_hardware_chain.py and under the MicroPython unix port, where a scan must not
allocate (the heap is locked around it)."""
import sys

from sy.hardware.reeds import CHAIN_OK, LONG, SHORT, ShiftReeds

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
