"""The board's main loop for a Europe game (firmware/europe_main.py starts it): scan -> debounce
-> EuropeBoard -> link -> frame. The London loop (sy/app.py) is not loaded, nor the London rules.

On a board the map is the module sy.maps.europe (tools/gen_map.py --europe); under the unix port
(the simulator) SY_EUROPE_MAP names another (e.g. europe_testmap).
"""
import gc
import json
import os
import sys

from sy.hardware.debounce import Debouncer
from sy.link.lines import Link

try:
    from time import ticks_ms, ticks_diff, sleep_ms
    from micropython import const
except ImportError:  # CPython
    from sy.compat import ticks_ms, ticks_diff, sleep_ms, const

FRAME_MS = 40
# bytes allocated between MicroPython's own collections: the London loop's pace (sy/app.py), so a
# Europe game's heap is measured against the same budget (docs/memory.md)
GC_EVERY = 12 * 1024
_MEM = hasattr(gc, "mem_alloc")  # MicroPython (CPython frees by reference counting)
# sy.hardware.reeds.CHAIN_OK: the chain's check when the last scan was good (that module is the real
# board's, loaded by its inputs; the simulator's inputs say the same without it)
CHAIN_OK = const(-2)


class EuropeApp:
    def __init__(self, hwcfg, inputs, leds, link, map_name):
        chips = hwcfg["chips"]
        self.chips = chips
        self.inputs = inputs
        self.leds = leds
        self.link = link
        self.nbits = chips * 8
        self.bitmap = bytearray(chips + 1)
        self.debouncer = Debouncer(chips + 1, hwcfg["debounce_ms"])
        self.bit_station = hwcfg["bit_station"]
        self.period = max(1, 1000 // hwcfg["scan_hz"])
        from sy.europe import graph as europe_graph
        from sy.europe.board import EuropeBoard  # the game's code, loaded after the config is gone
        europe_graph.load(map_name)  # a missing map is an error at boot, not at the first game

        def load(name):
            return europe_graph.load(name or map_name)
        self.board = EuropeBoard(leds, link.send_json, load)
        self.cycles = 0
        self.last_frame = 0
        self.mem_peak = 0  # heap in use after events and commands, right before collecting (bytes)
        self.watch_heap = False  # read mem_peak at each collection (the `mem` command's `watch`)
        # the reed chain checks itself (sy.hardware.reeds): a refused scan leaves the bitmap as it
        # was; while it lies the game is paused by sy/play/chainpause.py, loaded only then
        self.chain = inputs if hasattr(inputs, "chain_fault") else None
        self.chain_fault = CHAIN_OK
        self.chain_kind = 0

    def _collect(self):
        # read only while watched: gc.mem_alloc() walks the heap as long as a collection does
        if _MEM and self.watch_heap:
            used = gc.mem_alloc()
            if used > self.mem_peak:
                self.mem_peak = used
        gc.collect()

    def _send_record(self, ident):
        """The `record` command's reply, {"id", "ok", "lines": [...]}, one line of the file at a time."""
        tx = self.link.tx
        tx.write('{"id": ')
        json.dump(ident, tx)
        tx.write(', "ok": true, "lines": [')
        sep = ""
        for text in self.board.record_lines():
            tx.write(sep)
            json.dump(text, tx)
            sep = ", "
        tx.write("]}\n")

    def mem(self, obj):
        """The `mem` command: the heap after a collection, and the peak since `reset`."""
        if obj.get("reset"):
            self.mem_peak = 0
        if obj.get("watch") is not None:
            self.watch_heap = bool(obj.get("watch"))
        gc.collect()
        if not _MEM:
            return {"ok": True}
        return {"ok": True, "alloc": gc.mem_alloc(), "free": gc.mem_free(), "peak": self.mem_peak}

    def start(self, now):
        self.inputs.scan(self.bitmap)
        self.debouncer.prime(self.bitmap)
        self.board.read_reeds(self.bitmap, self.bit_station, self.nbits)
        self.link.send_json({"note": "ready", "game": "europe"})
        self.board.render(now)
        self.last_frame = now

    def cycle(self, now):
        self.cycles += 1
        bitmap = self.bitmap
        self.inputs.scan(bitmap)
        chain = self.chain
        if chain is not None and (chain.chain_fault != self.chain_fault or chain.chain_kind != self.chain_kind):
            from sy.play import chainpause  # the game paused or going on (dropped when whole)
            chainpause.follow(self)
        deb = self.debouncer
        board = self.board
        # while the chain lies the game is paused: the reeds and the buttons held
        if self.chain_fault == CHAIN_OK and deb.update(bitmap, now):
            board.now = now
            while True:
                v = deb.pop()
                if v < 0:
                    break
                bit = v >> 1
                if bit < self.nbits:
                    s = self.bit_station[bit]
                    if s:
                        board.switch(s, v & 1)
                elif v & 1:
                    board.button(bit - self.nbits)
            self._collect()
        r = self.link.poll()
        if r:
            reply = None
            if r == 1:
                text = self.link.take()
                try:
                    obj = json.loads(text)
                except ValueError:
                    obj = None
                if isinstance(obj, dict) and obj.get("cmd") == "record":
                    self._send_record(obj.get("id"))  # written as it is read: never whole in RAM
                elif isinstance(obj, dict):
                    reply = {"id": obj.get("id")}
                    reply.update(self.mem(obj) if obj.get("cmd") == "mem" else board.command(obj))
                else:
                    reply = {"id": None, "ok": False, "error": "bad_input", "why": "not_object"}
            else:
                reply = {"id": None, "ok": False, "error": "too_long"}
            if reply:
                self.link.send_json(reply)
            self._collect()
        if board.dirty or ticks_diff(now, self.last_frame) >= FRAME_MS:
            board.dirty = False
            self.last_frame = now
            self.leds.strip.cycle = self.cycles
            board.render(now)

    def run(self):
        now = ticks_ms()
        self.start(now)
        if _MEM:
            gc.threshold(GC_EVERY)
        while True:
            now = ticks_ms()
            self.cycle(now)
            left = self.period - ticks_diff(ticks_ms(), now)
            if left > 0:
                sleep_ms(left)


def build():
    """The EuropeApp with the board's hardware (real, or the simulator's files under SY_SIM)."""
    from sy.hardware import boardconfig, backends as hw
    sim = sys.platform == "linux" and (os.getenv("SY_SIM") or "sim")
    folder = sim if sim else ""
    cfg = boardconfig.load((folder + "/board.json") if folder else boardconfig.DEFAULT_PATH)
    inputs, leds = hw.simulated(cfg, folder) if sim else hw.real(cfg)
    small = hw.compact(cfg)
    del cfg
    # the config's code is needed once: dropped before the game's code loads (as sy/start.py does)
    from sy import forget
    forget("hardware.boardconfig")
    forget("hardware.backends")
    gc.collect()
    link = Link(sys.stdin.buffer, sys.stdout)
    return EuropeApp(small, inputs, leds, link, (os.getenv("SY_EUROPE_MAP") if sim else None) or "europe")
