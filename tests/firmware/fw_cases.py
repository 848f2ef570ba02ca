"""Firmware tests as plain functions: run by pytest (tests/test_firmware_units.py) under CPython
and, through tests/mpy_run.py, under the MicroPython unix port with a limited heap."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.hardware.debounce import Debouncer
from sy.hardware.leds import Leds
from sy.storage.store import Store
from sy.storage import resume
from testkit import MemStrip, TestBoard, play_game, popped, scratch
from sy.rules import commit as commitlib
from sy.play.board import PIECE_RGB, TRANSPORT_RGB, _ERROR, SETUP, PLAY, OVER
from sy.rules.base import PHASE_OVER

# the firmware's colours, full scale as a TestBoard reads them (tb.colour)
TAXI, BUS, UG = (tuple(TRANSPORT_RGB[3 * t:3 * t + 3]) for t in range(3))
ERROR = tuple(_ERROR)
WHITE = (255, 255, 255)  # Mister X's station: the firmware draws it as 255, 255, 255 where it lights it

TMP = scratch("sy-fwtest")


# --- debounce -------------------------------------------------------------------------------
def test_debounce_needs_stable_time():
    d = Debouncer(2, 30)
    raw = bytearray(2)
    d.prime(raw)
    raw[0] = 0x80  # bit 0 closes
    assert not d.update(raw, 1000)
    assert not d.update(raw, 1029)
    assert d.update(raw, 1030)
    assert popped(d) == [1]  # bit 0, closed


def test_chatter_never_becomes_a_change():
    d = Debouncer(2, 30)
    raw = bytearray(2)
    d.prime(raw)
    t = 0
    for i in range(40):  # bounce every 5 ms for 200 ms, ending open again
        raw[1] = 0x01 if i % 2 == 0 else 0
        d.update(raw, t)
        t += 5
    raw[1] = 0
    for _ in range(20):
        d.update(raw, t)
        t += 5
    assert popped(d) == []


def test_chatter_then_settle_counts_once():
    d = Debouncer(1, 30)
    raw = bytearray(1)
    d.prime(raw)
    t = 0
    for i in range(9):
        raw[0] = 0x04 if i % 2 == 0 else 0
        d.update(raw, t)
        t += 4
    for _ in range(20):
        d.update(raw, t)
        t += 5
    assert popped(d) == [(5 << 1) | 1]


def test_changes_settled_in_one_scan_come_in_the_order_they_happened():
    # the scan loop was held up (a flash erase, a frame): a piece lifted from station 29 (bit 28)
    # and placed on station 6 (bit 5) 24 ms later settle in the same scan; the lift comes first
    d = Debouncer(4, 30)
    raw = bytearray(4)
    raw[3] = 0x08
    d.prime(raw)
    raw[3] = 0
    d.update(raw, 1000)
    raw[0] = 0x04
    d.update(raw, 1024)
    assert d.update(raw, 1060)
    assert popped(d) == [28 << 1, (5 << 1) | 1]


def test_a_lift_and_a_placement_seen_in_the_same_scan_are_a_lift_first():
    d = Debouncer(4, 30)
    raw = bytearray(4)
    raw[3] = 0x08
    d.prime(raw)
    raw[3] = 0
    raw[0] = 0x04  # both seen by one scan: same timestamp
    d.update(raw, 1000)
    assert d.update(raw, 1030)
    assert popped(d) == [28 << 1, (5 << 1) | 1]
    raw[0] = 0  # and several, in time order whatever their bits
    raw[1] = 0x80
    d.update(raw, 2000)
    raw[3] = 0x08
    d.update(raw, 2010)
    raw[2] = 0x01
    d.update(raw, 2020)
    assert d.update(raw, 2060)
    assert popped(d) == [5 << 1, (8 << 1) | 1, (28 << 1) | 1, (23 << 1) | 1]


# --- LEDs ---------------------------------------------------------------------------------------
def _leds(limit=2000, brightness=1.0, count=199):
    strip = MemStrip(count)
    return strip, Leds(strip, count, list(range(199)), "GRB", brightness, limit, 20.0, 1.0)


def test_leds_wire_order_and_brightness():
    strip, L = _leds(brightness=0.5)
    L.put(1, 200, 100, 10)
    L.show()
    assert (strip.buf[0], strip.buf[1], strip.buf[2]) == (50, 100, 5)  # G, R, B at half brightness
    assert tuple(L.frame[0:3]) == (200, 100, 10)  # the logical frame keeps full scale (station 1 = LED 0)


def test_current_budget_scales_and_keeps_every_light():
    strip, L = _leds(limit=500, brightness=1.0)
    for s in range(1, 200):
        L.put(s, 255, 255, 255)
    L.put(7, 1, 0, 0)
    L.show()
    assert L.est_ma <= 500, L.est_ma
    assert L.scale < 256
    assert strip.buf[3 * 6 + 1] == 1  # a dim red light scaled down stays on
    assert strip.buf[3 * 6] == 0 and strip.buf[3 * 6 + 2] == 0


def test_a_frame_after_a_capped_one_is_scaled_from_its_own_colours():
    strip, L = _leds(limit=500, brightness=1.0)
    for s in range(1, 200):
        L.put(s, 255, 255, 255)
    L.show()
    assert L.scale < 256
    L.put(1, 255, 0, 0)  # no clear: the next frame starts from the capped one
    for s in range(2, 200):
        L.put(s, 0, 0, 0)
    L.show()
    assert L.scale == 256 and (strip.buf[0], strip.buf[1], strip.buf[2]) == (0, 255, 0)
    assert not any(strip.buf[3:])


def test_set_colours_an_led_by_its_chain_index():
    strip = MemStrip(199)
    L = Leds(strip, 199, [198 - i for i in range(199)], "RGB", 0.5, 2000, 20.0, 1.0)
    L.set(0, 10, 20, 30)  # the LED of station 199
    L.put(1, 200, 0, 0)  # station 1 is LED 198
    L.show()
    assert tuple(strip.buf[0:3]) == (5, 10, 15) and tuple(strip.buf[3 * 198:3 * 199]) == (100, 0, 0)
    assert L.lit == 5 + 10 + 15 + 100
    L.put(1, 0, 0, 0)
    assert L.lit == 30
    L.clear()
    assert L.lit == 0 and not any(strip.buf)


def test_shimmer_lights_the_stations_of_a_bitmap():
    strip = MemStrip(199)
    L = Leds(strip, 199, [198 - i for i in range(199)], "GRB", 1.0, 20000, 20.0, 1.0)
    bm = bytearray(32)
    for s in (1, 8, 199):
        bm[s >> 3] |= 1 << (s & 7)
    L.put(50, 9, 9, 9)
    L.shimmer(bm, 0x9600C8, 800)
    lit = 27
    for s in (1, 8, 199):
        v = ((800 >> 3) + s * 37) & 127
        v = v if v < 64 else 127 - v
        k = 3 * (199 - s)
        want = (0, (150 * v) >> 8, (200 * v) >> 8)  # G, R, B
        assert tuple(strip.buf[k:k + 3]) == want, (s, tuple(strip.buf[k:k + 3]), want)
        assert tuple(L.frame[k:k + 3]) == (want[1], 0, want[2])
        lit += want[1] + want[2]
    assert L.lit == lit
    assert sum(1 for x in strip.buf if x) == 3 + 2 * 3
    L.shimmer(bm, 0x000000, 800)  # drawn again in black: only station 50 stays lit
    assert L.lit == 27 and sum(strip.buf) == 27


def test_the_leds_run_as_machine_code_under_micropython():
    from sy.hardware import leds
    assert leds.NATIVE == (sys.implementation.name == "micropython")


def test_budget_not_applied_under_the_limit():
    strip, L = _leds(limit=2000, brightness=0.25)
    L.put(3, 255, 0, 0)
    L.show()
    assert L.scale == 64 and strip.buf[3 * 2 + 1] == 63


# --- reeds driver (fakes) -----------------------------------------------------------------------
def test_shift_reeds_latch_and_invert():
    from machine import Pin, SPI
    from sy.hardware.reeds import ShiftReeds, PinButtons, BoardInputs
    spi = SPI(0)
    spi.data = bytes([0xFE] + [0xFF] * 23 + [0xFE, 0xFF])  # active low: chain bit 7 closed; the marker, the tail
    load = Pin(17, Pin.OUT)
    reeds = ShiftReeds(spi, load, 25, True)
    Pin.levels[40] = 0  # taxi button pressed (active low)
    Pin.levels[41] = 1
    buttons = PinButtons([Pin(40, Pin.IN, Pin.PULL_UP), Pin(41, Pin.IN, Pin.PULL_UP)], True)
    inputs = BoardInputs(reeds, buttons, 25)
    bm = bytearray(26)
    inputs.scan(bm)
    assert bm[0] == 0x01 and bm[1] == 0 and bm[25] == 0x80
    assert load.log[-2:] == [0, 1]


# --- storage ------------------------------------------------------------------------------------
def test_store_atomic_and_fallback():
    from testkit import _rmtree
    _rmtree(TMP + "-store")
    st = Store(TMP + "-store")
    st.append('{"type": "setup"}')
    st.save({"stage": 1}, b"\x01\x02")
    st.append('{"type": "ready"}')
    st.save({"stage": 2}, b"\x03")
    # a cut after appending, before the snapshot: the extra line goes at resume
    st.append('{"type": "mrx", "ticket": "taxi"}')
    st2 = Store(TMP + "-store")
    header, data = resume.load(st2)
    assert header["stage"] == 2 and data == b"\x03" and st2.seq == 2
    assert [t for _s, t in st2.lines()] == ['{"type": "setup"}', '{"type": "ready"}']
    # a damaged newest snapshot: the previous good copy wins
    f = open(TMP + "-store/state.bin", "wb")
    f.write(b"SY1\ngarbage")
    f.close()
    st3 = Store(TMP + "-store")
    header, data = resume.load(st3)
    assert header["stage"] == 1 and data == b"\x01\x02" and st3.seq == 1


# --- the board in-process -------------------------------------------------------------------------
def _ready(detectives=(13, 26, 29, 34, 50), bobbies=()):
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    r = tb.command("setup", detectives=list(detectives), bobbies=list(bobbies))
    assert r["ok"], r
    return tb


def _start(detectives=(13, 26, 29, 34, 50), bobbies=()):
    tb = _ready(detectives, bobbies)
    for s in list(detectives) + list(bobbies):
        tb.place(s)
    assert tb.board.stage == PLAY
    return tb


def test_setup_lights_targets_and_waits_for_switches():
    tb = _ready()
    tb.run(1)
    assert tb.colour(13) in (tuple(PIECE_RGB[0:3]), (0, 0, 0))  # D1 blue (blinking until placed)
    for s in (13, 26, 29, 34):
        tb.place(s)
    assert tb.board.stage == SETUP
    tb.place(51)  # a magnet where no piece should be: shown, no progress
    assert tb.board.n_extra == 1
    tb.lift(51)
    tb.place(50)
    assert tb.board.stage == PLAY
    assert any(m.get("ev", {}).get("type") == "ready" for m in tb.messages())


def test_lift_lights_legal_destinations_in_transport_colours():
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)
    assert tb.colour(4) == TAXI
    assert tb.colour(14) == BUS
    assert tb.colour(46) == UG
    assert tb.colour(100) == (0, 0, 0) or tb.board.game.is_candidate(100)


def test_ambiguous_ticket_waits_for_button():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(23)  # taxi and bus both join 13-23
    assert tb.board.asking_at() == 23 and tb.board.game.pos[0] == 13
    tb.press(1)  # bus
    assert tb.board.game.pos[0] == 23 and list(tb.board.game.tickets[0]) == [11, 7, 4]


def test_ambiguous_ticket_by_host_and_preselect():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(23)
    r = tb.command("choose", ticket="taxi")
    assert r["ok"] and list(tb.board.game.tickets[0]) == [10, 8, 4]
    tb.lift(26)
    tb.press(0)  # taxi chosen before placing: only taxi destinations stay lit
    assert tb.board.chosen_ticket() == 0


def test_illegal_placement_blinks_and_commits_nothing():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.messages()
    tb.lift(13)
    tb.place(100)
    notes = [m for m in tb.messages() if m.get("note") == "illegal"]
    assert notes and notes[0]["station"] == 100 and tb.board.game.pos[0] == 13
    reds = set()
    for _ in range(40):
        tb.run(1)
        reds.add(tb.colour(100))
    assert ERROR in reds and (0, 0, 0) in reds  # it blinks
    tb.lift(100)
    tb.place(4)  # put right: a legal move now commits
    assert tb.board.game.pos[0] == 4


def test_back_on_origin_is_no_move():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(13)
    assert tb.board.game.moved == 0 and tb.board.piece_in_hand() == -1


def test_two_lifted_commit_nothing():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.lift(26)
    tb.place(4)
    assert tb.board.game.moved == 0 and tb.board.n_missing == 2
    tb.place(26)
    assert tb.board.game.pos[0] == 4  # now it is one piece, one place: D1 13 -> 4


def test_piece_knocked_off_out_of_turn():
    tb = _start()
    tb.lift(13)  # Mister X's turn: nobody may move
    assert tb.board.piece_in_hand() == -1 and tb.board.n_missing == 1
    tb.place(13)
    assert tb.board.n_missing == 0


def test_stray_magnet_is_never_the_destination():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.place(14)  # a stray magnet (or a stuck reed) on 14, a bus destination of D1
    tb.lift(13)  # D1 in the air: 14 closed before the lift, so it is no placement
    g = tb.board.game
    assert g.moved == 0 and g.pos[0] == 13 and tb.board.piece_in_hand() == 0 and tb.board.n_extra == 1
    tb.place(4)  # the real placement: committed, the magnet stays extra
    assert g.pos[0] == 4 and tb.board.n_extra == 1
    tb.place(39)  # another magnet, on a taxi destination of D2
    tb.lift(26)
    assert g.pos[1] == 26 and tb.board.n_extra == 2
    tb.lift(39)
    tb.place(39)  # closes while D2 is in hand: now it is a placement
    assert g.pos[1] == 39 and tb.board.n_extra == 1


def test_piece_moved_in_mrx_turn_is_never_a_move():
    tb = _start()
    tb.lift(13)  # Mister X's turn
    tb.place(4)
    tb.command("mrx", ticket="taxi")
    g = tb.board.game
    assert g.moved == 0 and g.pos[0] == 13 and tb.board.piece_in_hand() == -1 and tb.board.n_extra == 1
    tb.lift(4)  # lifted during the detectives' turn, but taken off in Mister X's: still out of place
    tb.place(46)
    assert g.moved == 0 and g.pos[0] == 13
    tb.lift(46)
    tb.place(13)  # back on its station: now it moves normally
    assert tb.board.n_missing == 0 and tb.board.n_extra == 0
    tb.lift(13)
    assert tb.board.piece_in_hand() == 0
    tb.place(4)
    assert g.pos[0] == 4


def test_piece_lifted_in_mrx_turn_placed_in_detectives_turn():
    tb = _start()
    tb.lift(13)  # in the air when Mister X's move comes in
    tb.command("mrx", ticket="taxi")
    tb.place(4)
    g = tb.board.game
    assert g.moved == 0 and g.pos[0] == 13 and tb.board.n_extra == 1




def test_mrx_piece_on_surfacing_station():
    tb = _start()
    for _ in range(2):
        assert tb.command("mrx", ticket="taxi")["ok"]
        tb.detectives_round()
    g = tb.board.game
    reach = [n for c in g.candidates() for n in g.graph.neighbours(c, 0) if g.holder_of(n) < 0]
    to = min(reach)
    r = tb.command("mrx", ticket="taxi", to=to)
    assert r["reveal"] == to, r
    flashes = set()
    for _ in range(250):
        tb.run(1)
        flashes.add(tb.colour(to))
    assert WHITE in flashes and len(flashes) > 1  # his station flashes
    tb.place(to)  # Mister X's own piece where he surfaced: accepted, not an error
    assert tb.board.mrx_piece_on and tb.board.n_extra == 0
    assert tb.colour(to) == WHITE
    tb.detectives_round()
    assert tb.command("mrx", ticket="taxi")["ok"]
    assert tb.board.n_extra == 1  # his piece must go now: it blinks as a stray magnet
    tb.lift(to)
    assert tb.board.n_extra == 0


def test_secret_station_refused():
    tb = _start()
    r = tb.command("mrx", ticket="taxi", to=46)
    assert not r["ok"] and r["error"] == "bad_input"
    assert tb.board.game.moves == 0
    for _seq, text in tb.store.lines():
        assert "46" not in text or '"detectives"' in text


def test_malformed_and_oversized_lines():
    tb = _start()
    tb.link.inbox.append(b"{not json")
    tb.link.inbox.append(b"x" * 5000)
    tb.link.inbox.append(b'{"id": 5, "cmd": "fly"}')
    tb.link.inbox.append(b'[1, 2]')
    tb.run(6)
    errs = [m for m in tb.messages() if m.get("ok") is False]
    assert [e["error"] for e in errs] == ["bad_input", "too_long", "bad_input", "bad_input"], errs


def test_refusals_are_codes_and_values():
    tb = _start()
    r = tb.command("mrx", ticket="taxi", to=46)
    assert (r["error"], r["why"], r["args"]) == ("bad_input", "secret_move", [1]), r
    assert "message" not in r, r
    tb.link.inbox.append(b"x" * 5000)
    tb.run(2)
    assert tb.messages()[-1] == {"id": None, "ok": False, "error": "too_long", "why": "line_long", "args": [1024]}, \
        tb.messages()[-1]


def test_reset_needs_confirm_true():
    tb = _start()
    for confirm in ("no", 1, [0], "true"):
        r = tb.command("reset", confirm=confirm)
        assert not r["ok"] and r["error"] == "bad_input", r
        assert tb.board.game is not None
    assert tb.command("reset", confirm=True)["ok"]
    assert tb.board.game is None


def test_power_cut_resume_guides_restore():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(4)
    assert tb.board.game.pos[0] == 4
    tb.set(26, False)  # moved while the board was off
    tb.set(27, True)
    tb.reboot()
    b = tb.board
    assert b.game.pos[0] == 4 and b.restoring
    r = tb.command("status")
    assert r["restoring"] and r["missing"] == ["D2"] and r["extra"] == [27]
    tb.lift(27)
    tb.place(26)
    assert not tb.board.restoring and tb.board.game.pos[1] == 26


def test_the_end_of_a_game_is_saved_once_already_over():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    # the round's last move ends the game: journal line and snapshot say "over" in one save
    tb.board.game.rounds = 1
    saves = []
    orig = tb.board.store.save
    tb.board.store.save = lambda header, data: (saves.append(dict(header)), orig(header, data))
    finish = [(i, tb.board.game.legal(i)[0][0]) for i in range(5)]
    for i, to in finish:
        tb.lift(tb.board.game.pos[i])
        tb.place(to)
    assert tb.board.game.phase == PHASE_OVER and tb.board.stage == OVER
    assert [h["stage"] for h in saves] == [PLAY, PLAY, PLAY, PLAY, OVER]
    tb.reboot()
    assert tb.board.stage == OVER


def test_an_ended_game_saved_as_in_play_resumes_over():
    """Firmware 0.1.0 saved a game's end twice, first still in play: a power cut between the two
    left a finished game that resumed as being played, for good."""
    tb = _start()
    tb.board.game._end("detectives", "mrx_stuck")
    tb.board.store.save({"v": 1, "stage": PLAY, "x_on": 0}, tb.board.game.save())
    tb.reboot()
    assert tb.board.stage == OVER and tb.command("status")["stage"] == "over"


def test_resend_after_reconnect():
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.messages()
    tb.command("hello", proto=1, acked=2)
    seqs = [m["seq"] for m in tb.messages() if "ev" in m]
    assert seqs == [3], seqs


def test_commitments_verified_at_game_end():
    tb = _start(detectives=(13, 26), bobbies=(29, 34))
    salt = "ab" * 16
    c = commitlib.commitment(46, salt)
    assert tb.command("mrx", ticket="taxi", commit=c)["ok"]
    # detectives trap: end the game by a host-declared capture of D1 on 46 after moving there
    tb.lift(13)
    tb.place(46)
    tb.command("capture", piece="D1")
    r = tb.command("reveal", start=[salt, 45], moves=[[salt, 47]])
    assert r["ok"] and not r["verified"], r  # a lie is caught
    r = tb.command("reveal", start=[salt, 45], moves=[], more=True)
    assert r["ok"] and r["received"] == 0
    r = tb.command("reveal", offset=0, start=[salt, 45], moves=[[salt, 46]])
    assert r["ok"] and r["verified"], r
    r = tb.command("record")
    assert r["lines"] == 3


def test_full_game_in_process():
    tb = TestBoard(TMP)
    st = play_game(tb, detectives=(13, 26), bobbies=(29, 34), capture_round=4)
    assert st["result"] == "detectives" and st["reason"] == "capture"
    assert tb.ptf_max <= 2


def test_real_hardware_builds_from_config_with_fakes():
    from sy.hardware import boardconfig, backends as hw
    from machine import Pin
    cfg = boardconfig.validate({"board": "pico"})
    inputs, leds = hw.real(cfg)
    spi = inputs.reeds.spi
    assert (spi.baudrate, spi.polarity, spi.phase) == (250000, 0, 0)
    mode2, _leds = hw.real(boardconfig.validate({"board": "pico", "reeds": {"spi_mode": 2, "baudrate": 100000}}))
    assert (mode2.reeds.spi.baudrate, mode2.reeds.spi.polarity, mode2.reeds.spi.phase) == (100000, 1, 0)
    bm = bytearray(26)
    Pin.levels[10] = 0  # taxi held down (active low)
    inputs.scan(bm)
    assert bm[25] & 0x80
    leds.put(1, 255, 0, 0)
    leds.show()
    assert leds.strip.writes == 1 and leds.strip.buf[1] == 63  # GRB, 255 at brightness 0.25
    Pin.levels[10] = 1


def _boot_source():
    for path in ("boot.py", "../boot.py", "../../boot.py"):
        try:
            f = open(path)
        except OSError:
            continue
        try:
            return f.read()
        finally:
            f.close()
    raise AssertionError("boot.py not found")


def test_boot_safe_mode_button():
    # the pin comes from board.json; with none there is no safe-mode button and no guessed pin
    # (a guessed pin, GP14, may on another board be wired to anything)
    import os
    import sy
    from machine import Pin
    src = _boot_source()
    try:
        os.stat("board.json")
        raise AssertionError("a board.json in the test's folder: this test writes its own")
    except OSError:
        pass
    f = open("board.json", "w")
    f.write('{"board": "pico", "safe_mode_pin": 14, "leds": {"brightness": 0.5}}')
    f.close()
    stand_in = "micropython" not in sys.modules and sys.implementation.name != "micropython"
    if stand_in:  # CPython has no micropython module: boot.py only asks it for the emergency buffer
        sys.modules["micropython"] = type(sys)("micropython")
    try:
        Pin.levels[14] = 0  # the safe-mode button held at power-up
        exec(src, {"__name__": "boot"})
        assert sy.safe_mode is True
        Pin.levels[14] = 1
        exec(src, {"__name__": "boot"})
        assert sy.safe_mode is False
        f = open("board.json", "w")
        f.write('{"board": "pico", "safe_mode_pin": null}')
        f.close()
        Pin.levels[14] = 0
        exec(src, {"__name__": "boot"})
        assert sy.safe_mode is False
        os.remove("board.json")
        Pin.levels[14] = 0
        exec(src, {"__name__": "boot"})  # no board.json at all: no safe mode, GP14 is not read
        assert sy.safe_mode is False
    finally:
        if stand_in:
            del sys.modules["micropython"]
        try:
            os.remove("board.json")
        except OSError:
            pass
        Pin.levels[14] = 1


def test_bus_sweep_finds_the_clock_where_reads_go_wrong():
    # yard selftest's bus check, board side: the fake SPI corrupts reads above 1 MHz, as a long
    # ribbon into non-Schmitt inputs would; the configured clock and SPI mode come back afterwards
    from sy.hardware import boardconfig, backends as hw
    from sy.link.service import bus_sweep
    inputs, _leds = hw.real(boardconfig.validate({"board": "pico", "reeds": {"spi_mode": 2}}))
    reeds = inputs.reeds
    reeds.spi.data = bytes([0xFE] + [0xFF] * 23 + [0xFE, 0xFF])   # (the chain's marker and tail: sy.hardware.reeds)
    reeds.spi.max_baud = 1000000
    got = bus_sweep(reeds, [4000000, 250000, 1000000, 2000000], 9, bytearray(25))
    assert [r[0] for r in got] == [250000, 1000000, 2000000, 4000000]
    assert [r[1] for r in got[:2]] == [0, 0] and got[2][1] > 0 and got[3][1] > 0, got
    assert (reeds.spi.baudrate, reeds.spi.polarity, reeds.spi.phase) == (250000, 1, 0)
    reeds.spi.max_baud = None


# --- the main loop's collections -------------------------------------------------------------
def _kinds(tb, cycles):
    """(what the cycle did, flash writes so far) of each of the next cycles (sy/cyclewatch.py's
    watcher, which the `mem` command's watch put on the App)."""
    seen = []
    for _ in range(cycles):
        tb.run(1)
        seen.append((tb.app.watch.last_kind, tb.board.store.writes))
    return seen


def test_garbage_is_collected_in_the_cycle_that_saved_never_in_one_of_its_own():
    # a collection takes as long as a frame on a Pico: the main loop makes it in a cycle that
    # already waited for the flash (sy/app.py _after_event), so no other cycle is held up by one
    from sy.cyclewatch import EVENT, FRAME, SAVE
    tb = _start()
    assert tb.command("mem", watch=True)["watching"]
    tb.command("mrx", ticket="taxi")
    tb.run(10)
    tb.set(13, False)  # a lift: destinations lit, nothing saved, nothing collected
    collects = tb.app.watch.collects
    kinds = [k for k, _w in _kinds(tb, 20)]
    assert EVENT in kinds and FRAME in kinds and tb.app.watch.collects == collects, kinds
    writes = tb.board.store.writes
    tb.set(4, True)  # the placement commits D1's move: saved, then collected in that same cycle
    seen = _kinds(tb, 20)
    assert tb.board.game.pos[0] == 4 and tb.board.store.writes > writes
    assert tb.app.watch.collects == collects + 1, seen
    assert [k for k, _w in seen].count(SAVE) == 1, seen  # the cycle that saved, which collected
    if sys.implementation.name == "micropython":  # watched: the heap in use read right before collecting
        assert tb.app.watch.mem_peak > 0


def test_the_heap_in_use_is_read_only_while_watched():
    # gc.mem_alloc() costs a Pico as long as the collection: a board reads it only when asked
    tb = _start()
    tb.command("mrx", ticket="taxi")
    tb.lift(13)
    tb.place(4)  # a move saved and collected, unwatched
    assert getattr(tb.app, "watch", None) is None and tb.command("mem").get("peak", 0) == 0
    r = tb.command("mem", watch=True)
    assert r["watching"] is True
    tb.lift(26)
    tb.place(39)  # D2's move, watched
    if sys.implementation.name == "micropython":
        assert tb.command("mem")["peak"] > 0
    assert tb.command("mem", watch=False)["watching"] is False


def test_a_reed_change_is_taken_while_the_record_streams():
    # the record is answered a journal line a scan cycle (sy/link/proto.py step()): a piece lifted
    # meanwhile is taken as soon as it settles, not after the whole record
    tb = _start()
    assert tb.command("mrx", ticket="taxi")["ok"]
    for a, b in ((13, 4), (26, 39)):
        tb.lift(a)
        tb.place(b)
    tb.messages()
    tb.link.inbox.append(b'{"cmd": "record", "id": 99}')
    tb.set(29, False)  # D3 lifted as the record starts
    changes = tb.app.changes
    taken_during = framed_during = False
    frames = 0
    for _ in range(200):
        tb.run(1)
        streaming = tb.app.proto.job is not None
        if tb.app.changes != changes and streaming:
            if not taken_during:
                frames = tb.strip.seq
            taken_during = True
        if taken_during and streaming and tb.strip.seq != frames:
            framed_during = True  # the lift's frame drawn before the record's last line
        if not streaming and tb.app.changes != changes:
            break
    assert taken_during and framed_during and tb.board.piece_in_hand() == 2
    out = tb.messages()
    lines = [m["line"] for m in out if "line" in m]
    reply = [m for m in out if m.get("id") == 99 and "ok" in m]
    assert reply and reply[0]["lines"] == len(lines) == 4, out  # setup, mrx, the two moves
