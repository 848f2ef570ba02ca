"""The firmware on an emulated Raspberry Pi Pico: MicroPython's real RPI_PICO firmware in rp2040js,
booted from the maker's UF2 (`yard uf2`), with the board's 74HC165 chain, buttons, safe-mode pin,
WS2812 chain and flash chip modelled (host/pico/). Every detective move goes through the modelled
reed inputs and is checked on the LED frames decoded from the data pin.

Needs MicroPython's RPI_PICO UF2 and the RP2040 boot ROM: from $YARD_PICO_DIR, else ../shared/pico/
beside the project (CI has them); skipped with a message where they are absent.
"""
import json
import struct
import subprocess
import sys
import time

import pytest

from host import ROOT
from host.link.boardlink import BoardLink
from host.errors import UserError
from host.commands.replay import replay
from host.simulator.scripted import play_game
from boardleds import BUS_RGB, TAXI_RGB, UG_RGB, WHITE_RGB, shown
from mpy import needs_unix_port
from picoenv import BOOTROM, UF2, needs_node, needs_pico


TAXI, BUS, UG, WHITE = (shown(c, bytes) for c in (TAXI_RGB, BUS_RGB, UG_RGB, WHITE_RGB))
DARK = b"\0\0\0"


def pico_board(**kw):
    from host.pico.board import PicoBoard
    kw.setdefault("micropython", UF2)
    kw.setdefault("bootrom", BOOTROM)
    return PicoBoard(**kw)


def colours(pico, station, ms):
    """Every colour the station showed in the frames of the next `ms` emulated ms."""
    from host.benchmarks.pico import station_wire
    t0 = pico.now_ms()
    pico.wait_ms(ms)
    return {station_wire(pico, wire, station) for _t, _n, wire in pico.frames_since(t0)}


# --- the maker's UF2 ----------------------------------------------------------------------------
def _uf2_block(address, family=0xE48BFF56, flags=0x2000, data=b"\0" * 256):
    head = struct.pack("<8I", 0x0A324655, 0x9E5D5157, flags, address, 256, 0, 1, family)
    return head + data + bytes(476 - 256) + struct.pack("<I", 0x0AB16F30)


def test_uf2_refuses_what_is_not_micropython_for_the_pico(tmp_path):
    from host.device.uf2 import make_board_uf2
    bad = tmp_path / "bad.uf2"
    bad.write_bytes(b"hello")
    with pytest.raises(UserError, match="not a UF2 file"):
        make_board_uf2(str(bad), str(tmp_path / "out.uf2"))
    bad.write_bytes(_uf2_block(0x10000000, family=0x1C5F21B0))  # an ESP32 UF2
    with pytest.raises(UserError, match="another chip"):
        make_board_uf2(str(bad), str(tmp_path / "out.uf2"))
    bad.write_bytes(_uf2_block(0x10000000))  # RP2040, but no MicroPython in it
    with pytest.raises(UserError, match="not MicroPython"):
        make_board_uf2(str(bad), str(tmp_path / "out.uf2"))
    assert not (tmp_path / "out.uf2").exists()


