"""A small stand-in for MicroPython's machine module on the unix port (tests only)."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    levels = {}  # pin id -> level seen by value() for inputs (tests set it)

    def __init__(self, pin, mode=-1, pull=-1):
        self.id = pin
        self.mode = mode
        self.pull = pull
        self.log = []
        if pin not in Pin.levels:
            Pin.levels[pin] = 1 if pull == Pin.PULL_UP else 0

    def value(self, v=None):
        if v is None:
            return Pin.levels[self.id]
        Pin.levels[self.id] = v
        self.log.append(v)


class SPI:
    def __init__(self, spi_id, baudrate=1000000, polarity=0, phase=0, sck=None, mosi=None, miso=None):
        self.id = spi_id
        self.baudrate = baudrate
        self.polarity = polarity
        self.phase = phase
        self.data = b""  # what the shift-register chain would shift out next

    max_baud = None  # tests: above this clock the chain's reads go wrong (a long ribbon)

    def init(self, baudrate=None, polarity=None, phase=None):
        if baudrate is not None:
            self.baudrate = baudrate
        if polarity is not None:
            self.polarity = polarity
        if phase is not None:
            self.phase = phase
        self.reads = 0

    def readinto(self, buf, write=0):
        for i in range(len(buf)):
            buf[i] = self.data[i] if i < len(self.data) else 0xFF
        self.reads = getattr(self, "reads", 0) + 1
        if self.max_baud and self.baudrate > self.max_baud and self.reads % 3 == 0:
            buf[self.reads % len(buf)] ^= 0x01  # a double-clocked bit, every third read
