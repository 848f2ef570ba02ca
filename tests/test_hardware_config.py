"""hardware.gen_config and hardware.power: the generated board.json is valid and follows the route."""
import json
import os

import pytest

from hardware import gen_config, placement, power
from sy.hardware import boardconfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "hardware", "example_measurements.csv")


@pytest.fixture(scope="module")
def pl():
    return placement.placement_from_file(EXAMPLE)


def test_generated_config_follows_the_route(pl):
    for board in boardconfig.BOARDS:
        cfg = gen_config.build_config(board, pl)
        assert boardconfig.validate(cfg) == cfg
        idx = cfg["leds"]["index"]
        assert [pl.route[idx[s - 1]] for s in range(1, 200)] == list(range(1, 200))
        # each 74HC165 takes 8 stations that are neighbours on the route
        bits = cfg["reeds"]["bits"]
        for chip in range(24):
            members = [s for s in range(1, 200) if bits[s - 1] // 8 == chip]
            assert len(members) == 8
            span = placement.route_length(sorted(members, key=lambda s: bits[s - 1]), pl.pos)
            assert span < 600, (chip, span)


def test_dumps_is_valid_json_that_loads_back(pl, tmp_path):
    cfg = gen_config.build_config("esp32", pl, "london1983", 0.4, 1500, buttons=False)
    text = gen_config.dumps(cfg)
    assert json.loads(text) == cfg
    assert len(text.splitlines()) < 50  # one line per key, lists on one line: editable by hand
    p = tmp_path / "board.json"
    p.write_text(text)
    got = boardconfig.load(str(p))
    assert got["map"] == "london1983" and got["buttons"] is None and got["leds"]["current_limit_ma"] == 1500


def test_main_writes_and_checks(tmp_path, capsys):
    out = tmp_path / "board.json"
    assert gen_config.main(["--board", "esp32", "--measurements", EXAMPLE, "-o", str(out)]) == 0
    assert gen_config.main(["--check", str(out)]) == 0
    assert "valid" in capsys.readouterr().out
    cfg = json.loads(out.read_text())
    cfg["leds"]["index"][5] = cfg["leds"]["index"][6]
    out.write_text(json.dumps(cfg))
    assert gen_config.main(["--check", str(out)]) == 2
    err = capsys.readouterr().err
    assert "board.json: leds.index[6]: station 7: " in err and "already used by station 6" in err
    assert gen_config.main(["--check", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert gen_config.main(["--brightness", "3", "-o", str(tmp_path / "x.json")]) == 2
    assert "leds.brightness" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_power_budget_figures():
    cfg = boardconfig.default()
    b = power.budget(cfg)
    assert b["idle"] == pytest.approx(199.0)
    assert b["worst_full_white"] == pytest.approx(199 * 61.0)
    assert b["worst_at_brightness"] == pytest.approx(199 + 199 * 60 * 0.25)
    assert b["worst_with_cap"] == 2000
    assert b["idle"] < b["typical"] < b["worst_with_cap"]
    assert b["supply_needed"] == 2000 + power.CONTROLLER_MA + power.READER_MA
    assert "12139 mA" in power.report(cfg)


def test_supply_rating_sets_the_led_cap(tmp_path, capsys):
    # the cap comes from the supply's rating, and a cap above it is refused
    cfg = gen_config.build_config("pico", supply_ma=3000)
    assert cfg["leds"]["supply_ma"] == 3000 and cfg["leds"]["current_limit_ma"] == 3000 * 0.8 - 60
    assert power.budget(cfg)["supply_needed"] <= 3000 * 0.8
    out = tmp_path / "b.json"
    assert gen_config.main(["--supply-ma", "2000", "--current-limit-ma", "2500", "-o", str(out)]) == 2
    assert "2000 mA supply" in capsys.readouterr().err and not out.exists()
