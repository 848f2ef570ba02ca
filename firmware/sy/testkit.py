"""An in-process board for tests and the benchmark: the real App with memory-backed hardware, a
queue instead of the serial port and a clock the caller advances. Runs under CPython and the
unix port. Not needed on a board."""
import json

from sy import boardconfig
from sy.app import App
from sy.simhw import MemInputs, MemStrip
from sy.leds import Leds
from sy.store import Store


class QueueLink:
    def __init__(self):
        self.inbox = []
        self.outbox = []
        self.buf = bytearray(1024)
        self._line = None

    def poll(self):
        if self._line is None and self.inbox:
            self._line = self.inbox.pop(0)
            if len(self._line) > len(self.buf):
                self._line = None
                return 2
        return 1 if self._line is not None else 0

    def take(self):
        line = self._line
        self._line = None
        return line

    def send(self, text):
        self.outbox.append(text)


def _rmtree(path):
    import os
    try:
        names = os.listdir(path)
    except OSError:
        return
    for n in names:
        p = path + "/" + n
        try:
            os.remove(p)
        except OSError:
            _rmtree(p)
    os.rmdir(path)


class TestBoard:
    def __init__(self, folder, cfg=None, fresh=True, debounce_ms=30, period_ms=5):
        if fresh:
            _rmtree(folder)
        self.folder = folder
        cfg = cfg or boardconfig.validate({"board": "pico", "debounce_ms": debounce_ms, "scan_hz": 1000 // period_ms})
        self.cfg = cfg
        self.period = period_ms
        chips = cfg["reeds"]["chips"]
        self.inputs = getattr(self, "inputs", None) or MemInputs(chips + 1)
        self.strip = MemStrip(cfg["leds"]["count"])
        c = cfg["leds"]
        self.leds = Leds(self.strip, c["count"], c["index"], c["order"], c["brightness"], c["current_limit_ma"],
                         c["ma_per_channel"], c["idle_ma_per_led"])
        self.link = QueueLink()
        self.store = Store(folder)
        self.app = App(cfg, self.inputs, self.leds, self.link, self.store)
        self.board = self.app.board
        self.now = 1000
        self.next_id = 1
        self.app.start(self.now)

    def reboot(self):
        """A power cut and a restart: same flash folder, same switches, a new App."""
        inputs = self.inputs
        self.__init__(self.folder, self.cfg, fresh=False, period_ms=self.period)
        self.inputs = inputs
        self.app.inputs = inputs
        self.app.start(self.now)

    def bit(self, station):
        return self.cfg["reeds"]["bits"][station - 1]

    def set(self, station, closed):
        self.inputs.set(self.bit(station), closed)

    def button(self, k, down):
        self.inputs.set(self.cfg["reeds"]["chips"] * 8 + k, down)

    def run(self, cycles=1):
        for _ in range(cycles):
            self.now += self.period
            self.app.cycle(self.now)

    def settle(self):
        self.run(self.cfg["debounce_ms"] // self.period + 2)

    def place(self, station):
        self.set(station, True)
        self.settle()

    def lift(self, station):
        self.set(station, False)
        self.settle()

    def press(self, k):
        self.button(k, True)
        self.settle()
        self.button(k, False)
        self.settle()

    def command(self, cmd, **args):
        """Send a command, run one cycle, return its reply (dict); events/notes stay in outbox."""
        args["cmd"] = cmd
        args["id"] = rid = self.next_id
        self.next_id += 1
        self.link.inbox.append(json.dumps(args).encode())
        self.run(1)
        for k in range(len(self.link.outbox)):
            msg = json.loads(self.link.outbox[k])
            if msg.get("id") == rid and "ok" in msg:
                del self.link.outbox[k]
                return msg
        raise AssertionError("no reply to %s" % cmd)

    def messages(self):
        out = [json.loads(t) for t in self.link.outbox]
        self.link.outbox = []
        return out

    def colour(self, station):
        return self.leds.get(station)
