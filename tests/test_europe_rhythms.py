"""The Europe board's LEDs with the rhythms beside colour (board.json leds.patterns): the in-process
cases (tests/firmware/fw_europe_rhythms.py) under CPython and the MicroPython unix port, the heap
locked there; and `yard sim --game europe --patterns` gives the simulated board the setting and
plays its demo."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "firmware"))
sys.path.insert(0, HERE)

import fw_europe_rhythms as cases  # noqa: E402
from mpy import needs_unix_port, run_plain_tests  # noqa: E402
from europe_games import TESTMAP  # noqa: E402

ROOT = os.path.dirname(HERE)
CASES = sorted(n for n in dir(cases) if n.startswith("test_"))


@pytest.mark.parametrize("name", CASES)
def test_cpython(name):
    getattr(cases, name)()


@needs_unix_port
def test_micropython():
    run_plain_tests(os.path.join(HERE, "firmware", "fw_europe_rhythms.py"), "256k", cwd=ROOT,
                    helpers=(os.path.join(HERE, "firmware", "fw_europe_chain.py"),
                             os.path.join(HERE, "hardware_chain_cases.py")))


def test_the_europe_sim_gives_its_board_the_setting():
    from host.commands import cli
    from host.europe.sim import board_config
    args = cli.build_parser().parse_args(["sim", "--game", "europe", "--patterns", "--demo"])
    assert board_config(args) == {"leds": {"patterns": True}}
    assert board_config(cli.build_parser().parse_args(["sim", "--game", "europe", "--demo"])) is None


@needs_unix_port
def test_yard_sim_europe_patterns_demo_finishes(tmp_path):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    p = subprocess.run([sys.executable, "-m", "host", "sim", "--game", "europe", "--map", TESTMAP, "--demo",
                        "--patterns", "--seed", "6", "--rounds", "3", "--heap", "96k", "--keep", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(tmp_path / "board" / "board.json") as f:
        assert json.load(f)["leds"]["patterns"] is True
    assert "the board's record equals the host's public record" in p.stdout, p.stdout


def test_the_europe_boards_files_carry_the_setting(tmp_path):
    """What `yard sim --game europe --board pico --patterns` puts in the emulated Pico's UF2 (the
    board.json host/europe/pico.py europe_pico passes), checked without the emulator."""
    from host.europe.pico import europe_files
    from sy.hardware import boardconfig
    path = tmp_path / "board.json"
    path.write_text(json.dumps(boardconfig.validate({"board": "pico", "leds": {"patterns": True}})))
    assert json.loads(europe_files(TESTMAP, str(path))["board.json"])["leds"]["patterns"] is True
    assert "patterns" not in json.loads(europe_files(TESTMAP)["board.json"])["leds"]
