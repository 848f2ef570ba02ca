"""Scotland Yard board: the code that ships to the board (also importable on the host)."""
import sys


def forget(name):
    """Drop the module sy.<name> (used at boot or for one command), so the GC can take its code back."""
    sys.modules.pop("sy." + name, None)
    g = globals()
    if name in g:
        del g[name]
