"""The board's main loop: scan -> debounce -> board -> link -> frame, at scan_hz.

Hardware comes in from outside (hw.make or a test), so this file runs unchanged on the board,
under the unix port with simulated hardware, and in-process in tests and the benchmark.
Steady state allocates nothing: the bitmap, the debouncer's ring and the frame are made once.
"""
import gc

from sy.hardware.debounce import Debouncer
from sy.hardware.reeds import CHAIN_OK, SHORT
from sy.play.board import Board
from sy import forget
from sy.link.proto import Protocol

try:
    from time import ticks_ms, ticks_us, ticks_diff, sleep_ms
except ImportError:  # CPython
    from sy.compat import ticks_ms, ticks_us, ticks_diff, sleep_ms

FRAME_MS = 40  # animation frame period when nothing changes
# an animation frame, a note or part of a host's line holds the scan loop up to 10 ms on a Pico:
# none starts when a reed or button change settles sooner, so the scan that takes it is on time
# (the answer to a placement is due debounce_ms + 20 ms after the reed closed)
SETTLE_GUARD_MS = 10
GC_EVERY = 12 * 1024  # bytes allocated between automatic collections: a long command's garbage bounded (docs/memory.md)
# ... and while a host's command reads the whole journal (the record, a reveal, a claim, a hello's
# resend): each line read is garbage at once, ~30 KB in a long game. Collected every 4 KB, such a
# command's peak stays close to the live heap, wherever the last automatic collection fell. These
# commands hold the scan loop for a long while already, and a collection is short beside it; the
# cycles that answer the players keep GC_EVERY (the figures: docs/pico.md, "The heap paid back")
GC_EVERY_READING = 4 * 1024
_MEM = hasattr(gc, "mem_alloc")  # MicroPython (CPython's gc cannot say)
# what a scan cycle did besides scanning (App.cycle_kind; the longest plain cycle's kind is
# reported by the `mem` command, so a benchmark can say what the players' pieces waited for)
SCAN, EVENT, COMMAND, LINE_PART, FRAME, NOTE, COLLECT = 0, 1, 2, 3, 4, 5, 6
CYCLE_KINDS = ("scan", "event", "command", "line_part", "frame", "note", "collect")


