"""`yard bench firmware`: the board firmware's figures on the MicroPython unix port.

In-process (the App with memory-backed hardware, host/benchmarks/inprocess.py, run by host/benchmarks/firmware_mpy.py):
  scan_alloc_bytes       bytes allocated over 1,000 idle scan cycles (worst of: waiting for Mister X,
                         the detectives' turn, a piece in hand; animation frames included)
  scan_cycle_us          one scan + dispatch cycle (frames included, averaged over 1,000 idle cycles)
  scan_cycle_ratio       scan_cycle_us / a reference loop timed in the same run (port-independent)
  place_to_frame_cycles  worst number of scan cycles from a debounced placement to the LED frame
                         that answers it, over a whole game
Through the serial link (the real firmware process on a pty, host/simulator/board.py):
  heap_peak_bytes        the firmware's heap in use right after handling an event (before the
                         collection that follows it), the maximum over a full 5-detective game
  heap_live_bytes        the heap in use after a collection at the end of that game
  heap_boot_bytes        the heap in use after boot, before a game (bytecode + buffers)
  heap_game_bytes        heap_peak_bytes - heap_boot_bytes: what a game and its events add
  min_heapsize_kb        the smallest -X heapsize (in steps of --step KB) at which that game completes
Note: the unix port keeps imported bytecode in the heap and is 64-bit (objects twice the size of
the RP2040's); on a board with frozen modules the code does not count against the heap.
"""
import json
import os
import subprocess
import tempfile
import time

from host import ROOT
from host.device.mpy_build import compile_inprocess, compile_tree, tool
from host.i18n import _

FIRMWARE = os.path.join(ROOT, "firmware")
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "firmware_mpy.py")  # runs under MicroPython


def add_arguments(parser):
    parser.add_argument("--quick", action="store_true", help=_("skip the heap-size search (one game only)"))
    parser.add_argument("--step", type=int, default=4, help=_("heap-size search step in KB (default 4)"))
    parser.add_argument("--max-kb", type=int, default=256, help=_("largest heap size tried (default 256)"))
    parser.add_argument("--debounce-ms", type=int, default=5,
                        help=_("debounce time of the simulated board for the link games (default 5, for speed)"))


def _inprocess(build, folder):
    env = dict(os.environ)
    env["MICROPYPATH"] = build + ":.frozen"
    proc = subprocess.run([tool("micropython"), "-X", "heapsize=256k", SCRIPT, folder], env=env,
                          capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode or not lines:
        raise RuntimeError("the in-process benchmark failed:\n" + proc.stdout + proc.stderr)
    return json.loads(lines[-1])


def inprocess_figures(tmp):
    """The in-process figures: the firmware and the in-process board (host/benchmarks/inprocess.py),
    nothing else, compiled into tmp/lib and run by firmware_mpy.py."""
    build = os.path.join(tmp, "lib")
    compile_tree(os.path.join(FIRMWARE, "sy"), os.path.join(build, "sy"))
    compile_inprocess(build)  # the in-process board (not firmware)
    return _inprocess(build, os.path.join(tmp, "inproc"))


def _link_game(heap_kb, debounce_ms, folder):
    """(completed, mem reply or None, seconds) of a full game on a SimBoard with that heap."""
    from host.link.boardlink import BoardLink, LinkError
    from host.simulator.board import SimBoard
    from host.simulator.scripted import play_game
    sim = SimBoard(folder=folder, heapsize="%dk" % heap_kb, debounce_ms=debounce_ms)
    t0 = time.monotonic()
    try:
        sim.start()
        link = BoardLink(sim.port, timeout=4)
        link.open()
        boot = link.request("mem")  # before the watcher (sy/cyclewatch.py) is loaded
        watched = link.request("mem", watch=True)
        play_game(sim, link, timeout=4)
        mem = link.request("mem")
        mem["boot"] = boot["alloc"]
        mem["peak"] -= watched["alloc"] - boot["alloc"]  # the board's peak, not the watcher's bytes
        link.close()
        return True, mem, time.monotonic() - t0
    except (LinkError, AssertionError, OSError):
        return False, None, time.monotonic() - t0
    finally:
        sim.stop()


def run(args):
    quick = getattr(args, "quick", False)
    step = getattr(args, "step", 4)
    max_kb = getattr(args, "max_kb", 256)
    debounce = getattr(args, "debounce_ms", 5)
    with tempfile.TemporaryDirectory(prefix="fwbench-") as tmp:
        figures = inprocess_figures(tmp)
        ok, mem, secs = _link_game(max_kb, debounce, os.path.join(tmp, "sim-max"))
        if not ok:
            raise RuntimeError("the full game did not complete on the simulated board at %d KB" % max_kb)
        figures["heap_peak_bytes"] = mem["peak"]
        figures["heap_live_bytes"] = mem["alloc"]
        figures["heap_boot_bytes"] = mem["boot"]  # code + buffers, before any game
        figures["heap_game_bytes"] = mem["peak"] - mem["boot"]  # what a game adds at its peak
        figures["link_game_seconds"] = round(secs, 1)
        if not quick:
            lo, hi = 32, max_kb  # lo fails (assumed), hi completes
            while hi - lo > step:
                mid = (lo + hi) // 2 // step * step or step
                if mid <= lo:
                    break
                done = _link_game(mid, debounce, os.path.join(tmp, "sim-%d" % mid))[0]
                if done:
                    hi = mid
                else:
                    lo = mid
            figures["min_heapsize_kb"] = hi
        figures["targets"] = {"min_heapsize_kb": 80, "scan_alloc_bytes": 0,
                              "place_to_frame_cycles": 2}
    return figures