@needs_pico
def test_uf2_holds_micropython_and_the_firmware_as_yard_flash_copies_it(tmp_path):
    from host.device.flash import build
    from host.pico.flashfs import mount
    from host.device.uf2 import read_uf2, make_board_uf2
    out = tmp_path / "board.uf2"
    cfg = tmp_path / "board.json"
    cfg.write_text(json.dumps({"board": "pico", "debounce_ms": 25}))
    proc = subprocess.run([sys.executable, "-m", "host", "uf2", "--micropython", UF2, "-o", str(out),
                           "--config", str(cfg)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "v1.28.0" in proc.stdout and "drag" in proc.stdout
    image, firmware = read_uf2(str(out)), read_uf2(UF2)
    assert all(image.blocks[a] == d for a, d in firmware.blocks.items())  # MicroPython unchanged
    flash = tmp_path / "flash.bin"
    flash.write_bytes(image.flash())
    fs = mount(str(flash))
    assert fs is not None
    build_dir = tmp_path / "build"
    want = build(str(build_dir), "armv6m")
    for path, local in want.items():
        with fs.open(path, "rb") as f, open(local, "rb") as g:
            assert f.read() == g.read(), path
    with fs.open("board.json", "r") as f:
        assert json.load(f)["debounce_ms"] == 25
    # a board image is not MicroPython's own file: refused
    with pytest.raises(UserError, match="already writes into the filesystem"):
        make_board_uf2(str(out), str(tmp_path / "again.uf2"))
    cfg.write_text(json.dumps({"board": "pico", "debounce_ms": "fast"}))
    with pytest.raises(UserError, match="debounce_ms"):
        make_board_uf2(UF2, str(tmp_path / "again.uf2"), str(cfg))


PEAK_HEAP_TARGET = 81_920  # bytes in use after an event, the highest over the game


# --- the board on the emulated Pico -------------------------------------------------------------
@pytest.fixture
def pico():
    board = pico_board()
    board.start()
    link = BoardLink(board.port, timeout=60)
    link.open()
    yield board, link
    link.close()
    board.stop()


@needs_pico
@needs_node
def test_boots_to_ready_and_draws_the_idle_frame(pico):
    board, link = pico
    info = link.hello()
    assert info["board"] == "pico" and info["stage"] == "idle"
    n, t, wire = board.frame()
    assert len(wire) == 3 * 199 and any(wire)  # the idle animation, decoded from the data pin
    mem = link.request("mem")
    assert mem["free"] > 150_000  # a Pico has ~240 KB after MicroPython's own boot


@needs_pico
@needs_node
def test_full_game_with_commitments_reveal_and_record(pico):
    board, link = pico
    checks = {"reveal": 0, "choose": 0, "moves": 0}

    def on_step(kind, info):
        if kind == "ready":
            assert colours(board, 13, 150) - {DARK}
        elif kind == "mrx" and info["reveal"] and checks["reveal"] < 1:
            assert WHITE in colours(board, info["reveal"], 1200)  # his station flashes
            checks["reveal"] += 1
        elif kind == "choose" and checks["choose"] < 2:
            seen = colours(board, info["station"], 900)
            assert len(seen & {TAXI, BUS, UG}) >= 2, seen  # both transports, in turn
            checks["choose"] += 1
        elif kind == "move":
            checks["moves"] += 1
            assert colours(board, info["station"], 150) - {DARK}, info  # the piece's station is lit

    unwatched = link.request("mem")["alloc"]
    watched = link.request("mem", watch=True)  # the loop measured, the heap read at each collection
    assert watched["watching"]
    watch_bytes = watched["alloc"] - unwatched  # what the measuring itself holds (sy/cyclewatch.py)
    st = play_game(board, link, seed=3, on_step=on_step, timeout=120, commit=True)
    assert st["verified"] is True
    assert st["stage"] == "over" and st["result"] in ("mrx", "detectives")
    assert checks["reveal"] == 1 and checks["choose"] >= 1 and checks["moves"] >= 20, checks
    lines = link.record(timeout=120)
    verdicts = list(replay(json.dumps(x) for x in lines))
    assert all(v.get("ok") for v in verdicts[:-1]), [v for v in verdicts if v.get("ok") is False]
    steps = []
    for line in lines:
        if line["type"] == "mrx":
            steps.extend(line.get("double", [line]))
    assert len(steps) == len(st["truth_log"])
    mem = link.request("mem")
    print("heap peak %d B (%d B of it the watcher's), in use %d B, free %d B" % (
        mem["peak"], watch_bytes, mem["alloc"], mem["free"]))
    # the heap target: an ESP32 without PSRAM has ~110 KB; the board as it plays, unwatched
    assert 0 < mem["alloc"] < mem["peak"] and mem["peak"] - watch_bytes <= PEAK_HEAP_TARGET, mem


@needs_pico
@needs_node
def test_a_50_ms_button_tap_chooses_the_ticket(pico):
    board, link = pico
    link.request("setup", detectives=[13, 26, 29, 34, 50], replace=True)
    board.set_inputs([13, 26, 29, 34, 50])
    link.wait_event("ready")
    link.request("mrx", ticket="taxi")
    board.lift(13)
    board.place(23)  # 13 -> 23 by taxi or bus: the board asks
    link.wait_note("choose")
    reply = board.tap(board.config["buttons"]["bus"], 50)
    assert 49.9 <= reply["pressed_ms"] <= 50.1
    seq, ev = link.wait_event("move", timeout=60)
    assert ev == {"type": "move", "piece": "D1", "to": 23, "ticket": "bus"}


@needs_pico
@needs_node
def test_safe_mode_pin_at_power_on_leaves_the_repl_free(tmp_path):
    import serial
    board = pico_board(safe_mode=True)
    try:
        board.start()
        ser = serial.Serial(board.port, timeout=0.5)
        got = b""
        end = time.monotonic() + 60
        while b"4242" not in got and time.monotonic() < end:
            ser.write(b"\r\nprint(4200 + 42)\r\n")
            got += ser.read(4096)
        assert b"4242" in got and b">>>" in got, got[-500:]
        ser.write(b'{"id": 1, "cmd": "hello", "proto": 1, "acked": 0}\n')
        time.sleep(1.0)
        assert b'"ok": true' not in ser.read(4096)  # the game did not start
        ser.close()
    finally:
        board.stop()


@needs_pico
@needs_node
def test_yard_flash_with_mpremote_then_machine_reset_and_resume(pico):
    board, link = pico
    link.request("setup", detectives=[13, 26], bobbies=[29, 34], replace=True)
    board.set_inputs([13, 26, 29, 34])
    link.wait_event("ready")
    link.request("mrx", ticket="taxi")
    board.lift(13)
    board.place(4)
    link.wait_event("move")
    link.close()
    # real mpremote: Ctrl-C, raw REPL, file copies, a real soft reset, the new firmware's hello
    proc = subprocess.run([sys.executable, "-m", "host", "flash", "--port", board.port, "--force", "-q"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "answers" in proc.stdout
    link.open()
    st = link.request("status")
    assert st["pieces"] == {"D1": 4, "D2": 26, "B1": 29, "B2": 34} and st["moves"] == 1 and not st["restoring"]
    link.close()
    # machine.reset() through mpremote: the watchdog reboots the chip, the game resumes
    proc = subprocess.run([sys.executable, "-m", "mpremote", "connect", board.port, "reset"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    reset = board.events.get(timeout=60)
    while reset["ev"] != "reset":
        reset = board.events.get(timeout=60)
    link.open()
    st = link.request("status")
    assert st["pieces"] == {"D1": 4, "D2": 26, "B1": 29, "B2": 34} and st["moves"] == 1


@needs_pico
@needs_node
def test_power_cuts_inside_flash_writes_lose_nothing():
    from host.pico.chaos import run_power_cuts
    # cuts at chosen instructions and inside the Pico's own flash operations, in whole games: 20
    # (seed 11: 12 inside an erase or a program, 6 at an instruction, 2 after a flash write, one
    # resumed game), each a boot of the emulator; every boundary of every kind of save is cut by
    # the sweep below, on the unix port; `yard bench pico --cuts 200` runs the long count here
    stats = run_power_cuts(20, seed=11, micropython=UF2, bootrom=BOOTROM, capture_rounds=(5,))
    assert stats["power_cuts"] >= 20
    inside = stats["cuts_in_erase"] + stats["cuts_in_program"]
    assert inside >= stats["power_cuts"] / 3, stats  # a third inside an erase or a program
    assert stats["cuts_at_instruction"] >= 5 and stats["cuts_after_flash"] >= 1, stats
    assert stats["lost_moves"] == 0 and stats["corrupt_saves"] == 0, stats["problems"]
    assert stats["lost_events"] == 0 and stats["duplicate_events"] == 0 and stats["disagreements"] == 0
    assert not stats["problems"], stats["problems"]
    assert stats["resumed_games"] >= 1


@needs_unix_port
def test_a_cut_at_every_flash_boundary_of_every_kind_of_save_loses_nothing():
    # every erase and program of each kind of save, cut right before it and half-way through it, on
    # MicroPython's own littlefs (the unix port, a modelled flash chip): the proof the emulated
    # Pico's sampled cuts above cannot give in the suite's time
    from host.benchmarks.cutsweep import run_sweep
    got = run_sweep()
    assert not got["problems"], got["problems"]
    assert got["lost_events"] == got["wrong_resumes"] == got["unmountable"] == got["redo_failed"] == 0, got
    saves = got["saves"]
    assert {"setup", "ready", "mrx", "move", "take_back", "end", "reveal"} <= set(saves), saves
    for kind, row in saves.items():
        assert row["boundaries"] >= 1 and row["cuts"] == 2 * row["boundaries"], (kind, row)
    assert got["cuts_in_erase"] >= 1 and got["power_cuts"] == sum(r["cuts"] for r in saves.values())
