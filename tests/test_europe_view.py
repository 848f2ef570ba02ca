"""The detectives' browser view of a Europe game (host/europe/view.py) in Chromium: it shows the
detectives' hands and Mister X's public ticket board, and nothing of his secret (it is computed
from the public record only). The map is the one made for the tests, not the real board."""
import json

from chromium import browser  # noqa: F401  (the module's Chromium, a fixture)
from europe_games import TESTMAP, public, random_record
from host.europe.view import start_view, public_state
from host.europe.mapformat import load_graph


def test_the_view_shows_the_public_game_and_no_secret(tmp_path, browser):
    graph = load_graph(TESTMAP, "europe_testmap")
    lines, ref = random_record(6)
    pub = [json.loads(t) for t in public(lines)[0] if json.loads(t)["type"] != "query"]
    cut = len(pub) // 2
    live = pub[:cut]
    url, stop = start_view(live, graph, TESTMAP)
    try:
        page = browser.new_page(viewport={"width": 1300, "height": 800})
        try:
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.wait_for_function("window.view && view.polls > 0 && view.state.stage === 'play'", timeout=15000)
            state = page.evaluate("view.state")
            assert state == json.loads(json.dumps(public_state(live, graph)))
            for hand, tickets in state["hands"].items():
                shown = page.eval_on_selector_all('[data-hand="%s"] .ticket' % hand, "els => els.map(e => e.dataset.ticket)")
                assert sorted(shown) == sorted(tickets)
            assert page.inner_text("#mrx-hand") == "Mister X holds %d tickets (secret)." % state["mrx_hand"]
            for d in state["detectives"]:
                assert page.locator('[data-piece="%s"]' % d["piece"]).count() == 1
            # the live list grows as the game goes on: the page follows
            live.extend(pub[cut:])
            page.wait_for_function("view.state.stage === 'over'", timeout=15000)
            assert page.inner_text("#result").startswith("The detectives win" if ref.result == "detectives" else "Mister X wins")
            page.screenshot(path=str(tmp_path / "view.png"))
            assert errors == []
        finally:
            page.close()
    finally:
        stop()
    # nothing secret: the view reads only the public record, which holds none of it
    state = public_state(pub, graph)
    assert not {"mrx", "mrx_city", "log", "seed", "bag_seed"} & set(state)
    destination = graph.destination(["green", "yellow", "orange"].index(state["level"]))
    for line in pub:
        if line["type"] == "mrx":
            assert all(m.get("to") in (None, destination) for m in line["moves"])
        if line["type"] in ("draw", "discard") and line["hand"] == "X":
            assert "tickets" not in line
