"""Service mode: the board's side of `yard calibrate` and `yard selftest` (docs/protocol.md,
"Service commands"). Loaded only when a svc_* command arrives and dropped again at svc_end, so
the game never carries it on its heap.

In service mode the main loop keeps scanning and debouncing, but the game does not see the
switches and does not draw: `app.board` is swapped for a Service object with the same loop
interface (switch, button, render, dirty, now). Its render() runs every cycle; it latches the
chain's raw and debounced bits ("ever closed" since the last clear) and writes the LED frame only
when a command changed it. Nothing in that per-cycle path allocates.

    svc_begin  {pause?}          enter (refused while a game is being set up or played, unless
                                 pause: true; the game then waits and re-checks the pieces after)
    svc_info                     chips, LED count, the board's station -> bit and -> LED maps
    svc_led    {index, rgb?, keep?} light one LED chain index (rgb default white), the rest dark
                                 (keep: true leaves the others as they are)
               {all: rgb}        every LED of the chain in one colour
               {off: true}       all dark
    svc_raw    {clear?}          raw (undebounced) and debounced chain bitmaps as hex, bit k =
                                 0x80 >> (k & 7) of byte k >> 3, 1 = closed; plus the bits that
                                 were closed at any scan since the last clear (ever, ever_stable)
    svc_bus    {baudrates, reads?}  read the reed chain `reads` times at each SPI clock (slowest
                                 first) and count the reads that differ from the first one at the
                                 slowest clock; the configured clock is restored afterwards.
                                 Refused on a board without an SPI chain (the simulator)
    svc_end                      leave: the game takes the switches and the LEDs back
Service mode ends by itself after IDLE_MS without a command (a wizard that died).
"""
from binascii import hexlify

from sy import forget
from sy.hardware.reeds import CHAIN_OK, LONG
from sy.link.fields import ProtoError as SvcError
from sy.storage.stages import SETUP, PLAY

try:
    from time import ticks_diff
except ImportError:  # CPython: the host, the tests
    from sy.compat import ticks_diff

IDLE_MS = 120000


class Service:
    """Stands in for the game's Board in the main loop while in service mode."""

    every_scan = True  # render() latches every scan's switches (sy/app.py calls it each cycle)
    lift_note = -1  # no notes to send later (sy/play/board.py send_notes)
    ask_note = False

    def __init__(self, app, game_board, paused):
        self.app = app
        self.game_board = game_board
        self.paused = paused
        n = app.chips + 1  # the chain bytes and the buttons byte, as the debouncer sees them
        self.ever = bytearray(n)
        self.ever_stable = bytearray(n)
        self.dirty = True
        self.now = game_board.now
        self.last_cmd = self.now
        self.changed = True  # the LED frame changed: write it at the next cycle
        self.leds = app.leds
        app.leds.clear()

    # --- the main loop's interface (no allocation) ------------------------------------------
    def switch(self, station, closed):
        pass  # the game does not see switches in service mode

    def button(self, k):
        pass

    def release(self, k):
        pass

    def render(self, now):
        self.now = now
        app = self.app
        raw = app.bitmap
        stable = app.debouncer.stable
        ever = self.ever
        es = self.ever_stable
        for i in range(len(ever)):
            ever[i] |= raw[i]
            es[i] |= stable[i]
        if self.changed:
            self.changed = False
            self.leds.show()
        self.dirty = True  # run again next cycle (the latches must see every scan)
        if ticks_diff(now, self.last_cmd) > IDLE_MS:
            leave(app)

    # --- commands ---------------------------------------------------------------------------
    def led(self, msg):
        L = self.leds
        if msg.get("off"):
            L.clear()
        elif "all" in msg:
            r, g, b = _rgb(msg["all"])
            for k in range(L.count):
                L.set(k, r, g, b)
        else:
            k = msg.get("index")
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < L.count:
                raise SvcError("bad_input", "field", "index")
            r, g, b = _rgb(msg.get("rgb", (255, 255, 255)))
            if not msg.get("keep"):
                L.clear()
            L.set(k, r, g, b)
        self.changed = True
        return {}

    def raw(self, msg):
        app = self.app
        n = app.chips
        out = {"chips": n, "raw": hexlify(app.bitmap[:n]).decode(),
               "stable": hexlify(app.debouncer.stable[:n]).decode(),
               "ever": hexlify(bytes(self.ever[:n])).decode(), "ever_stable": hexlify(bytes(self.ever_stable[:n])).decode(),
               "buttons": app.debouncer.stable[n], "cycles": app.cycles}
        if msg.get("clear"):
            for i in range(len(self.ever)):
                self.ever[i] = 0
                self.ever_stable[i] = 0
        return out

    def bus(self, msg):
        reeds = getattr(self.app.inputs, "reeds", None)
        if reeds is None or not hasattr(reeds, "spi"):
            raise SvcError("bad_input", "no_spi")
        rates = msg.get("baudrates")
        reads = msg.get("reads", 20)
        if not isinstance(rates, list) or not 0 < len(rates) <= 12:
            raise SvcError("bad_input", "field", "baudrates")
        for b in rates:
            if not isinstance(b, int) or isinstance(b, bool) or not 10000 <= b <= 10000000:
                raise SvcError("bad_input", "field", "baudrates")
        if not isinstance(reads, int) or isinstance(reads, bool) or not 2 <= reads <= 500:
            raise SvcError("bad_input", "field", "reads")
        faults = reeds.faults
        out = {"results": bus_sweep(reeds, rates, reads, bytearray(self.app.chips)),
               "configured": reeds.baudrate, "spi_mode": reeds.spi_mode, "chain": None}
        if reeds.faults != faults:   # the chain's own check refused reads: where the last one lied
            out["chain"] = {"code": "chain_broken", "fault": "long" if reeds.lied_kind == LONG else "short",
                            "after_module": reeds.lied}
        return out

    def info(self, msg):
        app = self.app
        bits = [0] * 199
        bs = app.bit_station
        for bit in range(len(bs)):
            s = bs[bit]
            if s:
                bits[s - 1] = bit
        sl = self.leds.station_led
        index = [sl[2 * s] | (sl[2 * s + 1] << 8) for s in range(1, 200)]
        return {"chips": app.chips, "count": self.leds.count, "bits": bits, "index": index,
                "paused": self.paused}


