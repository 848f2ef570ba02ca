"""The debouncer (sy/hardware/debounce.py) as plain functions: tests/test_firmware_units.py runs them
under CPython and under the MicroPython unix port. What tests/firmware/fw_cases.py leaves out: bits
of one byte changing at different times, prime(), a full ring, the pending count, the 16-bit clock
wrapping, pop() on an empty ring."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = os.path.join(_ROOT, "firmware")
    if p not in sys.path:
        sys.path.insert(0, p)

from sy.hardware.debounce import Debouncer, _RING
from testkit import popped

CLOSED = 1


def _primed(nbytes, ms=30, closed=()):
    """A debouncer of nbytes scan bytes settling in ms, primed with a scan where the bits `closed`
    are closed; (debouncer, that scan) for the test to change."""
    d = Debouncer(nbytes, ms)
    raw = bytearray(nbytes)
    for bit in closed:
        _bit(raw, bit, True)
    d.prime(raw)
    return d, raw


def _bit(raw, bit, on):
    """Set or clear scan bit `bit` (bit 0 is the top bit of byte 0, as the reeds deliver it)."""
    if on:
        raw[bit >> 3] |= 0x80 >> (bit & 7)
    else:
        raw[bit >> 3] &= ~(0x80 >> (bit & 7)) & 0xFF


def test_two_bits_of_one_byte_keep_their_own_timers():
    # bit 2 closes at t=0, bit 6 of the same byte 20 ms later: bit 2 settles at 30, bit 6 only at 50
    d, raw = _primed(1)
    _bit(raw, 2, True)
    assert not d.update(raw, 0)
    _bit(raw, 6, True)
    assert not d.update(raw, 20)
    assert d.update(raw, 30)
    assert popped(d) == [(2 << 1) | CLOSED]
    assert not d.update(raw, 49)
    assert popped(d) == []
    assert d.update(raw, 50)
    assert popped(d) == [(6 << 1) | CLOSED]
    assert d.stable[0] == raw[0]


def test_a_bit_bouncing_restarts_only_its_own_timer():
    d, raw = _primed(2)
    _bit(raw, 8, True)   # byte 1, top bit
    _bit(raw, 15, True)  # byte 1, bottom bit
    d.update(raw, 0)
    for t in (10, 20):   # bit 15 bounces open and closed again
        _bit(raw, 15, t == 20)
        d.update(raw, t)
    assert d.update(raw, 30)
    assert popped(d) == [(8 << 1) | CLOSED]
    assert d.update(raw, 50)
    assert popped(d) == [(15 << 1) | CLOSED]


def test_prime_takes_the_scan_as_settled():
    d = Debouncer(3, 30)
    raw = bytearray(b"\x81\x00\x24")  # bits 0, 7, 18, 21 closed at boot
    d.prime(raw)
    assert bytes(d.stable) == bytes(raw) and bytes(d.last) == bytes(raw)
    for t in (0, 40, 100):
        assert not d.update(raw, t)
    assert popped(d) == []
    _bit(raw, 18, False)  # a piece lifted after boot: an opening of bit 18, nothing else
    d.update(raw, 200)
    assert d.update(raw, 230)
    assert popped(d) == [18 << 1]


def test_prime_drops_what_was_pending():
    d, raw = _primed(1)
    _bit(raw, 3, True)
    d.update(raw, 0)
    assert d.unsettled == 1
    d.prime(raw)  # taken as settled: never reported
    assert d.unsettled == 0
    assert not d.update(raw, 100)
    assert popped(d) == []


def test_unsettled_counts_the_pending_bits():
    d, raw = _primed(2)
    assert d.unsettled == 0
    _bit(raw, 1, True)
    _bit(raw, 5, True)
    _bit(raw, 12, True)
    assert not d.update(raw, 0)
    assert d.unsettled == 3
    _bit(raw, 5, False)  # back to its settled state before its time: no longer pending
    assert not d.update(raw, 10)
    assert d.unsettled == 2
    assert d.update(raw, 30)  # bits 1 and 12 settle
    assert d.unsettled == 0
    assert popped(d) == [(1 << 1) | CLOSED, (12 << 1) | CLOSED]


def test_a_pending_change_settles_while_the_scans_stay_the_same():
    # nothing changes after the first scan: the later scans must still look at the pending bit
    d, raw = _primed(4)
    _bit(raw, 30, True)
    d.update(raw, 0)
    for t in range(5, 30, 5):
        assert not d.update(raw, t)
    assert d.update(raw, 30)
    assert popped(d) == [(30 << 1) | CLOSED]
    assert not d.update(raw, 35)


def test_the_ms_clock_wrapping_past_16_bits():
    # stamps keep the low 16 bits of the ms ticks: a change at 70,000 ms is not settled 10 ms later
    for start in (70000, 65530, 131070):
        d, raw = _primed(1)
        _bit(raw, 4, True)
        d.update(raw, start)
        assert not d.update(raw, start + 10), start
        assert not d.update(raw, start + 29), start
        assert d.update(raw, start + 30), start
        assert popped(d) == [(4 << 1) | CLOSED]


def test_a_full_ring_drops_the_oldest_changes():
    # 80 switches close in one scan, none popped: the ring keeps the newest RING - 1 in bit order
    d, raw = _primed(10)
    for i in range(10):
        raw[i] = 0xFF
    d.update(raw, 0)
    assert d.update(raw, 30)
    got = popped(d)
    assert len(got) == _RING - 1
    assert got == [(b << 1) | CLOSED for b in range(80 - (_RING - 1), 80)]
    assert d.pop() == -1


def test_a_full_ring_over_two_scans_keeps_the_newest_in_time_order():
    d, raw = _primed(10)
    for i in range(5):  # 40 switches close first
        raw[i] = 0xFF
    d.update(raw, 0)
    for i in range(5, 10):  # 40 more 10 ms later
        raw[i] = 0xFF
    d.update(raw, 10)
    assert d.update(raw, 30)  # the first 40 settle
    assert d.update(raw, 40)  # the next 40: the ring overflows by 17
    got = popped(d)
    assert got == [(b << 1) | CLOSED for b in range(80 - (_RING - 1), 80)]


def test_the_ring_wraps_around():
    # more changes than the ring holds, popped as they come: none is lost
    d, raw = _primed(1)
    t = 0
    got = []
    for n in range(3 * _RING):
        _bit(raw, n & 7, not (n >> 3) & 1)
        d.update(raw, t)
        assert d.update(raw, t + 30)
        got += popped(d)
        t += 100
    want = [((n & 7) << 1) | (0 if (n >> 3) & 1 else 1) for n in range(3 * _RING)]
    assert got == want


def test_pop_on_an_empty_ring():
    d = Debouncer(1, 30)
    assert d.pop() == -1
    assert d.pop() == -1
    raw = bytearray(b"\x01")
    d.prime(bytearray(1))
    d.update(raw, 0)
    d.update(raw, 30)
    assert d.pop() == (7 << 1) | CLOSED
    assert d.pop() == -1


def test_a_settle_time_of_its_own():
    d, raw = _primed(1, ms=5)
    _bit(raw, 0, True)
    d.update(raw, 100)
    assert not d.update(raw, 104)
    assert d.update(raw, 105)
    assert popped(d) == [CLOSED]


def test_a_new_debouncer_has_nothing_pending():
    d = Debouncer(3, 30)
    assert d.unsettled == 0 and d.head == d.tail and d.pop() == -1
    assert not d.update(bytearray(3), 0)


def test_odd_ms_ticks_count_to_the_millisecond():
    for start in (1001, 65535, 99999):
        d, raw = _primed(1)
        _bit(raw, 1, True)
        d.update(raw, start)
        assert not d.update(raw, start + 29), start
        assert d.update(raw, start + 30), start
        assert popped(d) == [(1 << 1) | CLOSED]


def test_a_placement_one_ms_before_a_lift_comes_first():
    # time order wins over the lift-first rule, to the millisecond: bit 20 closes at 1000, bit 2
    # (pushed first: the lower bit) opens at 1001; both settle in the scan at 1031
    d, raw = _primed(3, closed=(2,))
    _bit(raw, 20, True)
    d.update(raw, 1000)
    _bit(raw, 2, False)
    d.update(raw, 1001)
    assert d.update(raw, 1031)
    assert popped(d) == [(20 << 1) | CLOSED, 2 << 1]


def test_two_changes_at_the_same_ms_keep_the_bit_order():
    d, raw = _primed(3)
    for b in (3, 17, 9):  # three placements seen by one scan
        _bit(raw, b, True)
    d.update(raw, 500)
    assert d.update(raw, 530)
    assert popped(d) == [(3 << 1) | CLOSED, (9 << 1) | CLOSED, (17 << 1) | CLOSED]


def test_a_lift_10_ms_after_a_placement_comes_after_it():
    # the placement (bit 2, pushed first) happened 10 ms before the lift (bit 20): the lift-first
    # rule is for changes of the same ms only
    d, raw = _primed(3, closed=(20,))
    _bit(raw, 2, True)
    d.update(raw, 1000)
    _bit(raw, 20, False)
    d.update(raw, 1010)
    assert d.update(raw, 1040)
    assert popped(d) == [(2 << 1) | CLOSED, 20 << 1]


def test_the_ring_holds_63_changes():
    # the ring is made once (sy/hardware/debounce.py): 64 entries of 2 bytes, one kept free to tell
    # full from empty; more than 63 changes waiting drop the oldest
    assert _RING == 64
    d, raw = _primed(8)
    for i in range(8):
        raw[i] = 0xFF
    d.update(raw, 0)
    d.update(raw, 30)
    assert len(popped(d)) == 63
    assert len(d.ring) == 64


def test_time_order_to_the_millisecond_past_65536_ms():
    # the ages are taken modulo 2^16 like the stamps: at 100,000 ms (past one wrap of the 16-bit
    # stamps) a placement 1 ms before a lift of a higher bit still comes first
    d, raw = _primed(3, closed=(20,))
    _bit(raw, 2, True)
    d.update(raw, 100000)
    _bit(raw, 20, False)
    d.update(raw, 100001)
    assert d.update(raw, 100031)
    assert popped(d) == [(2 << 1) | CLOSED, 20 << 1]


def test_a_quiet_scan_is_not_read_byte_by_byte():
    # nothing changed and nothing pending: update() compares the whole scan at once (in C) and
    # skips its pass over the bytes (CPython: a scan that counts the bytes read from it)
    if sys.implementation.name == "micropython":
        return

    class Scan(bytearray):
        reads = 0

        def __getitem__(self, i):
            Scan.reads += 1
            return bytearray.__getitem__(self, i)

    d = Debouncer(4, 30)
    raw = Scan(4)
    d.prime(bytearray(4))
    for t in (0, 10, 20):
        assert not d.update(raw, t)
    assert Scan.reads == 0
    raw[1] = 0x10  # a change: now the pass reads the bytes
    d.update(raw, 30)
    assert Scan.reads >= 4
    Scan.reads = 0
    assert not d.update(raw, 40)  # pending, no new change: only the byte that waits is read
    assert Scan.reads == 1
    assert d.update(raw, 60)
    Scan.reads = 0
    assert not d.update(raw, 70)  # settled: quiet again
    assert Scan.reads == 0


def test_due_in_says_when_the_first_pending_change_settles():
    # the scan loop sleeps until then and starts nothing long just before it (sy/app.py)
    d, raw = _primed(2, 30)
    assert d.due_in(0) == -1  # nothing pending
    _bit(raw, 3, True)
    d.update(raw, 100)
    assert d.due_in(100) == 30 and d.due_in(125) == 5
    _bit(raw, 12, True)
    d.update(raw, 110)  # a second change, later: the first still settles first
    assert d.due_in(110) == 20
    _bit(raw, 3, False)
    d.update(raw, 115)  # bit 3 bounced back (pending no more); bit 12 is next, at 140
    assert d.due_in(115) == 25
    assert d.due_in(141) == 0  # late: at the next scan
    assert d.update(raw, 140)
    assert popped(d) == [(12 << 1) | CLOSED] and d.due_in(140) == -1
    _bit(raw, 12, False)
    d.update(raw, 0xFFF0)  # across the 16-bit clock's wrap
    assert d.due_in(0xFFF0) == 30 and d.due_in(0x10004) == 10


def test_due_in_counts_a_later_bit_that_changed_first():
    # update() meets the pending bits in bit order, not in time order: bit 12 changed first
    d, raw = _primed(2, 30)
    _bit(raw, 12, True)
    d.update(raw, 100)
    _bit(raw, 3, True)
    d.update(raw, 110)
    assert d.unsettled == 2 and d.due_in(110) == 20
    assert d.update(raw, 130) and popped(d) == [(12 << 1) | CLOSED]
    assert d.due_in(130) == 10
    # and the other way round, in a quiet scan: the lower bit settles first, the later one waits
    d, raw = _primed(2, 30)
    _bit(raw, 3, True)
    d.update(raw, 100)
    _bit(raw, 12, True)
    d.update(raw, 101)
    d.update(raw, 105)
    assert d.unsettled == 2 and d.due_in(105) == 25


def test_pending_bits_bytes_apart_settle_in_the_quiet_scans():
    # with nothing new, update() passes over the bytes from the first to the last that hold a
    # pending bit only (the cycle that takes a change on a Pico: 0.9 ms less): every one settles
    d, raw = _primed(26, 30, closed=(100,))
    _bit(raw, 17, True)  # byte 2
    d.update(raw, 0)
    _bit(raw, 100, False)  # byte 12, 10 ms later
    _bit(raw, 198, True)  # byte 24
    d.update(raw, 10)
    assert (d.lo, d.hi, d.unsettled) == (2, 24, 3)
    for t in range(11, 30):
        assert not d.update(raw, t)
    assert d.update(raw, 30) and popped(d) == [(17 << 1) | CLOSED]
    assert (d.lo, d.hi, d.unsettled) == (12, 24, 2) and d.due_in(30) == 10
    for t in range(31, 40):
        assert not d.update(raw, t)
    assert d.update(raw, 40) and popped(d) == [100 << 1, (198 << 1) | CLOSED]
    assert d.unsettled == 0 and d.due_in(40) == -1
    _bit(raw, 17, False)  # a change again: the whole scan is passed over
    _bit(raw, 0, True)
    d.update(raw, 50)
    assert (d.lo, d.hi, d.unsettled) == (0, 2, 2)
    assert d.update(raw, 80) and sorted(popped(d)) == [(0 << 1) | CLOSED, 17 << 1]
