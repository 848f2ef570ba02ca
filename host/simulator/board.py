"""A simulated board: the real firmware under the MicroPython unix port, on a pty.

    with SimBoard() as sim:
        link = BoardLink(sim.port)          # exactly as to a real board
        sim.place(13); sim.lift(13); sim.press("taxi"); sim.leds()[13]

The firmware (firmware/main.py) runs with SY_SIM=<folder>; its hardware layer (sy/hardware/simhw.py) reads
the switches and buttons from <folder>/inputs.bin (rewritten here in place: the scan loop only
seeks and reads into its own buffer, so it allocates nothing) and publishes every LED frame to
<folder>/leds.bin. <folder>/flash/ is the board's flash (game journal and state): it survives
power_cut() + restart(). The serial link is relayed between the firmware's pty and a second pty
whose path is `port`; that one outlives power cuts, like a USB-serial adapter.

The firmware lives exactly as long as this object's host process wants it: stop() or
power_cut() end it, and so does this process's end, however it ends (sandbox.py's lifeline).
"""
import concurrent.futures
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import termios
import threading
import time
import tty

from host import ROOT
from host.device.mpy_build import compile_tree, tool
from host.simulator.sandbox import confine
from sy.hardware import boardconfig
from sy.hardware.leds import WIRE_ORDER

FIRMWARE = os.path.join(ROOT, "firmware")
# bwrap's --die-with-parent (which also ties the sandbox to bwrap, so that a power cut's kill -9
# ends the firmware) is the kernel's parent-death signal, and the parent is the *thread* that
# started bwrap: a board started from a thread that then ended was killed at once, or, if the
# thread ended before bwrap armed the signal, outlived the host. So every board is
# started from one thread, which lives as long as the process.
_starter = (None, None)  # (pid, executor): a forked child makes its own (the thread is not forked)
_starter_lock = threading.Lock()


def _start_process(*args, **kwargs):
    """subprocess.Popen(*args, **kwargs), called from the long-lived starter thread."""
    global _starter
    with _starter_lock:
        if _starter[0] != os.getpid():
            _starter = (os.getpid(), concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="simboard-start"))
        starter = _starter[1]
    return starter.submit(subprocess.Popen, *args, **kwargs).result()


BUTTONS = ("taxi", "bus", "underground", "confirm")

# the firmware's heap on the 64-bit unix port where nothing else asks for one: the Pico is the
# reference for heap (yard bench pico); the unix port's 64-bit objects and its qstr pools need more
# for the same game, and the reliability runs dump what the REPL reaches on top of a whole game
SIM_HEAP = "128k"
CONSOLE_KEEP = 65536  # bytes of the firmware's serial output a SimBoard keeps (its console's tail)


