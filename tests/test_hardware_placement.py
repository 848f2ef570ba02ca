"""hardware.placement: the affine fit, the LED route, reed directions and the drilling template."""
import csv
import math
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from hardware import placement as P

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "hardware", "example_measurements.csv")
SVG = "{http://www.w3.org/2000/svg}"


def known(scale, deg, tx, ty):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return lambda p: (tx + scale * (c * p[0] - s * p[1]), ty + scale * (s * p[0] + c * p[1]))


@pytest.fixture(scope="module")
def stations():
    return P.read_stations()


@pytest.fixture(scope="module")
def example():
    return P.placement_from_file(EXAMPLE)


def test_fit_recovers_a_known_transform(stations):
    truth = known(0.47, 1.5, 30.0, -12.0)
    measured = [(s,) + truth(stations[s]) for s in (8, 7, 189, 175)]
    fit = P.fit_affine(stations, measured)
    assert fit.rms < 1e-6
    assert fit.transform.scale() == pytest.approx(0.47, rel=1e-9)
    assert fit.transform.rotation_deg() == pytest.approx(1.5, abs=1e-9)
    for s in (1, 100, 199):  # stations not measured land where the true transform puts them
        assert math.dist(fit.transform(stations[s]), truth(stations[s])) < 1e-6


def test_fit_shows_a_misread_station(stations):
    truth = known(0.45, 0.0, 20.0, 20.0)
    measured = [(s,) + truth(stations[s]) for s in (8, 7, 189, 175, 128)]
    s, x, y = measured[2]
    measured[2] = (s, x + 10.0, y)  # a ruler misread by 1 cm
    fit = P.fit_affine(stations, measured)
    assert fit.rms > 1.0
    assert fit.suspect() == 189 and fit.check[189] > 9.9
    assert "station 189 looks misread" in fit.report()


def test_fit_refuses_bad_measurements(stations):
    truth = known(0.45, 0.0, 0.0, 0.0)
    three = [(s,) + truth(stations[s]) for s in (8, 7, 189)]
    with pytest.raises(P.PlacementError, match="at least 4"):
        P.fit_affine(stations, three)
    with pytest.raises(P.PlacementError, match="twice"):
        P.fit_affine(stations, three + [three[0]])
    with pytest.raises(P.PlacementError, match="not on the map"):
        P.fit_affine(stations, three + [(200, 1.0, 2.0)])
    # 1, 2 and 3 lie far apart but 4 points exactly on one line cannot fix an affine map
    line = [(s, float(s), 2.0 * s) for s in (1, 2, 3, 4)]
    fake = {s: (float(s), 2.0 * s) for s in (1, 2, 3, 4)}
    with pytest.raises(P.PlacementError, match="one line"):
        P.fit_affine(fake, line)


def test_read_measurements_errors(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("station,x,y\n1,2,3\n")
    with pytest.raises(P.PlacementError, match="header"):
        P.read_measurements(str(p))
    p.write_text("# comment\nstation,x_mm,y_mm\n1,2,three\n")
    with pytest.raises(P.PlacementError, match="line 2"):
        P.read_measurements(str(p))


def test_example_fit_is_tight(example):
    assert example.fit.rms < 0.5 and example.fit.max[3] < 0.5
    assert example.fit.transform.scale() == pytest.approx(0.45, rel=0.01)


def test_route_is_a_short_chain_over_every_station(example):
    route = example.route
    assert sorted(route) == list(range(1, 200))
    length = P.route_length(route, example.pos)
    numeric = P.route_length(list(range(1, 200)), example.pos)
    best_serpentine = min(P.route_length(P.serpentine(example.pos, n), example.pos) for n in range(3, 31))
    assert length <= best_serpentine < numeric / 2
    idx = example.index_list()
    assert sorted(idx) == list(range(199))
    assert all(route[idx[s - 1]] == s for s in range(1, 200))


def test_reeds_point_away_from_other_stations(example):
    # a neighbour's piece (magnet centred on its station) must stay clear of this reed's groove
    for s, c in example.pos.items():
        a, b = P.reed_segment(c, example.angles[s])
        for t, q in example.pos.items():
            if t != s:
                assert P._seg_point_distance(q, a, b) > 10.0, (s, t)


def test_template_and_tiles_are_generated(example, tmp_path):
    files = P.write_outputs(example, str(tmp_path), pdf=False)
    root = ET.parse(str(tmp_path / "template.svg")).getroot()
    groups = [g for g in root.iter(SVG + "g") if g.get("class") == "station"]
    assert sorted(int(g.get("id")[1:]) for g in groups) == list(range(1, 200))
    for cls, tag in (("led", "circle"), ("pocket", "circle"), ("reed", "rect"), ("label", "text")):
        assert len([e for e in root.iter(SVG + tag) if e.get("class") == cls]) == 199, cls
    labels = sorted(int(e.text) for e in root.iter(SVG + "text") if e.get("class") == "label")
    assert labels == list(range(1, 200))
    # real size: width in mm equals the viewBox width in user units (1 unit = 1 mm)
    vb = [float(v) for v in root.get("viewBox").split()]
    assert root.get("width") == "%.1fmm" % vb[2] and 700 < vb[2] < 850
    bar = [e for e in root.iter(SVG + "path") if e.get("class") == "scalebar"][0]
    assert bar.get("d").endswith("h100")
    # the measured stations sit in the template where they were measured
    for s, x, y in P.read_measurements(EXAMPLE):
        cx = float(root.find(".//*[@id='s%d']/{http://www.w3.org/2000/svg}path" % s).get("d")[1:].split()[0]) + 2
        assert abs(cx - x) < 0.5
    pages, rows, cols = example.tiles()
    tiles = [f for f in files if os.path.basename(f).startswith("tile-")]
    assert len(tiles) == rows * cols == len(pages) and rows * cols >= 12
    t = ET.parse(tiles[0]).getroot()
    assert (t.get("width"), t.get("height")) == ("210mm", "297mm")
    with open(str(tmp_path / "route.csv")) as f:
        rows_csv = list(csv.DictReader(f))
    assert [int(r["station"]) for r in rows_csv] == example.route


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="rsvg-convert (apt librsvg2-bin) not installed")
def test_pdf_is_generated(example, tmp_path):
    P.write_outputs(example, str(tmp_path), pdf=True)
    for name in ("template.pdf", "tiles.pdf"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"%PDF")
    assert (tmp_path / "tiles.pdf").read_bytes().count(b"/Type /Page\n") + \
        (tmp_path / "tiles.pdf").read_bytes().count(b"/Type /Page>") + \
        (tmp_path / "tiles.pdf").read_bytes().count(b"/Type /Page ") >= 12


