"""The Europe game on the simulated board (firmware/europe_main.py under the MicroPython unix
port) with the map made for the tests (tests/data/europe_testmap, NOT the real board): the LEDs
light a lifted detective's destinations by transport, the car/train/plane buttons settle a
placement two transports reach, and `yard sim --game europe` plays a whole demo game."""
import json
import os
import subprocess
import sys

import pytest

from host.europe.sim import EuropeSimBoard, EuropeLink

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")
DETECTIVES = [9, 5, 10, 14, 22]
HANDS = [["car/lamp", "train/lamp", "car/magnifier", "train/magnifier", "plane/lamp"]] + \
        [["car/lamp"] * 5, ["car/magnifier"] * 5, ["car/silhouettes"] * 5, ["car/footprints"] * 5]


def colour(rgb):
    r, g, b = rgb
    if r == g == b == 0:
        return "dark"
    if g == 0 and b == 0:
        return "red"
    if r > g > b > 0:
        return "beige"
    if b > r and b > g:
        return "blue"
    return "other"


@pytest.fixture(scope="module")
def board():
    sim = EuropeSimBoard(TESTMAP, "europe_testmap", heapsize="96k", debounce_ms=10)
    sim.start()
    link = EuropeLink(sim.port)
    link.wait_ready()
    yield sim, link
    link.close()
    sim.stop()


def line(link, obj):
    return link.request("line", line=obj)


def test_the_board_lights_destinations_by_transport_and_the_buttons_choose(board):
    sim, link = board
    assert line(link, {"type": "setup", "game": "europe", "map": "europe_testmap", "level": "green",
                       "detectives": DETECTIVES, "mrx": 13})["error"] == "bad_input"  # never his start
    assert line(link, {"type": "setup", "game": "europe", "map": "europe_testmap", "level": "green",
                       "detectives": DETECTIVES, "mrx": None})["ok"]
    for c in DETECTIVES:
        sim.place(c)
    assert line(link, {"type": "draw", "hand": "X", "tickets": ["car/lamp"] * 8})["error"] == "bad_input"
    assert line(link, {"type": "draw", "hand": "X", "count": 8})["ok"]
    for h, hand in enumerate(HANDS):
        assert line(link, {"type": "draw", "hand": "P%d" % (h + 1), "tickets": hand})["ok"]
    assert line(link, {"type": "mrx", "moves": [{"ticket": "car/footprints", "to": 7}]})["error"] == "bad_input"
    assert line(link, {"type": "mrx", "moves": [{"ticket": "car/footprints"}]})["ok"]
    assert line(link, {"type": "draw", "hand": "X", "count": 1})["ok"]
    status = link.request("status")
    assert status["to_move"] == ["D1", "D2", "D3", "D4", "D5"] and status["mrx_hand"] == 8
    assert sorted(status["hands"]["P1"]) == sorted(HANDS[0])
    sim.lift(9)
    leds = sim.leds()
    # from 9: car to 3, 8, 15 (10 is D3's); train to 8, 15 (5 is D2's)
    assert colour(leds[3]) == "beige"
    assert colour(leds[8]) == "red" and colour(leds[15]) == "red"
    assert colour(leds[4]) == "dark" and colour(leds[10]) not in ("red", "beige")
    sim.place(4)  # not reachable: refused, nothing committed
    assert link.request("status")["pieces"]["D1"] == 9
    sim.lift(4)
    sim.place(15)  # car and train both reach 15: the board waits for a button
    assert link.request("status")["pieces"]["D1"] == 9
    sim.press("bus")  # the second button: train
    ev = link.event(5)
    assert ev == {"type": "move", "piece": "D1", "ticket": "train/lamp", "to": 15}
    status = link.request("status")
    assert status["pieces"]["D1"] == 15 and "D1" not in status["to_move"]
    mem = link.request("mem")
    assert mem["ok"] and mem["alloc"] > 0
    print("Europe board heap in use after a move: %d bytes (free %d)" % (mem["alloc"], mem["free"]))


def test_yard_sim_plays_a_europe_demo_game(tmp_path):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    p = subprocess.run([sys.executable, "-m", "host", "sim", "--game", "europe", "--map", TESTMAP, "--demo",
                        "--seed", "6", "--heap", "96k", "--keep", str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "a map made for the tests, not the real board" in p.stdout
    assert "Result: the detectives win" in p.stdout or "Result: Mister X wins" in p.stdout, p.stdout
    assert "the board's record equals the host's public record" in p.stdout
    public = (tmp_path / "europe-public.jsonl").read_text().splitlines()
    secret = (tmp_path / "europe-secret.jsonl").read_text().splitlines()
    assert '"mrx": null' in public[0] and "bag_seed" not in public[0] and "bag_seed" in secret[0]
    results = []
    for path in ("europe-public.jsonl", "europe-secret.jsonl"):
        r = subprocess.run([sys.executable, "-m", "host", "replay", str(tmp_path / path), "--quiet", "--map", TESTMAP],
                           capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stdout + r.stderr
        results.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert results[0]["result"] == results[1]["result"] and results[0]["reason"] == results[1]["reason"]


def test_yard_sim_europe_needs_a_map():
    p = subprocess.run([sys.executable, "-m", "host", "sim", "--game", "europe", "--demo"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode != 0 and "owner's transcription" in p.stderr
