"""hardware.magnets: the piece's magnet closes its own reed through the board and never another
station's, from magpylib's field (equivalent ampere-turns along the glass)."""
import os

import pytest

from hardware import magnets as M, placement


@pytest.fixture(scope="module")
def example():
    return placement.placement_from_file(placement.EXAMPLE)


def test_field_has_the_dead_zone_and_the_strong_ends():
    mid, near, far, side = M.reed_at([(7.0, 0.0), (0.0, 0.0), (14.0, 0.0), (7.0, 8.0)], "8 x 3 mm N42")
    assert abs(mid) < 1e-6 and abs(side) < 1e-6          # over the middle: both blades see one pole
    assert near == pytest.approx(-far) and abs(near) > 200   # over either end: the most, opposite signs
    # a weaker magnet gives less everywhere, and the field falls with distance
    assert abs(M.reed_at([(0.0, 0.0)], "5 x 2 mm N42")[0]) < abs(near)
    a5, a10, a20 = (abs(x) for x in M.reed_at([(-5.0, 0.0), (-10.0, 0.0), (-20.0, 0.0)], "8 x 3 mm N42"))
    assert a5 > a10 > a20 > 0


def test_one_ampere_turn_is_about_a_tenth_of_a_millitesla_over_the_glass():
    # the rule of thumb the AT ratings rest on: a uniform 0.1 mT along 12.7 mm is 1 AT
    assert 0.1e-3 * 12.7e-3 / M.MU0 == pytest.approx(1.0, rel=0.02)


def test_the_bom_choice_closes_its_own_reed_and_never_a_neighbours(example):
    cs = M.choices(example)
    best = M.best(cs)
    assert (best.magnet, best.band) == (M.MAGNET, M.REED_BAND)
    assert best.closes >= 3 and best.stays_open >= 3
    # the old choice, an 8 x 3 mm N42 with 10-20 AT reeds, lets a neighbour close a reed
    old = [c for c in cs if c.magnet == "8 x 3 mm N42" and c.band[0] in (10, 15)]
    assert old and all(c.neighbour > c.band[0] for c in old) and not any(c.ok for c in old)
    # the placement's reach warning is at least the computed reach of the chosen pair
    behind, beyond = M.reach_mm(M.MAGNET, M.REED_BAND[0])
    assert max(behind, beyond) <= placement.MAGNET_REACH_MM


def test_readme_shows_the_tools_figures(example):
    text = open(os.path.join(os.path.dirname(placement.EXAMPLE), "README.md")).read()
    for c in M.choices(example):
        if (c.magnet, c.band) in ((M.MAGNET, M.REED_BAND), ("8 x 3 mm N42", (10, 15))):
            assert c.line() in text


@pytest.mark.parametrize("tool, module", [("magnets", "magpylib"), ("pcb", "gerbonara")])
def test_a_tool_without_the_hardware_extra_says_what_to_install(tool, module, monkeypatch, capsys, tmp_path):
    import importlib
    import sys
    monkeypatch.setitem(sys.modules, module, None)  # as after `make demo`, which installs no hardware extra
    main = importlib.import_module("hardware." + tool).main
    argv = ["-o", str(tmp_path / "pcb")] if tool == "pcb" else []
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "python -m hardware.%s needs %s: pip install -e '.[hardware]'" % (tool, module) in err
    assert os.listdir(tmp_path) == []  # nothing half written
