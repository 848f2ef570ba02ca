"""The LEDs (sy/hardware/leds.py, and its machine-code twin sy/hardware/ledsfast.py under MicroPython)
as plain functions: tests/test_firmware_units.py runs them under CPython and under the MicroPython
unix port. What tests/firmware/fw_cases.py leaves out: every colour order, LED indexes past 255, a
station -> LED map that is no identity, the current limiter's floor as well as its ceiling, every
channel kept lit through the cap, the brightness's bounds. The current is counted here from the
wire buffer, not taken from the driver's own estimate."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.hardware.leds import Leds
from testkit import MemStrip

MA = 20.0  # mA per channel at full scale
IDLE = 1.0  # mA per LED, dark


def _current(strip, count):
    """The strip's current in mA as the wire buffer draws it."""
    return sum(strip.buf) * MA / 255 + IDLE * count


def _identity(n=199):
    return list(range(n))


def test_every_colour_order_puts_each_channel_in_its_place():
    for order in ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR"):
        strip = MemStrip(4)
        L = Leds(strip, 4, [0, 1, 2, 3], order, 1.0, 2000, MA, IDLE)
        L.put(2, 10, 20, 30)  # station 2 is LED 1
        value = {"R": 10, "G": 20, "B": 30}
        assert tuple(strip.buf[3:6]) == tuple(value[c] for c in order), order
        assert tuple(L.frame[3:6]) == (10, 20, 30), order  # the logical frame stays R, G, B
        L.set(3, 40, 50, 60)
        value = {"R": 40, "G": 50, "B": 60}
        assert tuple(strip.buf[9:12]) == tuple(value[c] for c in order), order
        assert not any(strip.buf[0:3]) and not any(strip.buf[6:9])


def test_led_indexes_past_255():
    count = 300
    strip = MemStrip(count)
    index = [299 - i for i in range(199)]  # station s on LED 300 - s: 101..299
    L = Leds(strip, count, index, "RGB", 1.0, 20000, MA, IDLE)
    L.put(1, 1, 2, 3)
    L.put(44, 4, 5, 6)     # LED 256
    L.put(43, 7, 8, 9)     # LED 257
    L.put(45, 10, 11, 12)  # LED 255
    assert tuple(strip.buf[3 * 299:3 * 300]) == (1, 2, 3)
    assert tuple(strip.buf[3 * 256:3 * 257]) == (4, 5, 6)
    assert tuple(strip.buf[3 * 257:3 * 258]) == (7, 8, 9)
    assert tuple(strip.buf[3 * 255:3 * 256]) == (10, 11, 12)
    assert sum(strip.buf) == sum(range(1, 13))  # nothing written anywhere else (no LED 256 - 256 = 0)
    assert L.lit == sum(range(1, 13))


def test_a_station_map_that_is_no_identity():
    # LEDs wired in another order than the stations: station s on LED (s * 37) % 199
    strip = MemStrip(199)
    index = [(s * 37) % 199 for s in range(1, 200)]
    L = Leds(strip, 199, index, "RGB", 1.0, 20000, MA, IDLE)
    for s in (1, 2, 100, 198, 199):
        L.put(s, s, 0, 255 - s)
    for s in (1, 2, 100, 198, 199):
        k = 3 * ((s * 37) % 199)
        assert tuple(strip.buf[k:k + 3]) == (s, 0, 255 - s), s
    lit = sum(1 for x in strip.buf if x)
    assert lit == 2 * 5


def test_brightness_scales_every_channel_and_keeps_it_lit():
    strip = MemStrip(2)
    L = Leds(strip, 2, [0, 1], "RGB", 0.25, 2000, MA, IDLE)
    L.put(1, 255, 128, 1)
    assert tuple(strip.buf[0:3]) == ((255 * 64) >> 8, (128 * 64) >> 8, 1)  # 1 * 0.25 rounds to 0: kept at 1
    L.put(2, 3, 2, 0)
    assert tuple(strip.buf[3:6]) == (1, 1, 0)  # a dark channel stays dark


