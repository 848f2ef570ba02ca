"""End to end through a pty: the host's computer players at a real (simulated) board.

`yard play --mrx computer`: the test is the detectives at the table (it moves their pieces on the
simulated board); the console must never show where the computer Mister X is hidden, the game
ends, and the board verifies his commitments.
`yard play --detectives computer`: the test is Mister X at the console and the person who carries
out the computer's moves; each guided move is lit on the board, a wrong placement is refused.
`yard sim` prints the URL of the browser view, and the page is served there.
"""
import os
import random
import re
import signal
import time
import urllib.request

import pytest

from host.link.boardlink import BoardLink
from host.misterx.secretgame import SecretGame
from host.ptyterminal import PtyTerminal
from host.simulator.board import SimBoard
from boardleds import ERROR, PIECES, TRANSPORT, frames
from yardplay import move_one_detective, mrx_input, place_start, secret_log, yard_env
from mpy import needs_unix_port

pytestmark = needs_unix_port
HEAP = "192k"


@pytest.fixture
def env(tmp_path):
    return yard_env(tmp_path)


PUBLIC_MRX_LINES = [
    r"New game \S+\. The computer plays Mister X; his stations stay hidden until the end, when his secret log is "
    r"shown and checked\.",
    r"Round \d+/\d+   Mister X has made \d+ moves?, (surfaces after move \d+|no more surfacing)",
    r"Mister X's tickets: black \d+, double \d+",
    r"Mister X may be on \d+ stations?\.",
    r"Mister X has moved: .*",
    r"Travel log: .*",
    r"\S+ lands on Mister X's station \d+: caught!",
    r"Mister X cannot move: .*",
]


def check_public(text, sg):
    """Every line before the end that speaks of Mister X is one of the public forms, and names a
    station of his only where he surfaced; his secret log's file is not named (it holds his stations)."""
    assert os.path.basename(sg.path) not in text.split("GAME OVER")[0]
    entries = sg.entries()
    surfaced = [to for _t, to, sh, _c, _s in entries if sh]
    checked = 0
    for line in text.split("GAME OVER")[0].splitlines():
        line = line.strip()
        assert "(--show-mrx)" not in line and "You start" not in line and not line.startswith("OK:"), line
        if "Mister X" not in line and not line.startswith("Travel log"):
            continue
        assert any(re.fullmatch(p, line) for p in PUBLIC_MRX_LINES), line
        if line.startswith("Mister X has moved:"):
            assert set(map(int, re.findall(r"surfaces on (\d+)", line))) <= set(surfaced), line
            assert not re.findall(r"\d+", re.sub(r"surfaces on \d+", "", line)), line
            checked += 1
        elif line.startswith("Travel log:") and "(empty)" not in line:
            for k, entry in enumerate(line[len("Travel log: "):].split(" | ")):
                m = re.fullmatch(r"(\d+) (taxi|bus|underground|black)(?: (\d+))?", entry)
                assert m and int(m.group(1)) == k + 1, entry
                ticket, to, sh = entries[k][:3]
                assert m.group(2) == ticket and (int(m.group(3)) == to if sh else m.group(3) is None), (entry, entries[k])
    return checked


def test_computer_mrx_against_detectives_at_the_board(env):
    rng = random.Random(21)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = PtyTerminal(["play", "--port", sim.port, "--players", "2", "--mrx", "computer", "--level", "easy",
                        "--cards", "random"], env)
        try:
            place_start(host, sim, env)
            while True:
                k, _m = host.expect([r"Detectives' turn", r"GAME OVER[^\n]*\n"], timeout=90)
                if k == 1:
                    break
                # the people at the table move their pieces on the board; the console only watches
                while move_one_detective(sim, secret_log(env), rng):
                    pass
            host.expect([r"Secret log: [^\n]*\n"], timeout=60)
            text = host.seen
            sg = SecretGame.load(secret_log(env))
            assert sg.over and sg.setup.get("revealed")
            assert check_public(text, sg) == len(sg.mrx_lines())
            assert "fair play verified" in text
            host.proc.wait(10)
            link = BoardLink(sim.port)
            info = link.open()
            board = link.record(everything=True)
            link.close()
            assert info["stage"] == "over"
            assert board[-1]["type"] == "verified" and board[-1]["ok"] is True
            hidden = [to for _t, to, sh, _c, _s in sg.entries() if not sh]
            steps = [s for x in board if x["type"] == "mrx" for s in x.get("double", [x])]
            assert len(steps) == len(sg.entries()) and all("to" not in s for s in steps if not s.get("to"))
            assert sum(1 for s in steps if "to" not in s) == len(hidden)
            assert board[0]["mrx"] is None
        finally:
            host.close()


