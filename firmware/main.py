"""The board's entry point: load the config, build the hardware, resume the game, run.

On a board the link is USB serial (the REPL's stdin/stdout). Under the unix port (the simulator),
SY_SIM names the folder with the simulated hardware files and the "flash" (state, journal).
Ctrl-C ends the loop so the REPL (and mpremote) can take over.
The config is read first and boiled down to small objects, and its module is dropped, before the
game's code is imported: the heap peak of the boot is not added to the game's.
"""
import gc
import sys
import os


def _drop(name):
    """Forget a module used only at boot, so the GC can take its code back."""
    import sy
    sys.modules.pop("sy." + name, None)
    if hasattr(sy, name):
        delattr(sy, name)


def _hardware(folder, sim):
    from sy import boardconfig, hw
    try:
        cfg = boardconfig.load((folder + "/board.json") if folder else boardconfig.DEFAULT_PATH)
    except boardconfig.ConfigError as e:
        import json
        print(json.dumps({"note": "config_error", "message": str(e)}))
        return None
    inputs, leds = hw.simulated(cfg, folder) if sim else hw.real(cfg)
    small = hw.compact(cfg)
    _drop("boardconfig")
    _drop("hw")
    return inputs, leds, small


def main():
    import sy
    if getattr(sy, "safe_mode", False):
        return
    sim = sys.platform == "linux" and (os.getenv("SY_SIM") or "sim")
    folder = sim if sim else ""
    got = _hardware(folder, sim)
    gc.collect()
    if got is None:
        return
    inputs, leds, small = got
    # the long-lived buffers first, while the heap is still in one piece
    from sy.link import Link
    from sy.debounce import Debouncer
    from sy import mapgraph
    link = Link(sys.stdin.buffer, sys.stdout)
    small["debouncer"] = Debouncer(small["chips"] + 1, small["debounce_ms"])
    graph = mapgraph.load(small["map"])
    gc.collect()
    from sy.app import App
    from sy.store import Store
    app = App(small, inputs, leds, link, Store(folder + "/flash" if sim else "game"), graph,
              "sim" if sim else small["board"])
    global board_app
    board_app = app  # reachable from the REPL after Ctrl-C
    gc.collect()
    try:
        app.run()
    except KeyboardInterrupt:
        print("\nboard stopped (Ctrl-C); REPL free. main.main() restarts the game")


main()
