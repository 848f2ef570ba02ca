"""Browser tests of `yard sim`'s page (host/web): headless Chromium (Debian's) via Playwright.

A real SimBoard (the firmware under the unix port) plays with an automatic Mister X; the test
plays the detectives by clicking on the page and checks what the page shows against what the
board must show: pixel colours at station positions in screenshots (saved in test-artifacts/web/).

A screenshot is one instant, and on a busy machine taking and decoding one takes seconds: it
checks a colour that stays (lit destinations, a dark board). A colour that blinks (the error
colour: 125 ms on, 125 ms off) is checked on every colour the page paints the station with
(painted(): a MutationObserver records each one), never by catching it in a screenshot; and
nothing is looked at on a timer that may run out first (a power cut that ends on its own).

Each test stands alone: the file's game (`game`) is set up before the first test that uses it, and a
test reads the round it starts in; the setup by clicks is tried on a board of its own.
"""
import contextlib
import json
import os
import struct
import time
import zlib

import pytest

from boardleds import BUS_RGB, ERROR_RGB, TAXI_RGB, UG_RGB, frames, shown
from chromium import browser  # noqa: F401  (the module's Chromium, a fixture)

from host import ROOT  # noqa: E402
from host.simulator.board import SimBoard  # noqa: E402
from host.web import start_web  # noqa: E402
from host.web.automrx import AutoMrX  # noqa: E402
from host.web.public import read_journal, public_state  # noqa: E402
from host.misterx.record import setup_game  # noqa: E402
from sy.rules.game import TICKET_NAMES  # noqa: E402

ART = os.path.join(ROOT, "test-artifacts", "web")
START = [13, 26, 29, 34]  # D1, D2, B1, B2 (the two-player game)
GAIN = 4  # board.json brightness 0.25: the page shows wire values x4


def on_page(c):
    """A colour of the firmware's (sy/play/board.py) as the page paints it: the wire value x GAIN (the
    colours here are bright enough to hide the printed station under them)."""
    return tuple(min(255, v * GAIN) for v in shown(c))


TRANSPORT = {t: on_page(c) for t, c in enumerate((TAXI_RGB, BUS_RGB, UG_RGB))}
ERROR = on_page(ERROR_RGB)
UNLIT = (207, 200, 184)  # a dark station: the printed map (host/web/static/map.js)


# --- screenshots -------------------------------------------------------------------------------
def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of a non-interlaced 8-bit PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows, bpp


class Shot:
    def __init__(self, page, name):
        os.makedirs(ART, exist_ok=True)
        self.path = os.path.join(ART, name + ".png")
        data = page.screenshot(path=self.path)
        self.w, self.h, self.rows, self.bpp = png_pixels(data)
        self.xy = page.evaluate("(() => { const o = {}; for (let s = 1; s <= 199; s++) o[s] = yard.stationXY(s); return o; })()")

    def station(self, s):
        """The colour on the station's disc (above its number, clear of its piece)."""
        p = self.xy[str(s)]
        x, y = int(round(p["x"] - 0.4 * p["r"])), int(round(p["y"] - 0.55 * p["r"]))
        k = x * self.bpp
        return tuple(self.rows[y][k:k + 3])


def near(c, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(c, want))


def watch_paint(page, s):
    """From now on, record every colour the page paints station s's disc with."""
    page.evaluate("""(s) => {
        const disc = document.querySelector('#stations .st[data-s="' + s + '"] .disc');
        const seen = (window.painted = window.painted || {})[s] = [disc.getAttribute("fill")];
        if (window.paintObserver) window.paintObserver.disconnect();
        window.paintObserver = new MutationObserver((recs) => recs.forEach((r) => seen.push(r.target.getAttribute("fill"))));
        window.paintObserver.observe(disc, {attributes: true, attributeFilter: ["fill"]});
    }""", s)


def painted(page, s):
    """Every colour the page painted station s with since watch_paint(page, s), as (r, g, b)."""
    fills = page.evaluate("(s) => window.painted[s]", s)
    return [tuple(int(v) for v in f[4:-1].split(",")) for f in fills]


def not_painted(page, s, colour, ms=500):
    """The page shows station s without `colour` for `ms`, painting it or not meanwhile."""
    watch_paint(page, s)
    page.wait_for_timeout(ms)
    return not any(near(c, colour, 60) for c in painted(page, s))


