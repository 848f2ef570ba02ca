"""Standalone: a SimBoard, an automatic Mister X and the page.

    python -m host.web [--players 1] [--seed 7] [--port 8765] [--mrx-delay 1.0]

`yard sim` is the real entry point (Mister X's console in the terminal); this one is for trying the
page alone and for the browser tests. With --mrx none nobody sets up a game: connect a console
to the printed serial port.
"""
import argparse
import sys
import time

from host.simulator.board import SimBoard
from host.web import start_web
from host.web.automrx import AutoMrX


def _stations(text):
    return [int(x) for x in text.split(",")] if text else None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host.web", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default: any free one)")
    ap.add_argument("--players", type=int, default=1, help="detective players, 1 = the two-player game")
    ap.add_argument("--seed", type=int, default=None,
                    help="repeat the automatic Mister X: for demos and tests, not for real games")
    ap.add_argument("--detectives", help="start stations of detectives then bobbies, e.g. 13,26,29,34")
    ap.add_argument("--mrx-start", type=int, help="Mister X's start station (for tests)")
    ap.add_argument("--mrx", choices=("auto", "none"), default="auto")
    ap.add_argument("--mrx-delay", type=float, default=1.0, help="seconds Mister X 'thinks'")
    ap.add_argument("--heap", default="512k", help="MicroPython heap of the simulated board")
    args = ap.parse_args(argv)
    sim = SimBoard(heapsize=args.heap).start()
    mrx = None
    if args.mrx == "auto":
        mrx = AutoMrX(sim.port, args.players, args.seed, _stations(args.detectives), args.mrx_start,
                      args.mrx_delay).start()
    url, stop = start_web(sim, port=args.port)
    if mrx is not None:
        stop.webboard.commander = lambda cmd, **a: mrx.link.request(cmd, **a)  # the page's `reed`
    print("simulated board: %s   (serial port %s)" % (url, sim.port), flush=True)
    try:
        while True:
            time.sleep(1)
            if mrx and mrx.error:
                print("auto Mister X stopped: %s" % mrx.error, file=sys.stderr, flush=True)
                mrx = None
    except KeyboardInterrupt:
        pass
    finally:
        if mrx:
            mrx.stop()
        stop()
        sim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
