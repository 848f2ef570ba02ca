"""`yard selftest` on a pty against the real firmware on the unix port (SimBoard) with injected
faults: a dead LED, a reed stuck closed, a reed that never closes. The test is the maker: it
presses Enter, sweeps a piece over every station on the simulated board, looks at the simulated
LEDs and types the stations that are wrong. The report must name each fault by station and chain
position."""
import json
import os
import re
import time

import pytest

from host.simulator.board import SimBoard
from mpy import needs_unix_port
from pty_terminal import PtyWizard

pytestmark = needs_unix_port
COLOURS = {"RED": (1, 0, 0), "GREEN": (0, 1, 0), "BLUE": (0, 0, 1), "WHITE": (1, 1, 1)}


@pytest.fixture
def faulty(tmp_path):
    sim = SimBoard(folder=str(tmp_path / "sim"), debounce_ms=10, heapsize="112k",
                   config={"leds": {"index": [(s * 7) % 199 for s in range(199)]},
                           "reeds": {"bits": [(s * 3 + 5) % 199 for s in range(199)]}})   # bit 199: the marker
    sim.start()
    from host.link.boardlink import BoardLink
    with BoardLink(sim.port, timeout=10):  # booted: it answers (and the link lets go of the port)
        pass
    sim.dead_leds.add(sim.config["leds"]["index"][87])  # station 88's LED is dead
    sim.stick(57, True)    # station 57's reed is stuck closed
    sim.stick(112, False)  # station 112's reed never closes
    yield sim
    sim.stop()


def sweep(sim, stations, patience=2.0):
    """A piece slid over the stations as a person does it: held on each one until the board shows
    it done (green), then on to the next (at least 40 ms, 4 debounce times). Fixed 40 ms touches
    missed stations whenever the firmware's process was not scheduled in time (a loaded machine,
    the test files run in parallel); a station that never turns green (a dead or stuck reed) is
    left after `patience` seconds, as a person would."""
    for s in stations:
        sim.place(s, settle=False)
        time.sleep(0.04)
        end = time.monotonic() + patience
        while time.monotonic() < end:
            c = sim.leds().get(s)
            if c and c[1] and not c[0]:
                break
            time.sleep(0.01)
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
        wiz.expect([r"Take the switches of station 57, 112 out of service until repaired .*\[y/N\] "])
        wiz.send("y")
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
    from host.link.boardlink import BoardLink
    link = BoardLink(sim.port, timeout=5)
    hello = link.open()
    assert hello["stage"] == "idle"
    assert hello["dead"] == [57, 112]  # taken out of service, and remembered in the board's config
    link.close()
    assert json.load(open(os.path.join(sim.folder, "board.json")))["reeds"]["dead"] == [57, 112]
    assert re.search(r"OUT OF SERVICE station  57: the board works around it", text)


def test_bus_check_names_the_fastest_reliable_clock():
    from host.device.selftest import bus_lines, bus_verdict
    r = {"configured": 250000, "spi_mode": 0,
         "results": [[100000, 0, 40], [250000, 0, 40], [500000, 0, 40], [1000000, 3, 40], [2000000, 0, 40]]}
    # 2 MHz agreeing after a failure at 1 MHz is luck, not a reliable clock
    assert bus_verdict(r) == (True, 500000)
    text = "\n".join(bus_lines(r))
    assert "READER BUS  OK" in text and "fastest reliable clock: 500,000 Hz" in text  # numbers as English writes them
    assert "1,000,000 Hz: 3 of 40 reads differed" in text
    r["configured"] = 400000   # less than a factor 2 below the limit
    ok, fastest = bus_verdict(r)
    assert not ok and "set reeds.baudrate to 250000 or less" in "\n".join(bus_lines(r))
    r["results"][0][1] = 1
    assert bus_verdict(r) == (False, None) and "no clock read the chain reliably" in "\n".join(bus_lines(r))


class _FakeSvc:
    """svc for SelfTest.take_out: answers typed in order, the board's `reed` command recorded."""

    def __init__(self, answers, dead=()):
        self.answers = list(answers)
        self.dead = set(dead)
        self.sent = []
        self.info = {"bits": list(range(199)), "index": list(range(199)), "count": 199}

    def ask(self, prompt):
        self.sent.append(("ask", prompt))
        return self.answers.pop(0)

    def cmd(self, name, **args):
        self.sent.append((name, args))
        if args["station"] == 7:
            from host.link.boardlink import BoardCommandError
            raise BoardCommandError("bad_input", "at most 20 reeds can be out of service")
        (self.dead.add if args["out"] else self.dead.discard)(args["station"])
        return {"dead": sorted(self.dead)}


def _selftest(svc, tmp_path, stuck=(), never=()):
    from host.device.selftest import SelfTest
    from host.device.calibrate import Progress
    prog = Progress(str(tmp_path / "p.json"))
    prog.data = {"stuck": list(stuck), "seen": [b for b in range(199) if b + 1 not in never and b not in stuck]}
    return SelfTest(svc, prog, lambda *a, **k: None, 0)


def test_take_out_offers_the_broken_and_puts_back_the_repaired(tmp_path):
    # 57 stuck closed (bit 56), 112 never closed; 30 was out of service and now works
    svc = _FakeSvc(["y", "y"], dead=[30])
    st = _selftest(svc, tmp_path, stuck=[56], never=[112])
    assert st.take_out([30]) == [57, 112]
    asks = [a[1] for a in svc.sent if a[0] == "ask"]
    assert "station 57, 112 out of service" in asks[0] and "station 30 works again" in asks[1]
    assert ("reed", {"station": 57, "out": True}) in svc.sent and ("reed", {"station": 30, "out": False}) in svc.sent
    # answered no: nothing is sent
    svc = _FakeSvc(["n"])
    st = _selftest(svc, tmp_path, never=[5])
    assert st.take_out([]) == [] and [a for a in svc.sent if a[0] == "reed"] == []
    # --take-out yes asks nothing; a refusal is reported and stops
    svc = _FakeSvc([])
    st = _selftest(svc, tmp_path, never=[5, 7, 9])
    assert st.take_out([], "yes") == [5]
    assert [a[0] for a in svc.sent] == ["reed", "reed"]
