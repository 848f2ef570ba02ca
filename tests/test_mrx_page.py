"""Mister X's secret page (host/web/mrxpage.py), in real Chromium via Playwright.

`yard sim --secret-page` runs in a pty (its terminal) with the real firmware on the unix port and
computer detectives; Mister X plays a whole game by clicking on his page, on a desktop and on a
phone viewport. Meanwhile the public board page is open too, and everything it receives (websocket
frames and HTTP responses) is kept and checked: none of Mister X's hidden stations, salts or the
secret page's key. Without its key the secret page shows nothing. Screenshots go to
test-artifacts/mrx-page/.
"""
import asyncio
import hashlib
import json
import math
import os
import re
import ssl
import subprocess
import sys
import threading
import time

import pytest

from chromium import browser  # noqa: E402,F401 (a fixture; skips the module without Playwright or Chromium)

import aiohttp  # noqa: E402

from host import ROOT  # noqa: E402
from host.misterx.secretgame import SecretGame  # noqa: E402
from host.ptyterminal import PtyTerminal  # noqa: E402
from host.web.mrxinput import PageBusy, PageInput, Said  # noqa: E402
from host.web.mrxpage import command, start_secret_page  # noqa: E402
from host.web.mrxstate import mrx_state  # noqa: E402
from httpget import get  # noqa: E402

ART = os.path.join(ROOT, "test-artifacts", "mrx-page")
START = "13,26,29,34:45"
# what the public page's game may hold (host/web/public.py): nothing else
PUBLIC_GAME_KEYS = {"stage", "phase", "round", "rounds", "moves", "reveals", "next_reveal", "surfaced", "pieces",
                    "tickets", "shared_tickets", "mrx_tickets", "log", "result", "reason", "candidates", "verified",
                    "problem", "caught_at", "error", "take_backs"}
DESKTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def shot(page, name, full=False):
    os.makedirs(ART, exist_ok=True)
    page.screenshot(path=os.path.join(ART, name + ".png"), full_page=full)


# --- unit: the bridge between the page and the console ----------------------------------------------
def test_page_actions_become_console_commands():
    assert command({"do": "move", "ticket": "bus", "station": 58}) == "bus 58"
    assert command({"do": "double", "steps": [["taxi", 14], ["black", 15]]}) == "double taxi 14 black 15"
    assert command({"do": "undo"}) == "undo"
    for bad in ({"do": "move", "ticket": "bus", "station": "58; quit"}, {"do": "move", "ticket": "quit", "station": 5},
                {"do": "move", "ticket": "bus", "station": 200}, {"do": "double", "steps": [["taxi", 14]]},
                {"do": "quit"}, {"do": "move", "ticket": "bus", "station": True}):
        with pytest.raises(ValueError):
            command(bad)


def test_page_input_takes_a_click_only_while_the_console_asks():
    said = Said(out=lambda text: None)
    pin = PageInput(terminal=None, out=said)
    with pytest.raises(PageBusy):
        pin.submit("bus 58")  # the detectives are moving: refused, not kept for later
    got = []
    import threading
    t = threading.Thread(target=lambda: got.append(pin("mister x> ")))
    t.start()
    end = time.monotonic() + 5
    while not pin.waiting and time.monotonic() < end:
        time.sleep(0.01)
    pin.submit("bus 58")
    with pytest.raises(PageBusy):
        pin.submit("taxi 46")  # one command per prompt
    t.join(5)
    assert got == ["bus 58"] and not pin.waiting
    assert said.since(0)[-1]["text"] == "mister x> bus 58"


def test_page_input_merges_terminal_and_page():
    lines = iter(["status"])
    pin = PageInput(terminal=lambda prompt: next(lines), out=lambda text: None)
    assert pin("mister x> ") == "status"  # typed at the terminal


def test_secret_state_is_his_game(tmp_path):
    setup = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}
    sg = SecretGame.create(setup, folder=str(tmp_path))
    st = mrx_state(sg)
    assert st["mrx"] == 45 and st["phase"] == "mrx" and st["legal"]["46"] == ["taxi", "black"]
    assert st["tickets"] == {"black": 5, "double": 2} and st["doubles"] and not st["can_take_back"]
    assert [p["name"] for p in st["pieces"]] == ["D1", "D2", "B1", "B2"] and st["pieces"][1]["shares"] == "D1"
    sg.mrx_move(0, 46)
    st = mrx_state(sg)
    assert st["phase"] == "detectives" and st["log"] == [{"ticket": "taxi", "station": 46, "shown": False,
                                                          "double": False}]
    assert st["legal"] == {} and st["pieces"][0]["to_move"]


