"""hardware.pcb: the reader module's PCB. Its Gerbers, read back with gerbonara, join exactly the
netlist's nets; the design-rules check measures the copper and catches a planted fault; the fab
files and pictures are all there."""
import csv
import math
import os

import pytest

from hardware import pcb, stripboard, wiring
from sy.hardware import boardconfig

gerbonara = pytest.importorskip("gerbonara")


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("pcb"))
    board, bad, files = pcb.build(out)
    return out, board, bad, files


def copper_groups(out, board):
    """{frozenset of pin refs}: what the Gerbers' copper and plated holes join."""
    from gerbonara import ExcellonFile, GerberFile
    feats = []   # (layer, a, b, r)
    for layer, name in ((0, "reader-F_Cu.gtl"), (1, "reader-B_Cu.gbl")):
        for o in GerberFile.open(os.path.join(out, name)).objects:
            assert o.unit.shorthand == "mm"
            if type(o).__name__ == "Flash":
                feats.append((layer, (o.x, o.y), (o.x, o.y), o.aperture.diameter / 2))
            else:
                feats.append((layer, (o.x1, o.y1), (o.x2, o.y2), o.aperture.diameter / 2))
    holes = [(o.x, o.y) for o in ExcellonFile.open(os.path.join(out, "reader-PTH.drl")).objects]
    parent = list(range(len(feats)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for i, (l1, a1, b1, r1) in enumerate(feats):
        for j in range(i + 1, len(feats)):
            l2, a2, b2, r2 = feats[j]
            if l1 == l2 and pcb._seg_dist(a1, b1, a2, b2) <= r1 + r2 + 1e-6:
                parent[find(i)] = find(j)
    for h in holes:   # a plated hole joins its flashes on both layers
        on = [i for i, (_l, a, b, _r) in enumerate(feats) if a == b and math.dist(a, h) < 1e-6]
        for i in on[1:]:
            parent[find(i)] = find(on[0])
    groups = {}
    for ref, _net, p in board.pads:
        i = next(i for i, (lyr, a, b, _r) in enumerate(feats) if lyr == 0 and a == b and math.dist(a, p) < 1e-6)
        groups.setdefault(find(i), set()).add(ref)
    return {frozenset(g) for g in groups.values()}


def test_the_gerbers_join_exactly_the_netlists_nets(made):
    out, board, _bad, _files = made
    nl = wiring.load(boardconfig.default())
    assert copper_groups(out, board) == stripboard.expected(nl)


def test_design_rules_hold_and_meet_the_fabs_minimums(made):
    _out, board, bad, _files = made
    assert bad == []
    assert pcb.TRACK >= pcb.FAB["track"] and pcb.CLEARANCE >= pcb.FAB["clearance"]
    assert (pcb.PAD - pcb.DRILL) / 2 >= pcb.FAB["annular"] and (pcb.VIA - pcb.VIA_DRILL) / 2 >= pcb.FAB["annular"]
    # a planted fault: a track pulled onto another net's pad
    _layer, net, a, _b = board.tracks[0]
    other = next(p for _r, n, p in board.pads if n and n != net)
    board.tracks.append((0, net, a, other))
    try:
        assert any(v.startswith("clearance") for v in pcb.drc(board))
    finally:
        board.tracks.pop()
    assert pcb.drc(board, dict(track=0.1, clearance=0.1, annular=0.1, drill=0.2, edge=0.2))   # under the fab's
    assert pcb.drc(board) == []


def test_a_missing_track_opens_a_net(made, tmp_path):
    out, board, _bad, _files = made
    nl = wiring.load(boardconfig.default())
    cut = pcb.Board()
    cut.w, cut.h, cut.pads, cut.vias, cut.mounts = board.w, board.h, board.pads, board.vias, board.mounts
    cut.tracks = board.tracks[1:]
    pcb.write(cut, nl, str(tmp_path))
    assert copper_groups(str(tmp_path), cut) != stripboard.expected(nl)


def test_fab_files_bom_cpl_and_pictures(made):
    out, board, _bad, files = made
    names = {os.path.basename(f) for f in files}
    for want in ("reader-F_Cu.gtl", "reader-B_Cu.gbl", "reader-F_Mask.gts", "reader-B_Mask.gbs", "reader-F_SilkS.gto",
                 "reader-Edge_Cuts.gm1", "reader-PTH.drl", "reader-NPTH.drl", "reader-bom.csv", "reader-cpl.csv"):
        assert want in names
    with open(os.path.join(out, "reader-bom.csv")) as f:
        rows = list(csv.DictReader(f))
    assert sum(int(r["Quantity"]) for r in rows) == len(stripboard.READER_PARTS)
    with open(os.path.join(out, "reader-cpl.csv")) as f:
        assert {r["Designator"] for r in csv.DictReader(f)} == set(stripboard.READER_PARTS)
    pics = pcb.pictures(out)
    assert any(p.endswith("reader-top.svg") for p in pics) and any(p.endswith("reader-bottom.svg") for p in pics)
    for p in pics:
        assert os.path.getsize(p) > 1000


def test_the_silkscreen_names_every_part_the_board_and_its_revision(made):
    from gerbonara import GerberFile
    from hardware import schematic
    out, board, _bad, _files = made
    texts = pcb.silk_texts(board)
    names = [t for t, *_ in texts]
    assert sorted(names[:-1]) == sorted(stripboard.READER_PARTS)
    assert names[-1] == "%s REV %s" % (pcb.BOARD_NAME, schematic.REVISION)   # one revision for the design
    boxes = [pcb._text_box(t, x, y, size) for t, x, y, size in texts]
    for (t, _x, _y, size), box in zip(texts, boxes):
        assert size >= pcb.SILK_TEXT, t
        assert 0 < box[0] and 0 < box[1] and box[2] < board.w and box[3] < board.h, t
        assert pcb._clear_of_pads(box, board), t
    assert not any(pcb._overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    # the Gerber holds the strokes: silkscreen lines of the text's width inside every text's box
    lines = [o for o in GerberFile.open(os.path.join(out, "reader-F_SilkS.gto")).objects
             if type(o).__name__ == "Line" and abs(o.aperture.diameter - pcb.SILK_LINE) < 1e-6]
    for (t, *_), (x0, y0, x1, y1) in zip(texts, boxes):
        inside = [o for o in lines if x0 - 0.2 <= min(o.x1, o.x2) and max(o.x1, o.x2) <= x1 + 0.2
                  and y0 - 0.2 <= min(o.y1, o.y2) and max(o.y1, o.y2) <= y1 + 0.2]
        assert len(inside) >= 2 * len(t.replace(" ", "")), t    # every glyph has strokes
    assert pcb.SILK_LINE >= 0.15


def test_the_courtyard_check_sees_parts_that_cannot_both_be_fitted():
    yards = pcb.courtyards()
    assert all(x0 < x1 and y0 < y1 for x0, y0, x1, y1 in yards.values())
    # the box header's shroud reaches 5 mm past its end pins: its courtyard is that long
    j3 = yards["J3"]
    assert j3[3] - j3[1] >= 20.3 and j3[2] - j3[0] >= 8.9
    assert {"MH1", "MH2", "MH3", "MH4"} <= set(yards)          # the standoffs take room too
    planted = dict(yards, C2=yards["U3"])   # C2 moved onto U3
    assert ("U3", "C2") in pcb.courtyard_overlaps(planted)


def test_no_two_courtyards_overlap():
    assert pcb.courtyard_overlaps(pcb.courtyards()) == []
    # the stripboard's own placement, on the same footprints, fits too
    assert pcb.courtyard_overlaps(pcb.courtyards(places=stripboard.PLACES, mounting=stripboard.MOUNTING)) == []
    assert stripboard.courtyard_overlaps() == []


def test_readme_states_the_boards_figures(made):
    _out, board, bad, _files = made
    text = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware",
                             "README.md")).read()
    flat = " ".join(text.split())
    assert "%d pads, %d track segments, %d vias" % (len(board.pads), len(board.tracks), len(board.vias)) in flat
    assert "%.1f × %.1f mm" % (board.w, board.h) in flat
    assert not bad and "minimums): clean" in flat and "no two overlap" in flat
