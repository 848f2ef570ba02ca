# Runs under the MicroPython unix port (host/benchmarks/firmware.py starts it): the board's App
# in-process with memory-backed hardware. Prints one JSON line of figures.
import gc
import json
import sys
import time

from inprocess import InProcessBoard, play_game

folder = sys.argv[1] if len(sys.argv) > 1 else "/tmp/fwbench"


def idle_alloc(tb, cycles=1000):
    tb.run(50)  # settle caches (first-call allocations)
    gc.collect()
    before = gc.mem_alloc()
    tb.run(cycles)
    return gc.mem_alloc() - before


def idle_us(tb, cycles=1000):
    app = tb.app
    now = tb.now
    t0 = time.ticks_us()
    for _ in range(cycles):
        now += 5
        app.cycle(now)
    tb.now = now
    return time.ticks_diff(time.ticks_us(), t0) / cycles


def reference_us(n=1000):
    """A fixed loop of small-int work and bytearray access: the same on every port."""
    buf = bytearray(32)
    t0 = time.ticks_us()
    for i in range(n):
        buf[i & 31] = (buf[(i + 1) & 31] + i) & 0xFF
    return time.ticks_diff(time.ticks_us(), t0) / n * 25  # ~ a 25-byte bitmap pass


tb = InProcessBoard(folder)
tb.command("hello", proto=1)
tb.command("setup", detectives=[13, 26, 29, 34, 50])
for s in (13, 26, 29, 34, 50):
    tb.place(s)
alloc_wait = idle_alloc(tb)          # waiting for Mister X (animation running)
tb.command("mrx", ticket="taxi")
alloc_turn = idle_alloc(tb)          # detectives' turn, pieces pulsing
tb.lift(13)
alloc_lift = idle_alloc(tb)          # a piece in hand, destinations lit
tb.place(13)
cycle_us = min(idle_us(tb), idle_us(tb), idle_us(tb))
ref_us = min(reference_us(), reference_us(), reference_us())

tb = InProcessBoard(folder)
play = play_game(tb)
gc.collect()
print(json.dumps({
    "scan_alloc_bytes": max(alloc_wait, alloc_turn, alloc_lift),
    "scan_alloc_detail": {"mrx_wait": alloc_wait, "detectives_turn": alloc_turn, "piece_lifted": alloc_lift},
    "scan_cycle_us": round(cycle_us, 2),
    "reference_loop_us": round(ref_us, 2),
    "scan_cycle_ratio": round(cycle_us / ref_us, 2),
    "place_to_frame_cycles": tb.ptf_max,
    "inprocess_game": {"result": play["result"], "reason": play["reason"], "round": play["round"],
                       "cycles": tb.app.cycles},
}))
