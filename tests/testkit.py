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


# --- the board is language-free (docs/protocol.md, "Error codes") -------------------------------
# The rule every line the board sends must keep: no string value holds a space (a sentence to show
# would), except in the fields listed here, which hold data rather than words for a player; and
# `error` and `why` are codes. Every test of the in-process board checks every line it sends.
DATA_FIELDS = ("longest_command",)  # `mem`: the longest command the board ran, as the host sent it


def _is_code(s):
    """snake_case, or (an `internal` error's why) an exception's class name."""
    if not isinstance(s, str) or not s or not s[0].isalpha():
        return False
    for c in s:
        if not (c.isalpha() or c.isdigit() or c == "_"):
            return False
    return True


def sentences(obj, where=""):
    """[(where, value)] for each value in a line the board sent that breaks the rule above."""
    out = []
    if isinstance(obj, dict):
        for k in obj:
            v = obj[k]
            if k in ("error", "why") and v is not None and not _is_code(v):
                out.append((where + "." + k, v))
            elif k not in DATA_FIELDS:
                out.extend(sentences(v, where + "." + k))
    elif isinstance(obj, list):
        for i in range(len(obj)):
            out.extend(sentences(obj[i], where + "[%d]" % i))
    elif isinstance(obj, str) and " " in obj:
        out.append((where, obj))
    return out


def check_language_free(text):
    """Fail on a line the board sent that holds a sentence (or is not JSON)."""
    found = sentences(json.loads(text))
    if found:
        raise AssertionError("the board sent words, not codes: %r in %s" % (found, text))


def watch_language_free(link):
    """Check every line sent on the link from now on (and those waiting in its outbox)."""
    for text in link.outbox:
        check_language_free(text)
    send = link.send

    def checked(text):
        check_language_free(text)
        send(text)
    link.send = checked


def drained(link):
    """The messages a queue link holds, decoded; the queue emptied."""
    out = [json.loads(t) for t in link.outbox]
    link.outbox = []
    return out


def station_colour(leds, station):
    """(r, g, b) of a station in the LEDs' logical frame."""
    sl = leds.station_led
    k = 3 * (sl[2 * station] | (sl[2 * station + 1] << 8))
    f = leds.frame
    return f[k], f[k + 1], f[k + 2]


class TestBoard(InProcessBoard):
    """The in-process board with the tests' own helpers; every line it sends is checked for
    sentences (watch_language_free)."""
    __test__ = False  # a helper, not a test class (pytest would collect it by its name)

    def __init__(self, *args, **kwargs):
        InProcessBoard.__init__(self, *args, **kwargs)
        watch_language_free(self.link)

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
        return drained(self.link)

    def colour(self, station):
        """(r, g, b) of a station in the LEDs' logical frame."""
        return station_colour(self.leds, station)
