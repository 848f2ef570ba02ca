"""WS2812B LEDs: one logical frame (full-scale RGB per LED), a global brightness and a current budget.

show() scales the frame into the strip's wire buffer: brightness first, then, if the estimated
current would pass the limit, everything further down by one common factor. A lit channel never
scales to 0, so no information is dropped. No allocation after __init__.
"""
_ORDERS = {"RGB": (0, 1, 2), "RBG": (0, 2, 1), "GRB": (1, 0, 2), "GBR": (2, 0, 1),
           "BRG": (1, 2, 0), "BGR": (2, 1, 0)}  # wire position of R, G, B


class Leds:
    def __init__(self, strip, count, index, order="GRB", brightness=0.25, current_limit_ma=2000,
                 ma_per_channel=20.0, idle_ma_per_led=1.0):
        self.strip = strip  # anything with .buf (bytearray, 3 per LED, wire order) and .write()
        self.count = count
        self.frame = bytearray(3 * count)
        self.station_led = bytearray(2 * (len(index) + 1))  # station s -> LED, little-endian u16
        for s in range(1, len(index) + 1):
            i = index[s - 1]
            self.station_led[2 * s] = i & 0xFF
            self.station_led[2 * s + 1] = i >> 8
        pos = _ORDERS[order]
        self.pr, self.pg, self.pb = pos
        v = int(brightness * 256)
        self.bright = 1 if v < 1 else (256 if v > 256 else v)  # of 256
        # channel-sum (0..255 per channel) the limit allows, minus the strip's idle draw, with a margin
        # for the "never 0" rounding (at most +1 per channel)
        self.budget = int((current_limit_ma - idle_ma_per_led * count) * 255 / ma_per_channel) - 3 * count
        if self.budget < 3 * count:
            self.budget = 3 * count
        self.tenth_ma_per_channel = int(ma_per_channel * 10)  # keeps products small ints on the board
        self.idle_ma = int(idle_ma_per_led * count)
        self.scale = 0
        self.est_ma = 0
        self.shown = 0  # frames written

    def clear(self):
        f = self.frame
        for i in range(len(f)):
            f[i] = 0

    def put(self, station, r, g, b):
        sl = self.station_led
        k = 3 * (sl[2 * station] | (sl[2 * station + 1] << 8))
        f = self.frame
        f[k] = r
        f[k + 1] = g
        f[k + 2] = b

    def show(self):
        f = self.frame
        total = sum(f)
        scale = self.bright
        if (total * scale) >> 8 > self.budget:
            scale = (self.budget << 8) // total
        self.scale = scale
        out = self.strip.buf
        pr = self.pr
        pg = self.pg
        pb = self.pb
        lit = 0
        for i in range(0, 3 * self.count, 3):
            v = f[i]
            if v:
                v = (v * scale) >> 8
                if not v:
                    v = 1
                lit += v
            out[i + pr] = v
            v = f[i + 1]
            if v:
                v = (v * scale) >> 8
                if not v:
                    v = 1
                lit += v
            out[i + pg] = v
            v = f[i + 2]
            if v:
                v = (v * scale) >> 8
                if not v:
                    v = 1
                lit += v
            out[i + pb] = v
        self.est_ma = (lit * self.tenth_ma_per_channel) // 2550 + self.idle_ma
        self.shown += 1
        self.strip.write()