class SimBoard:
    def __init__(self, folder=None, heapsize=SIM_HEAP, config=None, debounce_ms=None, source=False):
        """folder: where the sim files live (a temp folder by default, removed by stop()).
        heapsize: -X heapsize of the firmware process (`yard bench firmware` measures the least a
        whole game needs on the 64-bit unix port, where the bytecode lives in the heap).
        config: board.json overrides (dict). source=True runs firmware/*.py instead of .mpy
        (slower start, needs a larger heap)."""
        self._own = folder is None
        self.folder = folder or tempfile.mkdtemp(prefix="simboard-")
        os.makedirs(self.folder, exist_ok=True)
        cfg = {"board": "pico"}
        cfg.update(config or {})
        if debounce_ms is not None:
            cfg["debounce_ms"] = debounce_ms
        self.config = boardconfig.validate(cfg)
        self.heapsize = heapsize
        self.source = source
        self.chips = self.config["reeds"]["chips"]
        self.proc = None
        self._lifeline = None  # the write end of the pipe that keeps the firmware alive (start())
        self._relay = None
        self._stop = False
        self.console = bytearray()  # the last CONSOLE_KEEP bytes the firmware wrote to its serial port
        self.console_heard = 0  # how many bytes it has written in all (console_since() reads by it)
        self._console_lock = threading.Lock()
        self.cable_cut = False  # True: the relay drops every byte both ways (a pulled USB cable)
        with open(os.path.join(self.folder, "board.json"), "w") as f:
            json.dump(self.config, f)
        self._inputs = bytearray(self.chips + 1)
        self._in_path = os.path.join(self.folder, "inputs.bin")
        with open(self._in_path, "wb") as f:
            f.write(self._inputs)
        self._in_fd = os.open(self._in_path, os.O_RDWR)
        self._lock = threading.Lock()
        # the firmware's pty and the host's pty, relayed
        self._fw_master, self._fw_slave = os.openpty()
        self._host_master, self._host_slave = os.openpty()
        for fd in (self._fw_master, self._host_master):
            os.set_blocking(fd, False)  # the relay's writes wait in select, never in write
        tty.setraw(self._fw_slave)
        tty.setraw(self._host_slave)
        self.port = os.ttyname(self._host_slave)
        self._lib = None
        self.dead_leds = set()  # faults: LED chain indices that stay dark (leds() shows them off)
        self.stuck = {}  # faults: station -> True (reed stuck closed) / False (reed never closes)

    # --- process ------------------------------------------------------------------------------
    def _build(self):
        """The folder MICROPYPATH names for the firmware's modules: the compiled ones in lib/sy/
        (as on a board), or firmware/ itself with source=True."""
        if self.source:
            return FIRMWARE
        lib = os.path.join(self.folder, "lib")
        if not os.path.isdir(lib):
            compile_tree(os.path.join(FIRMWARE, "sy"), os.path.join(lib, "sy"))
            shutil.copy(os.path.join(FIRMWARE, "main.py"), os.path.join(self.folder, "main.py"))
        return lib

    def script(self):
        """The file the firmware process runs. The unix port puts the real path of its folder
        first on sys.path, so it is the sim folder, where no `sy` is, and the modules are found
        through MICROPYPATH's relative `lib`: a module's __file__ (a name kept on the heap for
        good) is then 'lib/sy/rules/game.mpy' as on a board, not this machine's temporary path."""
        return os.path.join(FIRMWARE if self.source else self.folder, "main.py")

    def module_path(self):
        """MICROPYPATH of the firmware process (relative to its folder, its working directory)."""
        rel = os.path.relpath(self._lib, self.folder)
        return (self._lib if rel.startswith("..") else rel) + ":.frozen"

    def command(self, lifeline=None):
        """The firmware process, in the sandbox (host/simulator/sandbox.py): it sees its own folder (the
        board's flash) and the programs that run it, nothing of the host's files; lifeline: the
        read end of the pipe whose closing ends it (sandbox.confine)."""
        mp = tool("micropython")
        argv = [mp, "-X", "heapsize=" + self.heapsize, "-i", self.script()]
        readable = [os.path.dirname(os.path.realpath(mp))]
        if self.source:
            readable.append(FIRMWARE)
        return confine(argv, writable=[self.folder], readable=readable, env=self.environment(), cwd=self.folder,
                       lifeline=lifeline)

    def environment(self):
        """The firmware process's whole environment (nothing of the host's)."""
        return {"MICROPYPATH": self.module_path(), "SY_SIM": self.folder, "PATH": "/usr/bin:/bin"}

    def start(self):
        if self._lib is None:
            self._lib = self._build()
        self._cut_lifeline()
        # the board lives while this process holds the pipe's write end (sandbox.py: lifeline)
        lifeline, self._lifeline = os.pipe()
        try:
            # bwrap runs with the host's environment and gives the firmware only environment()
            self.proc = _start_process(
                self.command(lifeline), stdin=self._fw_slave, stdout=self._fw_slave, stderr=self._fw_slave,
                cwd=self.folder, close_fds=True, start_new_session=True, pass_fds=(lifeline,))
        finally:
            os.close(lifeline)
        if self._relay is None:
            self._stop = False
            self._relay = threading.Thread(target=self._run_relay, daemon=True)
            self._relay.start()
        return self

    def _run_relay(self):
        fw, host = self._fw_master, self._host_master
        while not self._stop:
            try:
                r, _, _ = select.select([fw, host], [], [], 0.1)
            except (OSError, ValueError):
                return
            for fd in r:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    continue
                if self.cable_cut:
                    continue  # the bytes die in the cut cable
                if fd == fw:
                    self._heard(data)
                    self._pass_on(host, data)
                else:
                    self._pass_on(fw, data)

    def _heard(self, data):
        """Keep what the firmware wrote: the console's tail, and the count console_since() reads by."""
        with self._console_lock:
            self.console += data
            del self.console[:-CONSOLE_KEEP]
            self.console_heard += len(data)

    def console_since(self, heard):
        """(the bytes the firmware wrote after the first `heard` of them, the new count). Read by
        count, not by matching the last bytes seen: a line the firmware repeats would match a later
        copy and skip what came between. Bytes older than the kept tail are lost, as in a scrollback."""
        with self._console_lock:
            new = max(0, min(self.console_heard - heard, len(self.console)))
            return bytes(self.console[len(self.console) - new:]), self.console_heard

    def _pass_on(self, fd, data):
        """Write data to fd, waiting while the reader is slow (at most 2 s, and never past stop()):
        the relay never blocks for good, so stop() can end it before closing the descriptors."""
        end = time.monotonic() + 2
        while data and not self._stop and time.monotonic() < end:
            try:
                _, w, _ = select.select([], [fd], [], 0.1)
                if w:
                    data = data[os.write(fd, data):]
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                return  # the other side is gone (closed pty): the bytes are lost, as on a cable

    def power_cut(self):
        """kill -9 the firmware: no chance to flush or save anything. The whole process group that
        start() made: bwrap, and whatever a subclass's command() puts before it (strace)."""
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait(10)
        self._cut_lifeline()  # and whatever of the sandbox the kill did not reach
        termios.tcflush(self._fw_slave, termios.TCIOFLUSH)  # bytes in flight die with the board

    def _cut_lifeline(self):
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None

    def restart(self):
        self.power_cut()
        return self.start()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        self.power_cut()
        self._stop = True
        if self._relay:
            self._relay.join(5)  # it ends within 0.1 s of _stop, or 2 s if it was writing
            self._relay = None
        for fd in (self._fw_master, self._fw_slave, self._host_master, self._host_slave, self._in_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.stop()

    # --- the simulated hardware -----------------------------------------------------------------
    def _set_bit(self, bit, on):
        with self._lock:
            m = 0x80 >> (bit & 7)
            if on:
                self._inputs[bit >> 3] |= m
            else:
                self._inputs[bit >> 3] &= ~m & 0xFF
            os.pwrite(self._in_fd, bytes(self._inputs), 0)

    def set_switch(self, station, closed):
        self._set_bit(self.config["reeds"]["bits"][station - 1], self.stuck.get(station, closed))

    def stick(self, station, closed=True):
        """Fault: the reed at station is stuck closed (closed=True) or never closes (False)."""
        self.stuck[station] = closed
        self.set_switch(station, closed)

    def switch(self, station):
        bit = self.config["reeds"]["bits"][station - 1]
        return bool(self._inputs[bit >> 3] & (0x80 >> (bit & 7)))

    def place(self, station, settle=True):
        self.set_switch(station, True)
        if settle:
            self.settle()

    def lift(self, station, settle=True):
        self.set_switch(station, False)
        if settle:
            self.settle()

    def settle(self, patience=3.0):
        """Wait out the debounce time and a few scans: on the wall clock, then, if the firmware has
        not run that many scan cycles meanwhile (its LED frames carry its cycle count; a board
        process the OS did not schedule in time, on a loaded machine), until it has: fast hands
        must not lift and place a piece between two scans of a board that was not running."""
        before = self.frame()
        self.pause((self.config["debounce_ms"] + 40) / 1000)
        if before is None:
            return
        need = before[1] + self.config["debounce_ms"] * self.config["scan_hz"] // 1000 + 2
        end = time.monotonic() + patience
        while time.monotonic() < end and self.alive() and not self._stop:  # (a stopped board runs no scan)
            now = self.frame()
            if now is None or now[1] >= need or now[1] < before[1]:  # (a restarted board counts from 0)
                return
            time.sleep(0.005)

    def pause(self, seconds):
        """The hands wait (on the board's clock: the wall clock here)."""
        time.sleep(seconds)

    def press(self, button, hold=0.08):
        k = BUTTONS.index(button) if isinstance(button, str) else button
        bit = self.chips * 8 + k
        self._set_bit(bit, True)
        time.sleep(max(hold, (self.config["debounce_ms"] + 20) / 1000))
        self._set_bit(bit, False)
        self.settle()

    def chatter(self, station, bounces=8, period=0.004, end=None):
        """Toggle a reed faster than the debounce time; end in state `end` (default: unchanged)."""
        start = self.switch(station)
        for i in range(bounces):
            self.set_switch(station, not start if i % 2 == 0 else start)
            self.pause(period)
        self.set_switch(station, start if end is None else end)

    def frame(self):
        """(frame seq, scan cycle, wire bytes) of the last frame the firmware wrote, or None."""
        path = os.path.join(self.folder, "leds.bin")
        for _ in range(50):
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                return None
            if len(data) >= 12 and data[:4] == data[-4:]:
                return (int.from_bytes(data[:4], "little"), int.from_bytes(data[4:8], "little"), data[8:-4])
            time.sleep(0.002)
        return None

    def leds(self):
        """{station: (r, g, b)} of the current frame as the firmware computed it (after brightness
        and current scaling), stations that are dark included."""
        got = self.frame()
        if got is None:
            return {}
        wire = got[2]
        pr, pg, pb = WIRE_ORDER[self.config["leds"]["order"]]
        index = self.config["leds"]["index"]
        out = {}
        for s in range(1, 200):
            k = 3 * index[s - 1]
            dark = k + 2 >= len(wire) or index[s - 1] in self.dead_leds
            out[s] = (0, 0, 0) if dark else (wire[k + pr], wire[k + pg], wire[k + pb])
        return out
