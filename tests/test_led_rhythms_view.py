"""`yard sim --patterns` in the browser view (Chromium via Playwright): the page paints the
board's rhythms as the firmware draws them (a detective's empty station blinks his number) and
its legend names them; without the setting the legend shows the plain colours."""
from chromium import browser  # noqa: F401  (the module's Chromium, a fixture)
from mpy import needs_unix_port

from host.commands import cli, sim as simcmd
from host.web import start_web
from host.web.automrx import AutoMrX

pytestmark = needs_unix_port
START = [13, 26, 29, 34]  # D1, D2, B1, B2 (one detective player)

# every change of the stations' painted colours for `ms`, as [time, lit] per station
SAMPLE = """([stations, ms]) => new Promise((done) => {
  const seen = {}, unlit = YardMap.UNLIT.join(), t0 = performance.now();
  for (const s of stations) seen[s] = [];
  const timer = setInterval(() => {
    const now = performance.now() - t0;
    for (const s of stations) {
      const lit = (yard.colour(s) || YardMap.UNLIT).join() !== unlit, got = seen[s];
      if (!got.length || got[got.length - 1][1] !== lit) got.push([now, lit]);
    }
    if (now > ms) { clearInterval(timer); done(seen); }
  }, 4);
})"""


def _page(browser, tmp_path, *options):  # noqa: F811
    args = cli.build_parser().parse_args(["sim", *options])
    sim, _where = simcmd.simulated_board(args, str(tmp_path / "sim"))
    sim.start()
    mrx = AutoMrX(sim.port, players=1, seed=5, detectives=START, mrx=45, delay=0.3).start()
    url, stop = start_web(sim)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(url)
    page.wait_for_function("window.yard && yard.frames > 0 && yard.state && yard.state.game.stage === 'setup'",
                           timeout=20000)

    def close():
        page.close()
        stop()
        mrx.stop()
        sim.stop()
    return page, close


def _legend(page):
    return {which: [e.is_visible() for e in page.locator('#legendbar [data-rhythms="%s"]' % which).all()]
            for which in ("on", "off")}


def test_the_view_paints_the_rhythms_and_names_them(browser, tmp_path):  # noqa: F811
    page, close = _page(browser, tmp_path, "--patterns")
    try:
        assert page.evaluate("yard.patterns") is True
        legend = _legend(page)
        assert legend["on"] and all(legend["on"]) and not any(legend["off"]), legend
        assert "a slow pulse" in page.locator("#legendbar").inner_text()
        seen = page.evaluate(SAMPLE, [START, 2400])
    finally:
        close()
    # no piece on the board yet: two 1.2 s rhythms of D1's one flash and D2's two
    rises = {s: sum(1 for _t, lit in seen[str(s)][1:] if lit) for s in START}
    assert rises[13] in (2, 3) and rises[26] in (4, 5), rises


def test_without_the_setting_the_legend_shows_plain_colours(browser, tmp_path):  # noqa: F811
    page, close = _page(browser, tmp_path)
    try:
        assert page.evaluate("yard.patterns") is False
        legend = _legend(page)
        assert all(legend["off"]) and not any(legend["on"]), legend
        assert "a slow pulse" not in page.locator("#legendbar").inner_text()
        seen = page.evaluate(SAMPLE, [START, 2400])
    finally:
        close()
    rises = {s: sum(1 for _t, lit in seen[str(s)][1:] if lit) for s in START}
    assert rises[13] == rises[26] in (2, 3), rises  # every missing piece's station: the same plain blink
