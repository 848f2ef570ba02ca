"""A cheat's attacks on the game's secrecy, run by `yard bench reliability` (secrecy part) and counted.

A detective who wants to cheat, with the public browser view, a USB cable to the board and the
project's source, tried: replaying the computer Mister X's code from every publicly possible
station; guessing the seed; sending a forged capture on the serial port; driving the browser
view from another website or a DNS-rebinding name; reading the host's files from the simulated
board's REPL; timing the computer's answers. Each attack is run here against the real pieces
(the firmware on a simulated board, the web server, the agents) and its successes counted: every
`*_accepted`, `*_read` and `*_guessable` count must be 0.
"""
import http.client
import json
import os
import random
import secrets
import tempfile
import time
from host.simulator.board import SIM_HEAP


def forged_claims(heap=SIM_HEAP, seed=5):
    """A whole game with commitments on a simulated board; after every detective move the
    attacker sends a bare `{"cmd": "capture", "piece": ...}` and one with a made-up proof,
    and at Mister X's turns a bare `cornered`. Counts the claims the board took, and whether the
    real game still ended verified."""
    from host.link.boardlink import BoardLink, BoardCommandError
    from host.simulator.board import SimBoard
    from host.simulator.scripted import play_game
    sim = SimBoard(heapsize=heap, debounce_ms=10).start()
    link = BoardLink(sim.port, timeout=5)
    link.open()
    counts = {"forged_claims_sent": 0, "forged_claims_accepted": 0}

    def attempt(cmd, **args):
        counts["forged_claims_sent"] += 1
        try:
            link.request(cmd, **args)
            counts["forged_claims_accepted"] += 1
        except BoardCommandError:
            pass

    def on_step(kind, info):
        if kind == "move":
            st = link.request("status")
            if st["stage"] != "play":
                return
            attempt("capture", piece=info["piece"])
            attempt("capture", piece=info["piece"], reveal=[secrets.token_urlsafe(16), st["pieces"][info["piece"]]])
        elif kind == "mrx":
            st = link.request("status")
            if st["stage"] == "play" and st["phase"] == "mrx":
                attempt("cornered")
    try:
        st = play_game(sim, link, seed=seed, capture_round=8, on_step=on_step, timeout=5, commit=True)
        counts["forged_claims_game_verified"] = bool(st.get("verified"))
    finally:
        link.close()
        sim.stop()
    return counts


def host_file_reads(heap="192k"):
    """Ctrl-C on the simulated board's serial port, then open() of Mister X's secret log (and of
    /etc/passwd) at its REPL."""
    from host.misterx.secretgame import SecretGame, draw_setup
    from host.reliability.secrecy import repl_host_files
    from host.simulator.board import SimBoard
    folder = tempfile.mkdtemp(prefix="yard-attack-")
    sg = SecretGame.create(draw_setup(2), folder=folder)
    sim = SimBoard(heapsize=heap).start()
    try:
        got = repl_host_files(sim, [sg.path, "/etc/passwd"])
    finally:
        sim.stop()
        os.remove(sg.path)
        os.rmdir(folder)
    return {"host_files_tried": len(got), "host_files_read": sum(1 for v in got.values() if v is not None)}


def web_view(heap="192k"):
    """The browser view from another site, without a browser: a forged Host (DNS rebinding), a
    websocket with another site's Origin, a websocket action without the page's token."""
    import asyncio
    import aiohttp
    from host.simulator.board import SimBoard
    from host.web import start_web
    sim = SimBoard(heapsize=heap).start()
    url, stop = start_web(sim)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    wb = stop.webboard
    out = {"web_attacks": 0, "web_attacks_accepted": 0}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/", headers={"Host": "evil.example:%d" % port})
        r = conn.getresponse()
        out["web_attacks"] += 1
        out["web_attacks_accepted"] += r.status == 200 or b"yard-token" in r.read()
        conn.close()

        async def ws(params, headers):
            async with aiohttp.ClientSession() as s:
                try:
                    async with s.ws_connect(url + "ws", params=params, headers=headers) as w:
                        await w.send_str(json.dumps({"do": "stuck", "station": 9, "closed": True, "id": 1}))
                        while True:
                            m = json.loads((await w.receive(timeout=5)).data)
                            if m["t"] == "done":
                                return m["ok"]
                except aiohttp.WSServerHandshakeError:
                    return False
        for params, headers in (({"token": wb.token}, {"Origin": "http://evil.example"}), ({}, {}),
                                ({"token": "guess"}, {"Origin": "http://127.0.0.1:%d" % port})):
            out["web_attacks"] += 1
            out["web_attacks_accepted"] += bool(asyncio.run(ws(params, headers)))
        out["web_attacks_accepted"] += bool(wb.phys.stuck)  # and nothing reached the board
    finally:
        stop()
        sim.stop()
    return out


def guessable_randomness():
    """Generators behind secret choices that a seed search could replay (seeded Mersenne
    Twisters instead of the OS's): the computer players at every level, unseeded as in play."""
    from host.ai import LEVELS, make_detective_agent, make_mrx_agent
    bad = 0
    for level in LEVELS:
        for make in (make_mrx_agent, make_detective_agent):
            if not isinstance(make(level).rnd, random.SystemRandom):
                bad += 1
    return {"secret_generators_guessable": bad}


def policy_leak(games=8, seed=1):
    """The policy-aware attacker of host/ai/leak.py against the default level (easy)."""
    from host.ai.bench import leak_levels
    r = leak_levels(["easy"], games, seed=seed, workers=1)["levels"]["easy"]
    return {"policy_leak_bits_per_move": r["leak_bits_per_move"], "policy_attacker_top1_rate": r["attacker_top1_rate"],
            "policy_public_top1_rate": r["public_top1_rate"], "policy_leak_over_target": int(not r["target_met"])}


def thinking_time(budget=0.2, n=3):
    """The MCTS Mister X's answer time with a single legal move against an open board."""
    from sy.rules import game as rules
    from host.ai import make_mrx_agent

    def lone():
        g = rules.Game([13, 26, 29, 34, 50], [], 45)
        g.pos[0], g.mrx, g.black, g.double = 10, 2, 0, 0
        return g
    agent = make_mrx_agent("normal", seconds=budget)
    # The two positions take turns, and each keeps its quickest answer: what the position itself
    # costs. A load spike on a shared machine lengthens single answers, never the quickest of n,
    # so the gap measures the station, not the machine.
    times = {"lone": [], "open": []}
    positions = (("lone", lone), ("open", lambda: rules.Game([13, 26, 29, 34, 50], [], 45)))
    for _ in range(n):
        for name, make in positions:
            g = make()
            t0 = time.perf_counter()
            agent.choose(g)
            times[name].append(time.perf_counter() - t0)
    times = {name: min(ts) for name, ts in times.items()}
    gap = abs(times["lone"] - times["open"]) * 1000
    return {"thinking_time_gap_ms": round(gap, 1), "thinking_time_telling": int(gap > 30)}


def run_attacks(heap=SIM_HEAP, log=None):
    out = {}
    for name, fn in (("forged claims", lambda: forged_claims(heap)), ("host files", host_file_reads),
                     ("web view", web_view), ("randomness", guessable_randomness), ("policy leak", policy_leak),
                     ("thinking time", thinking_time)):
        t0 = time.monotonic()
        out.update(fn())
        if log:
            log("attack %s: %.1f s" % (name, time.monotonic() - t0))
    return out


__all__ = ["run_attacks", "forged_claims", "host_file_reads", "web_view", "guessable_randomness", "policy_leak",
           "thinking_time"]
