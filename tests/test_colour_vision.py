"""Colour-vision safe LEDs: every pair of colours players must tell apart stays apart under
simulated protanopia, deuteranopia and tritanopia (CIEDE2000), the docs' table is the measured
one, and colour is never the only signal: each transport has its rhythm, each piece its count."""
import os

import pytest

from host import ROOT
from host.leds import colourvision as cv
from sy.play.rhythm import PATTERN_MS, piece_lit, transport_level

# Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes",
# table 1: pairs 1, 7, 17, 25 and 34
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize("lab1, lab2, want", SHARMA)
def test_ciede2000_matches_the_published_test_data(lab1, lab2, want):
    assert cv.ciede2000(lab1, lab2) == pytest.approx(want, abs=1e-4)
    assert cv.ciede2000(lab2, lab1) == pytest.approx(want, abs=1e-4)


@pytest.mark.parametrize("group, a, b, distances", cv.table(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_pair_stays_apart_in_every_vision(group, a, b, distances):
    low = {v: round(d, 1) for v, d in distances.items() if d < cv.THRESHOLD}
    assert not low, "%s %s / %s under ΔE00 %.0f: %s" % (group, a, b, cv.THRESHOLD, low)


def test_the_simulation_can_fail_a_pair():
    """The board's earlier D1 and D3 (blue and purple) merge for a protanope."""
    assert cv.distance((0, 60, 255), (170, 0, 255), "normal") > cv.THRESHOLD
    assert cv.distance((0, 60, 255), (170, 0, 255), "protanopia") < 5


def test_the_europe_boards_pairs_are_measured_too():
    rows = {(g, a, b) for g, a, b, _d in cv.table()}
    assert ("Europe transports", "car", "train") in rows and ("Europe pieces", "D4", "D5") in rows
    assert sum(1 for g, _a, _b in rows if g.startswith("Europe")) == 3 + 10
    # its earlier car beige and train red merge for a deuteranope
    assert cv.distance((230, 160, 80), (255, 0, 0), "deuteranopia") < 12


def test_the_docs_table_is_the_measured_one():
    with open(os.path.join(ROOT, "docs", "colour-vision.md"), encoding="utf-8") as f:
        assert cv.markdown() in f.read(), "python -m host.leds.colourvision prints the table"


def _levels(t):
    return [transport_level(t, ms) for ms in range(0, PATTERN_MS, 10)]


def _runs(levels):
    """How many separate stretches are lit."""
    return sum(1 for k, v in enumerate(levels) if v and (k == 0 or not levels[k - 1]))


def test_each_transport_has_its_own_rhythm():
    taxi, bus, underground = _levels(0), _levels(1), _levels(2)
    assert set(taxi) == {256}  # steady
    assert min(bus) > 0 and max(bus) == 256 and len(set(bus)) > 20  # a pulse, never dark
    assert _runs(underground) == 2 and 0 in underground  # a double blink
    # a window starts at each transport's full colour, so a station that alternates shows it at once
    assert [transport_level(t, 3 * PATTERN_MS) for t in range(3)] == [256, 256, 256]


@pytest.mark.parametrize("detectives", [2, 5])
def test_an_empty_station_blinks_its_pieces_number(detectives):
    for piece in range(detectives + 2):  # the detectives, then two Bobbies
        lit = [piece_lit(piece, detectives, ms) for ms in range(0, PATTERN_MS, 10)]
        if piece < detectives:
            assert _runs(lit) == piece + 1
        else:
            assert _runs(lit) == 1 and sum(lit) * 10 >= 500  # one long flash
