"""WS2812B LEDs: one logical frame (full-scale RGB per LED), a global brightness and a current budget.

put() writes a colour twice: full scale into the logical frame, and brightness-scaled (a table made
once) into the strip's wire buffer, keeping a running sum of the wire channels. show() then only
writes the buffer, unless the estimated current would pass the limit: then it scales the whole
buffer down by one common factor first (rare: most of the board is dark). A lit channel never
scales to 0, so no information is dropped. No allocation after __init__.

Why not scale in show(): on a Pico, a Python pass over the 597 channels of every frame took
13.9 ms of the scan loop (docs/memory.md); a frame lights a few dozen LEDs.
"""
WIRE_ORDER = {"RGB": (0, 1, 2), "RBG": (0, 2, 1), "GRB": (1, 0, 2), "GBR": (2, 0, 1),
           "BRG": (1, 2, 0), "BGR": (2, 1, 0)}  # wire position of R, G, B (the host decodes frames with it)


class Leds:
    patterns = False  # a class attribute: a board without rhythms keeps its instance dict as it was

    def __init__(self, strip, count, index, order="GRB", brightness=0.25, current_limit_ma=2000,
                 ma_per_channel=20.0, idle_ma_per_led=1.0, patterns=False):
        self.strip = strip  # anything with .buf (bytearray, 3 per LED, wire order) and .write()
        # and, if it sends .buf in the background (sy/hardware/ledspio.py), .wait() for it to finish
        self._wait = getattr(strip, "wait", None)
        self.count = count
        if patterns:
            self.patterns = True  # rhythms beside colour (sy/play/rhythm.py); the class says False
        self.frame = bytearray(3 * count)
        self._dark = bytes(3 * count)
        self.station_led = bytearray(2 * (len(index) + 1))  # station s -> LED, little-endian u16
        for s in range(1, len(index) + 1):
            i = index[s - 1]
            self.station_led[2 * s] = i & 0xFF
            self.station_led[2 * s + 1] = i >> 8
        pos = WIRE_ORDER[order]
        self.pr, self.pg, self.pb = pos
        v = int(brightness * 256)
        self.bright = 1 if v < 1 else (256 if v > 256 else v)  # of 256
        self.dim = bytearray(256)  # full-scale channel -> wire value at this brightness, never 0 if lit
        for c in range(1, 256):
            w = (c * self.bright) >> 8
            self.dim[c] = w if w else 1
        # channel-sum (0..255 per channel) the limit allows, minus the strip's idle draw, with a margin
        # for the "never 0" rounding (at most +1 per channel)
        self.budget = int((current_limit_ma - idle_ma_per_led * count) * 255 / ma_per_channel) - 3 * count
        if self.budget < 3 * count:
            self.budget = 3 * count
        self.tenth_ma_per_channel = int(ma_per_channel * 10)  # keeps products small ints on the board
        self.idle_ma = int(idle_ma_per_led * count)
        self.lit = 0  # sum of the wire buffer's channels before the current cap
        self.capped = False  # the wire buffer was scaled down for the current cap
        self.scale = self.bright  # of 256: brightness times the current cap of the last frame
        self.est_ma = 0
        self.shown = 0  # frames written

    def clear(self):
        """Dark, to draw the next frame (after the last one has gone out of the strip's buffer)."""
        if self._wait is not None:
            self._wait()
        self.frame[:] = self._dark
        self.strip.buf[:] = self._dark
        self.lit = 0
        self.capped = False

    def put(self, station, r, g, b):
        sl = self.station_led
        self.set(sl[2 * station] | (sl[2 * station + 1] << 8), r, g, b)

    def set(self, led, r, g, b):
        """Colour one LED by its place in the chain (full-scale r, g, b)."""
        k = 3 * led
        f = self.frame
        d = self.dim
        out = self.strip.buf
        self.lit += d[r] + d[g] + d[b] - d[f[k]] - d[f[k + 1]] - d[f[k + 2]]  # dim[0] is 0
        f[k] = r
        f[k + 1] = g
        f[k + 2] = b
        out[k + self.pr] = d[r]
        out[k + self.pg] = d[g]
        out[k + self.pb] = d[b]

    def shimmer(self, bitmap, rgb, t):
        """Light every station whose bit is set in bitmap (bit s & 7 of byte s >> 3) in colour rgb
        (0xRRGGBB) at a level that ripples with t (ms): each station its own phase, a 1 s cycle."""
        stations = len(self.station_led) >> 1
        for k in range(len(bitmap)):
            bits = bitmap[k]
            if not bits:
                continue
            for i in range(8):
                s = (k << 3) | i
                if bits & (1 << i) and s < stations:
                    v = ((t >> 3) + s * 37) & 127
                    v = v if v < 64 else 127 - v
                    self.put(s, (((rgb >> 16) & 255) * v) >> 8, (((rgb >> 8) & 255) * v) >> 8, ((rgb & 255) * v) >> 8)

    def show(self):
        if self.capped:  # scaled down for the last frame and not cleared since
            self._rebuild()
        lit = self.lit
        self.scale = self.bright
        if lit > self.budget:
            lit = self._cap(lit)
        self.est_ma = (lit * self.tenth_ma_per_channel) // 2550 + self.idle_ma
        self.shown += 1
        self.strip.write()

    def _cap(self, lit):
        """Scale the wire buffer down to the budget; returns its new channel sum."""
        factor = (self.budget << 8) // lit
        self.scale = (self.bright * factor) >> 8
        self.capped = True
        out = self.strip.buf
        lit = 0
        for i in range(3 * self.count):
            v = out[i]
            if v:
                v = (v * factor) >> 8
                if not v:
                    v = 1
                out[i] = v
                lit += v
        return lit

    def _rebuild(self):
        f = self.frame
        d = self.dim
        out = self.strip.buf
        for k in range(0, 3 * self.count, 3):
            out[k + self.pr] = d[f[k]]
            out[k + self.pg] = d[f[k + 1]]
            out[k + self.pb] = d[f[k + 2]]
        self.capped = False


def _native():
    """Leds.put, set and shimmer as machine code where MicroPython compiled them (sy/hardware/ledsfast.py:
    .mpy files made for this board's architecture); the Python ones above everywhere else."""
    import sys
    if sys.implementation.name != "micropython":
        return False
    try:
        from sy.hardware import ledsfast
    except (ImportError, ValueError, SyntaxError):  # no native code on this port, or another arch
        return False
    Leds.put = ledsfast.put
    Leds.set = ledsfast.set
    Leds.shimmer = ledsfast.shimmer
    return True


NATIVE = _native()