# --- the game under test -------------------------------------------------------------------------
@contextlib.contextmanager
def board_and_page(browser):
    """A simulated board with an automatic Mister X, and its page loaded at the setup stage."""
    sim = SimBoard(heapsize="512k").start()
    mrx = AutoMrX(sim.port, players=1, seed=5, detectives=START, mrx=45, delay=0.3).start()
    url, stop = start_web(sim)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    try:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        t0 = time.monotonic()
        page.goto(url)
        page.wait_for_function("window.yard && yard.frames > 0 && yard.state && yard.state.game.stage === 'setup'",
                               timeout=20000)
        load_s = time.monotonic() - t0
        yield {"sim": sim, "mrx": mrx, "url": url, "page": page, "errors": errors, "load_s": load_s}
    finally:
        page.close()
        stop()
        mrx.stop()
        sim.stop()


def set_up_by_clicks(page, sim):
    """The detectives' pieces put on their start stations from the page's hand; the board's ready."""
    for name, s in zip(("D1", "D2", "B1", "B2"), START):
        page.click('#hand [data-piece="%s"]' % name)
        click_station(page, s)
        wait(lambda: sim.switch(s), what="reed %d closed" % s)
    wait(lambda: any(line.get("type") == "ready" for line in journal(sim)), what="the board's ready event")
    page.wait_for_function("yard.state.game.phase === 'detectives'", timeout=15000)


@pytest.fixture(scope="module")
def game(browser):
    """The file's game, set up and at the detectives' turn."""
    with board_and_page(browser) as g:
        set_up_by_clicks(g["page"], g["sim"])
        yield g


@pytest.fixture
def new_game(browser):
    """A game of the test's own, at the setup stage."""
    with board_and_page(browser) as g:
        yield g


def shown_mrx_moves(page):
    """The tickets of Mister X's moves the page's log strip shows."""
    return page.locator("#logstrip .cell.taxi, #logstrip .cell.bus, #logstrip .cell.underground, "
                        "#logstrip .cell.black").count()


def journal(sim):
    return read_journal(os.path.join(sim.folder, "flash", "game.jsonl"))


def wait(pred, timeout=30.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.03)
    raise AssertionError("timed out waiting for " + what)


def running(sim, new):
    """The firmware runs its main loop (the saved game resumed at its start): its last frame was
    drawn in a scan cycle (the boot's own frame has cycle 0), and new(frame) says it is not one
    of the process before."""
    got = sim.alive() and sim.frame()
    return bool(got) and got[1] > 0 and new(got)


def click_piece(page, name):
    page.click('#pieces [data-piece="%s"]' % name)


def click_station(page, s):
    p = page.evaluate("yard.stationXY(%d)" % s)
    page.mouse.click(p["x"], p["y"])


def legal_moves(sim, piece):
    """What the rules say (from the board's public journal), independently of the page."""
    lines = journal(sim)
    g = setup_game(dict(lines[0], mrx=None))
    st = public_state(lines)
    for i, p in enumerate(st["pieces"]):
        g.pos[i] = p["station"]
    out = {}
    for s, t in g.legal(g.piece_index(piece)):
        out.setdefault(s, set()).add(t)
    return out


# --- tests ---------------------------------------------------------------------------------------
def test_page_draws_the_board(game):
    page = game["page"]
    assert page.locator("#stations .st").count() == 199
    assert page.locator("#edges line").count() == 467  # 345 taxi + 99 bus + 20 underground + 3 ferry
    assert page.locator("#legendbar").is_visible()
    assert game["load_s"] < 10
    print("page load to first frame and state: %.2f s" % game["load_s"])


def test_setup_by_clicks(new_game):
    page, sim = new_game["page"], new_game["sim"]
    set_up_by_clicks(page, sim)
    assert shown_mrx_moves(page) == 1
    Shot(page, "01-round1-start")


