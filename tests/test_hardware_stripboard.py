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
    links = [p for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("class", "").startswith("link")]
    assert len(links) == len(lay.links)


def readme():
    import os
    return " ".join(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware",
                                      "README.md")).read().split())


def test_readme_counts_are_the_layouts(built):
    _nl, lay = built
    text = readme()
    assert "%d × %d-hole stripboard" % (stripboard.COLS, stripboard.ROWS) in text
    below = max(r for holes in stripboard.PLACES.values() for r, _c in holes.values()) + 1
    assert "The parts take the top %d rows; row 1 and the bottom %d are spare strips" % (
        below, stripboard.ROWS - below) in text
    assert stripboard._spare_rows() == "1, %d-%d" % (below, stripboard.ROWS - 1)
    assert "%d cuts at holes, %d cuts between holes" % (len(lay.cuts), len(lay.knife)) in text
    assert "and %d wire links" % len(lay.links) in text
    assert "%d of the links cross another net's link" % len(stripboard.crossing_links(lay)) in text
    assert "the nearest passes %.2f mm off" % stripboard.link_clearance(lay) in text
    assert "within %.1f mm of one" % stripboard.BODY_GAP in text
    assert "insulated wire (solid core, %.1f mm)" % stripboard.LINK_WIRE in text


def test_mounting_holes_are_free_and_cut_nothing(built):
    nl, lay = built
    ends = {h for a, b, _n in lay.links for h in (a, b)}
    segs = stripboard.segments(lay)
    for h in stripboard.MOUNTING:
        assert h not in lay.pins and h not in ends and h not in lay.cuts
        seg = [s for s in segs if s[0] == h[0] and s[1] <= h[1] <= s[2]][0]
        assert h[1] in (seg[1], seg[2])   # at its strip's end: drilling it out joins and parts nothing


def test_no_link_lies_under_a_part(built):
    nl, lay = built
    assert lay.links and stripboard.links_under_parts(lay) == []
    assert stripboard.link_clearance(lay) >= stripboard.BODY_GAP
    # the bodies are the real parts': a box header's shroud 20.3 x 8.9 mm, a socket's frame
    bodies = stripboard.bodies()
    _k, x0, y0, x1, y1 = bodies["J4"]
    assert round(y1 - y0, 1) == 20.3 and round(x1 - x0, 1) == 8.9
    _k, x0, y0, x1, y1 = bodies["U3"]
    assert (round(x1 - x0, 2), round(y1 - y0, 2)) == (3 * 2.54 + 2.54, 7 * 2.54 + 2.54)

    def under(link):
        return [ref for _l, ref in stripboard.links_under_parts(stripboard.Layout(lay.pins, lay.cuts, lay.knife,
                                                                                  [link]))]
    # planted: a link beside J4's signal pins (under the shroud, not the pins), one 2 holes past J3's
    # end pin (the shroud reaches 5.07 mm: its wall would sit on the wire), one across U3 between its
    # pin rows, one along R7 under its body, one beside a corner standoff (under the screw head)
    r0, c0 = min(stripboard.PLACES["J4"].values())
    assert under(((r0, c0 - 1), (r0 + 4, c0 - 1), "x")) == ["J4"]
    r1, c1 = max(stripboard.PLACES["J3"].values())
    assert under(((r1 + 2, c1 - 3), (r1 + 2, c1 - 2), "x")) == ["J3"]
    assert under(((r1 + 3, c1 - 3), (r1 + 3, c1 - 2), "x")) == []          # a row further: clear
    r0, c0 = min(stripboard.PLACES["U3"].values())
    assert under(((r0 + 1, c0 - 1), (r0 + 1, c0 + 4), "x")) == ["U3"]
    assert under(((r0 + 1, c0 + 1), (r0 + 2, c0 + 1), "x")) == ["U3"]    # ends inside its frame
    (r, c), _ = sorted(stripboard.PLACES["R7"].values())
    assert under(((r, c + 1), (r, c + 3), "x")) == ["R7"]
    assert under(((r - 1, c + 1), (r - 1, c + 3), "x")) == []             # a row above: clear
    assert under(((1, 0), (3, 0), "x")) == ["MH1"]
    # planted: the OUT header put back where it stood over the sockets' corner: links run under it
    old = dict(stripboard.PLACES, J4=stripboard._box_header(1, 20, gnd_left=False))
    assert "J4" in {ref for _l, ref in stripboard.links_under_parts(lay, places=old)}
    # the layout tool never lays one: without the spare strips below the parts some net has no way
    parts_rows = max(r for places in stripboard.PLACES.values() for r, _c in places.values())
    spare = [h for a, b, _n in lay.links for h in (a, b) if h[0] > parts_rows]
    assert spare and parts_rows < stripboard.ROWS - 1
    rows, mounting = stripboard.ROWS, stripboard.MOUNTING
    try:
        stripboard.ROWS = parts_rows + 1
        stripboard.MOUNTING = ((0, 0), (0, stripboard.COLS - 1), (parts_rows, 0), (parts_rows, stripboard.COLS - 1))
        with pytest.raises(ValueError, match="no free holes"):
            stripboard.build(nl)
    finally:
        stripboard.ROWS, stripboard.MOUNTING = rows, mounting
    assert "no link lies under a part's body" in readme()