# --- the key, the Host and the Origin: the server alone -----------------------------------------------
@pytest.fixture(scope="module")
def lone_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("secret")
    setup = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}
    sg = SecretGame.create(setup, folder=str(folder))
    said = Said(out=lambda text: None)
    pin = PageInput(terminal=None, out=said)
    url, stop = start_secret_page(sg.path, pin, said)
    yield {"url": url, "page": stop.page, "sg": sg, "pin": pin}
    stop()


def in_a_thread(coro):
    """asyncio.run in a thread of its own: Playwright's sync API may hold this thread's event loop."""
    box = []
    t = threading.Thread(target=lambda: box.append(asyncio.run(coro)))
    t.start()
    t.join(30)
    return box[0]


def test_the_secret_page_holds_nothing_and_answers_only_its_own_name(lone_page):
    url, key = lone_page["url"], lone_page["page"].key
    port = re.search(r":(\d+)/", url).group(1)
    assert url == "http://127.0.0.1:%s/#k=%s" % (port, key)  # the key in the fragment: never sent
    for path, name in (("/", "mrx.html"), ("/static/mrx.js", "mrx.js"), ("/static/map.js", "map.js")):
        status, body = get(url, path)
        with open(os.path.join(ROOT, "host", "web", "static", name), encoding="utf-8") as f:
            assert status == 200 and body == f.read(), path  # the files as they are: nothing of the game
    # DNS rebinding and other sites: refused
    assert get(url, "/", host="evil.example:" + port)[0] == 403
    assert get(url, "/", origin="http://evil.example")[0] == 403
    assert get(url, "/", origin="http://127.0.0.1:" + port)[0] == 200


def test_the_websocket_needs_the_key_first(lone_page):
    page = lone_page["page"]
    base = lone_page["url"].split("#")[0].replace("http", "ws") + "ws"

    async def attempt(first):
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(base) as ws:
                if first is not None:
                    await ws.send_str(json.dumps(first))
                await ws.send_str(json.dumps({"do": "move", "ticket": "taxi", "station": 46, "id": 7}))
                got = []
                while not got or got[-1].get("t") != "done":
                    m = await ws.receive(timeout=15)
                    if m.type != aiohttp.WSMsgType.TEXT:
                        return got
                    got.append(json.loads(m.data))
                return got

    assert in_a_thread(attempt(None)) == []  # an action first: closed, nothing said
    assert in_a_thread(attempt({"t": "key", "k": page.key[:-2]})) == []
    got = in_a_thread(attempt({"t": "key", "k": page.key}))
    assert got[0]["t"] == "hello"
    assert got[-1]["ok"] is False and "not your move" in got[-1]["error"]  # the console is not asking


def test_chromium_without_the_key_gets_nothing(lone_page, browser):
    page = browser.new_page()
    try:
        r = page.goto(lone_page["url"].split("#")[0])
        assert r.status == 200
        page.wait_for_timeout(500)
        assert page.evaluate("window.yard.state") is None
        assert "open the link" in page.text_content("#status")
        page.goto("about:blank")  # (from the bare address, the link would only change its fragment)
        page.goto(lone_page["url"])
        page.wait_for_function("window.yard && yard.state && yard.map", timeout=10000)
        assert page.evaluate("yard.state.game.mrx") == 45
        assert lone_page["page"].key not in page.url  # the address bar and history: the bare address
    finally:
        page.close()


def test_lan_serves_the_address_it_is_asked_on(tmp_path):
    setup = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}
    sg = SecretGame.create(setup, folder=str(tmp_path))
    said = Said(out=lambda text: None)
    pin = PageInput(terminal=None, out=said)
    url, stop = start_secret_page(sg.path, pin, said, lan="127.0.0.1")
    try:
        port = re.search(r":(\d+)/", url).group(1)
        assert url.startswith("https://127.0.0.1:%s/#k=" % port)
        assert get(url, "/")[0] == 200
        assert get(url, "/", host="evil.example:" + port)[0] == 403
        assert get(url, "/", origin="https://127.0.0.1:" + port)[0] == 200
        assert get(url, "/", origin="http://127.0.0.1:" + port)[0] == 403  # not its own scheme
    finally:
        stop()


