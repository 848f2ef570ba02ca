"""A simulated board: the real firmware under the MicroPython unix port, on a pty.

    with SimBoard() as sim:
        link = BoardLink(sim.port)          # exactly as to a real board
        sim.place(13); sim.lift(13); sim.press("taxi"); sim.leds()[13]

The firmware (firmware/main.py) runs with SY_SIM=<folder>; its hardware layer (sy/simhw.py) reads
the switches and buttons from <folder>/inputs.bin (rewritten here in place: the scan loop only
seeks and reads into its own buffer, so it allocates nothing) and publishes every LED frame to
<folder>/leds.bin. <folder>/flash/ is the board's flash (game journal and state): it survives
power_cut() + restart(). The serial link is relayed between the firmware's pty and a second pty
whose path is `port`; that one outlives power cuts, like a USB-serial adapter.
"""
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
from host.mpy_build import compile_tree, tool
from sy import boardconfig

FIRMWARE = os.path.join(ROOT, "firmware")
BUTTONS = ("taxi", "bus", "underground", "confirm")
_ORDERS = {"RGB": (0, 1, 2), "RBG": (0, 2, 1), "GRB": (1, 0, 2), "GBR": (2, 0, 1),
           "BRG": (1, 2, 0), "BGR": (2, 1, 0)}


class SimBoard:
    def __init__(self, folder=None, heapsize="64k", config=None, debounce_ms=None, source=False):
        """folder: where the sim files live (a temp folder by default, removed by stop()).
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
        self._relay = None
        self._stop = False
        self.console = bytearray()  # everything the firmware wrote to its serial port (tail)
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
        tty.setraw(self._fw_slave)
        tty.setraw(self._host_slave)
        self.port = os.ttyname(self._host_slave)
        self._lib = None

    # --- process ------------------------------------------------------------------------------
    def _build(self):
        if self.source:
            return FIRMWARE
        lib = os.path.join(self.folder, "lib")
        if not os.path.isdir(lib):
            compile_tree(os.path.join(FIRMWARE, "sy"), os.path.join(lib, "sy"))
        return lib

    def start(self):
        if self._lib is None:
            self._lib = self._build()
        env = dict(os.environ)
        env["MICROPYPATH"] = self._lib + ":.frozen"
        env["SY_SIM"] = self.folder
        self.proc = subprocess.Popen(
            [tool("micropython"), "-X", "heapsize=" + self.heapsize, "-i", os.path.join(FIRMWARE, "main.py")],
            stdin=self._fw_slave, stdout=self._fw_slave, stderr=self._fw_slave, env=env, cwd=self.folder,
            close_fds=True, start_new_session=True)
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
                if fd == fw:
                    self.console += data
                    del self.console[:-65536]
                    os.write(host, data)
                else:
                    os.write(fw, data)

    def power_cut(self):
        """kill -9 the firmware: no chance to flush or save anything."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        termios.tcflush(self._fw_slave, termios.TCIOFLUSH)  # bytes in flight die with the board

    def restart(self):
        self.power_cut()
        return self.start()

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        self.power_cut()
        self._stop = True
        if self._relay:
            self._relay.join(1)
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
        self._set_bit(self.config["reeds"]["bits"][station - 1], closed)

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

    def settle(self):
        """Wait out the debounce time and a few scans."""
        time.sleep((self.config["debounce_ms"] + 40) / 1000)

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
            time.sleep(period)
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
        pr, pg, pb = _ORDERS[self.config["leds"]["order"]]
        index = self.config["leds"]["index"]
        out = {}
        for s in range(1, 200):
            k = 3 * index[s - 1]
            out[s] = (wire[k + pr], wire[k + pg], wire[k + pb]) if k + 2 < len(wire) else (0, 0, 0)
        return out
