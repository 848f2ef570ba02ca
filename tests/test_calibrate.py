"""`yard calibrate` on a pty against the real firmware on the unix port (SimBoard).

The board as built (SimBoard's config: which LED and which reed really sit under each station)
differs from the generated map the firmware starts with: two LEDs and two reeds were swapped
while building, one LED is dead and one reed is stuck closed. The test is the maker: it reads the
wizard's prompts, looks at the simulated LEDs to say where the lit one is, and moves a piece on
the simulated board. The map the wizard writes into the board's board.json must be the board as
built."""
import json
import os
import re
import time

import pytest

from host import ROOT
from host.simulator.board import SimBoard
from pty_terminal import PtyWizard
from sy.hardware import boardconfig
from mpy import needs_unix_port

pytestmark = needs_unix_port


def generated_map():
    from hardware import placement, gen_config
    pl = placement.placement_from_file(os.path.join(ROOT, "hardware", "example_measurements.csv"))
    return gen_config.build_config("pico", pl)


def swap(lst, a, b):
    lst[a - 1], lst[b - 1] = lst[b - 1], lst[a - 1]


class Maker:
    """The person at the board: sees the simulated LEDs, moves a piece on the simulated reeds."""

    def __init__(self, sim):
        self.sim = sim
        self.looked = []  # (chain index asked, station seen lit or 0)

    def lit_station(self, quiet=0.03, timeout=3.0):
        """The station lit once the LEDs stop changing (in service mode a frame is written only
        when the wizard changes it); 0 when none is visible."""
        end = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < end:
            got = self.sim.frame()
            seq = got[0] if got else None
            if seq != last:
                last, since = seq, time.monotonic()
            elif seq is not None and time.monotonic() - since >= quiet:
                lit = [s for s, c in self.sim.leds().items() if c != (0, 0, 0)]
                assert len(lit) <= 1, lit
                return lit[0] if lit else 0
            time.sleep(0.005)
        raise AssertionError("the LEDs never settled")

    def answer_led(self, wiz, stop_after=None):
        """Answer LED prompts until the switch step begins (or stop_after answers)."""
        n = 0
        while stop_after is None or n < stop_after:
            k, m = wiz.expect([r"LED +\d+/\d+ \(chain index (\d+)\) +under station \[(\w+)\]: ",
                               r"Take every piece off the board, then press Enter: "])
            if k == 1:
                return True
            seen = self.lit_station()
            self.looked.append((int(m.group(1)), seen))
            guess = int(m.group(2)) if m.group(2).isdigit() else 0
            wiz.send("x" if seen == 0 else "" if seen == guess else str(seen))
            n += 1
        return False

    def answer_reeds(self, wiz, skip=(), stop_after=None, dark=()):
        n = 0
        while stop_after is None or n < stop_after:
            k, m = wiz.expect([r"put the piece on station (\d+) \((lit|its LED is dark)\) \.\.\. ",
                               r"Step 3 of 3: the map\."])
            if k:
                return True
            s = int(m.group(1))
            seen = self.lit_station()
            assert seen == (0 if s in dark else s), (s, seen)  # the calibrated LED map already holds
            if s in skip:
                time.sleep(0.1)
                wiz.send("s")
                n += 1
                continue
            self.sim.place(s, settle=False)
            wiz.expect([r"take it off"])
            self.sim.lift(s, settle=False)
            n += 1
        return False


@pytest.fixture
def built(tmp_path):
    """A SimBoard wired as built (swaps, faults) whose firmware starts with the generated map."""
    gen = generated_map()
    as_built = json.loads(json.dumps(gen))
    swap(as_built["leds"]["index"], 57, 58)
    swap(as_built["reeds"]["bits"], 100, 101)
    as_built["debounce_ms"] = 10
    gen["debounce_ms"] = 10
    sim = SimBoard(folder=str(tmp_path / "sim"), config=as_built, heapsize="112k")
    with open(os.path.join(sim.folder, "board.json"), "w") as f:
        json.dump(gen, f)  # what the firmware reads: the generated map
    dead = as_built["leds"]["index"][87]  # station 88's LED is dead
    sim.dead_leds.add(dead)
    sim.stick(140, True)  # station 140's reed is stuck closed
    sim.start()
    from host.link.boardlink import BoardLink
    with BoardLink(sim.port, timeout=10):  # booted: it answers (and the link lets go of the port)
        pass
    gen_path = str(tmp_path / "generated.json")
    with open(gen_path, "w") as f:
        json.dump(gen, f)
    yield sim, gen, as_built, gen_path
    sim.stop()


