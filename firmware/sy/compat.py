"""What MicroPython has and CPython lacks, for the board's code when CPython runs it (the host,
the tests): micropython.const and time's ticks_ms, ticks_us, ticks_diff, sleep_ms.

The board's modules try MicroPython's own names first and import these only when that fails, which
never happens on a board: so this module is not flashed (host/device/mpy_build.py NOT_ON_BOARD). Kept apart because
on the board every function, even one in a branch that never runs, is loaded onto the heap with
its module (docs/memory.md).
"""
import time


def const(x):
    return x


def ticks_ms():
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


def ticks_us():
    return int(time.monotonic() * 1000000) & 0x3FFFFFFF


def ticks_diff(a, b):
    return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000


def sleep_ms(ms):
    time.sleep(ms / 1000)
