"""The CircuitPython/Blinka LED backend: plain cases under CPython and MicroPython, and the real
Adafruit NeoPixel library under Blinka's OS-agnostic mock board (BLINKA_OS_AGNOSTIC=1)."""
import os
import subprocess
import sys

from mpy import ROOT, run_plain_tests
from leds_circuitpython_cases import *  # noqa: F401,F403

HERE = os.path.dirname(os.path.abspath(__file__))

# Blinka picks its board when `board` is first imported, so the check runs in a fresh interpreter.
BLINKA_SCRIPT = r'''
import board, neopixel
from sy.hardware import boardconfig
from sy.hardware.leds import Leds
from sy.hardware.leds_circuitpython import NeoPixelStrip

sent = []
neopixel.neopixel_write = lambda pin, buf: sent.append((pin, bytes(buf)))  # what goes on the wire

cfg = boardconfig.default("pico")
cfg["leds"]["index"] = [198 - i for i in range(199)]  # station 1 is the chain's last LED
strip = NeoPixelStrip(cfg, pin=board.NEOPIXEL)
lc = cfg["leds"]
leds = Leds(strip, lc["count"], lc["index"], lc["order"], lc["brightness"], lc["current_limit_ma"],
            lc["ma_per_channel"], lc["idle_ma_per_led"])
leds.put(1, 255, 0, 0)
leds.put(2, 0, 0, 200)
leds.show()
assert len(sent) == 1, len(sent)
pin, wire = sent[0]
assert pin._pin.id == board.NEOPIXEL.id, pin  # a DigitalInOut on the configured pin
assert len(wire) == 3 * 199
assert wire == bytes(strip.buf), "the Adafruit library changed the bytes"
# GRB wire order, brightness 0.25: station 1 red -> LED 198 = (G 0, R 63/64, B 0)
g, r, b = wire[3 * 198: 3 * 199]
assert g == 0 and 60 <= r <= 64 and b == 0, (g, r, b)
g, r, b = wire[3 * 197: 3 * 198]
assert (g, r) == (0, 0) and 48 <= b <= 50, (g, r, b)
assert sum(wire[: 3 * 197]) == 0
print("blinka ok", r, b)
'''


def test_blinka_neopixel_end_to_end():
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1", PYTHONPATH=os.pathsep.join(
        [os.path.join(ROOT, "firmware"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", BLINKA_SCRIPT], env=env, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "blinka ok" in proc.stdout


def test_leds_circuitpython_cases_under_micropython():
    run_plain_tests(os.path.join(HERE, "leds_circuitpython_cases.py"), "64k")