RHYTHMS = r"For colour-blind players, light a rhythm beside each colour .*\? \[y/n, Enter keeps the board's setting\] "


def board_json(sim):
    return boardconfig.load(os.path.join(sim.folder, "board.json"))


def test_calibrate_writes_the_board_as_built(built, tmp_path):
    sim, gen, as_built, gen_path = built
    assert board_json(sim)["leds"]["index"] != as_built["leds"]["index"]
    maker = Maker(sim)
    t0 = time.monotonic()
    wiz = PtyWizard(["calibrate", "--port", sim.port, "--config", gen_path], str(tmp_path))
    try:
        wiz.expect([r"Defaults: %s" % re.escape(gen_path)])
        # crash half-way through the LEDs: the progress file keeps every answer
        assert not maker.answer_led(wiz, stop_after=80)
        wiz.expect([r"LED +81/199"])
        wiz.kill(hard=True)
        assert os.path.exists(str(tmp_path / "yard-calibrate.progress.json"))
        wiz.close()
        wiz = PtyWizard(["calibrate", "--port", sim.port, "--config", gen_path], str(tmp_path))
        wiz.expect([r"Continuing the calibration saved .* LEDs 80/199, switches 0/199 done"])
        assert maker.answer_led(wiz)
        wiz.send("")  # every piece is off the board
        wiz.expect([r"chain bit %d \(chip %d, input D%d\) is closed with nothing on the board \(the map says "
                    r"station 140\)" % (gen["reeds"]["bits"][139], gen["reeds"]["bits"][139] // 8,
                                        7 - gen["reeds"]["bits"][139] % 8)])
        # Ctrl-C during the switches: saved, and continued by the next run
        assert not maker.answer_reeds(wiz, stop_after=30, dark=(88,))
        wiz.expect([r"Switch +31/199"])
        wiz.interrupt()
        wiz.expect([r"Interrupted\. Progress saved"])
        assert wiz.finish() == 130
        wiz.close()
        wiz = PtyWizard(["calibrate", "--port", sim.port, "--config", gen_path], str(tmp_path))
        wiz.expect([r"LEDs 199/199, switches 30/199 done"])
        assert maker.answer_reeds(wiz, skip=(140,), dark=(88,))
        wiz.expect([r"warning: station 88: LED chain index %d by elimination" % as_built["leds"]["index"][87]])
        wiz.expect([r"warning: station 140: chain bit %d" % as_built["reeds"]["bits"][139]])
        wiz.expect([RHYTHMS])
        wiz.send("y")  # rhythms beside the colours: the board had none
        wiz.expect([r"Write it to the board's board.json now\? \[Y/n\] "])
        wiz.send("y")
        wiz.expect([r"Written to the board's board.json and checked"], timeout=60)
        wiz.expect([r"Rhythms beside the colours, for colour-blind players: on\."])
        assert wiz.finish() == 0, wiz.seen[-2000:]
    finally:
        wiz.close()
    took = time.monotonic() - t0
    cfg = board_json(sim)
    assert cfg["leds"]["index"] == as_built["leds"]["index"]
    assert cfg["reeds"]["bits"] == as_built["reeds"]["bits"]
    assert cfg["debounce_ms"] == 10  # the board's other settings are kept
    assert cfg["leds"]["patterns"] is True and board_json(sim)["leds"]["brightness"] == gen["leds"]["brightness"]
    local = boardconfig.load(str(tmp_path / "board-calibrated.json"))
    assert local["leds"]["index"] == as_built["leds"]["index"]
    assert not os.path.exists(str(tmp_path / "yard-calibrate.progress.json"))
    # what the maker answered is what was written: the corrected swap and the confirmed rest
    assert dict(maker.looked)[as_built["leds"]["index"][56]] == 57
    assert dict(maker.looked)[as_built["leds"]["index"][87]] == 0
    print("calibration on the simulator: %.1f s" % took)
    # the firmware runs with it: pieces on the swapped stations are where the game expects them
    # (once the maker has replaced the stuck reed)
    from host.link.boardlink import BoardLink
    del sim.stuck[140]
    sim.set_switch(140, False)
    link = BoardLink(sim.port, timeout=5)
    link.open()
    link.request("setup", detectives=[100, 101], bobbies=[13, 26], replace=True)
    sim.place(13, settle=False)
    sim.place(26, settle=False)
    sim.place(100, settle=False)
    sim.place(101)
    link.wait_event("ready")
    assert link.request("status")["extra"] == []
    link.close()


