"""Build the board at power-up: load the config, make the hardware, the link and the App.

main.py imports this module, calls build() and drops it again, so none of this code stays on the
heap while the game runs. The config is read first and boiled down to small objects, and its
module is dropped, before the game's code is imported: the heap peak of the boot is not added to
the game's. Then the game's code is loaded, and only then its buffers are made: they fill the
holes loading leaves (measured: 1 KB less heap than making them first, docs/memory.md).
On a board the link is USB serial (the REPL's stdin/stdout). Under the unix port (the simulator),
SY_SIM names the folder with the simulated hardware files and the "flash" (state, journal).
"""
import gc
import os
import sys

from sy import forget

def _hardware(folder, sim):
    from sy.hardware import boardconfig, backends as hw
    path = (folder + "/board.json") if folder else boardconfig.DEFAULT_PATH
    try:
        try:
            cfg = boardconfig.load(path)
        except boardconfig.ConfigError:
            from sy.play.deadreed import recover  # a rewrite of reeds.dead cut by a power cut
            if not recover(path):
                raise
            forget("play.deadreed")
            cfg = boardconfig.load(path)
    except boardconfig.ConfigError as e:
        import json
        print(json.dumps({"note": "config_error", "key": e.key}))  # the key at fault (None: the file); the host words it
        return None
    inputs, leds = hw.simulated(cfg, folder) if sim else hw.real(cfg)
    small = hw.compact(cfg)
    forget("hardware.boardconfig")
    forget("hardware.backends")
    return inputs, leds, small


def build():
    """The App, ready to run; None on a config error (reported on the serial link)."""
    sim = sys.platform == "linux" and (os.getenv("SY_SIM") or "sim")
    folder = sim if sim else ""
    got = _hardware(folder, sim)
    gc.collect()
    if got is None:
        return None
    inputs, leds, small = got
    from sy.app import App
    from sy.storage.store import Store
    from sy.link.lines import Link
    from sy.hardware.debounce import Debouncer
    from sy.rules import mapgraph
    gc.collect()
    link = Link(sys.stdin.buffer, sys.stdout)
    small["debouncer"] = Debouncer(small["chips"] + 1, small["debounce_ms"])
    graph = mapgraph.load(small["map"])
    gc.collect()
    app = App(small, inputs, leds, link, Store(folder + "/flash" if sim else "game"), graph,
              "sim" if sim else small["board"])
    if small["dead"]:  # reeds out of service (board.json reeds.dead): the board's work-around
        from sy.play.blind import Blind
        app.board.blind = Blind(small["dead"])
    return app