def test_brightness_bounds():
    for brightness, full in ((0.0, 1), (-1.0, 1), (1.0, 255), (3.0, 255)):
        strip = MemStrip(1)
        L = Leds(strip, 1, [0], "RGB", brightness, 2000, MA, IDLE)
        L.put(1, 255, 255, 7)
        assert tuple(strip.buf) == (full, full, 7 if full == 255 else 1), (brightness, tuple(strip.buf))
        L.show()
        assert L.scale == (256 if full == 255 else 1)


def test_the_limiter_keeps_under_its_limit_and_dims_no_more_than_it_must():
    for limit in (500, 800, 1500, 3000):
        strip = MemStrip(199)
        L = Leds(strip, 199, _identity(), "GRB", 1.0, limit, MA, IDLE)
        for s in range(1, 200):
            L.put(s, 255, 255, 255)
        L.show()
        drawn = _current(strip, 199)
        assert drawn <= limit, (limit, drawn)
        # the floor: the common factor is the largest the budget allows, to within one step of 1/256
        # of the full scale (about 12 mA a step with 597 channels): not dimmed to a glimmer
        assert drawn >= limit - 2 * 597 * MA / 256 - 3 * 199 * MA / 255, (limit, drawn)
        assert L.capped and 1 < L.scale < 256
        assert abs(L.est_ma - drawn) <= 1.5, (L.est_ma, drawn)


def test_the_limiter_leaves_a_frame_under_its_limit_alone():
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 2000, MA, IDLE)
    for s in range(1, 41):  # 40 LEDs white: 40 * 60 mA + idle = 2599 mA > 2000: capped
        L.put(s, 255, 255, 255)
    L.show()
    assert L.capped
    strip2 = MemStrip(199)
    L2 = Leds(strip2, 199, _identity(), "RGB", 1.0, 2000, MA, IDLE)
    for s in range(1, 25):  # 24 LEDs: 1440 + 199 mA, under the limit
        L2.put(s, 255, 255, 255)
    L2.show()
    assert not L2.capped and L2.scale == 256
    assert sum(strip2.buf) == 24 * 3 * 255
    assert abs(L2.est_ma - _current(strip2, 199)) <= 1.5
    assert L2.shown == 1
    L2.show()
    assert L2.shown == 2 and strip2.seq == 2


def test_a_lit_channel_never_scales_to_0_on_any_channel():
    for order in ("RGB", "GRB", "BGR"):
        strip = MemStrip(199)
        L = Leds(strip, 199, _identity(), order, 1.0, 500, MA, IDLE)
        for s in range(1, 200):
            L.put(s, 255, 255, 255)
        L.put(10, 1, 0, 0)
        L.put(11, 0, 1, 0)
        L.put(12, 0, 0, 1)
        L.put(13, 2, 3, 4)
        L.show()
        assert L.capped
        for s, rgb in ((10, (1, 0, 0)), (11, (0, 1, 0)), (12, (0, 0, 1)), (13, (1, 1, 1))):
            k = 3 * (s - 1)
            wire = tuple(strip.buf[k:k + 3])
            got = {c: wire[order.index(c)] for c in "RGB"}
            assert (got["R"], got["G"], got["B"]) == rgb, (order, s, wire)


def test_a_limit_below_the_idle_draw_still_keeps_every_lit_channel():
    # 50 mA cannot even feed the dark strip (199 mA): the driver goes as low as it can without
    # dropping a light, a channel sum of one unit per channel of the strip
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 50, MA, IDLE)
    for s in range(1, 200, 2):
        L.put(s, 255, 40, 0)
    L.show()
    assert L.capped
    assert sum(strip.buf) <= 3 * 199
    for s in range(1, 200):
        k = 3 * (s - 1)
        r, g, b = strip.buf[k:k + 3]
        if s % 2:
            assert r >= g >= 1 and b == 0, (s, r, g, b)
        else:
            assert r == g == b == 0, s