def finished_progress(sim, gen, path):
    """A progress file whose LEDs and switches are all answered as the generated map says (the
    board's own): the wizard continues at step 3, its question and the write."""
    index, bits = gen["leds"]["index"], gen["reeds"]["bits"]
    expect = [0] * gen["leds"]["count"]
    for s in range(1, 200):
        expect[index[s - 1]] = s
    data = {"kind": "calibrate", "count": gen["leds"]["count"], "chips": gen["reeds"]["chips"],
            "defaults": {"index": index, "bits": bits, "source": None}, "expect": expect,
            "leds": [s if s else -1 for s in expect], "reeds": [[s, bits[s - 1]] for s in range(1, 200)],
            "stuck": [], "empty_checked": True}
    with open(path, "w") as f:
        json.dump(data, f)


def _step3(built, tmp_path, *options):
    sim, gen, _as_built, _gen_path = built
    finished_progress(sim, gen, str(tmp_path / "yard-calibrate.progress.json"))
    return PtyWizard(["calibrate", "--port", sim.port, *options], str(tmp_path))


def _written(wiz, rhythms):
    wiz.expect([r"Written to the board's board.json and checked"], timeout=60)
    wiz.expect([r"Rhythms beside the colours, for colour-blind players: %s" % rhythms])
    assert wiz.finish() == 0, wiz.seen[-2000:]


@pytest.mark.parametrize("answer", ["n", ""])
def test_the_rhythms_question_answered_no_or_enter_keeps_them_off(built, tmp_path, answer):
    sim = built[0]
    wiz = _step3(built, tmp_path)
    try:
        wiz.expect([RHYTHMS])
        wiz.send("maybe")  # neither: asked again
        wiz.expect([r"y or n, please"])
        wiz.expect([RHYTHMS])
        wiz.send(answer)
        wiz.expect([r"Write it to the board's board.json now\? \[Y/n\] "])
        wiz.send("")
        _written(wiz, "off")
    finally:
        wiz.close()
    assert "patterns" not in board_json(sim)["leds"]


def test_yes_keeps_the_boards_rhythms_and_the_flag_sets_them(built, tmp_path):
    sim = built[0]
    wiz = _step3(built, tmp_path, "--patterns", "on", "--yes")  # a script: no question
    try:
        _written(wiz, "on")
        assert "For colour-blind players" not in wiz.text
    finally:
        wiz.close()
    assert board_json(sim)["leds"]["patterns"] is True
    wiz = _step3(built, tmp_path, "--yes")  # --yes alone keeps what the board has: on
    try:
        _written(wiz, "on")
    finally:
        wiz.close()
    assert board_json(sim)["leds"]["patterns"] is True
    wiz = _step3(built, tmp_path)  # Enter keeps it
    try:
        wiz.expect([RHYTHMS])
        wiz.send("")
        wiz.expect([r"Write it to the board's board.json now\? \[Y/n\] "])
        wiz.send("")
        _written(wiz, "on")
    finally:
        wiz.close()
    assert board_json(sim)["leds"]["patterns"] is True
    wiz = _step3(built, tmp_path, "--patterns", "off", "--yes")
    try:
        _written(wiz, "off")
    finally:
        wiz.close()
    assert "patterns" not in board_json(sim)["leds"]
