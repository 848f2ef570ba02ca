"""The browser view refuses other websites (real Chromium via Playwright).

The attacks that found the holes, kept as tests: a page from another origin, open in the
detectives' browser, connected to the view's websocket and pressed a board button; a request with
`Host: evil.example` was served (DNS rebinding). Now the Host must name this server, an Origin
must be the view's own, and actions need the token the server writes into its own page.
"""
import asyncio
import http.client
import http.server
import json
import re
import threading
import time

import pytest

from chromium import browser  # noqa: E402,F401 (a fixture; skips the module without Playwright or Chromium)

import aiohttp  # noqa: E402

from host.simulator.board import SimBoard  # noqa: E402
from host.web import start_web  # noqa: E402
from host.web.server import host_ok, origin_ok  # noqa: E402

# DNS rebinding, for real: the attacker's name resolves to this computer
EXTRA_CHROMIUM_ARGS = ["--host-resolver-rules=MAP evil.example 127.0.0.1"]

EVIL_PAGE = """<!doctype html><title>cat pictures</title><script>
window.attack = new Promise((done) => {
  const got = {opened: false, replies: []};
  const ws = new WebSocket("ws://127.0.0.1:%(port)d/ws");
  ws.onopen = () => { got.opened = true;
    ws.send(JSON.stringify({do: "stuck", station: 5, closed: true, id: 1}));
    ws.send(JSON.stringify({do: "press", button: "confirm", id: 2})); };
  ws.onmessage = (e) => got.replies.push(JSON.parse(e.data).t);
  ws.onclose = () => setTimeout(() => done(got), 300);
  setTimeout(() => done(got), 4000);
});
window.peek = fetch("http://127.0.0.1:%(port)d/").then((r) => r.text()).then((t) => t, (e) => "blocked: " + e);
</script>"""


@pytest.fixture(scope="module")
def view():
    sim = SimBoard(heapsize="512k").start()
    url, stop = start_web(sim, power_cut_s=1.0)
    port = int(url.rsplit(":", 1)[1].strip("/"))
    yield {"sim": sim, "url": url, "port": port, "wb": stop.webboard}
    stop()
    sim.stop()


class _Evil(http.server.BaseHTTPRequestHandler):
    page = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *a):
        pass


def test_host_and_origin_rules():
    assert host_ok("127.0.0.1:8000", 8000) and host_ok("localhost:8000", 8000) and host_ok("[::1]:8000", 8000)
    assert not host_ok("evil.example:8000", 8000) and not host_ok("127.0.0.1:8001", 8000)
    assert not host_ok("127.0.0.1", 8000) and not host_ok("", 8000) and not host_ok("127.0.0.1.evil.example:8000", 8000)
    assert origin_ok(None, "127.0.0.1:8000") and origin_ok("http://127.0.0.1:8000", "127.0.0.1:8000")
    for bad in ("http://evil.example", "null", "http://127.0.0.1:8001", "https://127.0.0.1:8000", "file://"):
        assert not origin_ok(bad, "127.0.0.1:8000"), bad


def test_cross_origin_page_cannot_act(view, browser):
    _Evil.page = (EVIL_PAGE % {"port": view["port"]}).encode()
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        page.goto("http://127.0.0.1:%d/" % evil.server_address[1])
        got = page.evaluate("window.attack")
        peek = page.evaluate("window.peek")
        page.close()
    finally:
        evil.shutdown()
    assert got["opened"] is False and got["replies"] == [], got
    assert peek.startswith("blocked"), "another site read the view's page (and its token)"
    time.sleep(0.3)
    assert view["wb"].phys.stuck == {}, "the other site's action reached the board"


def test_dns_rebinding_page_is_refused(view, browser):
    page = browser.new_page()
    resp = page.goto("http://evil.example:%d/" % view["port"])
    assert resp.status == 403 and "Host" in page.content()
    assert "yard-token" not in page.content()
    page.close()
    conn = http.client.HTTPConnection("127.0.0.1", view["port"], timeout=5)
    conn.request("GET", "/", headers={"Host": "evil.example"})
    r = conn.getresponse()
    assert r.status == 403 and b"yard-token" not in r.read()
    conn.close()


def test_own_page_acts_with_its_token(view, browser):
    page = browser.new_page()
    page.goto(view["url"])
    page.wait_for_function("window.yard && yard.map")
    reply = page.evaluate('yard.send({do: "stuck", station: 7, closed: true})')
    assert reply["ok"], reply
    assert view["wb"].phys.stuck == {7: True}
    reply = page.evaluate('yard.send({do: "stuck", station: 7, closed: null})')
    assert reply["ok"] and view["wb"].phys.stuck == {}
    page.close()


def _run(coro):
    """asyncio.run in a thread of its own (Playwright's sync API holds this thread's event loop)."""
    box = {}

    def go():
        try:
            box["v"] = asyncio.run(coro)
        except BaseException as e:  # handed back to the test
            box["e"] = e
    t = threading.Thread(target=go)
    t.start()
    t.join(20)
    if "e" in box:
        raise box["e"]
    return box["v"]


def test_websocket_without_the_token_cannot_act(view):
    async def attempt(params, headers):
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(view["url"] + "ws", params=params, headers=headers) as ws:
                await ws.send_str(json.dumps({"do": "stuck", "station": 9, "closed": True, "id": 1}))
                while True:
                    m = json.loads((await ws.receive(timeout=5)).data)
                    if m["t"] == "done":
                        return m
    got = _run(attempt({}, {}))
    assert not got["ok"] and "token" in got["error"]
    got = _run(attempt({"token": "guess"}, {}))
    assert not got["ok"] and "token" in got["error"]
    with pytest.raises(aiohttp.WSServerHandshakeError) as e:
        _run(attempt({"token": view["wb"].token}, {"Origin": "http://evil.example"}))
    assert e.value.status == 403
    assert view["wb"].phys.stuck == {}
    html = http.client.HTTPConnection("127.0.0.1", view["port"], timeout=5)
    html.request("GET", "/")
    assert re.search(r'name="yard-token" content="%s"' % re.escape(view["wb"].token), html.getresponse().read().decode())
