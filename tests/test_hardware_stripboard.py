"""hardware.stripboard: the reader board's stripboard layout joins exactly the netlist's nets."""
import xml.etree.ElementTree as ET

import pytest

from hardware import stripboard, wiring
from sy.hardware import boardconfig


@pytest.fixture(scope="module")
def built():
    nl = wiring.load(boardconfig.default())
    return nl, stripboard.build(nl)


def test_layout_walks_back_to_the_netlist(built):
    nl, lay = built
    assert stripboard.connections(lay) == stripboard.expected(nl)
    groups = stripboard.expected(nl)
    assert frozenset({"U3.9", "U5.2"}) in groups and frozenset({"U3.7"}) in groups   # QH to the latch, /QH open
    # every hole holds at most one thing: pins, cuts and link ends never share a hole
    ends = [h for a, b, _n in lay.links for h in (a, b)]
    assert len(ends) == len(set(ends))
    assert not (set(ends) & set(lay.pins)) and not (lay.cuts & set(lay.pins)) and not (lay.cuts & set(ends))


def test_a_missing_cut_is_a_short_and_a_missing_link_an_open(built):
    nl, lay = built
    want = stripboard.expected(nl)
    for cut in sorted(lay.cuts)[:4] + sorted(lay.knife)[:2]:
        broken = stripboard.Layout(lay.pins, lay.cuts - {cut}, lay.knife - {cut}, lay.links)
        assert stripboard.connections(broken) != want, cut
    for i in range(len(lay.links)):
        broken = stripboard.Layout(lay.pins, lay.cuts, lay.knife, lay.links[:i] + lay.links[i + 1:])
        assert stripboard.connections(broken) != want, lay.links[i]


def test_the_dip_straddles_its_cuts_and_picture_is_written(built, tmp_path):
    nl, lay = built
    r0, c0 = stripboard.PLACES["U3"]["1"]
    for k in range(8):   # no strip joins a left pin of the 74HC165 to the right one on its row
        assert any((r0 + k, c) in lay.cuts for c in range(c0 + 1, c0 + 3)), k
    out = tmp_path / "r.svg"
    assert stripboard.main(["-o", str(out)]) == 0
    root = ET.parse(str(out)).getroot()
    links = [p for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("class") == "link"]
    assert len(links) == len(lay.links)


def test_readme_counts_are_the_layouts(built):
    import os
    _nl, lay = built
    text = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware",
                             "README.md")).read()
    assert "%d cuts at holes, %d cuts between holes" % (len(lay.cuts), len(lay.knife)) in text
    assert "and %d wire links" % len(lay.links) in text


def test_mounting_holes_are_free_and_cut_nothing(built):
    nl, lay = built
    ends = {h for a, b, _n in lay.links for h in (a, b)}
    segs = stripboard.segments(lay)
    for h in stripboard.MOUNTING:
        assert h not in lay.pins and h not in ends and h not in lay.cuts
        seg = [s for s in segs if s[0] == h[0] and s[1] <= h[1] <= s[2]][0]
        assert h[1] in (seg[1], seg[2])   # at its strip's end: drilling it out joins and parts nothing


def test_no_link_passes_under_a_socket(built):
    nl, lay = built
    assert stripboard.links_under_sockets(lay) == []
    # the check sees a link across U3's body, one ending under U5's and one along U4's pin rows
    r0, c0 = min(stripboard.PLACES["U3"].values())
    assert stripboard._crosses_ic((r0 + 1, c0 - 1), (r0 + 1, c0 + 5))
    r0, c0 = min(stripboard.PLACES["U5"].values())
    assert stripboard._crosses_ic((r0 - 1, c0 + 1), (r0, c0 + 1))
    r0, c0 = min(stripboard.PLACES["U4"].values())
    assert stripboard._crosses_ic((r0 + 2, c0 + 1), (r0 + 5, c0 + 1))
    # the links that would pass under one go round along the spare strips below the parts
    parts_rows = max(r for places in stripboard.PLACES.values() for r, _c in places.values())
    spare = [h for a, b, _n in lay.links for h in (a, b) if h[0] > parts_rows]
    assert spare and parts_rows < stripboard.ROWS - 1
    # without the spare strips (the board cut to the parts' rows) some would pass under a socket
    rows, mounting = stripboard.ROWS, stripboard.MOUNTING
    try:
        stripboard.ROWS = parts_rows + 1
        stripboard.MOUNTING = ((0, 0), (0, stripboard.COLS - 1), (parts_rows, 0), (parts_rows, stripboard.COLS - 1))
        short = stripboard.build(nl)
        assert stripboard.connections(short) == stripboard.expected(nl)
        assert stripboard.links_under_sockets(short)
    finally:
        stripboard.ROWS, stripboard.MOUNTING = rows, mounting
    import os
    text = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware",
                             "README.md")).read()
    assert "no link passes under a socket's body" in text


def test_no_two_parts_collide(built, monkeypatch, tmp_path):
    assert stripboard.courtyard_overlaps() == []
    # the check sees R9 back beneath R8, a box header's shroud over its corner standoff and C4
    # against U5's socket, and the tool then draws nothing
    places = dict(stripboard.PLACES, R9={"1": (19, 28), "2": (19, 33)}, J3=stripboard._box_header(1, 2, gnd_left=True),
                  C4={"1": (7, 37), "2": (6, 37)})
    monkeypatch.setattr(stripboard, "PLACES", places)
    got = {frozenset(p) for p in stripboard.courtyard_overlaps()}
    assert got == {frozenset(p) for p in (("R8", "R9"), ("J3", "MH1"), ("U5", "C4"))}, got
    out = tmp_path / "r.svg"
    assert stripboard.main(["-o", str(out)]) == 1 and not out.exists()


def test_readme_names_the_links_under_the_shrouds(built):
    import os
    _nl, lay = built
    under = stripboard.links_under_shrouds(lay)
    assert under and all(stripboard.links_under_shrouds(stripboard.Layout(lay.pins, lay.cuts, lay.knife, [u]))
                         for u in under)
    far = ((stripboard.ROWS - 2, 1), (stripboard.ROWS - 2, 6), "x")   # along a spare strip
    assert stripboard.links_under_shrouds(stripboard.Layout(lay.pins, lay.cuts, lay.knife, [far])) == []
    text = " ".join(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware",
                                      "README.md")).read().split())
    assert "%d links lie under the shrouds' outline" % len(under) in text
