"""The board's main loop: scan -> debounce -> board -> link -> frame, at scan_hz.

Hardware comes in from outside (hw.make or a test), so this file runs unchanged on the board,
under the unix port with simulated hardware, and in-process in tests and the benchmark.
Steady state allocates nothing: the bitmap, the debouncer's ring and the frame are made once.

The loop's priorities (App.cycle): every cycle scans the reeds and buttons and debounces them, then
does the first of these that has something to do, and only that (on a Pico each takes milliseconds):
  1. a settled reed or button change: the players' piece (changes settled together are taken one
     a cycle, in order);
  2. while a change is about to settle (SETTLE_GUARD_MS), nothing more but a frame the board owes;
  3. the frame that answers a change (the board is dirty);
  4. while a long answer is made in steps, the collection of its steps' garbage (a cycle of its own);
  5. the next step of that answer (the record, a reveal: sy/link/proto.py step()); the host's next
     line waits for its last step;
  6. the host's line: a command (its reply), or the next part of a long line;
  7. when the host has nothing to say, the collection of the garbage its last line left;
  8. the animation frame, every FRAME_MS;
  9. a note to the host about what the players were shown in an earlier cycle.
Service mode (yard calibrate / selftest) renders every scan: its latches must see each one.

Why not asyncio: the loop is one concern served in a fixed order, the players' first. With a task
per concern, which of a change, a frame and a host's line runs next would be the scheduler's
choice, and a task switch, a sleep's wake-up and the tasks' own state cost a Pico's time and heap
in every cycle; nothing would run at the same time anyway (a flash write stalls the whole chip).
One function that says the order is shorter to read and to time.

Measuring the loop (the longest cycle of each kind, the heap's peak) is sy/cyclewatch.py's, put on
the App by the `mem` command while a benchmark or a test watches; the loop itself keeps no counter.
"""
import gc

from sy.hardware.debounce import Debouncer
from sy.hardware.reeds import CHAIN_OK
from sy.play.board import Board
from sy import forget
from sy.link.proto import Protocol

try:
    from time import ticks_ms, ticks_diff, sleep_ms
except ImportError:  # CPython
    from sy.compat import ticks_ms, ticks_diff, sleep_ms