def test_lan_link_is_printed_with_a_qr_code_and_the_fingerprint(tmp_path):
    pytest.importorskip("segno")
    from host.commands.play import open_secret_page
    setup = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}
    sg = SecretGame.create(setup, folder=str(tmp_path))
    printed = []
    _inp, _out, stop = open_secret_page(sg, None, printed.append, lan="127.0.0.1")
    try:
        text = "\n".join(printed)
        assert re.search(r"https://127\.0\.0\.1:\d+/#k=\S{20,}", text)
        assert "▀" in text or "█" in text  # the QR code, drawn in the terminal
        assert stop.fingerprint in text and re.fullmatch(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", stop.fingerprint)
        port = int(re.search(r":(\d+)/", text).group(1))
        pem = ssl.get_server_certificate(("127.0.0.1", port))
        assert hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper() == stop.fingerprint.replace(":", "")
    finally:
        stop()


# --- a whole game by clicks ---------------------------------------------------------------------------
class Screen:
    """Mister X's page in Chromium, and the terminal of the yard that serves it (read as it goes)."""

    def __init__(self, term, page, touch=False):
        self.term, self.page, self.touch = term, page, touch

    def pump(self):
        while self.term.read(0):
            pass

    def wait(self, js, timeout=30.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump()
            if self.page.evaluate(js):
                return
            time.sleep(0.05)
        raise AssertionError("timed out waiting for %s; the terminal said:\n%s" % (js, self.term.text[-2000:]))

    def state(self):
        return self.page.evaluate("yard.state.game")

    def tap_station(self, s):
        self.page.evaluate("(s) => document.querySelector('#board .st[data-s=\"' + s + '\"]').scrollIntoView({block: 'center'})", s)
        xy = self.page.evaluate("(s) => yard.stationXY(s)", s)
        if self.touch:
            self.page.touchscreen.tap(xy["x"], xy["y"])
        else:
            self.page.mouse.click(xy["x"], xy["y"])

    def choose(self, s, ticket):
        """Click a lit station; when the page asks for the ticket, click it."""
        tickets = self.page.evaluate("(s) => yard.targets()[s]", s)
        assert tickets and ticket in tickets, (s, ticket, tickets)
        self.tap_station(s)
        if len(tickets) > 1:
            self.page.wait_for_selector('#choose button[data-ticket="%s"]' % ticket, timeout=5000)
            self.page.click('#choose button[data-ticket="%s"]' % ticket)


class Game(Screen):
    """`yard sim --secret-page` in a pty, its public page and Mister X's page in Chromium."""

    def __init__(self, browser, tmp, seed, viewport):
        env = dict(os.environ, YARD_HOME=str(tmp))
        self.term = PtyTerminal(["sim", "--players", "1", "--start", START, "--seed", str(seed), "--secret-page",
                                 "--dir", str(tmp)], env=env, name="yard sim")
        self.ctx = self.public = None
        try:
            self._open(browser, viewport)
        except BaseException:
            self.close()
            raise

    def _open(self, browser, viewport):
        _k, m = self.term.expect([r"Browser view of the simulated board: (http://\S+)"], timeout=60)
        self.public_url = m.group(1)
        _k, m = self.term.expect([r"Mister X's secret page: (https?://\S+)"], timeout=30)
        self.url = m.group(1)
        self.key = self.url.split("k=")[1]
        _k, m = self.term.expect([r"Secret log: (\S+\.jsonl)"], timeout=60)
        self.path = m.group(1)
        # the public board page: everything it receives is kept
        self.frames, self.responses = [], []
        self.public = browser.new_page(viewport={"width": 1280, "height": 720})
        self.public.on("websocket", lambda ws: ws.on("framereceived", lambda data: self.frames.append(data)))
        self.public.on("response", lambda r: self.responses.append(r))
        self.public.goto(self.public_url)
        # Mister X's page
        self.ctx = browser.new_context(**viewport)
        self.page = self.ctx.new_page()
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(self.url)
        self.touch = viewport.get("has_touch", False)

    def close(self):
        if self.ctx:
            self.ctx.close()
        if self.public:
            self.public.close()
        self.term.close()


def pick_move(game, hunt, want_black=False):
    """(station, ticket) among the lit ones: far from the detectives (hide) or next to them (hunt)."""
    g = game.state()
    xy = game.page.evaluate("yard.map.stations")
    dets = [xy[str(p["station"])] for p in g["pieces"]]

    def dist(s):
        x, y = xy[str(s)]
        return min(math.hypot(x - a, y - b) for a, b in dets)
    opts = sorted(game.page.evaluate("yard.targets()").items(), key=lambda kv: (dist(int(kv[0])), int(kv[0])))
    s, ts = opts[0] if hunt else opts[-1]
    if want_black and not hunt:
        multi = [(st, t) for st, t in opts if "black" in t and len(t) > 1]
        if multi:
            s, ts = multi[-1]
            return int(s), "black"
    plain = [t for t in ts if t != "black"]
    return int(s), (plain or ts)[0]


def play_whole_game(game, name, hunt_from=None):
    """Mister X's moves by clicks until the game is over (from move hunt_from on, he walks up to the
    detectives, for a shorter game). Returns what was done."""
    done = {"moves": 0, "double": False, "black": False, "screens": []}
    game.wait("window.yard && yard.map && yard.state && yard.state.game && yard.state.asking !== null", 60)
    shot(game.page, name + "-start")
    while True:
        game.wait("yard.state.game.phase === 'over' || (yard.state.game.phase === 'mrx' && yard.state.asking !== null)",
                  60)
        g = game.state()
        if g["phase"] == "over":
            break
        before = g["moves"]
        hunt = hunt_from is not None and before >= hunt_from
        if not hunt and before == 1 and g["doubles"]:
            game.page.click("#double")
            firsts = game.page.evaluate("yard.targets()")
            s1 = sorted(int(s) for s in firsts)[0]
            t1 = [t for t in firsts[str(s1)] if t != "black"] or firsts[str(s1)]
            game.choose(s1, t1[0])
            game.wait("yard.state && document.getElementById('movehint').textContent.includes('second')", 5)
            if len(done["screens"]) == 0:
                shot(game.page, name + "-double")
                done["screens"].append("double")
            s2, t2 = pick_move(game, hunt=False)
            game.choose(s2, t2)
            done["double"] = True
            want = before + 2
        else:
            s, t = pick_move(game, hunt, want_black=not done["black"])
            game.choose(s, t)
            done["black"] = done["black"] or t == "black"
            want = before + 1
        game.wait("yard.state.game.moves >= %d || yard.state.game.phase === 'over'" % want, 15)
        done["moves"] = game.state()["moves"]
        if done["moves"] in (3, 4) and "surfaced" not in done["screens"]:
            shot(game.page, name + "-surfaced")
            done["screens"].append("surfaced")
    game.wait("yard.state.asking !== null && !document.getElementById('done').hidden", 30)
    shot(game.page, name + "-over", full=game.touch)
    game.page.click("#done")
    assert game.term.finish(30) == 0, game.term.seen[-2000:]
    return done


def check_public_secrecy(game):
    """Everything the public page received: no hidden station, salt or secret key."""
    sg = SecretGame.load(game.path)
    entries = sg.entries()
    salts = [sg.setup["salt"]] + [e[4] for e in entries]
    texts = list(game.frames)
    for r in game.responses:
        try:
            texts.append(r.text())
        except Exception:
            pass  # the websocket's upgrade has no body
    assert len(game.frames) > 20 and any('"t": "state"' in t for t in game.frames)
    for text in texts:
        assert game.key not in text
        assert sg.path not in text
        for salt in salts:
            assert salt not in text
    states = 0
    for text in game.frames:
        msg = json.loads(text)
        if msg.get("t") != "state":
            continue
        states += 1
        g = msg["game"]
        assert set(g) <= PUBLIC_GAME_KEYS, set(g) - PUBLIC_GAME_KEYS
        for i, e in enumerate(g.get("log") or []):
            ticket, to, shown = entries[i][:3]
            assert e["ticket"] == ticket and e["station"] == (to if shown else None), (i, e, entries[i])
        if "caught_at" in g:
            assert g["result"] == "detectives" and g["caught_at"] == sg.game.mrx

        def walk(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    assert k not in ("mrx", "salt", "secret", "k"), (k, v)
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(msg)
    assert states > 5
    return sg


def test_whole_game_by_clicks_desktop(browser, tmp_path):
    t0 = time.monotonic()
    game = Game(browser, tmp_path, 3, DESKTOP)
    try:
        done = play_whole_game(game, "desktop")
        sg = check_public_secrecy(game)
        assert done["double"] and done["black"]
        assert any("double" in line for line in sg.mrx_lines())
        assert "fair play verified" in game.term.seen
        assert "(secret page) double" in game.term.seen
        assert not game.errors
        r = subprocess.run([sys.executable, "-m", "host", "verify", game.path], capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stdout + r.stderr
    finally:
        game.close()
    assert time.monotonic() - t0 < 90


def test_whole_game_by_taps_on_a_phone(browser, tmp_path):
    game = Game(browser, tmp_path, 4, PHONE)
    try:
        # a phone: the map is zoomed around him, the stations big enough to tap
        game.wait("window.yard && yard.map && yard.state && yard.state.asking !== null", 60)
        r = game.page.evaluate("yard.stationXY(yard.state.game.mrx).r")
        assert r >= 10, "a station on the phone is %.1f px wide" % (2 * r)
        assert game.page.evaluate("document.documentElement.scrollWidth") <= 390
        play_whole_game(game, "phone", hunt_from=4)
        check_public_secrecy(game)
        assert "fair play verified" in game.term.seen and not game.errors
    finally:
        game.close()


def test_yard_play_page_and_console_agree_and_take_back(browser, tmp_path):
    """`yard play --secret-page` on the simulated board, the detectives moved by hand: Mister X moves
    by a click, then takes back a detective's move from his page (the notice shows; the board makes
    the piece go back), then types his next move at the console: one game on both screens."""
    import random
    from host.simulator.board import SimBoard
    from yardplay import move_one_detective, mrx_input, place_start, secret_log, yard_env
    env = yard_env(tmp_path)
    rng = random.Random(5)
    with SimBoard(heapsize="192k", debounce_ms=10) as sim:
        term = PtyTerminal(["play", "--port", sim.port, "--players", "1", "--start", START, "--secret-page"], env=env,
                           name="yard play")
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        try:
            _k, m = term.expect([r"Mister X's secret page: (https?://\S+)"], timeout=30)
            url = m.group(1)
            place_start(term, sim, env)
            path = secret_log(env)
            term.expect([r"mister x> "], timeout=30)
            page.goto(url)
            me = Screen(term, page)
            me.wait("window.yard && yard.map && yard.state && yard.state.asking !== null")
            me.choose(46, "taxi")  # by a click
            # his move logged (the echo of the click comes first: the detectives may not move on that)
            term.expect([r"\(secret page\) taxi 46"], timeout=10)
            term.expect([r"OK: taxi to 46"], timeout=10)
            while move_one_detective(sim, path, rng):
                pass
            me.wait("yard.state.asking !== null && !document.getElementById('takeback').hidden")
            sg = SecretGame.load(path)
            last = [line for line in sg.lines if line["type"] == "move"][-1]
            origin = sg.game.turn[3 * sg.game.n_turn - 2]
            page.click("#takeback")
            term.expect([r"taken back: %s goes back to %d" % (last["piece"], origin)], timeout=15)
            me.wait("!document.getElementById('notice').hidden && yard.state.game.phase === 'detectives'", 10)
            assert "taken back" in page.text_content("#notice")
            shot(page, "play-take-back")
            g = me.state()
            assert [p["station"] for p in g["pieces"] if p["name"] == last["piece"]] == [origin]
            sim.lift(last["to"])  # the piece goes back where it was ...
            sim.place(origin)
            assert move_one_detective(sim, path, rng)  # ... and moves again
            term.expect([r"mister x> "], timeout=15)
            sg = SecretGame.load(path)
            term.send(mrx_input(sg, rng))  # typed at the console
            term.expect([r"OK: "], timeout=10)
            me.wait("yard.state.game.moves === 2")
            sg = SecretGame.load(path)
            g = me.state()
            assert g["mrx"] == sg.game.mrx and [e["station"] for e in g["log"]] == [e[1] for e in sg.entries()]
            assert sum(1 for line in sg.lines if line["type"] == "move") == 4
            term.interrupt()  # the detectives' turn: Ctrl-C; the game is saved for yard play --resume
            assert term.finish(20) == 130
        finally:
            page.close()
            term.close()


def test_the_options_go_with_a_human_mister_x():
    from argparse import Namespace
    from host.errors import UserError
    from host.commands.play import secret_page_options
    assert secret_page_options(Namespace(secret_page=False, lan=False, secret_port=0), "human") is None
    assert secret_page_options(Namespace(secret_page=True, lan="127.0.0.1", secret_port=0), "human") == {
        "lan": "127.0.0.1", "port": 0}
    with pytest.raises(UserError):
        secret_page_options(Namespace(secret_page=True, lan="the kitchen", secret_port=0), "human")
    with pytest.raises(UserError):
        secret_page_options(Namespace(secret_page=True, lan=False, secret_port=0), "computer")
    with pytest.raises(UserError):
        secret_page_options(Namespace(secret_page=False, lan="auto", secret_port=0), "human")