def test_computer_detectives_guided_on_the_board(env):
    rng = random.Random(4)
    with SimBoard(heapsize=HEAP, debounce_ms=10) as sim:
        host = PtyTerminal(["play", "--port", sim.port, "--players", "2", "--detectives", "computer", "--level", "easy",
                        "--start", "13,26,29,34:172"], env)
        lit = refused = 0
        took_back = False
        try:
            place_start(host, sim, env)
            while True:
                k, m = host.expect([r"mister x> ", r"move (\w\d) from (\d+) to (\d+) \((\w+)\): the board lights it\n",
                                    r"GAME OVER[^\n]*\n"], timeout=90)
                if k == 2:
                    break
                if k == 0:
                    host.send(mrx_input(SecretGame.load(secret_log(env)), rng))
                    continue
                piece, here, to, ticket = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
                g = SecretGame.load(secret_log(env)).game
                index = g.piece_index(piece)
                if lit < 3:  # the guided station shows the piece's colour and the ticket's in turn
                    seen = frames(sim, to)
                    assert PIECES[index if index < g.n_detectives else 5] in seen and TRANSPORT[ticket] in seen, (piece, to, ticket, seen)
                    assert frames(sim, here, 0.3) - {(0, 0, 0)}  # the piece itself is lit
                    lit += 1
                sim.lift(here)
                if refused < 2 and g.round in (1, 3):
                    # the person puts it somewhere else: refused until it goes where the board says
                    wrong = next(s for s in range(1, 200) if s != to and g.holder_of(s) < 0 and not sim.switch(s)
                                 and s != here)
                    sim.place(wrong)
                    host.expect([r"the board refuses %s on %d: %s goes to %d" % (piece, wrong, piece, to)], timeout=10)
                    assert ERROR in frames(sim, wrong, 0.5)
                    assert SecretGame.load(secret_log(env)).game.pos[index] == here
                    sim.lift(wrong)
                    refused += 1
                sim.place(to)
                host.expect([r"  %s (by %s )?to %d\n" % (piece, ticket, to)], timeout=15)
                if not took_back and g.round == 2 and bin(g.to_move()).count("1") > 1:  # not the last of the turn
                    # the table takes the move back (the confirm button held): the piece goes back
                    # where it was, and the computer guides the turn's move again. A move onto a
                    # station where he could be is final: Mister X is asked, and allows it
                    # (docs/fairplay.md)
                    sim.press("confirm", hold=1.7)
                    k, _m = host.expect([r"%s asks to take back its move to %d[^\n]*Allow it\? \[y/N\] " % (piece, to),
                                         r"%s's move to %d taken back" % (piece, to)], timeout=15)
                    assert k == int(not g.is_candidate(to)), (k, to, g.candidates())
                    if k == 0:
                        host.send("y")
                    host.expect([r"%s's move to %d taken back: %s goes back to %d\n" % (piece, to, piece, here)]
                                if k == 0 else [r": %s goes back to %d\n" % (piece, here)], timeout=15)
                    host.expect([r"put %s back on %d\n" % (piece, here)], timeout=15)
                    assert SecretGame.load(secret_log(env)).game.pos[index] == here
                    sim.lift(to)
                    sim.place(here)
                    took_back = True
            host.expect([r"Secret log: [^\n]*\n"], timeout=60)
            assert "fair play verified" in host.seen
            assert lit == 3 and refused == 2 and took_back
            sg = SecretGame.load(secret_log(env))
            assert sg.over
        finally:
            host.close()


def test_yard_sim_serves_the_browser_view(env):
    host = PtyTerminal(["sim", "--players", "2", "--seed", "3", "--cards", "random"], env)
    try:
        _k, m = host.expect([r"Browser view of the simulated board: (http://127\.0\.0\.1:\d+/)"], timeout=60)
        url = m.group(1)
        host.expect([r"mister x> "], timeout=60)
        with urllib.request.urlopen(url, timeout=10) as r:
            page = r.read().decode()
        assert r.status == 200 and "<html" in page.lower()
        host.send("quit")
        host.expect([r"Game abandoned"], timeout=20)
        assert host.proc.wait(20) == 0
    finally:
        host.close()