def test_full_round_by_clicks(game):
    page, sim, mrx = game["page"], game["sim"], game["mrx"]
    start = page.evaluate("yard.state.game.round")
    mrx_moves = shown_mrx_moves(page)
    for name in ("D1", "D2", "B1", "B2"):
        moves = legal_moves(sim, name)
        stations = [p["station"] for p in public_state(journal(sim))["pieces"]]
        here = stations[["D1", "D2", "B1", "B2"].index(name)]
        click_piece(page, name)
        wait(lambda: not sim.switch(here), what="%s lifted" % name)
        # the board lights every legal destination in its transport's colour
        def lit():
            shot = Shot(page, "02-lifted-" + name)
            ok = all(any(near(shot.station(s), TRANSPORT[t]) for t in ts) for s, ts in moves.items())
            return shot if ok else None
        shot = wait(lit, what="legal destinations of %s lit" % name)
        dark = [s for s in range(1, 200) if s not in moves and s not in stations]
        assert sum(near(shot.station(s), UNLIT, 12) for s in dark) >= len(dark) - 8  # pieces, surfacing
        # place on a destination one transport reaches, away from Mister X
        to = next(s for s, ts in sorted(moves.items()) if (len(ts) == 1 or name[0] == "B")
                  and s != mrx.secret.game.mrx)
        before = len(journal(sim))
        click_station(page, to)
        line = wait(lambda: len(journal(sim)) > before and journal(sim)[-1], what="%s's move committed" % name)
        assert line["type"] == "move" and line["piece"] == name and line["to"] == to
        page.wait_for_function("yard.state.pieces.find(p => p.name === '%s').station === %d" % (name, to))
        # no longer a destination (the LED frame reaches the page on its own, after the state)
        wait(lambda: not any(near(Shot(page, "03-moved-" + name).station(to), c, 30) for c in TRANSPORT.values()),
             what="%s's destinations dark after the move" % name)
        if name[0] == "D":
            t = TICKET_NAMES[line["ticket"] and TICKET_NAMES.index(line["ticket"])]
            assert t in ("taxi", "bus", "underground")
    # the round is over: Mister X's turn, then the next round
    page.wait_for_function("yard.state.game.round === %d && yard.state.game.phase === 'detectives'" % (start + 1),
                           timeout=15000)
    assert "Round %d" % (start + 1) in page.inner_text("#status")
    assert shown_mrx_moves(page) == mrx_moves + 1
    tickets = page.inner_text("#tickets")
    assert "22" not in tickets.split("\n")[1] or "16" not in tickets.split("\n")[1]  # tickets were spent
    Shot(page, "04-next-round")


def test_illegal_placement_shows_the_error_colour(game):
    page, sim = game["page"], game["sim"]
    st = public_state(journal(sim))
    here = st["pieces"][0]["station"]
    moves = legal_moves(sim, "D1")
    occupied = {p["station"] for p in st["pieces"]}
    bad = next(s for s in range(1, 200) if s not in moves and s not in occupied and s != here
               and abs(s - here) > 20)
    n = len(journal(sim))
    click_piece(page, "D1")
    wait(lambda: not sim.switch(here), what="D1 lifted")
    watch_paint(page, bad)
    click_station(page, bad)
    page.wait_for_function("yard.state.notes.some(n => n.note === 'illegal' && n.station === %d)" % bad)
    # the station blinks in the error colour (a screenshot may fall between two blinks)
    wait(lambda: any(near(c, ERROR, 30) for c in painted(page, bad)), what="the error colour on station %d" % bad)
    Shot(page, "05-illegal")
    assert len(journal(sim)) == n  # nothing committed
    # put it right: back where it was; the board stops blinking, and the page with it
    click_piece(page, "D1")
    click_station(page, here)
    wait(lambda: sim.switch(here) and not sim.switch(bad), what="D1 back")
    wait(lambda: shown(ERROR_RGB) not in frames(sim, bad, 0.5), what="the board's blink over")
    wait(lambda: not_painted(page, bad, ERROR), what="the page's blink over")
    shot = Shot(page, "06-put-right")
    assert not near(shot.station(bad), ERROR, 60) and len(journal(sim)) == n


