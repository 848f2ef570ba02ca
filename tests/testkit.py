"""The tests' in-process board: host/benchmarks/inprocess.py's board (the real App with
memory-backed hardware, the scripted game) with what only the tests use: the detectives' round,
the messages sent, a station's colour; and the tests' file helpers. Runs under CPython and the
unix port (tests/mpy.py compiles it beside the firmware and host/benchmarks/inprocess.py)."""
import json

try:
    from inprocess import MemInputs, MemStrip, QueueLink, InProcessBoard, Dealer, play_game, TN, _rmtree  # noqa: F401
except ImportError:  # CPython: the host's package
    from host.benchmarks.inprocess import MemInputs, MemStrip, QueueLink, InProcessBoard, Dealer, play_game, TN, _rmtree  # noqa: F401
from sy.storage.store import Store
from sy.rules.base import PHASE_DETECTIVES


def popped(debouncer):
    """Every change waiting in a Debouncer's ring, popped in order: (bit << 1) | 1 closed, or 0 opened."""
    out = []
    while True:
        v = debouncer.pop()
        if v < 0:
            return out
        out.append(v)


def scratch(name):
    """The folder for a test's files: /tmp/NAME, or NAME below $SY_TEST_TMP when that is set (yard
    bench mutation gives its test runs a folder of their own: they never share files with another
    run of the tests on this machine)."""
    import os
    base = os.getenv("SY_TEST_TMP") or "/tmp"
    try:
        os.mkdir(base)
    except OSError:  # there already
        pass
    return base + "/" + name


def fresh_store(folder):
    """A Store on an empty folder."""
    _rmtree(folder)
    return Store(folder)


def watch_journal_readers(store, offsets=None):
    """Wrap store.lines_at so a test sees the journal readers left open (MicroPython closes no
    generator it drops, so a reader that stops early must close its file itself). Returns
    (open, original): open[0] counts the readers open now; each line read appends its byte offset
    to `offsets` if given; `store.lines_at = original` undoes it."""
    open_readers = [0]
    original = store.lines_at

    def counted(at):
        open_readers[0] += 1
        try:
            for item in original(at):
                if offsets is not None:
                    offsets.append(item[0])
                yield item
        finally:
            open_readers[0] -= 1
    store.lines_at = counted
    return open_readers, original


def read_file(path):
    f = open(path, "rb")
    try:
        return f.read()
    finally:
        f.close()


def write_file(path, data):
    f = open(path, "wb")
    f.write(data)
    f.close()


class TestBoard(InProcessBoard):
    """The in-process board with the tests' own helpers."""

    def detectives_round(self):
        """The detectives' turn: each piece that may move takes its first legal move (its ticket
        pressed where two lead there)."""
        g = self.board.game
        while g.phase == PHASE_DETECTIVES:
            mask = g.to_move()
            p = 0
            while not mask & (1 << p):
                p += 1
            s, t = g.legal(p)[0]
            self.lift(g.pos[p])
            self.place(s)
            if self.board.asking_at() == s:
                self.press(t)

    def hold_confirm(self, ms=1600):
        """The confirm button held `ms` (a take-back is 1.5 s), then let go."""
        self.button(3, True)
        self.settle()
        self.run(ms // self.period)
        self.button(3, False)
        self.settle()

    def messages(self):
        out = [json.loads(t) for t in self.link.outbox]
        self.link.outbox = []
        return out

    def colour(self, station):
        """(r, g, b) of a station in the LEDs' logical frame."""
        sl = self.leds.station_led
        k = 3 * (sl[2 * station] | (sl[2 * station + 1] << 8))
        f = self.leds.frame
        return f[k], f[k + 1], f[k + 2]
