"""Debounce a whole input bitmap at once: XOR against the last scan, per-bit timestamps.

A bit changes state only once its raw value has stayed the same for `ms` milliseconds; any
bounce restarts its timer, so chatter never becomes a change. Changes go to a ring buffer made
once, as (bit << 1) | new_state, in the order they happened: when one scan settles several
(the scan loop was held up by a flash write or a frame), the earliest raw change comes first,
not the lowest bit, and of two seen in the same scan the opening comes first: a piece lifted
and placed within the stall is still a lift, then a placement. No allocation in update().
"""
from array import array

_RING = 64


class Debouncer:
    def __init__(self, nbytes, ms=30):
        self.nbytes = nbytes
        self.ms = ms
        self.last = bytearray(nbytes)    # raw bits of the previous scan
        self.stable = bytearray(nbytes)  # debounced bits
        # when each bit last changed raw: the low 16 bits of the ms ticks, enough to time a window
        # of tens of ms (a scan every few ms), in half the heap of full ticks
        self.stamp = array("H", bytearray(16 * nbytes))
        self.ring = array("H", bytearray(2 * _RING))
        self.head = 0  # next write
        self.tail = 0  # next read
        self.unsettled = 0  # bits whose raw state differs from the settled one (0: update() skips its pass)
        self.due = 0  # with unsettled bits: the ms ticks (low 16 bits) at which the first of them settles
        self.lo = self.hi = 0  # with unsettled bits: the first and last byte that holds one

    def prime(self, raw):
        """Take raw as the settled state (at boot, the reader chain whole again): no changes are
        reported for it, and none still queued."""
        for i in range(self.nbytes):
            self.last[i] = raw[i]
            self.stable[i] = raw[i]
        self.unsettled = 0
        self.tail = self.head

    def update(self, raw, now):
        """Feed one scan taken at `now` (ms ticks); returns True if changes were queued."""
        last = self.last
        if raw == last:  # no raw change since the last scan (compared in C)
            if not self.unsettled:
                return False
            lo, hi = self.lo, self.hi  # only the bytes with bits waiting to settle can change
        else:
            lo, hi = 0, self.nbytes - 1
        stable = self.stable
        stamp = self.stamp
        queued = False
        unsettled = 0
        wait = 0
        first = self.head  # this scan's changes start here
        for i in range(lo, hi + 1):
            r = raw[i]
            d = r ^ last[i]
            if d:
                last[i] = r
                base = i << 3
                for k in range(8):
                    if d & (0x80 >> k):
                        stamp[base + k] = now & 0xFFFF
            p = r ^ stable[i]
            if p:
                base = i << 3
                for k in range(8):
                    m = 0x80 >> k
                    if p & m:
                        age = (now - stamp[base + k]) & 0xFFFF
                        if age >= self.ms:
                            stable[i] ^= m
                            first = self._push(((base + k) << 1) | (1 if r & m else 0), now, first)
                            queued = True
                        else:  # still waiting: when the first of these settles, and where they are
                            if not unsettled:
                                wait = self.ms - age
                                self.lo = i
                            elif self.ms - age < wait:
                                wait = self.ms - age
                            self.hi = i
                            unsettled += 1
        self.unsettled = unsettled
        if unsettled:
            self.due = (now + wait) & 0xFFFF
        return queued

    def due_in(self, now):
        """ms until the first unsettled bit settles (0: at the next scan), or -1 if none is."""
        if not self.unsettled:
            return -1
        left = (self.due - now) & 0xFFFF
        return 0 if left > 0x8000 else left

    def _push(self, v, now, first):
        """Queue change v behind this scan's changes whose raw change came earlier (they start at
        `first`); returns where this scan's changes start now."""
        ring = self.ring
        i = self.head
        nxt = (i + 1) % _RING
        if nxt == self.tail:  # full: drop the oldest (the board re-derives state from `stable`)
            self.tail = (self.tail + 1) % _RING
            first = i  # an overflowing scan keeps bit order
        self.head = nxt
        stamp = self.stamp
        # seen in the same scan: an opening first (a hand lifts a piece before it places one)
        age = 2 * ((now - stamp[v >> 1]) & 0xFFFF) + (1 - (v & 1))
        while i != first:
            j = (i - 1) % _RING
            w = ring[j]
            if 2 * ((now - stamp[w >> 1]) & 0xFFFF) + (1 - (w & 1)) >= age:
                break
            ring[i] = w
            i = j
        ring[i] = v
        return first

    def pop(self):
        """The next change as (bit << 1) | state, or -1."""
        if self.tail == self.head:
            return -1
        v = self.ring[self.tail]
        self.tail = (self.tail + 1) % _RING
        return v