def test_faults_are_handled(game):
    page, sim = game["page"], game["sim"]
    n = len(journal(sim))
    st = public_state(journal(sim))
    d2 = st["pieces"][1]["station"]
    game_round = page.evaluate("yard.state.game.round")
    # chatter under a resting piece: debounced away, nothing happens
    page.click('[data-fault="chatter"]')
    click_station(page, d2)
    time.sleep(0.5)
    assert len(journal(sim)) == n and sim.switch(d2)
    # two pieces lifted at once: the board shows no destinations and commits nothing
    page.click('[data-fault="two"]')
    click_piece(page, "D1")
    click_piece(page, "D2")
    d1 = st["pieces"][0]["station"]
    wait(lambda: not sim.switch(d1) and not sim.switch(d2), what="D1 and D2 lifted")
    # the board took them as two pieces missing, not as D1 in hand (which it shows steady, its
    # destinations lit): both stations blink
    wait(lambda: (0, 0, 0) in frames(sim, d1, 0.6) and (0, 0, 0) in frames(sim, d2, 0.6),
         what="the board showing D1 and D2 missing")
    moves = legal_moves(sim, "D1")
    lit = set(shown(c) for c in (TAXI_RGB, BUS_RGB, UG_RGB))
    assert not any(sim.leds()[s] in lit for s in moves)
    seq = sim.frame()[0]
    page.wait_for_function("yard.lastFrame.seq >= %d" % seq, timeout=10000)  # the page has that frame
    shot = Shot(page, "07-two-lifted")
    assert page.locator("#hand .token").count() >= 2
    assert not all(any(near(shot.station(s), TRANSPORT[t]) for t in ts) for s, ts in moves.items())
    for name, s in (("D1", st["pieces"][0]["station"]), ("D2", d2)):
        page.click('#hand [data-piece="%s"]' % name)
        click_station(page, s)
        wait(lambda: sim.switch(s), what="%s back" % name)
    # a power cut that ends on its own (power_cut_s): the firmware is killed and started again.
    # It has drawn frames since the game began; the new one numbers its frames from 1 again
    old = sim.frame()
    page.click('[data-fault="power"]')
    wait(lambda: running(sim, lambda f: f[0] < old[0]), timeout=30, what="the firmware running after the power cut")
    page.wait_for_function("yard.state.power === true", timeout=10000)  # the off button switches what the page shows
    # the board switched off, until it is switched on (no timer to race): the page shows it off
    # and dark
    page.click('[data-fault="off"]')
    page.wait_for_function("yard.state.power === false && yard.lastFrame.seq === 'off'", timeout=10000)
    shot = Shot(page, "08-power-off")
    assert all(near(shot.station(s), UNLIT, 12) for s in (1, 100, 199))
    assert "OFF" in page.inner_text("#power")
    wait(lambda: not sim.alive(), what="the firmware stopped")
    last = sim.frame()  # the frame the firmware left behind
    page.click('[data-fault="off"]')  # on again
    wait(lambda: running(sim, lambda f: f[:2] != last[:2]), timeout=30, what="the firmware running after power on")
    page.wait_for_function("yard.state.power === true && yard.state.game.round === %d" % game_round, timeout=10000)
    # it resumed the same game: lifting D1 lights its destinations again
    here = public_state(journal(sim))["pieces"][0]["station"]
    moves = legal_moves(sim, "D1")
    click_piece(page, "D1")
    wait(lambda: (lambda s: s if all(any(near(s.station(x), TRANSPORT[t]) for t in ts)
                                     for x, ts in moves.items()) else None)(Shot(page, "09-after-power-cut")),
         timeout=15, what="destinations lit after the restart")
    page.click('#hand [data-piece="D1"]')
    click_station(page, here)
    wait(lambda: sim.switch(here), what="D1 back")
    assert len(journal(sim)) == n
    assert not game["errors"], game["errors"]


def test_update_latency(game):
    """From a placement on the page to the page showing the firmware's new frame."""
    page, sim = game["page"], game["sim"]
    st = public_state(journal(sim))
    here = st["pieces"][0]["station"]
    lat = []
    for _ in range(3):
        click_piece(page, "D1")
        wait(lambda: not sim.switch(here), what="D1 lifted")
        time.sleep(0.4)
        ms = page.evaluate("""(s) => new Promise((done) => {
            const key0 = yard.colour(s).join(), t0 = performance.now(), n0 = yard.frames;
            yard.send({do: "place", piece: "D1", station: s});
            const tick = () => (yard.frames > n0 && yard.colour(s).join() !== key0)
                ? done(performance.now() - t0) : requestAnimationFrame(tick);
            tick();
        })""", here)
        lat.append(ms)
        time.sleep(0.3)
    print("placement -> new frame on the page: %s ms" % ", ".join("%.0f" % x for x in lat))
    assert sorted(lat)[1] < 500
    os.makedirs(ART, exist_ok=True)
    with open(os.path.join(ART, "numbers.json"), "w") as f:
        json.dump({"load_s": game["load_s"], "latency_ms": lat}, f)


def test_page_serves_loopback_only_and_never_knows_mister_x(game):
    page, sim, mrx = game["page"], game["sim"], game["mrx"]
    with pytest.raises(ValueError):
        start_web(sim, host="0.0.0.0")
    text = json.dumps(page.evaluate("yard.state"))
    secret = mrx.secret.game.mrx
    st = page.evaluate("yard.state.game")
    assert "mrx" not in st and "salt" not in text
    if not any(e.get("station") == secret for e in st["log"]):
        assert '"caught_at"' not in text
