"""`yard selftest` on a pty against the real firmware on the unix port (SimBoard) with injected
faults: a dead LED, a reed stuck closed, a reed that never closes. The test is the maker: it
presses Enter, sweeps a piece over every station on the simulated board, looks at the simulated
LEDs and types the stations that are wrong. The report must name each fault by station and chain
position."""
import os
import re
import time

import pytest

from host.simboard import SimBoard
from test_calibrate import PtyWizard, pytestmark  # noqa: F401  (same skip conditions)

COLOURS = {"RED": (1, 0, 0), "GREEN": (0, 1, 0), "BLUE": (0, 0, 1), "WHITE": (1, 1, 1)}


@pytest.fixture
def faulty(tmp_path):
    sim = SimBoard(folder=str(tmp_path / "sim"), debounce_ms=10, heapsize="112k",
                   config={"leds": {"index": [(s * 7) % 199 for s in range(199)]},
                           "reeds": {"bits": [(s * 3 + 5) % 200 for s in range(199)]}})
    sim.start()
    from host.boardlink import BoardLink
    BoardLink(sim.port, timeout=10).open()  # booted
    sim.dead_leds.add(sim.config["leds"]["index"][87])  # station 88's LED is dead
    sim.stick(57, True)    # station 57's reed is stuck closed
    sim.stick(112, False)  # station 112's reed never closes
    yield sim
    sim.stop()


def sweep(sim, stations):
    for s in stations:
        sim.place(s, settle=False)
        time.sleep(0.012)
        sim.lift(s, settle=False)


def wrong_stations(sim, want):
    time.sleep(0.1)
    out = []
    for s, c in sim.leds().items():
        if tuple(1 if v else 0 for v in c) != want:
            out.append(s)
    return out


def test_selftest_names_the_faults(faulty, tmp_path):
    sim = faulty
    cfg = sim.config
    t0 = time.monotonic()
    wiz = PtyWizard(["selftest", "--port", sim.port, "--chase-ms", "5"], str(tmp_path))
    try:
        wiz.expect([r"Take every piece off the board, then press Enter: "])
        wiz.send("")
        wiz.expect([r"closed with nothing on it: station  57  chain bit %d" % cfg["reeds"]["bits"][56]])
        wiz.expect([r"Press Enter when every station is green"])
        sweep(sim, range(1, 100))
        wiz.expect([r"seen +98/198"])  # 57 is stuck (not counted)
        wiz.interrupt()  # Ctrl-C half-way: the stations seen so far are kept
        wiz.expect([r"Interrupted\. Progress saved"])
        assert wiz.finish() == 130
        wiz.close()
        wiz = PtyWizard(["selftest", "--port", sim.port, "--chase-ms", "5"], str(tmp_path))
        wiz.expect([r"Continuing the self-test saved"])
        wiz.expect([r"Press Enter when every station is green"])
        # the board shows the stations still to do in red, those done in green
        time.sleep(0.3)
        leds = sim.leds()
        assert leds[10][1] and not leds[10][0] and leds[150][0] and not leds[150][1]
        sweep(sim, range(100, 200))
        wiz.expect([r"seen +197/198; still to touch: 112\n"])
        wiz.send("")
        for _ in range(4):
            k, m = wiz.expect([r"Every station should be (\w+)\. .*: "])
            wiz.send(" ".join(str(s) for s in wrong_stations(sim, COLOURS[m.group(1)])))
        wiz.expect([r"Did it go through every station as named\?.*: "])
        wiz.send("")
        assert wiz.finish() == 1  # faults found
    finally:
        wiz.close()
    took = time.monotonic() - t0
    text = open(str(tmp_path / "yard-selftest-report.txt")).read()
    print(text)
    print("selftest on the simulator: %.1f s" % took)
    b57, b112, k88 = cfg["reeds"]["bits"][56], cfg["reeds"]["bits"][111], cfg["leds"]["index"][87]
    assert re.search(r"STUCK CLOSED  station  57  chain bit %d \(chip %d, input D%d\)" % (b57, b57 // 8, 7 - b57 % 8),
                     text)
    assert re.search(r"NEVER CLOSED  station 112  chain bit %d \(chip %d, input D%d\)" % (
        b112, b112 // 8, 7 - b112 % 8), text)
    assert re.search(r"DARK +station  88  LED chain index %d: dark in every colour" % k88, text)
    assert "SWITCHES  197 of 199 OK" in text and "LEDS      198 of 199 OK" in text
    assert "FLICKERING" not in text and "CHAIN BREAK" not in text and "COLOUR FAULT" not in text
    # the bus check ran, and says why it could not measure the simulated board
    assert "READER BUS  not tested: this board has no SPI reed chain" in text
    assert not os.path.exists(str(tmp_path / "yard-selftest.progress.json"))
    # the game has the board back
    from host.boardlink import BoardLink
    link = BoardLink(sim.port, timeout=5)
    assert link.open()["stage"] == "idle"
    link.close()


def test_bus_check_names_the_fastest_reliable_clock():
    from host.selftest import bus_lines, bus_verdict
    r = {"configured": 250000, "spi_mode": 0,
         "results": [[100000, 0, 40], [250000, 0, 40], [500000, 0, 40], [1000000, 3, 40], [2000000, 0, 40]]}
    # 2 MHz agreeing after a failure at 1 MHz is luck, not a reliable clock
    assert bus_verdict(r) == (True, 500000)
    text = "\n".join(bus_lines(r))
    assert "READER BUS  OK" in text and "fastest reliable clock: 500000 Hz" in text
    assert "1000000 Hz: 3 of 40 reads differed" in text
    r["configured"] = 400000   # less than a factor 2 below the limit
    ok, fastest = bus_verdict(r)
    assert not ok and "set reeds.baudrate to 250000 or less" in "\n".join(bus_lines(r))
    r["results"][0][1] = 1
    assert bus_verdict(r) == (False, None) and "no clock read the chain reliably" in "\n".join(bus_lines(r))