def test_every_body_lies_on_the_board(built, monkeypatch, tmp_path):
    margins = stripboard.edge_margins()
    assert set(margins) == set(stripboard.READER_PARTS) and min(margins.values()) >= 0
    # the box headers' shrouds reach 5.07 mm past pin 1: they keep 1.28 mm off the top edge
    assert round(margins["J3"], 2) == round(margins["J4"], 2) == 1.28
    text = readme()
    assert "%.2f mm" % min(m for ref, m in margins.items() if ref in ("J3", "J4")) in text
    # planted: J3 one row up, its shroud past the top edge; the tool then draws nothing
    monkeypatch.setattr(stripboard, "PLACES", dict(stripboard.PLACES, J3=stripboard._box_header(1, 3, gnd_left=True)))
    assert round(stripboard.edge_margins()["J3"], 2) == -1.26
    out = tmp_path / "r.svg"
    assert stripboard.main(["-o", str(out)]) == 1 and not out.exists()


def test_links_that_cross_are_insulated_in_the_picture(built, tmp_path):
    _nl, lay = built
    crossing = stripboard.crossing_links(lay)
    for link in crossing:
        assert any(o[2] != link[2] and stripboard._link_gap(link[:2], o[:2]) < stripboard.LINK_GAP for o in lay.links)
    # planted: two links of different nets crossing in an X, and two side by side a hole apart
    x = stripboard.Layout(lay.pins, lay.cuts, lay.knife, [((20, 1), (22, 3), "a"), ((22, 1), (20, 3), "b"),
                                                          ((20, 6), (22, 6), "a"), ((20, 7), (22, 7), "b")])
    assert stripboard.crossing_links(x) == x.links[:2]
    out = tmp_path / "r.svg"
    assert stripboard.main(["-o", str(out)]) == 0
    root = ET.parse(str(out)).getroot()
    marked = [p for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("class") == "link insulated"]
    assert len(marked) == len(crossing)


def test_no_two_parts_collide(built, monkeypatch, tmp_path):
    assert stripboard.courtyard_overlaps() == []
    # the check sees R9 beneath R8, a box header's shroud over its corner standoff and C4 against
    # U5's socket, and the tool then draws nothing
    (r, c), _ = sorted(stripboard.PLACES["R8"].values())
    places = dict(stripboard.PLACES, R9={"1": (r + 1, c), "2": (r + 1, c + 5)},
                  J3=stripboard._box_header(2, 1, gnd_left=True), C4={"1": (10, 37), "2": (9, 37)})
    monkeypatch.setattr(stripboard, "PLACES", places)
    got = {frozenset(p) for p in stripboard.courtyard_overlaps()}
    assert got == {frozenset(p) for p in (("R8", "R9"), ("J3", "MH1"), ("U5", "C4"))}, got
    out = tmp_path / "r.svg"
    assert stripboard.main(["-o", str(out)]) == 1 and not out.exists()