def test_clear_after_a_capped_frame():
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 500, MA, IDLE)
    for s in range(1, 200):
        L.put(s, 255, 255, 255)
    L.show()
    assert L.capped
    L.clear()
    assert not L.capped and L.lit == 0 and not any(strip.buf) and not any(L.frame)
    L.put(5, 100, 0, 0)
    L.show()
    assert tuple(strip.buf[12:15]) == (100, 0, 0) and L.scale == 256
    assert abs(L.est_ma - _current(strip, 199)) <= 1.5


def test_the_idle_draw_counts_in_the_estimate():
    strip = MemStrip(100)
    L = Leds(strip, 100, list(range(100)) + [0] * 99, "RGB", 1.0, 2000, MA, 2.0)
    L.show()
    assert L.est_ma == 200  # dark: 100 LEDs at 2 mA
    L.put(1, 255, 0, 0)
    L.show()
    assert L.est_ma == 220


def test_brightness_is_taken_in_256ths_rounded_down():
    strip = MemStrip(1)
    L = Leds(strip, 1, [0], "RGB", 0.999, 2000, MA, IDLE)  # 255.7 / 256: 255
    L.put(1, 255, 128, 2)
    assert tuple(strip.buf) == ((255 * 255) >> 8, (128 * 255) >> 8, 1)
    L.show()
    assert L.scale == 255


def test_the_scale_reported_is_the_one_on_the_wire():
    for limit in (600, 1200, 2500):
        strip = MemStrip(199)
        L = Leds(strip, 199, _identity(), "RGB", 1.0, limit, MA, IDLE)
        for s in range(1, 200):
            L.put(s, 255, 255, 255)
        L.show()
        assert L.capped
        assert all(v == max(1, (255 * L.scale) >> 8) for v in strip.buf), (limit, L.scale, strip.buf[0])


def test_the_estimate_of_a_full_white_strip_under_a_high_limit():
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 20000, MA, IDLE)
    for s in range(1, 200):
        L.put(s, 255, 255, 255)
    L.show()
    assert not L.capped and L.lit == 199 * 3 * 255
    assert abs(L.est_ma - _current(strip, 199)) < 1, (L.est_ma, _current(strip, 199))


def test_shimmer_ignores_bits_past_the_last_station():
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 20000, MA, IDLE)
    bm = bytearray(32)
    for s in (200, 201, 255):
        bm[s >> 3] |= 1 << (s & 7)
    L.shimmer(bm, 0xFFFFFF, 0)
    assert not any(strip.buf) and L.lit == 0


def test_without_machine_code_the_python_leds_stay():
    # a port without a native emitter, or .mpy files of another architecture: the import of
    # ledsfast fails with one of three errors, and the plain Python put/set/shimmer stay
    from sy.hardware import leds
    if sys.implementation.name != "micropython":
        assert leds._native() is False
        return
    import builtins
    real = builtins.__import__
    methods = (leds.Leds.put, leds.Leds.set, leds.Leds.shimmer)
    try:
        for error in (ImportError, ValueError, SyntaxError):
            def refuse(name, *args):
                if name == "sy.hardware.ledsfast" or (len(args) > 2 and args[2] and "ledsfast" in args[2]):
                    raise error("no machine code here")
                return real(name, *args)
            builtins.__import__ = refuse
            assert leds._native() is False, error
            builtins.__import__ = real
            assert (leds.Leds.put, leds.Leds.set, leds.Leds.shimmer) == methods
    finally:
        builtins.__import__ = real
    assert leds._native() is True


def test_the_limit_holds_when_many_faint_lights_are_kept_at_1():
    # the worst case of "never 0": a few LEDs white and the rest at the faintest level, each of
    # those channels rounded up to 1 after the cap; limits a little above the strip's idle draw
    # (199 mA) and the 6 units a channel the cap may need (below that it cannot keep a light on)
    for k in (4, 20):
        for limit in range(300, 330):
            strip = MemStrip(199)
            L = Leds(strip, 199, _identity(), "RGB", 1.0, limit, MA, IDLE)
            for s in range(1, 200):
                v = 255 if s <= k else 1
                L.put(s, v, v, v)
            L.show()
            assert _current(strip, 199) <= limit, (k, limit, _current(strip, 199))
            assert all(strip.buf), (k, limit)


