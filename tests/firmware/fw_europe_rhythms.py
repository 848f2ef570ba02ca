"""The Europe board's LEDs with the rhythms beside colour (board.json leds.patterns; sy/play/rhythm.py),
as plain test functions: tests/test_europe_rhythms.py runs them under CPython and under the
MicroPython unix port. The real EuropeApp and EuropeBoard of tests/firmware/fw_europe_chain.py (its
in-process board, whole chain), its LEDs made from a board.json with or without the rhythms. Under
the unix port the frames with a piece in hand and with empty cities are drawn with the heap locked."""
import sys

if sys.implementation.name != "micropython":
    import os
    _HERE = os.path.dirname(os.path.abspath(__file__))
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)

from fw_europe_chain import DETECTIVES, EuropeChainBoard, _locked_scans, first_turn, setup_game
from sy.europe.board import PIECE_RGB, TRANSPORT_RGB
from sy.play.rhythm import PATTERN_MS

DARK = (0, 0, 0)
CAR, TRAIN, _PLANE = TRANSPORT_RGB


def _turn(tb):
    """The detectives' turn of round 1: every detective on its city, Mister X moved."""
    setup_game(tb)
    first_turn(tb)
    tb.messages()


def _frames(tb, city, start=0, step=20):
    """The city's colour in the frames of one rhythm (1.2 s), a frame every `step` ms."""
    board = tb.app.board
    out = []
    for ms in range(start, start + PATTERN_MS, step):
        board.render(ms)
        out.append(tb.colour(city))
    return out


def _flashes(seen, lit):
    return sum(1 for k in range(len(seen)) if seen[k] == lit and (k == 0 or seen[k - 1] != lit))


def _destinations(tb, i):
    """{city: [transports]} detective i may reach."""
    out = {}
    for c, t in tb.app.board.game.legal(i):
        out.setdefault(c, []).append(t)
    return out


def _lifted(patterns, name, i):
    tb = EuropeChainBoard(name, patterns)
    _turn(tb)
    tb.lift(DETECTIVES[i])
    assert tb.command("status")["lifted"] == i
    return tb


def test_each_transports_destinations_show_its_rhythm():
    tb = _lifted(True, "sy-europe-rhythm-dest", 4)  # D5 (the test map has no plane from here: the
    try:                                              # plane's double blink, tests/test_colour_vision.py)
        dest = _destinations(tb, 4)
        assert dest[21] == [0] and dest[15] == [1] and dest[16] == [0, 1], dest
        car = _frames(tb, 21)
        assert set(car) == {CAR}, car  # steady
        train = _frames(tb, 15)
        assert DARK not in train and train[0] == TRAIN and len(set(train)) > 20, train  # a slow pulse, never dark
        # a city two transports reach: each for a whole rhythm in turn
        shown = [_frames(tb, 16, start=k * PATTERN_MS, step=PATTERN_MS)[0] for k in range(2)]
        assert shown == [CAR, TRAIN], shown
    finally:
        tb.close()


def test_an_empty_city_blinks_its_detectives_number():
    tb = EuropeChainBoard("sy-europe-rhythm-count", True)
    try:
        setup_game(tb)  # no piece on the board yet
        for i in range(len(DETECTIVES)):
            seen = _frames(tb, DETECTIVES[i])
            assert PIECE_RGB[i] in seen and _flashes(seen, PIECE_RGB[i]) == i + 1, (i, seen)
    finally:
        tb.close()


def test_without_the_setting_the_plain_colours_and_blinks():
    tb = _lifted(False, "sy-europe-rhythm-off", 0)
    try:
        assert tb.app.board.rhythm is None
        dest = _destinations(tb, 0)
        for c in sorted(dest):
            if len(dest[c]) == 1:
                assert set(_frames(tb, c, step=40)) == {TRANSPORT_RGB[dest[c][0]]}, c  # steady, its colour
        # the lifted piece's city blinks every 250 ms, the plain blink
        seen = _frames(tb, DETECTIVES[0])
        assert set(seen) == {PIECE_RGB[0], DARK} and _flashes(seen, PIECE_RGB[0]) == 2, seen
    finally:
        tb.close()


def test_the_frames_with_the_rhythms_allocate_nothing():
    if sys.implementation.name != "micropython":
        return  # CPython has no heap lock; the unix port runs this file too
    tb = EuropeChainBoard("sy-europe-rhythm-heap", True)
    try:
        setup_game(tb)
        tb.run(10)
        _locked_scans(tb, 250)  # 1.25 s: every empty city blinking its number
        first_turn(tb)
        tb.lift(DETECTIVES[0])
        tb.run(10)
        _locked_scans(tb, 500)  # 2.5 s: D1's destinations in their rhythms, two windows and more
    finally:
        tb.close()
