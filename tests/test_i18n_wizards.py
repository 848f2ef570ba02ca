"""The makers' wizards (`yard selftest`, `yard calibrate`) in the pseudo-locale on a simulated
board: every line they print went through a catalog. The maker is scripted: Enter, station
numbers, a colour word, a skipped switch, no; each step's sentences, its errors and its report."""
import io

import pytest

from host import i18n
from host.device.calibrate import Keyboard, calibrate
from host.device.selftest import selftest
from host.simulator.board import SimBoard
from mpy import needs_unix_port
from pseudolocale import untranslated

pytestmark = needs_unix_port


@pytest.fixture
def board(tmp_path):
    sim = SimBoard(folder=str(tmp_path / "sim"), debounce_ms=10, heapsize="112k")
    sim.start()
    from host.link.boardlink import BoardLink
    with BoardLink(sim.port, timeout=10):  # booted
        pass
    sim.stick(57, True)  # a reed stuck closed: both wizards say so
    i18n.use(i18n.PSEUDO)
    yield sim
    i18n.use("en")
    sim.stop()


class Printed:
    def __init__(self):
        self.parts = []

    def __call__(self, text):
        self.parts.append(text)

    @property
    def text(self):
        return "".join(self.parts)


def _keys(*lines):
    return Keyboard(io.StringIO("".join(line + "\n" for line in lines)))


def test_selftest_in_the_pseudo_locale(board, tmp_path):
    progress, report = str(tmp_path / "st.json"), str(tmp_path / "report.txt")
    first = Printed()
    # step 1, then the input ends during the sweep: stopped, progress saved
    assert selftest(board.port, progress, report_path=report, chase_ms=1, out=first, keyboard=_keys("")) == 1
    second = Printed()
    # the sweep ends at once (every switch never closed), colours with a typo, a wrong colour and
    # all dark, the chase wrong at 20, the broken switches left in service
    code = selftest(board.port, progress, report_path=report, chase_ms=1, out=second,
                    keyboard=_keys("", "5 6", "abc", "5", "green", "dark", "20", "n"))
    assert code == 1
    text = first.text + second.text
    for sentence in ("Step 1 of 4", "Stopped. Progress saved", "Continuing the self-test", "Step 3 of 4",
                     "is not a station number", "Step 4 of 4", "out of service until repaired", "SELF-TEST REPORT",
                     "STUCK CLOSED", "NEVER CLOSED", "COLOUR FAULT", "WRONG COLOUR", "ALL DARK", "CHASE",
                     "READER BUS", "Fix the items above"):
        assert i18n.translations(i18n.PSEUDO) and _pseudo(sentence) in text, sentence
    assert not untranslated(text), untranslated(text)[:10]
    assert not untranslated(open(report, encoding="utf-8").read())


def test_calibrate_in_the_pseudo_locale(board, tmp_path):
    out = Printed()
    # the first LED dark, a typo, the rest confirmed; every switch skipped; the rhythms' question
    # answered with a typo, then no; not written
    keys = _keys("x", "abc", "12 13", *[""] * 260, *["s"] * 199, "abc", "n", "n")
    assert calibrate(board.port, progress_path=str(tmp_path / "cal.json"), out=out, keyboard=keys) == 1
    text = out.text
    for sentence in ("Step 1 of 3", "is not a station number", "one station per LED", "Step 2 of 3",
                     "is closed with nothing on the board", "skipped", "Step 3 of 3", "by elimination",
                     "For colour-blind players", "please (Enter keeps the board", "Write it to the board", "Not written"):
        assert _pseudo(sentence) in text, sentence
    assert not untranslated(text), untranslated(text)[:10]


def _pseudo(english):
    from host.i18n.pseudo import pseudo
    return pseudo(english)[1:-1]


def test_the_check_finds_an_english_line():
    assert untranslated("⟦Šté⟧ 12/199\n  ⟦àbç\ndéf⟧ 5") == []
    assert untranslated("⟦Šté⟧ skipped") == [" skipped"]