FRAME_MS = 40  # animation frame period when nothing changes
# an animation frame, a note or part of a host's line holds the scan loop for milliseconds on a
# Pico: none starts when a reed or button change settles sooner, so the scan that takes it is on
# time (the answer to a placement is due one scan and one frame after the debounce)
SETTLE_GUARD_MS = 10
GC_EVERY = 12 * 1024  # bytes allocated between automatic collections: a long command's garbage bounded (docs/memory.md)
# ... and while a host's command reads the whole journal (the record, a reveal, a claim, a hello's
# resend): each line read is garbage at once, tens of KB in a long game. Collected this often, such
# a command's peak stays close to the live heap; the cycles that answer the players keep GC_EVERY
# (docs/pico.md, "The heap paid back")
GC_EVERY_READING = 4 * 1024
# a long answer made in steps (the record, a reveal) is collected after this many: each step reads
# (and for Mister X's lines parses) a journal line, so the collector's own threshold never lands
# inside a step, and the reveal's peak stays close to its live heap (docs/memory.md)
STEPS_PER_COLLECT = 2
_MEM = hasattr(gc, "mem_alloc")  # MicroPython (CPython's gc cannot say)


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
        self.proto.attach(self.board)
        self.cycles = 0
        self.last_frame = 0
        self.changes = 0  # debounced changes taken (the in-process board and the watcher read it)
        self.collect_owed = False  # garbage of a host's line or of a long answer's steps, to collect
        self.steps = 0  # steps of long answers made
        # the reed chain checks itself (sy.hardware.reeds): a refused scan leaves the bitmap as it
        # was, so the game sees no change while the chain lies; the host hears each start and end
        self.chain = inputs if hasattr(inputs, "chain_fault") else None
        self.chain_fault = CHAIN_OK
        self.chain_kind = 0

    def start(self, now):
        self.inputs.scan(self.bitmap)
        self.debouncer.prime(self.bitmap)
        self.board.read_reeds(self.bitmap, self.bit_station, self.nbits)
        from sy.storage import resume  # boot only: dropped again
        try:
            resume.resume(self.board)
        finally:
            forget("storage.resume")
        self.board.dirty = False  # the boot frame, drawn here, shows it all
        self.board.render(now)
        self.last_frame = now

    def cycle(self, now):
        """One scan, then the first thing to do in the loop's order (the module's docstring)."""
        self.cycles += 1
        bitmap = self.bitmap
        self.inputs.scan(bitmap)
        chain = self.chain
        if chain is not None and (chain.chain_fault != self.chain_fault or chain.chain_kind != self.chain_kind):
            self._chain_changed()
        deb = self.debouncer
        if self.chain_fault == CHAIN_OK:  # while the chain lies the game is paused: reeds and buttons held
            deb.update(bitmap, now)
        board = self.board
        v = deb.pop()
        if v >= 0:  # 1. a settled change
            board.now = now
            self.changes += 1
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
        every_scan = board.every_scan
        # 2. a change about to settle (an attribute read first: the idle scan pays no call for it)
        if deb.unsettled and deb.due_in(now) < SETTLE_GUARD_MS and not every_scan:
            if board.dirty:  # a frame that answers something is drawn all the same
                self._frame(now)
            return
        if board.dirty and not every_scan:
            # 3. the players' answer goes before the host's next line: the host answers a note (a
            # placement's ticket question) at once, and its command may save to flash
            self._frame(now)
            return
        if self.proto.job is not None:
            if self.collect_owed:  # 4. the garbage of a long answer's steps
                self.collect_owed = False
                self._collect()
                return
            board.now = now  # 5. a step of a long answer (the host's next line waits)
            asked = self.proto.step()
            self.steps += 1
            # collected in a cycle of its own, before the collector's own threshold would make
            # one inside a step, or before a step that asked for it (its own garbage then lands
            # on a heap without the earlier steps')
            self.collect_owed = asked is not None or self.proto.job is None or self.steps % STEPS_PER_COLLECT == 0
            return
        r = self.link.poll()  # 6. the host's line
        if r:
            board.now = now
            writes = self.store.writes
            if r == 1:
                self.proto.handle(self.link.take())
            else:
                self.proto.too_long()
            # the line's garbage: collected in this cycle if it saved to flash (long already),
            # else in the next (a collection takes as long as a command's own work on a Pico)
            board = self.board  # (a service command puts service mode's board in the game's place)
            if self.store.writes != writes or board.every_scan:
                self._collect()
            else:
                self.collect_owed = True
            if not board.every_scan:
                return
        elif self.link.partial and not every_scan:
            return  # part of a host's line read (a few ms on a Pico): this cycle's one thing
        elif self.collect_owed and not every_scan:
            # 7. the garbage of the host's last line or of a finished long answer, once the host has
            # nothing more to say (lines in a row are each answered in their own cycle)
            self.collect_owed = False
            self._collect()
            return
        if board.dirty or ticks_diff(now, self.last_frame) >= FRAME_MS:
            self._frame(now)  # 8. the animation (service mode: every scan)
        elif board.lift_note >= 0 or board.ask_note:
            board.send_notes()  # 9. what the players were shown, told to the host

    def _chain_changed(self):
        """The reader chain began to lie, or is whole again: sy/play/chainpause.py pauses or
        resumes the game and tells the host (loaded for it, dropped when the chain is whole)."""
        from sy.play import chainpause
        chainpause.follow(self)

    def _frame(self, now):
        self.board.dirty = False
        self.last_frame = now
        self.leds.strip.cycle = self.cycles
        self.board.render(now)

    def _after_event(self, writes):
        # A collection takes as long as the longest other cycles on a Pico (it scans the live
        # objects): it is made in a cycle that is long already, never in one of its own. An event
        # that saved to flash (an erase stalls the chip) or a host's line (parsed, answered) is
        # collected in its own cycle; the little garbage of the other events (a lift, its note)
        # waits for the next of those, or for MicroPython's own collection every GC_EVERY bytes
        # allocated (run()). The idle cycles allocate nothing.
        if self.store.writes != writes:
            self._collect()

    def reading_journal(self, on):
        """The collector's pace while a host's command reads the whole journal (on) and after."""
        if _MEM:
            gc.threshold(GC_EVERY_READING if on else GC_EVERY)

    def collect(self):
        """A collection now (a command about to load code after dropping some: sy/link/handlers.py)."""
        self._collect()

    def _collect(self):
        # CPython (the tests' in-process board) frees by reference counting: a full collection
        # there walks the whole test process, hundreds of milliseconds in a big one, for nothing
        if _MEM:
            gc.collect()

    def run(self):
        now = ticks_ms()
        self.start(now)
        period = self.period
        if _MEM:
            # a command that makes much garbage (a reveal, the record) is collected as it goes,
            # so its peak stays this far above the live heap (the scan loop allocates nothing)
            gc.threshold(GC_EVERY)
        while True:
            now = ticks_ms()
            self.cycle(now)
            t = ticks_ms()
            left = period - ticks_diff(t, now)
            if self.debouncer.unsettled:
                due = self.debouncer.due_in(t)
                if due < left:
                    left = due  # a change settles before the next period: scan right then
            if left > 0:
                sleep_ms(left)
