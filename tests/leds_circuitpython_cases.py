"""sy.hardware.leds_circuitpython with a hand-written stand-in for the Adafruit NeoPixel class: plain
functions, run by pytest and under MicroPython (CircuitPython is a MicroPython port)."""
from sy.hardware import boardconfig
from sy.hardware.leds_circuitpython import NeoPixelStrip, board_pin


class FakeNeoPixel:
    made = []

    def __init__(self, pin, n, bpp=3, brightness=1.0, auto_write=True, pixel_order="GRB"):
        self.pin, self.n, self.bpp = pin, n, bpp
        self.brightness, self.auto_write, self.pixel_order = brightness, auto_write, pixel_order
        self.pixels = [(0, 0, 0)] * n
        self.shown = []
        self.deinited = False
        FakeNeoPixel.made.append(self)

    def __len__(self):
        return self.n

    def __setitem__(self, i, rgb):
        self.pixels[i] = rgb

    def show(self):
        self.shown.append(list(self.pixels))

    def deinit(self):
        self.deinited = True


class FakeNeopixelModule:
    NeoPixel = FakeNeoPixel


class FakeBoard:
    GP22 = "pin GP22"
    D18 = "pin D18"


def _strip(**kw):
    return NeoPixelStrip(boardconfig.default("pico"), neopixel_module=FakeNeopixelModule, **kw)


def test_made_with_pass_through_settings():
    s = _strip(board_module=FakeBoard)
    p = s.pixels
    assert p.pin == "pin GP22" and p.n == 199 and p.bpp == 3
    # sy.hardware.leds scales and orders the bytes: the Adafruit object must not do it again
    assert p.brightness == 1.0 and p.auto_write is False and p.pixel_order == "RGB"
    assert len(s.buf) == 3 * 199


def test_write_sends_buf_bytes_in_order_once():
    s = _strip(pin="P")
    s.buf[0] = 1
    s.buf[1] = 2
    s.buf[2] = 3
    s.buf[3 * 198 + 2] = 255
    s.write()
    assert len(s.pixels.shown) == 1
    frame = s.pixels.shown[0]
    assert frame[0] == (1, 2, 3) and frame[198] == (0, 0, 255) and frame[1] == (0, 0, 0)


def test_write_takes_an_explicit_frame():
    s = _strip(pin="P")
    f = bytearray(3 * 199)
    f[3 * 5 + 1] = 9
    s.write(f)
    assert s.pixels.shown[0][5] == (0, 9, 0)
    s.deinit()
    assert s.pixels.deinited


def test_board_pin_names():
    assert board_pin(22, FakeBoard) == "pin GP22"
    assert board_pin(18, FakeBoard) == "pin D18"
    try:
        board_pin(5, FakeBoard)
    except ValueError as e:
        assert "GP5" in str(e) and "D5" in str(e)
    else:
        raise AssertionError("found a pin the board does not have")