class App:
    def __init__(self, hwcfg, inputs, leds, link, store, graph=None, name="board"):
        """hwcfg: {"chips", "bit_station" (bytearray: chain bit -> station), "debounce_ms", "scan_hz"}
        (hw.compact(cfg) makes it from the board config, so the big config can be freed)."""
        chips = hwcfg["chips"]
        self.chips = chips
        self.inputs = inputs
        self.leds = leds
        self.link = link
        self.nbits = chips * 8
        self.bitmap = bytearray(chips + 1)
        self.debouncer = hwcfg.get("debouncer") or Debouncer(chips + 1, hwcfg["debounce_ms"])
        self.bit_station = hwcfg["bit_station"]  # chain bit -> station, 0 = no station
        self.period = max(1, 1000 // hwcfg["scan_hz"])
        self.proto = Protocol(link, name, self)
        self.store = store  # the board's journal and snapshot (service mode's board has none)
        self.board = Board(leds, store, self.proto, graph)
        self.proto.board = self.board
        self.cycles = 0
        self.last_frame = 0
        self.changes = 0  # debounced changes seen (tests and the benchmark watch it)
        self.mem_peak = 0  # heap in use after handling events, right before collecting (bytes)
        self.watch_heap = False  # read mem_peak at each collection (the `mem` command's `watch`)
        # the longest scan cycles (run() only), in three kinds: those that saved to flash (an
        # erase stalls the CPU for 45 ms on a Pico), those that handled a host's command (the
        # record download answers in one cycle), and the rest: scans, reed and button changes,
        # LED frames: what the players' pieces wait for
        self.cycle_max_us = 0
        self.save_cycle_max_us = 0
        self.command_cycle_max_us = 0
        self.frame_cycle_max_us = 0  # of the plain cycles, those that drew an LED frame
        self.cycle_kind = SCAN  # what this cycle did (CYCLE_KINDS)
        self.cycle_max_kind = SCAN  # what the longest plain cycle did
        self.commands = 0  # host lines handled
        # the reed chain checks itself (sy.hardware.reeds): a refused scan leaves the bitmap as it
        # was, so the game sees no change while the chain lies; the host hears each start and end
        self.chain = inputs if hasattr(inputs, "fault") else None
        self.chain_fault = CHAIN_OK

    def start(self, now):
        self.inputs.scan(self.bitmap)
        self.debouncer.prime(self.bitmap)
        occ = self.board.occ
        for bit in range(self.nbits):
            s = self.bit_station[bit]
            if s and self.bitmap[bit >> 3] & (0x80 >> (bit & 7)):
                occ[s] = 1
        from sy.storage import resume  # boot only: dropped again
        try:
            resume.resume(self.board)
        finally:
            forget("storage.resume")
        self.board.dirty = False  # the boot frame, drawn here, shows it all
        self.board.render(now)
        self.last_frame = now

    def cycle(self, now):
        """One scan + dispatch cycle."""
        self.cycles += 1
        bitmap = self.bitmap
        self.inputs.scan(bitmap)
        if self.chain is not None and self.chain.fault != self.chain_fault:
            self._chain_changed()
        deb = self.debouncer
        deb.update(bitmap, now)
        self.cycle_kind = SCAN
        # one thing a cycle: a change, or a host's line, or a frame, or a note (on a Pico
        # each takes several ms); changes settled together (the loop was held up by a flash
        # write) are taken one a cycle, in order. Service mode renders every scan (its latches
        # must see each one): every_scan
        v = deb.pop()
        if v >= 0:
            board = self.board
            board.now = now
            self.changes += 1
            self.cycle_kind = EVENT
            writes = self.store.writes  # read only when there is an event: not in the idle scan
            bit = v >> 1
            if bit < self.nbits:
                s = self.bit_station[bit]
                if s:
                    board.switch(s, v & 1)
            elif v & 1:
                board.button(bit - self.nbits)
            else:
                board.release(bit - self.nbits)
            self._after_event(writes)
            if not board.every_scan:
                return
        # (an attribute read before the call: the idle scan pays no method call for it)
        if deb.unsettled and deb.due_in(now) < SETTLE_GUARD_MS and not self.board.every_scan:
            if self.board.dirty:  # a frame that answers something is drawn all the same
                self._frame(now)
            return
        if self.board.dirty and not self.board.every_scan:
            # the players' answer goes before the host's next line: the host answers a note (a
            # placement's ticket question) quickly, and its command may save to flash (100 ms)
            self._frame(now)
            return
        r = self.link.poll()
        if r:
            self.commands += 1
            self.cycle_kind = COMMAND
            self.board.now = now
            if r == 1:
                self.proto.handle(self.link.take())
            else:
                self.proto.too_long()
            self._collect()  # the host's line parsed and answered: its garbage goes with it
            if not self.board.every_scan:
                return
        elif self.link.partial and not self.board.every_scan:
            self.cycle_kind = LINE_PART
            return  # part of a host's line read (up to 64 bytes, ~4 ms on a Pico): this cycle's one thing
        if self.board.dirty or ticks_diff(now, self.last_frame) >= FRAME_MS:
            self._frame(now)
        elif self.board.lift_note >= 0 or self.board.ask_note:
            self.cycle_kind = NOTE
            self.board.send_notes()

    def _chain_changed(self):
        """A code for the host: {"note": "chain", "fault": "short"|"long"|null, "after": k}: the
        reader chain broken or mis-clocked after module k (-1: after the controller)."""
        f = self.chain_fault = self.chain.fault
        kind = getattr(getattr(self.chain, "reeds", self.chain), "kind", 0)
        self.proto.note({"note": "chain", "fault": None if f == CHAIN_OK else "short" if kind == SHORT else "long",
                         "after": f})

    def _frame(self, now):
        self.board.dirty = False
        self.cycle_kind = FRAME
        self.last_frame = now
        self.leds.strip.cycle = self.cycles
        self.board.render(now)

    def _after_event(self, writes):
        # A collection takes 10-15 ms on a Pico (it scans the ~60 KB of live objects), longer than
        # any other scan cycle: it is made in a cycle that is long already, never in one of its
        # own. An event that saved to flash (a flash erase held the scan for 50-270 ms) or a host's
        # line (parsed, answered) is collected in its own cycle; the little garbage of the other
        # events (a lift, its note) waits for the next of those, or for MicroPython's own
        # collection every GC_EVERY bytes allocated (run()). The idle cycles allocate nothing.
        if self.store.writes != writes:
            self.cycle_kind = COLLECT
            self._collect()

    def reading_journal(self, on):
        """The collector's pace while a host's command reads the whole journal (on) and after."""
        if _MEM:
            gc.threshold(GC_EVERY_READING if on else GC_EVERY)

    def _collect(self):
        # the heap in use is read here, right before collecting, and only while a benchmark or a
        # test watches it: gc.mem_alloc() walks the heap's allocation table block by block and
        # takes as long as the collection itself (~9 ms with 47 KB in use on a Pico)
        # CPython (the tests' in-process board) frees by reference counting: a full collection
        # there walks the whole test process, hundreds of milliseconds in a big one, for nothing
        if _MEM:
            if self.watch_heap:
                used = gc.mem_alloc()
                if used > self.mem_peak:
                    self.mem_peak = used
            gc.collect()

    def run(self):
        now = ticks_ms()
        self.start(now)
        period = self.period
        store = self.store
        if _MEM:
            # a command that makes much garbage (a reveal, the record) is collected as it goes,
            # so its peak stays this far above the live heap (the scan loop allocates nothing)
            gc.threshold(GC_EVERY)
        while True:
            now = ticks_ms()
            t0 = ticks_us()
            writes = store.writes
            commands = self.commands
            frames = self.leds.shown
            self.cycle(now)
            took = ticks_diff(ticks_us(), t0)
            if store.writes != writes:
                if took > self.save_cycle_max_us:
                    self.save_cycle_max_us = took
            elif self.commands != commands:
                if took > self.command_cycle_max_us:
                    self.command_cycle_max_us = took
            else:
                if took > self.cycle_max_us:
                    self.cycle_max_us = took
                    self.cycle_max_kind = self.cycle_kind
                if self.leds.shown != frames and took > self.frame_cycle_max_us:
                    self.frame_cycle_max_us = took
            t = ticks_ms()
            left = period - ticks_diff(t, now)
            if self.debouncer.unsettled:
                due = self.debouncer.due_in(t)
                if due < left:
                    left = due  # a change settles before the next period: scan right then
            if left > 0:
                sleep_ms(left)
