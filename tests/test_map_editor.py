"""The digitizer (`yard map-editor`, host/europe/map_editor.py) in real Chromium (Debian's, via Playwright).

A picture of the map made for the tests (tests/data/europe_testmap, NOT the real board) is drawn
with known city positions: board coordinates x2 plus an offset, with four fit marks at known board
coordinates. A session then does what an owner does: fits the photo with the four marks, clicks
every city's centre and types its number and kind, draws every connection by transport, marks
rings, destinations and start cards, uses undo and zoom, watches the list of what is missing,
and saves: the saved CSV files must equal the test map's byte for byte. A second session opens
London (data/london) over a photo and adds the 13-14 taxi line of the light 1983 board.
"""
import csv
import hashlib
import os
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from chromium import browser  # noqa: E402,F401 (a fixture; skips the module without Playwright or Chromium)

from host import ROOT  # noqa: E402
from host.europe.map_editor import start_editor  # noqa: E402

TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")
LONDON = os.path.join(ROOT, "data", "london")
SCALE, OX, OY = 2, 40, 30  # photo pixel = OFFSET + SCALE * board coordinate
FIT_MARKS = [(0, 0), (800, 0), (0, 600), (800, 600)]
CSVS = ("cities.csv", "connections.csv", "missions.csv", "start_cards.csv")


def rows(name, folder=TESTMAP):
    with open(os.path.join(folder, name), newline="") as f:
        return list(csv.DictReader(f))


def photo_of(x, y):
    return OX + SCALE * x, OY + SCALE * y


def draw_photo(path, cities, connections, size=(1680, 1260)):
    """An SVG picture of the board, rendered to PNG by rsvg-convert (librsvg)."""
    w, h = size
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">' % (w, h),
             '<rect width="%d" height="%d" fill="#f4eddc"/>' % (w, h)]
    colours = {"car": "#c9a060", "train": "#d02020", "plane": "#2050e0"}
    for a, b, t in connections:
        (ax, ay), (bx, by) = photo_of(*cities[a][:2]), photo_of(*cities[b][:2])
        parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="4"/>' % (ax, ay, bx, by, colours.get(t, "#888")))
    for c, (x, y, _kind) in cities.items():
        px, py = photo_of(x, y)
        parts.append('<circle cx="%d" cy="%d" r="14" fill="#fff" stroke="#000" stroke-width="2"/>' % (px, py))
        parts.append('<text x="%d" y="%d" font-size="14" text-anchor="middle">%d</text>' % (px, py + 5, c))
    for x, y in FIT_MARKS:
        px, py = photo_of(x, y)
        parts.append('<path d="M%d,%dH%dM%d,%dV%d" stroke="#000" stroke-width="2"/>' % (px - 12, py, px + 12, px, py - 12, py + 12))
    parts.append("</svg>")
    svg = path + ".svg"
    with open(svg, "w") as f:
        f.write("\n".join(parts))
    subprocess.run(["rsvg-convert", "-o", path, svg], check=True)


def blank_photo(path, w, h):
    with open(path + ".svg", "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d"><rect width="%d" height="%d" fill="#ddd"/></svg>'
                % (w, h, w, h))
    subprocess.run(["rsvg-convert", "-o", path, path + ".svg"], check=True)


def open_editor(browser, url):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("window.editor && editor.ready", timeout=20000)
    return page, errors


def click_photo(page, px, py):
    x, y = page.evaluate("([x, y]) => editor.reveal(x, y)", [px, py])
    page.mouse.click(x, y)


def click_board(page, x, y):
    px, py = page.evaluate("([x, y]) => editor.photoOf(x, y)", [x, y])
    click_photo(page, px, py)


def missing(page):
    return page.eval_on_selector_all("#missing li", "els => els.map(e => [e.dataset.kind || 'done', e.textContent])")


