"""Power cuts at every flash erase and program boundary of every kind of save (the board's
firmware on MicroPython's own littlefs, as the Pico mounts it), run on the MicroPython unix port by
host/benchmarks/cutsweep_mpy.py: the exhaustive proof beside the emulated Pico's cuts at chosen
instructions (host/pico/chaos.py). `yard bench pico` reports its figures; tests/test_pico.py
asserts them.

  power_cuts       cuts made: two at each erase or program of each kind of save (right before
                   it, and half-way through it)
  saves            per kind of save: its erases and programs (boundaries) and the cuts made there
  lost_events, wrong_resumes, unmountable, redo_failed   what went wrong (0 each), with problems
"""
import json
import os
import subprocess
import tempfile

from host import ROOT
from host.device.mpy_build import compile_inprocess, compile_tree, tool

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cutsweep_mpy.py")  # runs under MicroPython
BLOCKS = 352  # the Pico's filesystem: 1,408 KB of 4 KB blocks (host/pico/flashfs.py)


def run_sweep(blocks=BLOCKS, timeout=900):
    """The sweep's figures (a dict); RuntimeError if it did not run to its end."""
    with tempfile.TemporaryDirectory(prefix="cutsweep-") as tmp:
        build = os.path.join(tmp, "lib")
        compile_tree(os.path.join(ROOT, "firmware", "sy"), os.path.join(build, "sy"))
        compile_inprocess(build)
        env = dict(os.environ)
        env["MICROPYPATH"] = build + ":.frozen"
        # the flash image and its copies (1.4 MB each) live on the port's heap
        proc = subprocess.run([tool("micropython"), "-X", "heapsize=32M", SCRIPT, tmp, str(blocks)], env=env,
                              capture_output=True, text=True, timeout=timeout, cwd=tmp)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith('{"')]
    if proc.returncode or not lines:
        raise RuntimeError("the power-cut sweep failed:\n" + proc.stdout[-3000:] + proc.stderr[-3000:])
    return json.loads(lines[-1])
