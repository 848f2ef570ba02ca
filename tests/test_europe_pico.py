"""The Europe board on the emulated Raspberry Pi Pico (host/europe/pico.py): MicroPython's real
RPI_PICO firmware in rp2040js boots the maker's UF2 with europe_main.py and a map, and
`yard sim --game europe --board pico --demo` plays a whole game on it, each detective move made
through the reed inputs, and its heap stays within London's budget (docs/memory.md). The map is the
one made for the tests, not the real board.

Needs MicroPython's RPI_PICO UF2 and the RP2040 boot ROM: from $YARD_PICO_DIR, else ../shared/pico/
beside the project; skipped with a message where they are absent. The emulator is slow: one game.
"""
import json
import os
import re
import subprocess
import sys


from europe_games import ROOT, TESTMAP
from picoenv import PICO_DIR, needs_node, needs_pico

HEAP_BUDGET = 81920  # London's target peak (docs/memory.md)

pytestmark = [needs_pico, needs_node]


def test_yard_sim_plays_a_europe_demo_game_on_the_emulated_pico(tmp_path):
    env = dict(os.environ, YARD_PICO_DIR=PICO_DIR)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    p = subprocess.run([sys.executable, "-m", "host", "sim", "--game", "europe", "--board", "pico", "--map", TESTMAP,
                        "--demo", "--seed", "6", "--keep", str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                       timeout=3600, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Result: the detectives win" in p.stdout or "Result: Mister X wins" in p.stdout, p.stdout
    assert "the board's record equals the host's public record" in p.stdout
    public = (tmp_path / "europe-public.jsonl").read_text().splitlines()
    r = subprocess.run([sys.executable, "-m", "host", "replay", str(tmp_path / "europe-public.jsonl"), "--quiet",
                        "--map", TESTMAP], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["result"] in ("detectives", "mrx")
    assert json.loads(public[0])["map"] == "europe"  # the Pico boots as a maker's board: its map is `europe`
    heap = re.search(r"The board's heap \(emulated Pico\): ([\d,]+) B in use after boot, peak ([\d,]+) B", p.stdout)
    assert heap, p.stdout
    print(heap.group(0))
    boot, peak = (int(heap.group(k).replace(",", "")) for k in (1, 2))  # 62,432: English grouping
    assert 0 < boot <= peak <= HEAP_BUDGET

