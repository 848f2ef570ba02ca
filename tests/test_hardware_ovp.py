"""hardware.ovp: the power entry in ngspice, built from wiring.net. A wrong adapter never reaches
the load, a 5 V supply passes, the trip point holds at the parts' tolerance corners, the MOSFETs
stay inside their ratings; a part taken out or the old divider put back fails."""
import os
import re
import shutil

import pytest

from hardware import ovp, wiring
from sy.hardware import boardconfig

pytestmark = pytest.mark.skipif(not shutil.which("ngspice"), reason="ngspice is not installed (make setup)")

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware", "README.md")
SUPPLY_MAX_V = ovp.SUPPLY_MAX_V
DERATE = ovp.DERATE


@pytest.fixture(scope="module")
def fig():
    return ovp.figures()


def netlist(*changes):
    text = open(wiring.NETLIST).read()
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return wiring.parse(text, boardconfig.default("pico"))


def test_the_mosfet_model_has_the_datasheets_rdson(fig):
    assert 0.8 * ovp.MOSFET_RDSON_4V5 <= fig["rdson"] <= ovp.MOSFET_RDSON_4V5


def test_the_trip_point_at_every_tolerance_corner(fig):
    for name, (on, off, watts) in fig["trip"].items():
        assert SUPPLY_MAX_V < on <= off <= ovp.LOAD_SPEC_V, (name, on, off)
        assert off - on < 0.01, name            # a sharp switch: Q3 is not left half on
        assert watts < 0.5, name
    assert fig["trip"]["low"][1] < fig["trip"]["nominal"][1] < fig["trip"]["high"][1]


def test_a_5v_supply_passes_with_a_small_drop(fig):
    for amps, st in fig["steady"].items():
        assert st["drop_v"] < 0.045 * amps + 0.005, (amps, st)     # fuse, switch, Q1, Q3: < 45 mohm
        tj, ok = ovp.thermal_ok(max(st["q1_w"], st["q3_w"]))
        assert ok, (amps, tj)
    assert fig["steady"][ovp.FUSE_A]["load_v"] > 4.75
    up = fig["plug"][5.0]
    assert up["final_load"] > 4.9 and 0.2 < up["up_ms"] < 20 and up["peak_iq3"] < ovp.FUSE_A


def test_a_wrong_adapter_never_reaches_the_load(fig):
    for volts in ovp.ADAPTERS:
        plugged, walled = fig["plug"][volts], fig["wall"][volts]
        assert plugged["peak_load"] < 0.5 and plugged["peak_iq3"] < 0.05, volts   # Q3 never turns on
        assert walled["peak_load"] <= ovp.LOAD_SPEC_V, volts
        assert walled["off_us"] is not None and walled["off_us"] < 50, volts
        assert walled["final_load"] < 4.5, volts                                  # and stays off
    assert abs(fig["plug"][-20.0]["peak_load"]) < 0.5 and abs(fig["plug"][-20.0]["min_load"]) < 0.5


def test_the_mosfets_stay_inside_their_ratings(fig):
    cases = list(fig["plug"].values()) + list(fig["wall"].values())
    for c in cases:
        assert max(c["vgs"], c["vgs1"]) <= DERATE * ovp.MOSFET_VGS_MAX, c
        assert max(c["vds"], c["vds1"]) <= DERATE * ovp.MOSFET_VDS_MAX, c


def test_the_old_divider_trips_above_what_the_leds_take():
    # 11.8 k / 10 k: the reference's input current through the divider lifts the high corner
    nl = netlist(("R10 r 29 33 v -- 1.18 k", "R10 r 29 33 v -- 11.8 k"), ("R11 r 39 31 v -- 1 k", "R11 r 39 31 v -- 10 k"))
    _on, off, _w = ovp.trip(ovp.CORNERS["high"], nl=nl)
    assert off > ovp.LOAD_SPEC_V


def test_without_the_input_capacitor_the_cable_kicks_the_mosfets():
    # the cable's inductance keeps its current when Q3 opens: with nowhere to go, it lifts V_DS
    nl = netlist((" D4.K C13.+", " D4.K"), (" C13.- ", " "),
                 ("part C13 cpol 17.5 31 v -- 100 uF 35 V; at the switch's input: takes the cable's current when Q3 "
                  "opens\n", ""))
    p = ovp.plug(12.0, rise=ovp.WALL_RISE_S, nl=nl)
    assert p["vds"] > ovp.MOSFET_VDS_MAX


def test_without_q1s_zener_its_gate_takes_the_adapter():
    # Q1's gate straight to GND, as it was: it takes the whole adapter voltage
    nl = netlist(("Q1.G R15.1 D4.A", "Q1.G R15.1"), (" D4.K C13.+", " C13.+"),
                 ("R15 r 13.5 23 v -- 100 k", "R15 r 13.5 23 v -- 0.001 k"),
                 ("part D4 zener 16 22 v -- 12 V 0.5 W zener (BZX79-C12); keeps Q1's gate within 12 V of its source\n",
                  ""))
    p = ovp.plug(20.0, rise=ovp.WALL_RISE_S, nl=nl)
    assert p["vgs1"] > DERATE * ovp.MOSFET_VGS_MAX


def test_the_tool_passes_the_power_entry_and_fails_a_bad_one(fig, capsys):
    assert ovp.problems(fig) == []
    bad = dict(fig, trip=dict(fig["trip"], high=(5.61, 5.62, 0.0)))
    assert any(p.startswith("trip, high") for p in ovp.problems(bad))


def test_the_readme_shows_the_simulated_figures(fig):
    text = open(README).read()
    m = re.search(r"<!-- ovp:start -->\n(.*?)\n<!-- ovp:end -->", text, re.S)
    assert m and m.group(1) == ovp.report(fig)
    # the prose quotes the same trip points: the design table and the first-power checklist
    lo, nom, hi = (fig["trip"][k][1] for k in ("low", "nominal", "high"))
    assert "exceeds %.2f V (simulated: %.2f–%.2f V at the parts' tolerance corners)" % (nom, lo, hi) in text
    assert "between %.2f and %.2f V input\n   (%.2f V with nominal parts)" % (lo, hi, nom) in text