def _firmware_children(pid):
    """pids of the micropython processes that process pid started."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and b"micropython" in cmd:
            out.append(int(d))
    return out


def _gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie nobody reaps is gone too
    except OSError:
        return True


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_yard_sim_killed_stops_its_firmware(env, sig):
    """A closed terminal or a kill ends `yard sim` through its clean-up: the simulated board's
    firmware (in a session of its own, so the signal does not reach it) does not run on."""
    host = PtyTerminal(["sim", "--players", "2", "--seed", "3", "--cards", "random", "--no-web"], env)
    try:
        host.expect([r"mister x> "], timeout=60)
        fw = _firmware_children(host.proc.pid)
        assert len(fw) == 1, fw
        os.kill(host.proc.pid, getattr(signal, sig))
        assert host.proc.wait(20) == 128 + getattr(signal, sig)
        end = time.monotonic() + 10
        while not _gone(fw[0]):
            assert time.monotonic() < end, "the firmware process %d runs on after yard ended" % fw[0]
            time.sleep(0.1)
    finally:
        host.close()


def test_yard_sim_computer_mrx_with_detectives_in_the_browser_view(env):
    """`yard sim --mrx computer`: the user moves the detectives through the page's websocket (the
    same actions its clicks send); the console shows only public information."""
    import asyncio
    import json
    import aiohttp
    from sy.rules import mapgraph
    graph = mapgraph.load()

    def pick(state):
        game = state["game"]
        taken = {p["station"] for p in game["pieces"]}
        for p in game["pieces"]:
            if not p["to_move"]:
                continue
            tickets = next((t for t in game["tickets"] if t["name"] == p["name"]), None)
            if game["shared_tickets"] and tickets is None:
                tickets = game["tickets"][0]
            for t, name in enumerate(("taxi", "bus", "underground")):
                if tickets is not None and not tickets[name]:
                    continue
                for s in graph.neighbours(p["station"], t):
                    fits = [u for u in range(3) if graph.connected(p["station"], s, u)]
                    if s not in taken and len(fits) == 1:
                        return p["name"], s
        return None

    async def play(url, host, deadline):
        moves = 0
        async with aiohttp.ClientSession() as session:
            async with session.get(url) as resp:  # the page carries its token, as the browser reads it
                token = re.search(r'name="yard-token" content="([^"]+)"', await resp.text()).group(1)
            async with session.ws_connect(url + "ws", params={"token": token}) as ws:
                state, n, sent, before = None, 0, None, None
                while time.monotonic() < deadline:
                    try:
                        msg = await ws.receive(timeout=0.5)
                    except asyncio.TimeoutError:
                        msg = None
                    if msg is not None and msg.type == aiohttp.WSMsgType.TEXT:
                        data = json.loads(msg.data)
                        if data["t"] == "state":
                            state = data
                        elif data["t"] == "done":
                            assert data["ok"], data
                            sent = None
                    if state is None or sent is not None or state["game"].get("pieces") == before:
                        continue  # wait for the board to take the last move
                    game = state["game"]
                    if game.get("stage") == "over" or moves >= 12:
                        return moves
                    if game.get("stage") == "play" and game["phase"] == "detectives":
                        choice = pick(state)
                        if choice and choice != sent:
                            n += 1
                            sent, before = choice, game["pieces"]
                            await ws.send_str(json.dumps({"do": "move", "piece": choice[0], "station": choice[1],
                                                          "id": n}))
                            moves += 1
        return moves

    host = PtyTerminal(["sim", "--players", "2", "--seed", "8", "--cards", "random", "--mrx", "computer",
                    "--level", "easy", "--dir", env["YARD_HOME"]], env)
    try:
        _k, m = host.expect([r"Browser view of the simulated board: (http://127\.0\.0\.1:\d+/)"], timeout=60)
        host.expect([r"You play the detectives: move the pieces in the browser view"], timeout=10)
        host.expect([r"Mister X has moved"], timeout=60)
        moves = asyncio.run(play(m.group(1), host, time.monotonic() + 120))
        assert moves >= 12
        host.expect([r"Detectives' turn \(round 4\)"], timeout=30)
        text = host.text
        assert "You start" not in text and "(--show-mrx)" not in text and "OK:" not in text
        assert re.search(r"\n  D1 by \w+ to \d+\n", text)
        sg = SecretGame.load(secret_log(env))
        assert check_public(text, sg) >= 3
    finally:
        host.close()
