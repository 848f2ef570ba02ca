"""Issue 17: the simulated board cannot read the host's files.

The attack that found the hole, kept as a test: the unix-port board ran as the host's user, so
Ctrl-C on its serial port and `open()` at its REPL printed Mister X's secret log. Now it runs in a
sandbox (host/simulator/sandbox.py) that holds its own folder and nothing else of the host."""
import os
import shutil

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
