"""The board's entry point: load the config, build the hardware, resume the game, run.

On a board the link is USB serial (the REPL's stdin/stdout). Under the unix port (the simulator),
SY_SIM names the folder with the simulated hardware files and the "flash" (state, journal).
Ctrl-C ends the loop so the REPL (and mpremote) can take over.
"""
import sys
import os

from sy import boardconfig
from sy.app import App
from sy.link import Link
from sy.store import Store
from sy import hw


def main():
    import sy
    if getattr(sy, "safe_mode", False):
        return
    sim = sys.platform == "linux" and (os.getenv("SY_SIM") or "sim")
    folder = sim if sim else ""
    try:
        cfg = boardconfig.load((folder + "/board.json") if folder else boardconfig.DEFAULT_PATH)
    except boardconfig.ConfigError as e:
        import json
        print(json.dumps({"note": "config_error", "message": str(e)}))
        return
    if sim:
        inputs, leds = hw.simulated(cfg, folder)
    else:
        inputs, leds = hw.real(cfg)
    from sy import mapgraph
    graph = mapgraph.load(cfg["map"])
    link = Link(sys.stdin.buffer, sys.stdout)
    app = App(cfg, inputs, leds, link, Store(folder + "/flash" if sim else "game"), graph,
              "sim" if sim else cfg["board"])
    global board_app
    board_app = app  # reachable from the REPL after Ctrl-C
    try:
        app.run()
    except KeyboardInterrupt:
        print("\nboard stopped (Ctrl-C); REPL free. import main; main.main() to restart")


main()
