"""The simulated board cannot read the host's files.

The attack that found the hole, kept as a test: the unix-port board ran as the host's user, so
Ctrl-C on its serial port and `open()` at its REPL printed Mister X's secret log. Now it runs in a
sandbox (host/simulator/sandbox.py) that holds its own folder and nothing else of the host."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from host.misterx.secretgame import SecretGame, draw_setup
from host.reliability.secrecy import repl_host_files
from host.simulator.board import SimBoard

pytestmark = pytest.mark.skipif(not shutil.which("micropython") or not shutil.which("bwrap"),
                                reason="needs the MicroPython unix port and bubblewrap")


def test_board_repl_cannot_open_mister_x_secret_log(tmp_path):
    sg = SecretGame.create(draw_setup(2), folder=str(tmp_path / "yard"))
    secret = open(sg.path, "rb").read()
    assert sg.setup["salt"].encode() in secret
    sim = SimBoard(heapsize="192k").start()
    try:
        own = os.path.join(sim.folder, "board.json")
        got = repl_host_files(sim, [sg.path, os.path.expanduser("~/.bashrc"), "/etc/passwd",
                                    os.path.abspath(__file__), own])
    finally:
        sim.stop()
    assert got[sg.path] is None, "the board read Mister X's secret log"
    assert got[os.path.abspath(__file__)] is None and got["/etc/passwd"] is None
    assert got[os.path.expanduser("~/.bashrc")] is None
    assert got[own] and b"leds" in got[own]  # its own flash and config: the probe itself works


_HOST = r"""
import os, sys, threading, time
sys.path.insert(0, %(root)r)
from host.simulator.board import SimBoard
board = SimBoard(folder=%(folder)r)
if %(from_thread)r:
    t = threading.Thread(target=board.start)
    t.start()
    t.join()  # the thread that started the board has ended
    time.sleep(1.5)
    print("alive" if board.alive() else "dead", flush=True)
else:
    board.start()
    print("started", flush=True)
os._exit(0)  # no stop(), no clean-up: as a host that is killed or crashes
"""


def _board_processes(folder):
    """PIDs of the live processes whose command line names folder (bwrap, the firmware)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/cmdline" % name, "rb") as f:
                    cmd = f.read()
                with open("/proc/%s/stat" % name, "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if folder.encode() in cmd and state != b"Z":
                out.append(int(name))
    return out


@pytest.mark.parametrize("from_thread", [True, False], ids=["from-an-ended-thread", "killed-at-once"])
def test_board_lives_while_its_host_does_and_not_longer(tmp_path, from_thread):
    """Before: a board started from a thread that then ended was killed at once 2 runs in 3
    (bwrap's --die-with-parent follows the starting thread) or outlived the host for good; a host
    that died right after start() left its board running 1 run in 5 (bwrap had not yet armed the
    signal). Now boards start from one long-lived thread and hold a lifeline to the host."""
    folder = str(tmp_path / "board")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = _HOST % {"root": root, "folder": folder, "from_thread": from_thread}
    for attempt in range(4):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert run.stdout.strip() == ("alive" if from_thread else "started"), run.stderr
        end = time.monotonic() + 10
        while _board_processes(folder) and time.monotonic() < end:
            time.sleep(0.05)
        left = _board_processes(folder)
        for pid in left:
            os.kill(pid, 9)
        assert not left, "attempt %d: the board outlived its host" % attempt
