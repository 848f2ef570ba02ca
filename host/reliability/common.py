"""Shared pieces of the reliability suite: an instrumented SimBoard, a BoardLink that notices a
dead board at once, flash forensics, LED current model."""
import json
import os
import shutil
import subprocess

from host.link.boardlink import BoardLink, LinkClosed
from host.simulator.board import SimBoard
from sy.storage.store import Store
from sy.storage import resume

_WRAPPER = '''import os
_p = os.getenv("SY_FRAMELOG")
if _p:
    from sy.hardware import simhw as _s
    _log = open(_p, "ab")
    _w = _s.FileStrip.write
    def _write(self):
        _w(self)
        _log.write(self.whole)
    _s.FileStrip.write = _write
import sy_boardmain
'''


_STRACE = []


def strace_works():
    """strace is installed and may trace here (containers often forbid ptrace)."""
    if not _STRACE:
        ok = False
        if shutil.which("strace"):
            try:
                ok = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/null", "true"], capture_output=True,
                                    timeout=20).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
        _STRACE.append(ok)
    return _STRACE[0]


class RelSim(SimBoard):
    """SimBoard + every LED frame appended to <folder>/frames.bin (record_frames=True: main.py is
    started through a 10-line wrapper that hooks the simulated strip's write; the firmware itself
    is unchanged) + a cable that can be cut (the relay then drops every byte both ways)."""

    def __init__(self, *a, record_frames=False, **kw):
        super().__init__(*a, **kw)
        self.record_frames = record_frames
        self.strace_kill = None
        self.frame_log = os.path.join(self.folder, "frames.bin")

    def _build(self):
        lib = super()._build()
        if self.record_frames and not os.path.exists(os.path.join(lib, "sy_boardmain.py")):
            shutil.copy(super().script(), os.path.join(lib, "sy_boardmain.py"))
            with open(os.path.join(self.folder, "relmain.py"), "w") as f:
                f.write(_WRAPPER)
        return lib

    def script(self):
        """main.py, or the frame-recording wrapper that imports it."""
        return os.path.join(self.folder, "relmain.py") if self.record_frames else super().script()

    def environment(self):
        env = super().environment()
        if self.record_frames:
            env["SY_FRAMELOG"] = self.frame_log
        return env

    def command(self, lifeline=None):
        """With `strace_kill = (syscall, n)` the firmware runs under strace, which kills it
        (SIGKILL) on entering its n-th `syscall` on a flash file: a power cut timed to land
        inside a save."""
        cmd = super().command(lifeline)
        if self.strace_kill:
            sc, n = self.strace_kill
            flash = os.path.join(self.folder, "flash")
            paths = []
            for name in ("game.jsonl", "game.old", "game.trim", "state.bin", "state.bak", "state.tmp"):
                paths += ["-P", os.path.join(flash, name)]
            cmd = ["strace", "-f", "-qq", "-o", "/dev/null"] + paths + [
                "-e", "trace=" + sc, "-e", "inject=%s:signal=KILL:when=%d" % (sc, n)] + cmd
        return cmd

    def frames(self):
        """Every recorded frame: [(seq, wire bytes)]."""
        out = []
        try:
            with open(self.frame_log, "rb") as f:
                data = f.read()
        except OSError:
            return out
        size = 12 + 3 * self.config["leds"]["count"]
        for k in range(0, len(data) - size + 1, size):
            rec = data[k:k + size]
            out.append((int.from_bytes(rec[:4], "little"), rec[8:-4]))
        return out


class FastLink(BoardLink):
    """BoardLink that fails at once when `abort()` says the link is gone (a killed board, a cut
    cable: the way a USB port vanishes), and records what it writes and hands out."""

    def __init__(self, port, abort=None, **kw):
        super().__init__(port, **kw)
        self.abort = abort
        self.sent = bytearray()
        self.handed = []  # every (seq, event) handed to the host, in order

    def _check_link(self):
        if self.abort is not None and self.abort():
            raise LinkClosed("closed", "the link is cut")

    def _transmit(self, data):
        self._check_link()
        self.sent.extend(data)
        return super()._transmit(data)

    def _event(self, seq, ev):
        before = self.applied
        super()._event(seq, ev)
        if self.applied != before:
            self.handed.append((seq, ev))