def test_a_capped_frame_is_rebuilt_whole_in_every_order():
    # a frame after a capped one (no clear): every LED's wire bytes come again from its own colour
    for order in ("RGB", "GRB", "BGR", "BRG"):
        strip = MemStrip(199)
        L = Leds(strip, 199, _identity(), order, 1.0, 600, MA, IDLE)
        for s in range(1, 200):
            L.put(s, 255, 255, 255)
        L.show()
        assert L.capped
        for s in range(1, 200):  # a dim frame, different on every LED, under the limit
            L.put(s, s % 7, (s * 3) % 5, (s + 2) % 3)
        L.show()
        assert not L.capped, order
        for s in range(1, 200):
            k = 3 * (s - 1)
            value = {"R": s % 7, "G": (s * 3) % 5, "B": (s + 2) % 3}
            assert tuple(strip.buf[k:k + 3]) == tuple(value[c] for c in order), (order, s)


def test_shimmer_keeps_each_channel_of_its_colour():
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 20000, MA, IDLE)
    bm = bytearray(32)
    bm[5 >> 3] |= 1 << (5 & 7)
    L.shimmer(bm, 0x3C5AFF, 64)  # R 60, G 90, B 255
    r, g, b = strip.buf[12:15]
    assert 0 < r < g < b, (r, g, b)
    assert b == L.frame[14] and g == L.frame[13] and r == L.frame[12]


def test_shimmer_is_a_triangle_wave_of_a_second():
    # a station's level over one second, every 8 ms: up to a quarter of the colour and back down,
    # by one step at a time, never dark for long
    strip = MemStrip(199)
    L = Leds(strip, 199, _identity(), "RGB", 1.0, 20000, MA, IDLE)
    bm = bytearray(32)
    bm[77 >> 3] |= 1 << (77 & 7)
    levels = []
    for t in range(0, 1024, 8):
        L.shimmer(bm, 0xFF0000, t)
        levels.append(strip.buf[3 * 76])
    assert max(levels) == (255 * 63) >> 8 and min(levels) == 0
    assert all(abs(levels[i] - levels[i - 1]) <= 1 for i in range(len(levels)))  # wraps around too
    assert levels.count(0) <= 4  # levels 0 and 1 of 256ths: dark on the wire


def test_the_defaults_are_board_json_defaults():
    from sy.hardware import boardconfig
    c = boardconfig.default()["leds"]
    strip, strip2 = MemStrip(199), MemStrip(199)
    a = Leds(strip, 199, _identity())
    b = Leds(strip2, 199, _identity(), c["order"], c["brightness"], c["current_limit_ma"], c["ma_per_channel"],
             c["idle_ma_per_led"])
    assert (a.budget, a.bright, a.pr, a.pg, a.pb, a.idle_ma, a.tenth_ma_per_channel) == (
        b.budget, b.bright, b.pr, b.pg, b.pb, b.idle_ma, b.tenth_ma_per_channel)


def test_lights_left_alone_after_a_capped_frame_come_back_to_full():
    # only some LEDs change after a capped frame: the ones left alone (at the end of the chain
    # too) are back at their full colour once the frame is under the limit again
    for order in ("RGB", "GRB"):
        strip = MemStrip(199)
        L = Leds(strip, 199, _identity(), order, 1.0, 600, MA, IDLE)
        for s in range(1, 200):
            L.put(s, 255, 255, 255)
        L.show()
        assert L.capped and strip.buf[3 * 198] < 255
        for s in range(1, 195):
            L.put(s, 0, 0, 0)
        L.show()  # 5 white LEDs: 300 mA + 199 mA idle
        assert not L.capped
        assert not any(strip.buf[:3 * 194]) and all(v == 255 for v in strip.buf[3 * 194:]), order