def test_a_session_builds_the_test_map_from_its_picture(browser, tmp_path):
    cities = {int(r["city"]): (int(r["x"]), int(r["y"]), r["kind"]) for r in rows("cities.csv")}
    connections = [(int(r["a"]), int(r["b"]), r["transport"]) for r in rows("connections.csv")]
    photo = str(tmp_path / "board.png")
    draw_photo(photo, cities, connections)
    out = tmp_path / "my-map"
    url, stop = start_editor(photo, out=str(out))
    page, errors = open_editor(browser, url)
    t0 = time.monotonic()
    try:
        assert page.evaluate("[editor.width, editor.height]") == [1680, 1260]
        # 1. the fit: four marks with known board coordinates
        page.click("#mode-fit")
        for k, (x, y) in enumerate(FIT_MARKS):
            click_photo(page, *photo_of(x, y))
            page.fill("#fit-x", str(x))
            page.fill("#fit-y", str(y))
            page.press("#fit-y", "Enter")
            if k == 2:
                assert ["fit", "fit: 3 of at least 4 known points"] in missing(page)
        assert page.text_content("#fit-info").startswith("fit from 4 points, RMS residual 0.00")
        # the fit is a real homography: a perspective view is recovered exactly
        err = page.evaluate("""() => {
            const P = [[1.1, 0.2, 30], [-0.1, 0.9, 50], [0.0004, 0.0002, 1]];
            const pts = [[0, 0], [800, 0], [0, 600], [800, 600], [400, 300], [120, 470]];
            const pairs = pts.map(([x, y]) => [apply(P, x, y), [x, y]]);
            const H = fitHomography(pairs);
            return Math.max(...pairs.map(([[u, v], [x, y]]) => { const [a, b] = apply(H, u, v); return Math.hypot(a - x, b - y); }));
        }""")
        assert err < 1e-6, err
        # 2. the cities: click the centre, type the number and the kind (half of them zoomed in)
        page.click("#mode-city")
        for c in sorted(cities):
            if c == 16:
                page.click("#zoom-in")
                assert page.text_content("#zoom-label") == "200%"
            click_photo(page, *photo_of(*cities[c][:2]))
            page.select_option("#city-kind", cities[c][2])
            page.fill("#city-number", str(c))
            page.press("#city-number", "Enter")
        page.click("#zoom-out")
        kinds = dict(missing(page))
        assert "lonely" in kinds and "unnumbered" not in kinds and "twice" not in kinds
        # a mistake and its undo: a stray city, then a number used twice
        click_photo(page, 200, 1200)
        assert any(k == "unnumbered" for k, _ in missing(page))
        page.fill("#city-number", "5")
        page.press("#city-number", "Enter")
        assert ["twice", "number 5 is used 2 times"] in missing(page)
        page.keyboard.press("Control+z")
        assert any(k == "unnumbered" for k, _ in missing(page))
        page.click("#undo")
        assert not any(k in ("unnumbered", "twice") for k, _ in missing(page))
        assert page.evaluate("editor.state.cities.length") == 30
        # 3. the connections, by transport
        page.click("#mode-connect")
        for a, b, t in connections:
            page.select_option("#transport", t)
            click_board(page, *cities[a][:2])
            click_board(page, *cities[b][:2])
        assert page.evaluate("editor.state.connections.length") == len(connections)
        assert not any(k == "lonely" for k, _ in missing(page))
        # 4. rings, destinations, start cards
        for r in rows("missions.csv"):
            page.select_option("#level", r["level"])
            page.click("#mode-ring" if r["role"] == "ring" else "#mode-dest")
            click_board(page, *cities[int(r["city"])][:2])
        page.click("#mode-start")
        for r in rows("start_cards.csv"):
            click_board(page, *cities[int(r["city"])][:2])
        assert missing(page) == [["done", "nothing: the map is complete"]]
        # 5. save, with a provenance note
        page.fill("#note", "Test session: the picture of the map made for the tests.")
        page.click("#save")
        page.wait_for_function("editor.lastSave !== undefined", timeout=10000)
        answer = page.evaluate("editor.lastSave")
        assert answer["ok"] and answer["problems"] == [], answer
        for name in CSVS:
            assert (out / name).read_bytes() == open(os.path.join(TESTMAP, name), "rb").read(), name
        prov = (out / "PROVENANCE.md").read_text()
        assert hashlib.sha256(open(photo, "rb").read()).hexdigest() in prov
        assert "Fit: 4 known points" in prov and "the map made for the tests" in prov
        assert errors == []
        print("digitizer session: %d cities, %d connections, %.1f s" % (len(cities), len(connections), time.monotonic() - t0))
    finally:
        page.screenshot(path=str(tmp_path / "editor.png"))
        page.close()
        stop()


def test_london_opens_over_a_photo_and_the_13_14_taxi_line_can_be_added(browser, tmp_path):
    stations = {int(r["station"]): (int(r["x"]), int(r["y"])) for r in rows("stations.csv", LONDON)}
    photo = str(tmp_path / "london.png")
    blank_photo(photo, 1639, 1228)
    out = tmp_path / "london-mine"
    url, stop = start_editor(photo, LONDON, out=str(out))
    page, errors = open_editor(browser, url)
    try:
        assert page.evaluate("editor.state.cities.length") == 199
        assert page.evaluate("editor.state.connections.length") == 467
        assert page.is_hidden("#mode-ring")  # London has no missions
        assert missing(page) == [["done", "nothing: the map is complete"]]
        page.click("#mode-connect")
        page.select_option("#transport", "taxi")
        click_board(page, *stations[13])
        click_board(page, *stations[14])
        page.click("#save")
        page.wait_for_function("editor.lastSave !== undefined", timeout=10000)
        assert page.evaluate("editor.lastSave.ok")
        assert (out / "stations.csv").read_bytes() == open(os.path.join(LONDON, "stations.csv"), "rb").read()
        assert (out / "start_cards.csv").read_bytes() == open(os.path.join(LONDON, "start_cards.csv"), "rb").read()
        edges = [(int(r["a"]), int(r["b"]), r["transport"]) for r in rows("edges.csv", str(out))]
        london = [(int(r["a"]), int(r["b"]), r["transport"]) for r in rows("edges.csv", LONDON)]
        assert sorted(set(edges) - set(london)) == [(13, 14, "taxi")] and set(london) <= set(edges)
        assert errors == []
    finally:
        page.close()
        stop()


def test_the_editor_writes_only_with_its_token_and_for_loopback(tmp_path):
    photo = str(tmp_path / "p.png")
    blank_photo(photo, 10, 10)
    url, stop = start_editor(photo, out=str(tmp_path / "out"))
    base = url.split("#")[0]
    token = url.split("token=")[1]
    try:
        body = b'{"format": "europe", "cities": []}'
        for headers, code in (({}, 403), ({"X-Editor-Token": "wrong"}, 403),
                              ({"X-Editor-Token": token, "Host": "evil.example"}, 403)):
            req = urllib.request.Request(base + "api/save", data=body, headers=dict(headers, **{"Content-Type": "application/json"}))
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(req)
            assert e.value.code == code
        assert not (tmp_path / "out").exists()
        req = urllib.request.Request(base + "api/save", data=b'{"format": "europe", "cities": [{"n": "x"}]}',
                                     headers={"Content-Type": "application/json", "X-Editor-Token": token})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req)
        assert e.value.code == 400
    finally:
        stop()
