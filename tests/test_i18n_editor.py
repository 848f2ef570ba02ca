"""The digitizer's page (`yard map-editor`) in the pseudo-locale, in Chromium: every word it shows
(buttons, titles, options, the help of each mode, the list of what is missing, the fit, the
status after a save with the checks' findings) went through the catalog."""
import os
import subprocess

import pytest

from chromium import browser  # noqa: F401  (a fixture; skips the module without Playwright or Chromium)

from host import i18n  # noqa: E402
from host.europe.map_editor import start_editor  # noqa: E402
from pseudolocale import untranslated  # noqa: E402

# what every page shows as it is: the toolbar's zoom (100%) and signs, the coordinates' x and y
TEXTS = """() => {
  const out = [document.title, document.body.innerText];
  for (const e of document.querySelectorAll('[title], [placeholder], [alt]'))
    out.push(e.getAttribute('title') || '', e.getAttribute('placeholder') || '', e.getAttribute('alt') || '');
  for (const o of document.querySelectorAll('option')) out.push(o.textContent);
  for (const mode of ['fit', 'city', 'connect', 'kind', 'ring', 'dest', 'start', 'delete']) {
    document.getElementById('mode-' + mode).click();
    out.push(document.getElementById('help').textContent);
  }
  return out.join('\\n');
}"""


@pytest.fixture
def pseudo():
    """The server's own sentences (a save's findings) in the language yard speaks: the pseudo-locale."""
    i18n.use(i18n.PSEUDO)
    yield
    i18n.use("en")


def test_the_digitizer_in_the_pseudo_locale(browser, tmp_path, pseudo):  # noqa: F811
    photo = str(tmp_path / "board.png")
    with open(photo + ".svg", "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" '
                'fill="#ddd"/></svg>')
    subprocess.run(["rsvg-convert", "-o", photo, photo + ".svg"], check=True)
    url, stop = start_editor(photo, out=str(tmp_path / "my-map"))
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(url.replace("/#", "/?lang=qps#"))
        page.wait_for_function("window.editor && editor.ready", timeout=20000)
        assert page.evaluate("I18N_LANG") == "qps"

        def click(px, py):
            x, y = page.evaluate("([x, y]) => editor.reveal(x, y)", [px, py])
            page.mouse.click(x, y)

        # a fit point, three cities (two numbered 3: twice; 1 and 2 missing), a line, an undo
        page.click("#mode-fit")
        click(50, 50)
        page.fill("#fit-x", "0")
        page.fill("#fit-y", "0")
        page.press("#fit-y", "Enter")
        page.click("#mode-city")
        for k, (px, py) in enumerate([(100, 100), (300, 100), (200, 300)]):
            click(px, py)
            if k < 2:
                page.fill("#city-number", "3" if k == 0 else "4")
                page.press("#city-number", "Enter")
        page.click("#mode-connect")
        click(100, 100)
        click(300, 100)
        click(100, 100)
        click(300, 100)  # drawn already: the status says so
        page.click("#undo")
        page.click("#save")
        page.wait_for_function("editor.lastSave !== undefined", timeout=10000)
        text = page.evaluate(TEXTS)
    finally:
        page.close()
        stop()
    assert not errors, errors
    for english in ("Fit points", "Still missing", "has no number", "numbers not yet placed", "of 5 ringed start cities",
                    "4 or more make the fit", "zoom in"):
        assert i18n.pseudo.pseudo(english)[1:-1] in text, english
    assert not untranslated(text), untranslated(text)[:10]


def test_the_check_finds_an_english_word():
    assert untranslated("⟦Fîlé⟧ 100%\n− + x y\n⟦à\nb⟧") == []
    assert untranslated("⟦Fîlé⟧ Save") == [" Save"]


def test_the_pages_words_are_extracted_from_the_editor():
    from host.i18n import catalogs
    ids = {m.id for m in catalogs.read_template() if m.id}
    assert {"Fit points", "which edition, who, how you checked it", "zoom out (-)", "nothing: the map is complete"} <= ids
    assert os.path.exists(os.path.join(os.path.dirname(catalogs.__file__), "..", "web", "static", "i18n.js"))


def test_the_europe_view_in_the_pseudo_locale(browser, pseudo):  # noqa: F811
    """The detectives' view of a Europe game: headings, the status line, the tickets, the result."""
    import json
    from europe_games import TESTMAP, public, random_record
    from host.europe.mapformat import load_graph
    from host.europe.view import start_view
    graph = load_graph(TESTMAP, "europe_testmap")
    lines, _ref = random_record(6)
    pub = [json.loads(x) for x in public(lines)[0] if json.loads(x)["type"] != "query"]
    live = pub[:len(pub) // 2]
    url, stop = start_view(live, graph, TESTMAP)
    page = browser.new_page(viewport={"width": 1300, "height": 800})
    try:
        page.goto(url + "?lang=qps")
        page.wait_for_function("window.view && view.polls > 0 && view.state.stage === 'play'", timeout=15000)
        playing = page.evaluate("document.title + '\\n' + document.getElementById('side').innerText")
        live.extend(pub[len(pub) // 2:])
        page.wait_for_function("view.state.stage === 'over'", timeout=15000)
        over = page.evaluate("document.getElementById('side').innerText")
    finally:
        page.close()
        stop()
    text = playing + "\n" + over
    for english in ("Spent tickets", "Round", "Mister X holds", "win"):
        assert english not in text
    # ticket names (car/lamp) are two words each side of a slash, each translated
    assert not untranslated(text.replace("/", "\n")), untranslated(text.replace("/", "\n"))[:10]
