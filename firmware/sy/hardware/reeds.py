"""Reed switches: a chain of 74HC165 shift registers read as one bitmap over SPI.

Chain bit k is bit 0x80 >> (k & 7) of byte k >> 3 (SPI delivers MSB first: the chip nearest the
MCU comes first). The station -> bit map lives in the board config; this driver knows no stations.
"""


class ShiftReeds:
    """scan(bitmap) fills bitmap[0:chips] with 1 = switch closed. No allocation."""

    baudrate = 0    # the configured SPI clock and mode (set by sy.hardware.backends.real): service mode's bus
    spi_mode = 0    # check (svc_bus) changes the clock and restores these

    def __init__(self, spi, load_pin, chips, active_low=True):
        self.spi = spi
        self.load = load_pin
        self.chips = chips
        self.invert = active_low
        load_pin.value(1)

    def scan(self, bitmap):
        load = self.load
        load.value(0)  # /PL low: every 74HC165 latches its 8 inputs in parallel
        load.value(1)
        self.spi.readinto(bitmap)
        if self.invert:  # a closed reed pulls its input low
            for i in range(self.chips):
                bitmap[i] ^= 0xFF


class PinButtons:
    """Four buttons (taxi, bus, underground, confirm) as one byte: 0x80 >> k = button k pressed."""

    def __init__(self, pins, active_low=True):
        self.pins = pins
        self.active_low = active_low

    def read(self):
        v = 0
        low = self.active_low
        k = 0
        for p in self.pins:
            if (p.value() == 0) == low:
                v |= 0x80 >> k
            k += 1
        return v


class BoardInputs:
    """The whole input side as one bitmap: reed chain bytes, then one byte of buttons."""

    def __init__(self, reeds, buttons, chips):
        self.reeds = reeds
        self.buttons = buttons
        self.chips = chips
        self._view = None

    def scan(self, bitmap):
        if self._view is None:
            self._view = memoryview(bitmap)[:self.chips]  # made once
        self.reeds.scan(self._view)
        bitmap[self.chips] = self.buttons.read() if self.buttons else 0
