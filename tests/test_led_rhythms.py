"""The LEDs' second channel on a whole board (board.json leds.patterns): each transport's
destinations in its rhythm, a missing piece's station blinking its number; and off, the board
as before. The rhythms' shapes themselves: tests/test_colour_vision.py."""
import os
import sys

import pytest

from host import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
from testkit import TestBoard as Board, scratch  # noqa: E402
from mpy import needs_unix_port  # noqa: E402
from sy.hardware import boardconfig  # noqa: E402
from sy.play.board import PIECE_RGB, TRANSPORT_RGB  # noqa: E402
from sy.play.rhythm import PATTERN_MS  # noqa: E402

DARK = (0, 0, 0)
TAXI, BUS, UG = (tuple(TRANSPORT_RGB[3 * t:3 * t + 3]) for t in range(3))


def _board(patterns):
    cfg = {"board": "pico"}
    if patterns is not None:
        cfg["leds"] = {"patterns": patterns}
    tb = Board(scratch("rhythms"), boardconfig.validate(cfg))
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[13, 26, 29], bobbies=[34])["ok"]
    return tb


def _frame(tb, now, stations):
    tb.board.render(now)
    return [tb.colour(s) for s in stations]


def test_the_setting_is_off_by_default_and_kept_out_of_the_file():
    assert "patterns" not in boardconfig.default()["leds"]
    assert boardconfig.validate({"board": "pico", "leds": {"patterns": True}})["leds"]["patterns"] is True
    with pytest.raises(boardconfig.ConfigError):
        boardconfig.validate({"board": "pico", "leds": {"patterns": "yes"}})


def test_an_empty_start_station_blinks_its_detectives_number():
    tb = _board(True)
    lit = [tuple((c * 255) >> 8 for c in PIECE_RGB[3 * k:3 * k + 3]) for k in range(3)]
    for k, station in enumerate((13, 26, 29)):
        seen = [_frame(tb, ms, (station,))[0] for ms in range(0, PATTERN_MS, 20)]
        flashes = sum(1 for i, c in enumerate(seen) if c != DARK and (i == 0 or seen[i - 1] == DARK))
        assert flashes == k + 1 and set(seen) == {DARK, lit[k]}, (station, seen)
    bobby = [_frame(tb, ms, (34,))[0] != DARK for ms in range(0, PATTERN_MS, 20)]
    assert bobby == sorted(bobby, reverse=True) and PATTERN_MS // 3 < 20 * sum(bobby) < PATTERN_MS  # one long flash


def test_destinations_show_their_transports_rhythm():
    tb = _board(True)
    for s in (13, 26, 29, 34):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)  # D1: 4 by taxi, 14 by bus, 46 by underground
    assert _frame(tb, 0, (4, 14, 46)) == [TAXI, BUS, UG]
    assert _frame(tb, 100, (4, 46)) == [TAXI, DARK] and _frame(tb, 200, (46,)) == [UG]
    half = _frame(tb, PATTERN_MS // 2, (4, 14, 46))
    assert half[0] == TAXI and DARK != half[1] != BUS and half[2] == DARK
    # 23 is reached by taxi and by bus: each for a whole rhythm in turn
    assert _frame(tb, 0, (23,)) + _frame(tb, PATTERN_MS, (23,)) == [TAXI, BUS]


def test_without_the_setting_the_board_keeps_its_plain_blinks():
    tb = _board(None)
    assert _frame(tb, 0, (13,)) == [DARK] and _frame(tb, 500, (13,)) != [DARK]


# --- `yard sim --patterns`: the simulated board and the browser view's server -------------------
def _sim_args(*options):
    from host.commands import cli
    return cli.build_parser().parse_args(["sim", *options])


def flashes(samples):
    """How many times a station lit up in (time, lit) samples taken in order."""
    return sum(1 for (_t0, a), (_t1, b) in zip(samples, samples[1:]) if b and not a)


def watch(read, stations, seconds):
    """{station: [(time, lit)]} from read() -> {station: lit} polled for seconds."""
    import time
    out = {s: [] for s in stations}
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        lit = read()
        now = time.monotonic()
        if lit is not None:
            for s in stations:
                out[s].append((now, lit[s]))
        time.sleep(0.004)
    return out


@needs_unix_port
def test_yard_sim_patterns_lights_the_rhythms_and_tells_the_view(tmp_path):
    import json
    from host.commands import sim as simcmd
    from host.link.boardlink import BoardLink
    from host.web.server import WebBoard
    assert simcmd.board_config(_sim_args()) is None  # off by default: board.json as before
    sim, _where = simcmd.simulated_board(_sim_args("--patterns"), str(tmp_path / "sim"))
    with open(os.path.join(sim.folder, "board.json")) as f:
        assert json.load(f)["leds"]["patterns"] is True
    sim.start()
    try:
        web = WebBoard(sim)
        assert json.loads(web.hello())["patterns"] is True  # the page's legend names the rhythms
        with BoardLink(sim.port, timeout=10) as link:
            assert link.request("setup", detectives=[13, 26, 29], bobbies=[34], replace=True)
            # no piece on the board yet: each start station blinks its piece's number, as the page gets it

            def read():
                got = web.read_frame()
                return None if got is None else {s: got[1][6 * s - 6:6 * s] != "000000" for s in (13, 26, 29, 34)}
            seen = watch(read, (13, 26, 29, 34), 2 * PATTERN_MS / 1000 + 0.1)
    finally:
        sim.stop()
    count = {s: flashes(v) for s, v in seen.items()}
    # two rhythms' worth: D1 twice, D2 four times, D3 six (one more or less where the watch cuts one)
    assert count[13] in (2, 3) and count[26] in (4, 5) and count[29] in (6, 7), count
    lit = {s: sum(b for _t, b in v) / len(v) for s, v in seen.items()}
    assert lit[34] > 0.35 > lit[13], lit  # the Bobby's one long flash, D1's one short one

