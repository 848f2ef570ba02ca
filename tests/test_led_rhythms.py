"""The LEDs' second channel on a whole board (board.json leds.patterns): each transport's
destinations in its rhythm, a missing piece's station blinking its number; and off, the board
as before. The rhythms' shapes themselves: tests/test_colour_vision.py."""
import os
import sys

import pytest

from host import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
from testkit import TestBoard as Board, scratch  # noqa: E402
from sy.hardware import boardconfig  # noqa: E402
from sy.play.board import PIECE_RGB, TRANSPORT_RGB  # noqa: E402
from sy.play.rhythm import PATTERN_MS  # noqa: E402

DARK = (0, 0, 0)
TAXI, BUS, UG = (tuple(TRANSPORT_RGB[3 * t:3 * t + 3]) for t in range(3))


def _board(patterns):
    cfg = {"board": "pico"}
    if patterns is not None:
        cfg["leds"] = {"patterns": patterns}
    tb = Board(scratch("rhythms"), boardconfig.validate(cfg))
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[13, 26, 29], bobbies=[34])["ok"]
    return tb


def _frame(tb, now, stations):
    tb.board.render(now)
    return [tb.colour(s) for s in stations]


def test_the_setting_is_off_by_default_and_kept_out_of_the_file():
    assert "patterns" not in boardconfig.default()["leds"]
    assert boardconfig.validate({"board": "pico", "leds": {"patterns": True}})["leds"]["patterns"] is True
    with pytest.raises(boardconfig.ConfigError):
        boardconfig.validate({"board": "pico", "leds": {"patterns": "yes"}})


def test_an_empty_start_station_blinks_its_detectives_number():
    tb = _board(True)
    lit = [tuple((c * 255) >> 8 for c in PIECE_RGB[3 * k:3 * k + 3]) for k in range(3)]
    for k, station in enumerate((13, 26, 29)):
        seen = [_frame(tb, ms, (station,))[0] for ms in range(0, PATTERN_MS, 20)]
        flashes = sum(1 for i, c in enumerate(seen) if c != DARK and (i == 0 or seen[i - 1] == DARK))
        assert flashes == k + 1 and set(seen) == {DARK, lit[k]}, (station, seen)
    bobby = [_frame(tb, ms, (34,))[0] != DARK for ms in range(0, PATTERN_MS, 20)]
    assert bobby == sorted(bobby, reverse=True) and PATTERN_MS // 3 < 20 * sum(bobby) < PATTERN_MS  # one long flash


def test_destinations_show_their_transports_rhythm():
    tb = _board(True)
    for s in (13, 26, 29, 34):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)  # D1: 4 by taxi, 14 by bus, 46 by underground
    assert _frame(tb, 0, (4, 14, 46)) == [TAXI, BUS, UG]
    assert _frame(tb, 100, (4, 46)) == [TAXI, DARK] and _frame(tb, 200, (46,)) == [UG]
    half = _frame(tb, PATTERN_MS // 2, (4, 14, 46))
    assert half[0] == TAXI and DARK != half[1] != BUS and half[2] == DARK
    # 23 is reached by taxi and by bus: each for a whole rhythm in turn
    assert _frame(tb, 0, (23,)) + _frame(tb, PATTERN_MS, (23,)) == [TAXI, BUS]


def test_without_the_setting_the_board_keeps_its_plain_blinks():
    tb = _board(None)
    assert _frame(tb, 0, (13,)) == [DARK] and _frame(tb, 500, (13,)) != [DARK]
