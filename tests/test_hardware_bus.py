"""hardware.bus: the reader bus in ngspice, at every reader: a clean edge through its threshold
band and setup/hold margins of at least a quarter clock period (the default clock and the fastest
`yard selftest` may propose). Today's shared line must fail it, the re-driven chain must pass."""
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

from hardware import bom, bus, placement

pytestmark = pytest.mark.skipif(not shutil.which("ngspice"), reason="ngspice is not installed (make setup)")
CLOCKS = (bus.DEFAULT_CLOCK, bus.SELFTEST_MAX_CLOCK)


@pytest.fixture(scope="module")
def lengths():
    return bus.segment_lengths()


@pytest.fixture(scope="module")
def redrive(lengths):
    return {c: bus.simulate("redrive", c, lengths) for c in CLOCKS}


@pytest.fixture(scope="module")
def today(lengths):
    return bus.simulate("today", bus.DEFAULT_CLOCK, lengths)


def test_selftest_limits_are_the_ones_held_here():
    from host.device import selftest
    assert bus.SELFTEST_MAX_CLOCK == max(selftest.BUS_CLOCKS) // selftest.BUS_MARGIN
    from sy.hardware import boardconfig
    assert bus.DEFAULT_CLOCK == boardconfig.default()["reeds"]["baudrate"]


def test_the_ribbon_follows_the_placement(lengths):
    pl = placement.placement_from_file(placement.EXAMPLE)
    assert len(lengths) == bus.CHIPS
    # the same route as the BOM's ribbon, plus the trace across each board
    assert sum(lengths) == pytest.approx(bom.runs(pl, bus.CHIPS)["ribbon"] + bus.CHIPS * bus.BOARD_TRACE_M, rel=1e-6)
    assert all(0.05 < m < 1.0 for m in lengths)


@pytest.mark.parametrize("clock", CLOCKS)
def test_redriven_bus_passes_at_every_reader(redrive, clock):
    r = redrive[clock]
    chips = len(r.links)
    # every input (SCK, SH/LD at each board's Schmitt input and its local pins, DATA at each SER and
    # the MCU) has both edges through its band, monotonic within its hysteresis
    assert len(r.edges) == 2 * 5 * chips
    assert r.bad_edges == []
    for link in r.links:
        assert link.setup >= bus.MARGIN_SHARE * link.period, link
        assert link.hold >= bus.MARGIN_SHARE * link.period, link
    assert r.ok
    assert bus.local_latch_hold() > 0


def test_todays_bus_fails_on_its_plateau(today):
    # the nearest readers' SCK dwells in the 74HC165's switching band for tens of ns
    assert today.plateau(0) > 50
    assert today.plateau(bus.CHIPS - 1) < 10
    assert any(not e.ok for (n, sense), e in today.edges.items() if n.startswith("s"))
    # two neighbours can take the same edge so far apart that the bit is taken twice or lost
    assert min(link.hold for link in today.links) < 0
    assert not today.ok


def test_schmitt_inputs_alone_leave_the_skew(lengths):
    r = bus.simulate("schmitt", bus.DEFAULT_CLOCK, lengths)
    assert min(link.hold for link in r.links) < 0 and not r.ok


def test_edge_checker_sees_a_dip_and_a_plateau():
    t = [i * 1e-9 for i in range(200)]
    clean = [min(3.3, max(0.0, (x - 30e-9) / 10e-9 * 3.3)) for x in t]
    first, mid, last, dip = bus.crossings((t, clean), 0.94, 2.36, 0, 1, True, 1.65)
    assert dip == 0 and 30e-9 < first < mid < last < 40e-9
    dipped = [1.3 if 36e-9 <= x <= 38e-9 else v for x, v in zip(t, clean)]   # back down after 1.98 V
    assert bus.crossings((t, dipped), 0.94, 2.36, 0, 1, True, 1.65)[3] > 0.3
    falling = [3.3 - v for v in dipped]
    e = bus.Edge("x", *bus.crossings((t, falling), 0.94, 2.36, 0, 1, False, 1.65), 0.3)
    assert not e.ok


def test_waveform_pictures(redrive, today, tmp_path):
    files = bus.write_pictures([today, redrive[bus.DEFAULT_CLOCK]], str(tmp_path))
    svgs = [f for f in files if f.endswith(".svg")]
    assert len(svgs) == 2
    root = ET.parse(svgs[1]).getroot()
    lines = [e for e in root.iter() if e.tag.endswith("polyline")]
    assert len(lines) == 6    # first, middle, last board: input and local CLK
    if shutil.which("rsvg-convert"):
        assert all(os.path.getsize(f) > 1000 for f in files if f.endswith(".png"))
