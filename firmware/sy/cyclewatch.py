"""The main loop measured (sy/app.py), for a benchmark or a test: never part of a board nobody watches.

The `mem` command with watch: true installs a CycleWatch on the running App. It puts timed twins
of the App's cycle() and _collect(), the protocol's handle(), too_long() and step() and the board's
send_notes() on those objects as instance attributes (found before the class's own methods), so
the loop calls them unchanged; a board that is not watched runs its loop without a counter or a
clock read beyond its own. What each cycle did is read from what it changed (the store's writes,
the LED frames shown, the debounced changes taken, the link's part of a line): the loop keeps no
note of it for the watcher.

Every cycle counts in cycle_max_us, whatever it did: a save to flash and a host's command too,
since a reed tap or a piece put down waits for them as for any other cycle.
"""
import gc

try:
    from time import ticks_us, ticks_diff
except ImportError:  # CPython
    from sy.compat import ticks_us, ticks_diff

# what a cycle did besides scanning; when it did several, the first of these names it
KINDS = ("scan", "save", "command", "step", "event", "collect", "frame", "note", "line_part")
SCAN, SAVE, COMMAND, STEP, EVENT, COLLECT, FRAME, NOTE, LINE_PART = range(9)
_MEM = hasattr(gc, "mem_alloc")  # MicroPython (CPython's gc cannot say)


class CycleWatch:
    def __init__(self, app):
        self.app = app
        self.max_us = [0] * len(KINDS)  # the longest cycle of each kind
        self.last_kind = SCAN  # what the last cycle did
        self.cycle_max_kind = SCAN  # what the longest cycle did
        self.mem_peak = 0  # heap in use right before a collection, the highest (bytes)
        self.commands = 0  # host lines handled (a command, or a line too long)
        self.notes = 0
        self.collects = 0
        self.steps = 0  # steps of a long answer (sy/link/proto.py step())
        self.line = b""  # the start of the host's line being handled
        self.longest_command = b""  # the start of the line the longest command or step cycle answered
        self.reading_us = 0  # this cycle's time spent reading the heap for the peak (not the loop's)
        self._cycle = app.cycle
        self._collect = app._collect
        self._handle = app.proto.handle
        self._too_long = app.proto.too_long
        self._step = app.proto.step
        self._send_notes = app.board.send_notes
        app.cycle = self.cycle
        app._collect = self.collect
        app.proto.handle = self.handle
        app.proto.too_long = self.too_long
        app.proto.step = self.step
        app.board.send_notes = self.send_notes
        app.watch = self

    def remove(self):
        """The App's own methods again (the `mem` command's watch: false)."""
        app = self.app
        for obj, name in ((app, "cycle"), (app, "_collect"), (app.proto, "handle"), (app.proto, "too_long"), (app.proto, "step"),
                          (app.board, "send_notes")):
            try:
                delattr(obj, name)
            except AttributeError:
                pass
        app.watch = None

    def reset(self):
        for k in range(len(KINDS)):
            self.max_us[k] = 0
        self.mem_peak = 0
        self.cycle_max_kind = SCAN
        self.longest_command = b""

    # --- the timed twins -----------------------------------------------------------------------
    def cycle(self, now):
        app = self.app
        writes = app.store.writes if app.store is not None else 0
        commands = self.commands
        changes = app.changes
        collects = self.collects
        frames = app.leds.shown
        notes = self.notes
        steps = self.steps
        self.reading_us = 0
        t0 = ticks_us()
        self._cycle(now)
        took = ticks_diff(ticks_us(), t0) - self.reading_us  # the loop's time, not the watcher's
        if app.store is not None and app.store.writes != writes:
            kind = SAVE
        elif self.commands != commands:
            kind = COMMAND
        elif self.steps != steps:
            kind = STEP
        elif app.changes != changes:
            kind = EVENT
        elif self.collects != collects:
            kind = COLLECT
        elif app.leds.shown != frames:
            kind = FRAME
        elif self.notes != notes:
            kind = NOTE
        elif app.link.partial:
            kind = LINE_PART
        else:
            kind = SCAN
        self.last_kind = kind
        if took > self.max_us[kind]:
            self.max_us[kind] = took
            if kind == COMMAND or kind == STEP:
                self.longest_command = self.line
            if took >= max(self.max_us):
                self.cycle_max_kind = kind

    def collect(self):
        self.collects += 1
        if _MEM:
            # gc.mem_alloc() walks the heap's allocation table: as long as the collection on a Pico,
            # which is why only a watched board reads it, and why its time is not the cycle's
            t0 = ticks_us()
            used = gc.mem_alloc()
            if used > self.mem_peak:
                self.mem_peak = used
            self.reading_us += ticks_diff(ticks_us(), t0)
        self._collect()

    def handle(self, raw):
        self.commands += 1
        self.line = raw[:40]  # not the line: the board drops it after its command, the watcher too
        self._handle(raw)

    def too_long(self):
        self.commands += 1
        self._too_long()

    def step(self):
        self.steps += 1
        return self._step()

    def send_notes(self):
        sent = self._send_notes()
        if sent:
            self.notes += 1
        return sent

    # --- the figures -----------------------------------------------------------------------------
    def figures(self):
        """The `mem` reply's measured part (emulated or real µs, bytes)."""
        m = self.max_us
        plain = 0  # the cycles that neither saved nor answered the host
        for k in range(len(KINDS)):
            if k not in (SAVE, COMMAND, STEP) and m[k] > plain:
                plain = m[k]
        return {"peak": self.mem_peak, "cycle_max_us": max(m), "cycle_max_kind": KINDS[self.cycle_max_kind],
                "save_cycle_max_us": m[SAVE], "command_cycle_max_us": m[COMMAND],
                "frame_cycle_max_us": m[FRAME], "step_cycle_max_us": m[STEP], "plain_cycle_max_us": plain,
                "longest_command": self.longest_command.decode(),
                "cycle_max_by_kind": {KINDS[k]: m[k] for k in range(len(KINDS))}}


def mem(app, board, msg):
    """The `mem` command: the heap now; watch (true/false) starts or ends the measuring of the
    loop; reset starts a new stretch; while watched, the figures of the stretch so far."""
    watch = getattr(app, "watch", None) if app is not None else None
    if app is not None and msg.get("watch") is not None:
        if msg["watch"] and watch is None:
            watch = CycleWatch(app)
        elif not msg["watch"] and watch is not None:
            watch.remove()
            watch = None
    if not _MEM:
        return {"watching": watch is not None} if app is not None else {}
    gc.collect()
    out = {"alloc": gc.mem_alloc(), "free": gc.mem_free()}
    if app is None:
        return out
    out["watching"] = watch is not None
    out["save_max_us"] = board.save_max_us
    if watch is not None:
        out.update(watch.figures())
    if msg.get("reset"):  # measure the next stretch on its own
        board.save_max_us = 0
        if watch is not None:
            watch.reset()
    return out
