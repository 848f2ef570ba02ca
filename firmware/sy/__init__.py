"""Scotland Yard board: the code that ships to the board (also importable on the host).

Its layers, bottom up: rules (the game's rules, pure) and maps (generated map data); hardware
(board.json, reeds, LEDs, debounce, real or simulated backends); storage (the power-cut-safe
journal and snapshot); play (the Board's game flow); link (serial lines, the line protocol and the
command handlers); europe (Mister X - Flight through Europe, a board of its own). start builds
the board at boot, app runs its main loop. docs/architecture.md.
"""
import sys


def forget(name):
    """Drop the module sy.<name> ('rules.gamestart'; used at boot or for one command), so the GC can
    take its code back: out of sys.modules and out of its package."""
    full = "sy." + name
    sys.modules.pop(full, None)
    package = sys.modules.get(full[:full.rfind(".")])
    leaf = name[name.rfind(".") + 1:]
    if package is not None and hasattr(package, leaf):
        delattr(package, leaf)
