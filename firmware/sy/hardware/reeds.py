"""Reed switches: a chain of 74HC165 shift registers read as one bitmap over SPI.

Chain bit k is bit 0x80 >> (k & 7) of byte k >> 3 (SPI delivers MSB first: the chip nearest the
MCU comes first). The station -> bit map lives in the board config; this driver knows no stations.

The chain proves itself in every scan: the last board's input D0 (chain bit chips * 8 - 1, the
one input no station uses) is wired to GND, and its SER is held high by its resistor network, so
the byte clocked out after the chain reads 0xFF. A bit lost on the way (a cut ribbon, an edge not
taken) leaves the marker high; a bit taken twice pushes the marker into that extra byte. Such a
scan is refused: the bitmap keeps the last good scan (no phantom moves) and `fault` says what the
chain did until a scan is good again.
"""

CHAIN_OK = -2   # fault when the last scan was good
SHORT = 1       # the marker bit read high: a bit lost, or the chain cut
LONG = 2        # the byte after the chain was not all ones: a bit taken twice


class ShiftReeds:
    """scan(bitmap) fills bitmap[0:chips] with 1 = switch closed. No allocation."""

    baudrate = 0    # the configured SPI clock and mode (set by sy.hardware.backends.real): service mode's bus
    spi_mode = 0    # check (svc_bus) changes the clock and restores these

    def __init__(self, spi, load_pin, chips, active_low=True):
        self.spi = spi
        self.load = load_pin
        self.chips = chips
        self.invert = active_low
        self.raw = bytearray(chips + 1)   # the chain as clocked out, and the byte after it
        # CHAIN_OK, or the last module whose inputs showed a closed reed before the chain lied
        # (-1: none); the fault lies after it. kind: SHORT or LONG; faults: scans refused since boot
        self.fault = CHAIN_OK
        self.kind = 0
        self.faults = 0
        self.lied = CHAIN_OK    # fault and kind of the last refused scan, kept (service mode's bus check)
        self.lied_kind = 0
        load_pin.value(1)

    def scan(self, bitmap):
        load = self.load
        load.value(0)  # /PL low: every 74HC165 latches its 8 inputs in parallel
        load.value(1)
        raw = self.raw
        self.spi.readinto(raw)
        chips = self.chips
        if raw[chips] != 0xFF:
            self.kind = LONG
        elif raw[chips - 1] & 1:
            self.kind = SHORT
        else:
            if self.invert:  # a closed reed pulls its input low
                for i in range(chips):
                    bitmap[i] = raw[i] ^ 0xFF
            else:
                for i in range(chips):
                    bitmap[i] = raw[i]
            self.fault = CHAIN_OK
            return
        self.faults += 1
        # the last module with a closed reed (or the marker) was heard; the marker's bit and its
        # neighbour (where a lost bit moves it) do not count
        idle = 0xFF if self.invert else 0   # an open reed's level
        k = chips - 1
        while k >= 0 and (raw[k] ^ idle) & (0xFC if k == chips - 1 else 0xFF) == 0:
            k -= 1
        self.fault = self.lied = k
        self.lied_kind = self.kind


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
        # the reed chain's check (ShiftReeds.fault and kind) after each scan, for the main loop
        self.chain_fault = CHAIN_OK
        self.chain_kind = 0

    def scan(self, bitmap):
        if self._view is None:
            self._view = memoryview(bitmap)[:self.chips]  # made once
        self.reeds.scan(self._view)
        self.chain_fault = self.reeds.fault
        self.chain_kind = self.reeds.kind
        bitmap[self.chips] = self.buttons.read() if self.buttons else 0
