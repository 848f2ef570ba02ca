"""sy/hardware/leds.py's per-LED writes as viper (native machine code), for MicroPython.

On a Pico a frame lights up to 199 stations (the shimmer over Mister X's possible stations), and
the bytecode put() took 220 us an LED there: 44 ms for the whole board, against a 10 ms budget for
a scan cycle (`yard bench pico`); a viper put() still costs 44 us in calling it, so the shimmer
over many stations is one call. Viper compiles these to machine code over raw byte pointers.
The same arithmetic as Leds.put / set / shimmer in plain Python, which CPython and boards without
a native code emitter keep (tests/firmware/fw_cases.py runs both against the same expectations).
"""
import micropython


@micropython.viper
def set(self, led: int, r: int, g: int, b: int):
    k = 3 * led
    f = ptr8(self.frame)
    d = ptr8(self.dim)
    out = ptr8(self.strip.buf)
    self.lit = int(self.lit) + d[r] + d[g] + d[b] - d[f[k]] - d[f[k + 1]] - d[f[k + 2]]
    f[k] = r
    f[k + 1] = g
    f[k + 2] = b
    out[k + int(self.pr)] = d[r]
    out[k + int(self.pg)] = d[g]
    out[k + int(self.pb)] = d[b]


@micropython.viper
def put(self, station: int, r: int, g: int, b: int):
    sl = ptr8(self.station_led)
    k = 3 * (sl[2 * station] | (sl[2 * station + 1] << 8))
    f = ptr8(self.frame)
    d = ptr8(self.dim)
    out = ptr8(self.strip.buf)
    self.lit = int(self.lit) + d[r] + d[g] + d[b] - d[f[k]] - d[f[k + 1]] - d[f[k + 2]]
    f[k] = r
    f[k + 1] = g
    f[k + 2] = b
    out[k + int(self.pr)] = d[r]
    out[k + int(self.pg)] = d[g]
    out[k + int(self.pb)] = d[b]


@micropython.viper
def shimmer(self, bitmap, rgb: int, t: int):
    cand = ptr8(bitmap)
    n = int(len(bitmap))
    sl = ptr8(self.station_led)
    stations = int(len(self.station_led)) >> 1
    f = ptr8(self.frame)
    d = ptr8(self.dim)
    out = ptr8(self.strip.buf)
    pr = int(self.pr)
    pg = int(self.pg)
    pb = int(self.pb)
    r0 = (rgb >> 16) & 255
    g0 = (rgb >> 8) & 255
    b0 = rgb & 255
    lit = int(self.lit)
    phase = t >> 3
    for k in range(n):
        bits = cand[k]
        if bits == 0:
            continue
        for i in range(8):
            s = (k << 3) | i
            if (bits & (1 << i)) and s < stations:
                v = (phase + s * 37) & 127
                if v >= 64:
                    v = 127 - v
                r = (r0 * v) >> 8
                g = (g0 * v) >> 8
                b = (b0 * v) >> 8
                j = 3 * (sl[2 * s] | (sl[2 * s + 1] << 8))
                lit += d[r] + d[g] + d[b] - d[f[j]] - d[f[j + 1]] - d[f[j + 2]]
                f[j] = r
                f[j + 1] = g
                f[j + 2] = b
                out[j + pr] = d[r]
                out[j + pg] = d[g]
                out[j + pb] = d[b]
    self.lit = lit
