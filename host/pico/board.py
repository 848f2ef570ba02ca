"""The board on an emulated Raspberry Pi Pico: MicroPython's real RPI_PICO firmware in rp2040js.

    with PicoBoard(micropython=UF2, bootrom=ROM) as pico:
        link = BoardLink(pico.port)          # a pty, exactly as to a real Pico's USB serial
        pico.place(13); pico.lift(13); pico.press("taxi"); pico.leds()[13]

The same interface as the unix-port simulator (host/simulator/board.py SimBoard), so the same games,
clients and tests run on both. What differs is underneath: the firmware is the maker's UF2 (`yard
uf2`: MicroPython + littlefs with the compiled firmware and board.json) written into a 2 MB flash
file as the boot ROM would; emulator.mjs (Node) runs it and models the board's hardware from its
config: 74HC165 chain on the SPI pins, buttons and the safe-mode pin on GPIOs, the WS2812 chain
decoded from the LED data pin, the flash chip's erase and program times. The pty outlives power
cuts and resets, like a USB cable that stays plugged in.

Times a test waits for (settle, a button press) are emulated milliseconds, so the board sees the
same timing whether the emulator runs faster or slower than the wall clock.
"""
import json
import os
import queue
import select
import shutil
import struct
import subprocess
import threading
import time

from host.errors import UserError
from host.i18n import _
from host.simulator.board import SimBoard, BUTTONS

HERE = os.path.dirname(os.path.abspath(__file__))
EMULATOR = os.path.join(HERE, "emulator.mjs")
FLASH_SIZE = 2 * 1024 * 1024
MICROPYTHON_NAME = "micropython-v1.28.0-RPI_PICO.uf2"
BOOTROM_NAME = "rp2040-bootrom-b1.bin"


def find_binaries(micropython=None, bootrom=None):
    """(MicroPython's RPI_PICO UF2, the RP2040 boot ROM): as given, else in $YARD_PICO_DIR.
    A UserError says where to get what is missing."""
    folder = os.environ.get("YARD_PICO_DIR")
    if micropython is None and folder:
        micropython = os.path.join(folder, MICROPYTHON_NAME)
    if bootrom is None and folder:
        bootrom = os.path.join(folder, BOOTROM_NAME)
    if not micropython or not os.path.isfile(micropython):
        raise UserError(_("the emulated Pico needs MicroPython's RPI_PICO firmware (a .uf2 from "
                          "https://micropython.org/download/RPI_PICO/): pass --micropython FILE or set "
                          "YARD_PICO_DIR to a folder holding %(file)s") % {"file": MICROPYTHON_NAME})
    if not bootrom or not os.path.isfile(bootrom):
        raise UserError(_("the emulated Pico needs the RP2040 boot ROM (16 KB, built from "
                          "https://github.com/raspberrypi/pico-bootrom): pass --bootrom FILE or set "
                          "YARD_PICO_DIR to a folder holding %(file)s") % {"file": BOOTROM_NAME})
    return micropython, bootrom


def node_modules():
    """host/pico/node_modules with rp2040js (the version package-lock.json pins), installed with
    `npm ci` the first time."""
    path = os.path.join(HERE, "node_modules", "rp2040js")
    if not os.path.isdir(path):
        npm = shutil.which("npm")
        if not shutil.which("node") or not npm:
            raise UserError(_("the emulated Pico runs on Node.js: install Debian's nodejs and npm"))
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=HERE,
                              capture_output=True, text=True)
        if proc.returncode:
            raise UserError(_("npm ci in host/pico failed:") + "\n" + proc.stderr[-2000:])
    return path


def flash_from_uf2(uf2_path, flash_path):
    """Write a UF2 onto a flash file as the boot ROM does (blocks to their addresses; the rest
    of a new chip erased)."""
    from host.device.uf2 import read_uf2
    image = read_uf2(uf2_path)
    if os.path.exists(flash_path):
        with open(flash_path, "rb") as f:
            flash = bytearray(f.read().ljust(FLASH_SIZE, b"\xff"))
        for a, data in image.blocks.items():
            off = a - 0x10000000
            flash[off:off + len(data)] = data
    else:
        flash = image.flash(FLASH_SIZE)
    with open(flash_path + ".tmp", "wb") as f:
        f.write(flash)
    os.replace(flash_path + ".tmp", flash_path)