# --- flash forensics -------------------------------------------------------------------------
def inspect_flash(folder):
    """Read the board's flash as the firmware would at boot, on a copy (the firmware trims its
    journal on load). Returns {"readable", "during_save", "jlines", "header", "game", "why"}."""
    flash = os.path.join(folder, "flash")
    out = {"readable": True, "during_save": False, "trim": False, "jlines": [], "header": None, "game": None,
           "why": ""}
    if not os.path.isdir(flash):
        return out
    names = set(os.listdir(flash))
    jpath = os.path.join(flash, "game.jsonl")
    jsize = os.path.getsize(jpath) if "game.jsonl" in names else 0
    copy = flash + ".inspect"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(flash, copy)
    try:
        st = Store(copy)
        got = resume.load(st)
        if got is None:
            if "state.bin" in names or "state.bak" in names:
                out["readable"] = False
                out["why"] = "no snapshot with a good checksum (files %s)" % sorted(names)
            elif jsize:
                out["during_save"] = True  # the first save of a game was cut: nothing to resume
            return out
        header, data = got
        out["header"] = header
        if "state.tmp" in names or "state.bin" not in names or jsize > header.get("jlen", 0):
            out["during_save"] = True
        out["trim"] = jsize > header.get("jlen", 0)  # the next boot cuts the journal back
        for seq, text in st.lines(1):
            try:
                out["jlines"].append(json.loads(text))
            except ValueError:
                out["readable"] = False
                out["why"] = "journal line %d is not JSON: %r" % (seq, text[:80])
        if len(out["jlines"]) != header.get("seq"):
            out["readable"] = False
            out["why"] = "journal has %d lines, the snapshot says %s" % (len(out["jlines"]), header.get("seq"))
        if data:
            from sy.rules.game import Game, RuleError
            try:
                out["game"] = Game.load(data)
            except RuleError as e:
                out["readable"] = False
                out["why"] = "snapshot: %s" % e
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return out


def flash_bytes(folder):
    """{name: bytes} of every file of the board's flash."""
    flash = os.path.join(folder, "flash")
    out = {}
    if os.path.isdir(flash):
        for name in sorted(os.listdir(flash)):
            with open(os.path.join(flash, name), "rb") as f:
                out[name] = f.read()
    return out


# --- LED current -----------------------------------------------------------------------------
def frame_current_ma(wire, leds_cfg):
    """The estimated current of one frame, with firmware/sy/hardware/leds.py's model: every lit channel
    draws ma_per_channel * value / 255, every LED idle_ma_per_led (the firmware's integer
    arithmetic and the exact one: the larger)."""
    lit = sum(wire)
    tenth = int(leds_cfg["ma_per_channel"] * 10)
    idle = leds_cfg["idle_ma_per_led"] * leds_cfg["count"]
    exact = lit * leds_cfg["ma_per_channel"] / 255.0 + idle
    fw = (lit * tenth) // 2550 + int(idle)
    return max(exact, fw)


def check_frames(recorded):
    """recorded: [(leds config, [(seq, wire)])] per game. Every frame the firmware published is
    there (consecutive seq numbers from each boot) and none is over the config's current limit."""
    out = {"frames_checked": 0, "frames_over_budget": 0, "frames_missing": 0, "max_frame_ma": 0.0,
           "current_limit_ma": None}
    out["per_game"] = []
    for cfg, frames in recorded:
        out["per_game"].append(len(frames))
        out["current_limit_ma"] = cfg["current_limit_ma"]
        prev = None
        for seq, wire in frames:
            if prev is not None and seq != prev + 1 and seq != 1:
                out["frames_missing"] += max(0, seq - prev - 1)
            prev = seq
            ma = frame_current_ma(wire, cfg)
            out["frames_checked"] += 1
            out["max_frame_ma"] = max(out["max_frame_ma"], round(ma, 1))
            if ma > cfg["current_limit_ma"]:
                out["frames_over_budget"] += 1
    return out
