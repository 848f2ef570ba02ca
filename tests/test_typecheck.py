"""The firmware type-checks against the MicroPython stubs of both boards (rp2, esp32), and the
check is real: deliberately wrong uses of the boards' APIs fail it, the same uses done right pass."""
import os

import pytest

from hardware import typecheck

WRONG = '''import machine
import time

pin = machine.Pin(22, machine.Pin.OUTT)
spi = machine.SPI(0, baudrate="1MHz")
ok = 1
t = time.monotonic()
'''
WRONG_LINES = {4, 5, 7}  # OUTT is no Pin mode; baudrate is an int; the board's time has no monotonic

RIGHT = '''import machine
import neopixel
import time

pin = machine.Pin(22, machine.Pin.OUT)
spi = machine.SPI(0, baudrate=1000000, sck=machine.Pin(18), miso=machine.Pin(16))
np = neopixel.NeoPixel(machine.Pin(22), 199)
np.write()
buf = bytearray(25)
spi.readinto(buf)
t = time.ticks_diff(time.ticks_ms(), 0)
'''

PORT_WRONG = {
    "rp2": ('import rp2\nsm = rp2.StateMachine(0)\nsm.active("yes")\nrp2.bootsel_button(1)\n', {3, 4}),
    "esp32": ('import esp32\nnvs = esp32.NVS(42)\nesp32.raw_temperature(1)\n', {2, 3}),
}
OTHER = {"rp2": "esp32", "esp32": "rp2"}


@pytest.fixture(scope="module")
def snippets(tmp_path_factory):
    d = tmp_path_factory.mktemp("snippets")
    files = {"wrong": WRONG, "right": RIGHT}
    for port, (text, _) in PORT_WRONG.items():
        files["wrong_" + port] = text
    paths = {}
    for name, text in files.items():
        p = d / (name + ".py")
        p.write_text(text)
        paths[name] = str(p)
    return paths


@pytest.mark.parametrize("port", sorted(typecheck.STUBS))
def test_misuse_of_the_board_api_fails(port, snippets, tmp_path):
    errors = typecheck.check(sorted(snippets.values()), port, str(tmp_path))
    by_file = {}
    for path, line, rule, msg in errors:
        by_file.setdefault(os.path.basename(path), set()).add(line)
    assert by_file.get("wrong.py") == WRONG_LINES, errors
    assert "right.py" not in by_file, errors
    # the port's own module misused: caught; the other port's module: does not exist here
    assert by_file.get("wrong_%s.py" % port) == PORT_WRONG[port][1], errors
    assert by_file.get("wrong_%s.py" % OTHER[port]) == {1}, errors
    assert any("OUTT" in m for _, _, _, m in errors)


def test_the_checked_files_are_found():
    files = [os.path.relpath(f, typecheck.ROOT) for f in typecheck.board_files()]
    for f in files:
        assert f.endswith(".py") and (f.startswith("firmware/") or f == "boot.py")
    pio = "firmware/sy/hardware/ledspio.py"  # imports rp2: the Pico's alone
    assert pio in files
    assert [os.path.relpath(f, typecheck.ROOT) for f in typecheck.board_files(port="rp2")].count(pio) == 1
    assert pio not in [os.path.relpath(f, typecheck.ROOT) for f in typecheck.board_files(port="esp32")]


@pytest.mark.parametrize("port", sorted(typecheck.STUBS))
def test_firmware_typechecks_against_the_board_stubs(port, tmp_path):
    files = typecheck.board_files(port=port)
    if not files:
        pytest.skip("no firmware file imports a board module yet")
    errors, known, unused = typecheck.split_known(typecheck.check(files, port, str(tmp_path)))
    if not args_full_tree(files):
        unused = []  # part of the tree only: an unused entry may belong to a file not there yet
    assert unused == [], "fixed? delete these from hardware/typecheck.py KNOWN: %r" % (unused,)
    assert errors == [], "\n".join("%s:%d: %s (%s)" % (os.path.relpath(p, typecheck.ROOT), n, m, r)
                                    for p, n, r, m in errors)


def args_full_tree(files):
    rel = {os.path.relpath(f, typecheck.ROOT).replace(os.sep, "/") for f in files}
    return all(k[0] in rel for k in typecheck.KNOWN)


def test_known_findings_do_not_hide_new_ones(tmp_path):
    # a KNOWN entry matches its own file only: the same mistake elsewhere is still an error
    p = tmp_path / "elsewhere.py"
    p.write_text("import time\nt = time.monotonic()\n")
    new, known, _ = typecheck.split_known(typecheck.check([str(p)], "rp2", str(tmp_path)))
    assert known == [] and [e[1] for e in new] == [2]