def bus_sweep(reeds, baudrates, reads, buf):
    """[[baudrate, differing reads, reads]] for the chain behind reeds (a sy.hardware.reeds.ShiftReeds):
    the first read at the slowest clock is the reference, so keep the pieces still meanwhile."""
    spi = reeds.spi
    mode = reeds.spi_mode
    ref = None
    out = []
    try:
        for baud in sorted(baudrates):
            spi.init(baudrate=baud, polarity=mode >> 1, phase=mode & 1)
            bad = 0
            for _ in range(reads):
                reeds.scan(buf)
                if reeds.fault != CHAIN_OK:   # the chain's own check refused the read
                    bad += 1
                elif ref is None:
                    ref = bytes(buf)
                elif buf != ref:
                    bad += 1
            out.append([baud, bad, reads])
    finally:
        spi.init(baudrate=reeds.baudrate, polarity=mode >> 1, phase=mode & 1)
    return out


def _rgb(v):
    if not isinstance(v, (list, tuple)) or len(v) != 3:
        raise SvcError("bad_input", "field", "rgb")
    for c in v:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= 255:
            raise SvcError("bad_input", "field", "rgb")
    return v[0], v[1], v[2]


def _active(app):
    b = app.board
    return b if isinstance(b, Service) else None


def begin(app, msg):
    svc = _active(app)
    if svc is not None:
        return {"paused": svc.paused}
    b = app.board
    playing = b.stage in (SETUP, PLAY)
    if playing and not msg.get("pause"):
        raise SvcError("wrong_turn", "game_on")
    app.board = Service(app, b, playing)
    return {"paused": playing, "chips": app.chips, "count": app.leds.count}


def leave(app):
    """Give the loop back to the game; it re-reads every switch from the debounced bitmap."""
    svc = _active(app)
    if svc is None:
        return False
    b = svc.game_board
    app.board = b
    b.read_reeds(app.debouncer.stable, app.bit_station, app.nbits)
    b.now = svc.now
    b.await_pieces()  # a game in play: nothing commits until the pieces agree with it again
    return True


def handle(proto, msg):
    """The handler of every svc_* command (proto.handle makes a ProtoError an error reply)."""
    app = proto.app
    cmd = msg.get("cmd")
    if cmd == "svc_begin":
        return begin(app, msg)
    if cmd == "svc_end":
        was = leave(app)
        forget("link.service")  # the game does not carry this module
        return {"was_active": was}
    svc = _active(app)
    if svc is None:
        raise SvcError("wrong_turn", "not_service")
    svc.last_cmd = svc.now
    if cmd == "svc_led":
        return svc.led(msg)
    if cmd == "svc_raw":
        return svc.raw(msg)
    if cmd == "svc_info":
        return svc.info(msg)
    if cmd == "svc_bus":
        return svc.bus(msg)
    raise SvcError("bad_input", "unknown_command")
