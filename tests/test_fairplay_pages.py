"""The take-back rule on the pages, in real Chromium (docs/fairplay.md): `yard play --secret-page`
on the simulated board (the firmware on the unix port, a pty), the detectives' pieces moved by
hand, the board's own public page open beside Mister X's.

A detective's move lands where Mister X could have been; the detectives hold the confirm button to
take it back; the board refuses (the move has been answered) and the console asks Mister X; his
page asks him too, with Allow / Refuse. Refused, the move stands; allowed, his console sends the
board its authenticated `undo` with his consent, and the public page announces the take-back and
that it had his consent. Screenshots in test-artifacts/fairplay/."""
import os
import time

from chromium import browser  # noqa: F401  (the module's Chromium, a fixture)

from host import ROOT  # noqa: E402
from host.misterx.secretgame import SecretGame  # noqa: E402
from host.ptyterminal import PtyTerminal  # noqa: E402
from host.simulator.board import SimBoard  # noqa: E402
from host.web import start_web  # noqa: E402
from host.web.public import read_journal  # noqa: E402
from sy.rules.game import TICKET_NAMES  # noqa: E402
from yardplay import place_start, secret_log, wait_until_lit_to_move, yard_env  # noqa: E402

ART = os.path.join(ROOT, "test-artifacts", "fairplay")
START = "13,26,29,34:45"
HOLD_S = 1.8  # the confirm button held: a take-back (the board's is 1.5 s)


def shot(page, name):
    os.makedirs(ART, exist_ok=True)
    page.screenshot(path=os.path.join(ART, name + ".png"))


def wait_js(page, term, js, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        while term.read(0):
            pass
        if page.evaluate(js):
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for %s; the terminal said:\n%s" % (js, term.text[-2000:]))


def journal_undos(sim):
    return [x for x in read_journal(os.path.join(sim.folder, "flash", "game.jsonl")) if x.get("type") == "undo"]


def move_onto_a_station_he_could_be_on(sim, path):
    """D1 moves to a station of the public candidates that is not his: returns (from, to)."""
    g = SecretGame.load(path).game
    taken = set(g.pos[:g.n_pieces])
    options = sorted((s, t) for s, t in g.legal(0) if s in set(g.candidates()) and s != g.mrx and s not in taken)
    assert options, "no station of his candidates in D1's reach"
    s, t = options[0]
    home = g.pos[0]
    before = len(SecretGame.load(path).lines)
    wait_until_lit_to_move(sim, g, 0)
    sim.lift(home)
    if len([1 for ss, _t in g.legal(0) if ss == s]) > 1:
        sim.press(TICKET_NAMES[t])
    sim.place(s)
    end = time.monotonic() + 15
    while len(SecretGame.load(path).lines) <= before:
        assert time.monotonic() < end, "the host did not log D1's move"
        time.sleep(0.05)
    return home, s


def test_mister_x_answers_a_take_back_on_his_page_and_the_public_view_announces_it(browser, tmp_path, monkeypatch):
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):  # the pages' language: the browser's
        monkeypatch.delenv(name, raising=False)
    env = yard_env(tmp_path)
    with SimBoard(heapsize="192k", debounce_ms=10) as sim:
        term = PtyTerminal(["play", "--port", sim.port, "--players", "1", "--start", START, "--secret-page"], env=env,
                           name="yard play")
        public_url, stop_public = start_web(sim)
        mine = browser.new_page(viewport={"width": 1280, "height": 800})
        public = browser.new_page(viewport={"width": 1280, "height": 800})
        german = browser.new_context(locale="de-DE")  # the public view at a German table
        public_de = german.new_page()
        try:
            _k, m = term.expect([r"Mister X's secret page: (https?://\S+)"], timeout=30)
            place_start(term, sim, env)
            path = secret_log(env)
            term.expect([r"mister x> "], timeout=30)
            mine.goto(m.group(1))
            public.goto(public_url)
            public_de.goto(public_url)
            wait_js(mine, term, "window.yard && yard.map && yard.state && yard.state.asking !== null")
            assert "taxi" in mine.evaluate("yard.targets()[46]")
            mine.evaluate("document.querySelector('#board .st[data-s=\"46\"]').scrollIntoView({block: 'center'})")
            xy = mine.evaluate("yard.stationXY(46)")
            mine.mouse.click(xy["x"], xy["y"])  # to 46; the page asks by which ticket
            mine.click('#choose button[data-ticket="taxi"]')
            term.expect([r"OK: taxi to 46"], timeout=10)
            home, to = move_onto_a_station_he_could_be_on(sim, path)

            # refused: the move stands, nothing is taken back, nothing announced
            sim.press("confirm", hold=HOLD_S)
            wait_js(mine, term, "!document.getElementById('consent').hidden", 15)
            text = mine.text_content("#consentq")
            assert "D1" in text and str(to) in text, text
            shot(mine, "consent-asked")
            mine.click("#refuse")
            term.expect([r"D1's move to %d stands" % to], timeout=10)
            wait_js(mine, term, "document.getElementById('consent').hidden", 5)
            assert journal_undos(sim) == []
            assert SecretGame.load(path).game.pos[0] == to

            # a move is no answer to the question, nor a consent one to a move
            sim.press("confirm", hold=HOLD_S)
            wait_js(mine, term, "!document.getElementById('consent').hidden", 15)
            reply = mine.evaluate("yard.send({do: 'move', ticket: 'taxi', station: 47})")
            assert reply["ok"] is False, reply
            mine.click("#allow")
            term.expect([r"taken back: D1 goes back to %d" % home], timeout=15)
            assert journal_undos(sim) == [{"type": "undo", "piece": "D1", "from": to, "to": home, "consent": True}]
            assert SecretGame.load(path).game.pos[0] == home

            # the public page: the take-back and his consent, in its notes
            public.wait_for_function("document.querySelectorAll('#takebacks li').length === 1", timeout=15000)
            said = public.text_content("#takebacks li")
            assert said == "Round 1: D1's move to %d taken back, with Mister X's consent" % to, said
            shot(public, "public-take-back")
            public_de.wait_for_function("document.querySelectorAll('#takebacks li').length === 1", timeout=15000)
            said = public_de.text_content("#takebacks li")
            assert said == "Runde 1: Zug von D1 nach %d zurückgenommen, mit Zustimmung von Mister X" % to, said
            term.interrupt()  # the game is saved for yard play --resume
            assert term.finish(20) == 130
        finally:
            mine.close()
            public.close()
            german.close()
            stop_public()
            term.close()
