"""The browser view and Mister X's page in Russian and German (the longest words of the six) in
Chromium: the language comes from the browser's Accept-Language, the pages read yard's catalog,
and no text overflows its box. Screenshots in test-artifacts/i18n/."""
import os

import pytest

from chromium import browser  # noqa: F401  (the module's Chromium, a fixture)

from host import ROOT  # noqa: E402
from host.misterx.secretgame import SecretGame  # noqa: E402
from host.simulator.board import SimBoard  # noqa: E402
from host.web import start_web  # noqa: E402
from host.web.mrxinput import PageInput, Said  # noqa: E402
from host.web.mrxpage import start_secret_page  # noqa: E402

ARTIFACTS = os.path.join(ROOT, "test-artifacts", "i18n")
# what must read in the page's language: a heading and a button of each page
EXPECTED = {
    "ru": {"view": ("#p-tickets h2", "Билеты"), "mrx": ("#p-move h2", "Твой ход")},
    "de": {"view": ("#p-buttons h2", "Tasten am Brett"), "mrx": ("#p-move h2", "Dein Zug")},
}
# every element with text of its own, its text's extent against its own box and against the
# panel it sits in (a button wider than its panel overflows as surely as text wider than a button)
OVERFLOWS = """() => {
  const out = [];
  for (const e of document.querySelectorAll('h1, h2, button, label, .hint, #status, #power, #legendbar span, th, td')) {
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(e).visibility === 'hidden') continue;
    const r = document.createRange();
    r.selectNodeContents(e);
    const text = r.getBoundingClientRect();
    const panel = e.closest('section, header, #legendbar, #mapbar') || document.body;
    const outer = panel.getBoundingClientRect();
    const what = (e.id ? '#' + e.id : e.tagName) + ' ' + JSON.stringify(e.textContent.trim().slice(0, 40));
    if (text.width && (text.right > box.right + 1 || text.left < box.left - 1)) out.push(what + ' overflows itself');
    if (box.right > outer.right + 1 || box.left < outer.left - 1) out.push(what + ' overflows its panel');
  }
  return out;
}"""


@pytest.fixture(autouse=True)
def no_language_from_the_environment(monkeypatch):
    """The servers run in this process: the browser's Accept-Language must decide."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def view():
    sim = SimBoard(heapsize="512k").start()
    url, stop = start_web(sim)
    yield url
    stop()
    sim.stop()


@pytest.fixture(scope="module")
def secret_page(tmp_path_factory):
    setup = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}
    sg = SecretGame.create(setup, folder=str(tmp_path_factory.mktemp("secret")))
    said = Said(out=lambda text: None)
    url, stop = start_secret_page(sg.path, PageInput(terminal=None, out=said), said)
    yield url
    stop()


def _open(browser, url, locale, width):
    context = browser.new_context(locale=locale, viewport={"width": width, "height": 800})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return context, page, errors


@pytest.mark.parametrize("lang", ["ru", "de"])
@pytest.mark.parametrize("which, width", [("view", 1366), ("view", 1024), ("mrx", 1366), ("mrx", 390)])
def test_the_pages_speak_the_browsers_language_without_overflow(browser, view, secret_page, lang, which, width):
    url = view if which == "view" else secret_page
    context, page, errors = _open(browser, url, {"ru": "ru-RU", "de": "de-DE"}[lang], width)
    try:
        selector, text = EXPECTED[lang][which]
        page.wait_for_function("document.querySelector(%r).textContent === %r" % (selector, text), timeout=10000)
        assert page.evaluate("document.documentElement.lang") == lang
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, "%s-%s-%d.png" % (which, lang, width)), full_page=True)
        assert page.evaluate(OVERFLOWS) == []
        assert not errors, errors
    finally:
        context.close()


def test_every_marked_text_of_the_view_went_through_the_catalog(browser, view):
    """The pseudo-locale asked for by the page's query: every marked element is bracketed."""
    context, page, errors = _open(browser, view + ("&" if "?" in view else "?") + "lang=qps", "en-GB", 1366)
    try:
        page.wait_for_function("document.documentElement.lang === 'en'")
        texts = page.evaluate("() => [...document.querySelectorAll('[data-i18n]')].map(e => e.textContent)")
        assert len(texts) > 30 and all(t.startswith("⟦") and t.endswith("⟧") for t in texts), texts
    finally:
        context.close()


def test_mister_xs_page_refused_or_without_its_key_says_so_in_the_browsers_language(browser, secret_page):
    """A wrong key (an old link, a game resumed since): the server closes the socket (4403) and the
    page says so in German, without retrying; no key at all: it says where the link is."""
    bare = secret_page.split("#")[0]
    for url, text in ((bare + "#k=" + "0" * 43, "der Schlüssel dieses Links wird abgelehnt: öffne den Link, den die "
                       "Konsole von Mister X zeigt, noch einmal (oder scanne seinen QR-Code)"),
                      (bare, "öffne den Link, den die Konsole von Mister X zeigt, noch einmal (oder scanne seinen "
                       "QR-Code)")):
        context = browser.new_context(locale="de-DE")
        page = context.new_page()
        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        try:
            page.goto(url)
            page.wait_for_function("document.getElementById('status').textContent === %r" % text, timeout=10000)
            page.wait_for_timeout(2500)  # the page would retry within a second
            assert page.inner_text("#status") == text
            assert len(sockets) == (1 if "#k=" in url else 0)
        finally:
            context.close()