def test_main_reports_errors(tmp_path, capsys):
    bad = tmp_path / "m.csv"
    bad.write_text("station,x_mm,y_mm\n1,0,0\n2,10,0\n")
    assert P.main([str(bad), "-o", str(tmp_path / "out")]) == 2
    assert "at least 4" in capsys.readouterr().err
    assert P.main([EXAMPLE, "-o", str(tmp_path / "out"), "--no-pdf"]) == 0
    assert "rms" in capsys.readouterr().out


def test_groove_holds_the_glass_and_straight_leads(example, tmp_path):
    # a straight lead needs >= 2 mm each end of the glass (a 16 mm groove for 14 mm of glass left none)
    assert P.REED_LENGTH_MM >= P.REED_GLASS_MM + 2 * 2.0 == 18.0
    assert P.REED_BACK_MM >= 2.0 and P.REED_DEPTH_MM > P.REED_GLASS_DIA_MM
    s = 1
    a, b = P.reed_segment(example.pos[s], example.angles[s])
    assert math.dist(a, b) == pytest.approx(P.REED_LENGTH_MM)
    g0, g1 = P.glass_segment(example.pos[s], example.angles[s])
    assert g0 == example.pos[s]   # the glass's near end under the station centre
    assert math.dist(a, g0) == pytest.approx(P.REED_LEAD_STRAIGHT_MM) and math.dist(g1, b) == pytest.approx(2.0)
    P.write_outputs(example, str(tmp_path), pdf=False)
    root = ET.parse(str(tmp_path / "template.svg")).getroot()
    holes = [e for e in root.iter(SVG + "circle") if e.get("class") == "wirehole"]
    assert len(holes) == 2 * 199
    legend = "".join(t.text or "" for t in root.iter(SVG + "text"))
    assert "18 x 3 mm, 2.5 mm deep" in legend and "3.5 mm deep" in legend


def test_neighbour_within_the_magnets_reach_is_warned(example):
    assert example.warnings == []   # the example board: every glass >= 12 mm from other stations
    assert "at least 12 mm" in example.summary()
    pos = {1: (0.0, 0.0), 2: (20.0, 0.0), 3: (5.0, 9.0)}
    angles = {1: 0.0, 2: math.pi, 3: math.pi / 2}
    warn = P.reach_warnings(pos, angles)
    # station 1's glass runs 0..14 mm along x: station 2's centre is 6 mm past its far end
    assert warn[0] == (1, 2, pytest.approx(6.0)) and (1, 3, pytest.approx(9.0)) in warn
    assert all(d < P.MAGNET_REACH_MM for _s, _t, d in warn)


def test_no_two_cuts_in_the_plate_touch_on_the_example(example):
    # within every station (LED pocket against its groove and wire holes) and between stations
    assert example.conflicts() == []
    # the LED's offset is the smallest that keeps its pocket 1 mm from its own groove and holes
    margin = P.GEOMETRY_MARGIN_MM
    for s in (1, 100, 199):
        own = P.cut_conflicts({s: example.pos[s]}, {s: example.angles[s]}, {s: example.sides[s]}, margin=margin + 0.06)
        assert own and all(t is None for _s, t, _w, _g in own)   # 0.06 mm more margin fails: it is tight
    assert 7.0 < P.LED_OFFSET_MM < 9.0


def test_conflict_check_sees_a_pocket_on_a_lead_and_crowded_stations(monkeypatch):
    pos, angles, sides = {1: (0.0, 0.0)}, {1: 0.0}, {1: 1}
    monkeypatch.setattr(P, "LED_OFFSET_MM", 6.5)    # the pocket reaches over the groove
    bad = P.cut_conflicts(pos, angles, sides)
    assert {w for _s, t, w, _g in bad if t is None} == {"pocket/groove", "pocket/hole"}
    monkeypatch.undo()
    assert P.cut_conflicts(pos, angles, sides) == []
    crowded = {1: (0.0, 0.0), 2: (0.0, 12.0)}       # station 2's pocket lands on station 1's LED
    bad = P.cut_conflicts(crowded, {1: 0.0, 2: 0.0}, {1: 1, 2: -1})
    assert any(t == 2 and w == "pocket/pocket" and g < 0 for _s, t, w, g in bad)