class PicoBoard(SimBoard):
    def __init__(self, folder=None, config=None, debounce_ms=None, micropython=None, bootrom=None,
                 realtime=False, flash_timing=True, uf2=None, safe_mode=False):
        """folder: the emulated Pico's files (flash.bin, the UF2, the emulator's log); a temporary
        folder by default, removed by stop(). config: board.json overrides. realtime: emulated
        time never runs ahead of the wall clock (for interactive use and host timeouts); off, it
        runs as fast as the emulator can. flash_timing: the flash chip's datasheet erase/program
        times (else instant). uf2: a board UF2 to boot (default: built with `yard uf2` from this
        tree). safe_mode: hold the safe-mode button at power-on."""
        super().__init__(folder=folder, config=config, debounce_ms=debounce_ms)
        for fd in (self._fw_master, self._fw_slave):  # the unix port's pty: unused here
            os.close(fd)
        self._fw_master = self._fw_slave = -1
        self.micropython, self.bootrom = find_binaries(micropython, bootrom)
        self.realtime = realtime
        self.flash_timing = flash_timing
        self.uf2 = uf2
        self.flash_path = os.path.join(self.folder, "flash.bin")
        self.node = None
        self._out = None
        self._replies = {}
        self._next_id = 1
        self._ids = threading.Lock()
        self._frames = []  # (emulated ms, frame no, wire bytes) of recent LED frames
        self._frame = None
        self._frame_no = 0
        self.events = queue.Queue()  # power events: {"ev": "on"|"off"|"reset", ...}
        self.powered = False
        self.safe_mode = safe_mode
        self.log_path = os.path.join(self.folder, "emulator.log")
        self.next_plan = None  # a power cut to plan before the next power-on (plan_cut)
        self.cut_planned = False
        self.cuts = []  # the emulator's "off" events: where each cut landed
        self.flash_mounts = True
        self.last_input_t = 0.0  # emulated ms at which the last reed change reached the inputs

    # --- process ------------------------------------------------------------------------------
    def model(self):
        c = self.config
        r = c["reeds"]
        pins = [c["buttons"][k] for k in BUTTONS] if c.get("buttons") else []
        if c.get("safe_mode_pin") is not None:
            pins.append(c["safe_mode_pin"])
        return {"spi": r["spi"], "load": r["load"], "chips": r["chips"], "active_low": r["active_low"],
                "led_pin": c["leds"]["pin"], "led_count": c["leds"]["count"], "input_pins": pins,
                "erase_ms_per_sector": 45 if self.flash_timing else 0,
                "program_ms_per_page": 0.4 if self.flash_timing else 0}

    def install(self):
        """Put the board UF2 on the (new) flash chip, as a maker drags it onto the Pico."""
        uf2 = self.uf2
        if uf2 is None:
            from host.device.uf2 import make_board_uf2
            uf2 = os.path.join(self.folder, "board.uf2")
            cfg_path = os.path.join(self.folder, "board.json")
            make_board_uf2(self.micropython, uf2, cfg_path)
        flash_from_uf2(uf2, self.flash_path)

    def start(self):
        if self.node is not None and self.node.poll() is None:
            if not self.powered:
                self._apply_next_plan()
                self.power_on()
            return self
        node_modules()
        if not os.path.exists(self.flash_path):
            self.install()
        model_path = os.path.join(self.folder, "model.json")
        with open(model_path, "w") as f:
            json.dump(self.model(), f)
        cmd = [shutil.which("node") or "node", EMULATOR, "--bootrom", self.bootrom, "--flash", self.flash_path,
               "--model", model_path, "--off"]
        if self.realtime:
            cmd.append("--realtime")
        self._log = open(self.log_path, "ab")
        self.node = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                     cwd=self.folder, start_new_session=True)
        self._out = self.node.stdin
        self._stop = False
        self._reader = threading.Thread(target=self._read_emulator, daemon=True)
        self._reader.start()
        self._relay = threading.Thread(target=self._relay_host, daemon=True)
        self._relay.start()
        if self.safe_mode:
            self.hold_safe_mode(True)
        self._apply_next_plan()
        self.power_on()
        return self

    def _apply_next_plan(self):
        if self.next_plan:
            self.plan_cut(**self.next_plan)
            self.next_plan = None

    def _send(self, kind, payload):
        try:
            self._out.write(kind + struct.pack("<I", len(payload)) + payload)
            self._out.flush()
        except (OSError, ValueError):
            pass  # the emulator is gone: like a cable to a dead board

    def request(self, cmd, timeout=60, **kw):
        """Send a command to the emulator and wait for its reply (a dict with the emulated `t`)."""
        with self._ids:
            rid = self._next_id
            self._next_id += 1
        box = self._replies[rid] = [threading.Event(), None]
        kw.update(cmd=cmd, id=rid)
        self._send(b"C", json.dumps(kw).encode())
        if not box[0].wait(timeout):
            self._replies.pop(rid, None)
            raise TimeoutError("the emulated Pico did not answer %s within %s s (see %s)" % (
                cmd, timeout, self.log_path))
        self._replies.pop(rid, None)
        return box[1]

    def _read_emulator(self):
        stream = self.node.stdout
        while True:
            head = stream.read(5)
            if not head or len(head) < 5:
                break
            n = struct.unpack_from("<I", head, 1)[0]
            payload = stream.read(n)
            if head[:1] == b"S":
                if not self.cable_cut:
                    self._heard(payload)
                    self._pass_on(self._host_master, payload)
            else:
                self._event(json.loads(payload))
        self.powered = False

    def _event(self, msg):
        if "id" in msg and msg["id"] in self._replies:
            box = self._replies[msg["id"]]
            box[1] = msg
            box[0].set()
            return
        ev = msg.get("ev")
        if ev == "frame":
            wire = bytes.fromhex(msg["wire"])
            self._frame_no += 1
            self._frame = (msg["n"], msg["t"], wire)
            self._frames.append((msg["t"], msg["n"], wire))
            del self._frames[:-2000]
        elif ev in ("on", "off", "reset"):
            self.powered = ev != "off"
            if ev == "off":
                self.cut_planned = False
                self.cuts.append(msg)
            self.events.put(msg)

    def _relay_host(self):
        host = self._host_master
        while not self._stop:
            try:
                r, _, _ = select.select([host], [], [], 0.1)
            except (OSError, ValueError):
                return
            if not r:
                continue
            try:
                data = os.read(host, 4096)
            except OSError:
                continue
            if not self.cable_cut and self.powered:
                self._send(b"S", data)

    def power_on(self):
        self.request("power_on")
        self.powered = True

    def power_cut(self, **plan):
        """Cut the power now, or plan a cut: instructions=N (after N more instructions),
        in_flash="erase"|"program"|"any" with skip=K and fraction=F (inside the K+1-th such
        flash operation from now, after a fraction F of it), after_flash=True with skip=K.
        Once the power is off, the board's files are copied out of its flash into
        <folder>/flash/ (export_flash), as the unix-port simulator keeps them."""
        if self.node is None or self.node.poll() is not None:
            return
        if plan:
            self.plan_cut(**plan)
            return
        if self.powered:
            self.request("cut", now=True)
        self.powered = False
        self.export_flash()

    def plan_cut(self, **plan):
        self.cut_planned = True
        self.request("cut", **plan)

    def cancel_cut(self):
        self.cut_planned = False
        self.request("cut")

    def export_flash(self):
        """Copy the game's files (littlefs /game) out of flash.bin into <folder>/flash/; True if
        the filesystem mounted (False: the flash is not a filesystem MicroPython can mount)."""
        from host.pico.flashfs import read_tree
        dest = os.path.join(self.folder, "flash")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        files = read_tree(self.flash_path, "game")
        if files is None:
            self.flash_mounts = False
            return False
        self.flash_mounts = True
        for name, data in files.items():
            with open(os.path.join(dest, name), "wb") as f:
                f.write(data)
        return True

    def wait_off(self, timeout=120):
        """Wait for a planned power cut to happen; returns its event."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                ev = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            if ev["ev"] == "off":
                return ev
        raise TimeoutError("the planned power cut did not happen within %s s" % timeout)

    def restart(self):
        self.power_cut()
        return self.start()

    def alive(self):
        return self.node is not None and self.node.poll() is None and self.powered

    def stop(self):
        self._stop = True
        if self.node is not None and self.node.poll() is None:
            try:
                self.request("quit", timeout=5)
            except (TimeoutError, OSError):
                pass
            try:
                self.node.wait(5)
            except subprocess.TimeoutExpired:
                self.node.kill()
                self.node.wait(5)
        if self._relay:
            self._relay.join(5)
            self._relay = None
        for fd in (self._host_master, self._host_slave, self._in_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        if getattr(self, "_log", None):
            self._log.close()
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)

    # --- the modelled hardware ------------------------------------------------------------------
    def _set_bit(self, bit, on):
        with self._lock:
            m = 0x80 >> (bit & 7)
            if on:
                self._inputs[bit >> 3] |= m
            else:
                self._inputs[bit >> 3] &= ~m & 0xFF
            chips = bytes(self._inputs[:self.chips])
            buttons = self._inputs[self.chips]
        if bit >= self.chips * 8:  # a button: its GPIO, low while pressed
            k = bit - self.chips * 8
            self.request("pin", gpio=self.config["buttons"][BUTTONS[k]], level=0 if buttons & (0x80 >> k) else 1)
        else:
            self.last_input_t = self.request("inputs", bits=chips.hex())["t"]

    def set_inputs(self, closed_stations):
        """Set every reed at once: closed_stations closed, the rest open."""
        with self._lock:
            for i in range(self.chips):
                self._inputs[i] = 0
            for s in closed_stations:
                bit = self.config["reeds"]["bits"][s - 1]
                self._inputs[bit >> 3] |= 0x80 >> (bit & 7)
            chips = bytes(self._inputs[:self.chips])
        reply = self.request("inputs", bits=chips.hex())
        self.last_input_t = reply["t"]
        return reply

    def wait_ms(self, ms, timeout=120):
        """Wait until `ms` of emulated time have passed; returns the emulated time (ms)."""
        return self.request("wait", ms=ms, timeout=timeout)["t"]

    def now_ms(self):
        return self.request("stats")["t"]

    def pause(self, seconds):
        """The hands wait, in emulated time."""
        self.wait_ms(seconds * 1000)

    def press(self, button, hold=0.08):
        """Press a button for `hold` seconds of emulated time (at least the debounce time + 20 ms)."""
        k = BUTTONS.index(button) if isinstance(button, str) else button
        ms = max(hold * 1000, self.config["debounce_ms"] + 20)
        self.tap(self.config["buttons"][BUTTONS[k]], ms)
        self.settle()

    def tap(self, gpio, ms):
        """Hold a GPIO low for exactly `ms` emulated ms (a button tap); returns the emulator's reply."""
        return self.request("tap", gpio=gpio, ms=ms)

    def hold_safe_mode(self, held):
        self.request("pin", gpio=self.config["safe_mode_pin"], level=0 if held else 1)

    def frame(self):
        """(frame no, emulated ms, wire bytes) of the last LED frame decoded from the data pin."""
        return self._frame

    def frames_since(self, t_ms):
        """[(emulated ms, frame no, wire bytes)] of the frames that ended after t_ms."""
        return [f for f in list(self._frames) if f[0] >= t_ms]

    def stats(self):
        return self.request("stats")

    def set_realtime(self, on):
        self.realtime = on
        self.request("realtime", on=on)

