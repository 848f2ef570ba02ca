"""`yard flash` against a virtual board: the unix port's REPL on a pty (socat, raw, echo=0 on both
sides), its own folder as the board's filesystem, mpremote's resume (a soft reset would end it)."""
import os
import shutil
import subprocess
import sys
import time

import pytest

from host import ROOT
from host.device import flash as flashmod
from host.errors import BoardError

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("micropython", "mpy-cross", "socat")),
                                reason="needs the MicroPython unix port, mpy-cross and socat")


class VirtualBoard:
    def __init__(self, folder, program="micropython"):
        self.folder = folder
        self.fs = os.path.join(folder, "fs")
        os.makedirs(self.fs, exist_ok=True)
        self.port = os.path.join(folder, "board")
        self.proc = subprocess.Popen(
            ["socat", "PTY,link=%s,raw,echo=0" % self.port, "EXEC:%s,pty,raw,echo=0" % program],
            cwd=self.fs, start_new_session=True)
        # socat makes the pty's link once it runs: seconds on a loaded machine (a fixed 5 s had run
        # out, and the test then failed as "no board at ...")
        end = time.monotonic() + 60
        while not os.path.exists(self.port):
            if self.proc.poll() is not None:
                raise AssertionError("socat exited with %s before it made %s" % (self.proc.returncode, self.port))
            if time.monotonic() > end:
                self.stop()
                raise AssertionError("socat made no %s in 60 s" % self.port)
            time.sleep(0.05)
        time.sleep(0.3)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def board(tmp_path):
    vb = VirtualBoard(str(tmp_path))
    yield vb
    vb.stop()


def yard(*args):
    return subprocess.run([sys.executable, "-m", "host", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_first_flash_copies_everything_second_nothing(board):
    out = []
    first = flashmod.flash(board.port, resume=True, quiet=True, out=out.append)
    names = set(first["copied"])
    assert "main.py" in names and "board.json" in names and "sy/rules/game.mpy" in names
    assert os.path.isfile(os.path.join(board.fs, "sy", "rules", "game.mpy"))  # the package's tree
    assert first["firmware"] == flashmod.local_version()
    second = flashmod.flash(board.port, resume=True, quiet=True, out=out.append)
    assert second["copied"] == [] and second["bytes"] == 0
    # a changed file on the board is put right, and only that one
    with open(os.path.join(board.fs, "sy", "rules", "commit.mpy"), "ab") as f:
        f.write(b"junk")
    with open(os.path.join(board.fs, "sy", "rules", "game.py"), "w") as f:
        f.write("raise ImportError('a stale source shadowing the .mpy')\n")
    with open(os.path.join(board.fs, "sy", "proto.mpy"), "wb") as f:
        f.write(b"M")  # a module of the flat layout before the sub-packages
    third = flashmod.flash(board.port, resume=True, quiet=True, out=out.append)
    assert third["copied"] == ["sy/rules/commit.mpy"]
    assert sorted(third["stale"]) == ["sy/proto.mpy", "sy/rules/game.py"]
    assert not os.path.exists(os.path.join(board.fs, "sy", "rules", "game.py"))
    assert not os.path.exists(os.path.join(board.fs, "sy", "proto.mpy"))


def test_flash_cli_progress_and_exit_code(board):
    r = yard("flash", "--port", board.port, "--resume")
    assert r.returncode == 0, r.stderr
    assert "100%" in r.stderr and "answers" in r.stdout
    r = yard("flash", "--port", board.port, "--resume", "--dry-run")
    assert r.returncode == 0 and "0 of" in r.stdout


def test_not_enough_flash(board, monkeypatch):
    real = flashmod.Flasher.info

    def tiny(self):
        info = real(self)
        info["free"] = 10 * 1024
        return info
    monkeypatch.setattr(flashmod.Flasher, "info", tiny)
    with pytest.raises(BoardError, match="not enough flash"):
        flashmod.flash(board.port, resume=True, quiet=True, out=lambda *_: None)
    assert not os.path.exists(os.path.join(board.fs, "sy"))


def test_clear_errors(tmp_path):
    r = yard("flash", "--port", str(tmp_path / "nothing"))
    assert r.returncode == 3 and "no board at" in r.stderr and "Traceback" not in r.stderr
    silent = VirtualBoard(str(tmp_path / "silent"), program="sleep 60")  # not MicroPython
    try:
        r = yard("flash", "--port", silent.port, "--resume")
        assert r.returncode == 3 and "does not answer like MicroPython" in r.stderr
        assert "Traceback" not in r.stderr
        import serial
        held = serial.Serial(silent.port, exclusive=True)
        try:
            r = yard("flash", "--port", silent.port, "--resume")
            assert r.returncode == 3 and "busy" in r.stderr
        finally:
            held.close()
    finally:
        silent.stop()
    r = yard("flash", "--port", "socket://127.0.0.1:1", "--resume")
    assert r.returncode == 3 and "Traceback" not in r.stderr
