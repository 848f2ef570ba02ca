"""LED backend for CircuitPython boards and for a Raspberry Pi driving the WS2812B chain directly
through Blinka: the Adafruit NeoPixel API (adafruit-circuitpython-neopixel).

It offers what sy.hardware.leds.Leds needs from MicroPython's neopixel.NeoPixel: ``buf`` (a bytearray of
count*3 bytes in the chain's wire order, already scaled) and ``write()``. sy.hardware.leds applies the
colour order, the brightness and the current cap itself, so the Adafruit object is made with
pixel_order RGB (bytes pass through unchanged), brightness 1.0 (no second scaling) and
auto_write False (one show() per frame).

    strip = NeoPixelStrip(cfg)            # cfg from sy.hardware.boardconfig.load()
    leds = Leds(strip, cfg["leds"]["count"], cfg["leds"]["index"], ...)
"""

# names a GPIO number goes by in the `board` module: CircuitPython Pico (GP22), ESP32-S2/S3
# boards (IO5), Raspberry Pi under Blinka (D18: GPIO 10, 12, 18 or 21 drive WS2812B there)
_PIN_NAMES = ("GP%d", "IO%d", "D%d", "GPIO%d")


def board_pin(number, board_module=None):
    """The `board` pin object for a GPIO number, or ValueError naming what was tried."""
    if board_module is None:
        import board as board_module
    for fmt in _PIN_NAMES:
        pin = getattr(board_module, fmt % number, None)
        if pin is not None:
            return pin
    raise ValueError("leds.pin: this board has no pin " + " / ".join([f % number for f in _PIN_NAMES]))


class NeoPixelStrip:
    def __init__(self, cfg, pin=None, neopixel_module=None, board_module=None):
        led = cfg["leds"]
        self.count = led["count"]
        self.buf = bytearray(3 * self.count)
        if neopixel_module is None:
            import neopixel as neopixel_module
        if pin is None:
            pin = board_pin(led["pin"], board_module)
        self.pixels = neopixel_module.NeoPixel(pin, self.count, bpp=3, brightness=1.0, auto_write=False,
                                               pixel_order="RGB")

    def write(self, frame=None):
        """Send buf (or frame, same layout) to the chain: count*3 bytes in wire order."""
        b = self.buf if frame is None else frame
        p = self.pixels
        for i in range(self.count):
            k = 3 * i
            p[i] = (b[k], b[k + 1], b[k + 2])
        p.show()

    def deinit(self):
        self.pixels.deinit()
