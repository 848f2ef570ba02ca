"""WS2812B output on an RP2040 by a PIO state machine fed by DMA: the CPU starts a frame and goes on.

MicroPython's `neopixel` on a Pico bit-bangs the chain (`machine.bitstream`) with interrupts off:
6 ms for 199 LEDs, a reed scan held up by every frame (the scan loop's longest plain cycle, ~10 ms
on the emulated Pico, docs/pico.md). Here PIO 0's state machine 0 shifts the bits out at the
WS2812's 800 kHz, and a DMA channel paced by its FIFO feeds it the frame's bytes; write() costs
the CPU tens of microseconds. The program is the one of MicroPython's rp2 examples: each bit is
10 cycles at 8 MHz (1.25 us), high 875 ns for a 1, 250 ns for a 0.
Same interface as neopixel.NeoPixel for sy/hardware/leds.py: `buf` (3 bytes an LED, wire order),
`write()`, and `wait()`: the DMA reads `buf` while the frame goes out, so Leds.clear() waits for
it before the next frame is drawn into it (frames come 5 ms apart at the closest, and one takes
6 ms: a wait of a millisecond, now and then). One buffer: a second would cost 597 bytes of heap.
"""
import rp2
from machine import Pin
from time import ticks_us, ticks_add, ticks_diff

TYPE_CHECKING = False  # a type checker takes it as true: the PIO assembler's names, which
if TYPE_CHECKING:  # rp2.asm_pio gives the program below only when it assembles it
    from rp2.asm_pio import *  # noqa: F403

_DREQ_PIO0_TX0 = 0  # RP2040 datasheet 2.5.3.1: the DMA pacing signal of PIO 0's state machine 0
_LATCH_US = 80  # the chain latches a frame once its data line stays low 50 us (WS2812B: > 50 us)
_US_PER_BYTE = 10  # 8 bits of 1.25 us


@rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW, out_shiftdir=rp2.PIO.SHIFT_LEFT, autopull=True, pull_thresh=8)
def _ws2812():
    # a byte written to the FIFO fills all four lanes of its word: 8 bits from the top, MSB first
    wrap_target()
    label("bit")
    out(x, 1).side(0)[2]
    jmp(not_x, "zero").side(1)[1]
    jmp("bit").side(1)[4]
    label("zero")
    nop().side(0)[4]
    wrap()


class PioStrip:
    def __init__(self, pin, count):
        self.buf = bytearray(3 * count)
        self._sm = rp2.StateMachine(0, _ws2812, freq=8_000_000, sideset_base=Pin(pin))
        self._sm.active(1)
        self._dma = rp2.DMA()
        self._ctrl = self._dma.pack_ctrl(size=0, inc_write=False, treq_sel=_DREQ_PIO0_TX0)
        self._frame_us = _US_PER_BYTE * len(self.buf) + _LATCH_US  # one frame on the wire, latched
        self._done = ticks_us()  # when the last frame is out and latched
        self.stalls = 0  # frames whose DMA had to be stopped (wait())

    def wait(self):
        """Until the last frame is out of `buf` and latched: at most a frame's time after write().
        A deadline further off than that is one long past, read across the µs ticks' wrap (a
        frame written 9 minutes before: the ticks wrap every 18); waiting for it would hold the
        board for minutes. A transfer still running a frame's time on is stopped: that frame is
        lost, not the board."""
        while 0 < ticks_diff(self._done, ticks_us()) <= self._frame_us:
            pass
        if self._dma.active():
            limit = ticks_add(ticks_us(), self._frame_us)
            while self._dma.active():
                if ticks_diff(ticks_us(), limit) > 0:
                    self._dma.active(0)
                    self.stalls += 1
                    break

    def write(self):
        self.wait()
        self._done = ticks_add(ticks_us(), self._frame_us)
        self._dma.config(read=self.buf, write=self._sm, count=len(self.buf), ctrl=self._ctrl, trigger=True)
