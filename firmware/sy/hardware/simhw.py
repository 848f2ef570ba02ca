"""Simulated hardware behind the same interfaces as the real drivers.

File-backed (for host/simulator/board.py, which drives a firmware process from outside):
  inputs file: chips bytes of reed chain bits (1 = closed) + 1 byte of buttons, rewritten by the
               simulator; scan() re-reads it in place (seek + readinto: no allocation).
  leds file:   u32 frame seq, u32 scan cycle, 3*count wire bytes, u32 frame seq again (a reader
               retries when the two seqs differ).
Memory-backed stand-ins for in-process tests and the benchmark are in tests/testkit.py.
"""


class FileInputs:
    chain_fault = -2   # sy.hardware.reeds.CHAIN_OK: the simulator's chain never lies
    chain_kind = 0

    def __init__(self, path, nbytes):
        self.path = path
        self.nbytes = nbytes
        self.f = open(path, "rb")

    def scan(self, bitmap):
        f = self.f
        f.seek(0)
        n = f.readinto(bitmap)
        if n != self.nbytes:  # the simulator is rewriting it: keep the old tail
            pass


def _put_u32(buf, at, v):
    buf[at] = v & 0xFF
    buf[at + 1] = (v >> 8) & 0xFF
    buf[at + 2] = (v >> 16) & 0xFF
    buf[at + 3] = (v >> 24) & 0xFF


class FileStrip:
    """Stands for neopixel.NeoPixel: .buf in wire order, write() publishes it to a file."""

    def __init__(self, path, count):
        self.whole = bytearray(12 + 3 * count)
        self.buf = memoryview(self.whole)[8:8 + 3 * count]
        self.seq = 0
        self.cycle = 0  # set by the main loop before show(): lets tests count cycles to a frame
        self.f = open(path, "wb")
        self.write()

    def write(self):
        self.seq += 1
        w = self.whole
        _put_u32(w, 0, self.seq)
        _put_u32(w, 4, self.cycle)
        _put_u32(w, len(w) - 4, self.seq)
        f = self.f
        f.seek(0)
        f.write(w)
