"""Mister X's secret page: his screen in a browser (`yard play --secret-page`, `yard sim --secret-page`).

It shows the game as he knows it (host/web/mrxstate.py, read from his secret log) and turns his
clicks into the console's own commands ("bus 58", "double taxi 14 black 15", "undo"), given to the
console through host/web/mrxinput.py: one secret game, one set of commitments, the terminal and the
page both usable at once.

A server of its own, on its own port: the public board page (host/web/server.py) has no route to
any of this. By default on 127.0.0.1; with `lan`, on the one address given (a phone at the table
opens it), over TLS with a certificate made at start (host/web/tls.py). Either way:
  - the secret key travels in the link's fragment (#k=...), which a browser never sends: no request
    line, no server log and no proxy sees it, and the page replaces its own address with the bare
    one at once, so the browser's history never holds it;
  - the page and its scripts hold nothing secret; what is secret comes over the websocket only, and
    only after the page has sent the key as its first message (compared in constant time); a
    socket that does not is closed with nothing said;
  - the Host header must name this server (a loopback name, or with `lan` the address it listens
    on) and its port: a DNS-rebinding page is refused; an Origin, when sent, must be this server's
    own: another website cannot open the websocket.
"""
import asyncio
import io
import ipaddress
import json
import os
import socket

from aiohttp import WSMsgType, web

from host.i18n import N_, _, web as i18n_web
from host.misterx.randomness import token as new_token
from host.web.mrxinput import PageBusy
from host.web.mrxstate import SecretLogWatch
from host.web.server import STATIC, Page, host_ok as names_this_server, load_map, origin_ok, secret_ok, serve, ws_messages, _own_port
from host.web.board import piece_colour

POLL_S = 0.1
KEY_WAIT_S = 10  # a websocket that has not sent the key by then is closed
TICKETS = ("taxi", "bus", "underground", "black")
LOOPBACK = ("127.0.0.1", "::1")
ANSWERS = {"consent": "consent"}  # a page action that answers a question -> the question's kind


def piece_colours():
    """The board's piece colours (sy/play/board.py) by piece name, as on the public page."""
    return {name: piece_colour(name) for name in ["D%d" % k for k in range(1, 6)] + ["B%d" % k for k in range(1, 6)]}


def command(msg):
    """A page action -> the console's command line. ValueError if it is not one."""
    do = msg.get("do")

    def step(t, s):
        if t not in TICKETS or not isinstance(s, int) or isinstance(s, bool) or not 1 <= s <= 199:
            raise ValueError("not a move: %r %r" % (t, s))
        return "%s %d" % (t, s)
    if do == "move":
        return step(msg.get("ticket"), msg.get("station"))
    if do == "double":
        steps = msg.get("steps")
        if not (isinstance(steps, list) and len(steps) == 2 and all(isinstance(x, list) and len(x) == 2 for x in steps)):
            raise ValueError("a double move is two [ticket, station] steps")
        return "double " + " ".join(step(t, s) for t, s in steps)
    if do == "consent":  # his answer to a detective's asking to take back a move (docs/fairplay.md)
        allow = msg.get("allow")
        if not isinstance(allow, bool):
            raise ValueError("a consent is allow: true or false")
        return "y" if allow else "n"
    if do == "undo":
        return "undo"
    if do == "done":
        return "done"
    raise ValueError("unknown action %r" % (do,))


class SecretPage(Page):
    STATE_POLL_S = POLL_S

    def __init__(self, path, pageinput, said, lan=None, map_name="london"):
        super().__init__()
        self.watch = SecretLogWatch(path)
        self.inp = pageinput
        self.said = said
        self.lan = lan  # the one address served on the local network, or None: this computer only
        self.scheme = "https" if lan else "http"
        self.key = new_token()  # in the link's fragment: the websocket says nothing without it
        self.map = load_map(map_name)
        self.colours = piece_colours()

    def read_state(self):
        self.watch.poll()
        return json.dumps({"t": "state", "game": self.watch.state, "said": list(self.said.lines),
                           "asking": self.inp.asking, "question": self.inp.question, "error": self.watch.error})

    def hello(self):
        return json.dumps({"t": "hello", "map": self.map, "colours": self.colours})

    # --- who may ask ---------------------------------------------------------------------------
    def host_ok(self, host, request):
        """The Host header names this server: a loopback name, or (lan) the address asked, and our port."""
        port = _own_port(request)
        if names_this_server(host, port):  # a loopback name and our port
            return True
        if not self.lan or port is None:
            return False
        name, sep, p = host.rpartition(":")
        if not sep or p != str(port):
            return False
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        try:
            return sock is not None and ipaddress.ip_address(name.strip("[]")) == ipaddress.ip_address(sock[0])
        except ValueError:
            return False  # a name, not the address: a rebinding page could own it



# i18n: the answer to a request Mister X's secret page refuses (another computer, a foreign address or site)
REFUSED = N_("Mister X's secret page: refused")
PAGE = web.AppKey("page", SecretPage)
LOOPS = web.AppKey("loops", list)


@web.middleware
async def _guard(request, handler):
    page = request.app[PAGE]
    if not page.lan and request.remote not in LOOPBACK and not (request.remote or "").startswith("127."):
        raise web.HTTPForbidden(text=i18n_web.gettext_for(request, REFUSED))
    if not page.host_ok(request.headers.get("Host", ""), request):
        raise web.HTTPForbidden(text=i18n_web.gettext_for(request, REFUSED))
    if not origin_ok(request.headers.get("Origin"), request.headers.get("Host", ""), page.scheme):
        raise web.HTTPForbidden(text=i18n_web.gettext_for(request, REFUSED))
    resp = await handler(request)
    if isinstance(resp, web.StreamResponse) and not isinstance(resp, web.WebSocketResponse):
        resp.headers["Cache-Control"] = "no-store"
        resp.headers["Referrer-Policy"] = "no-referrer"
        resp.headers["X-Frame-Options"] = "DENY"
        resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


async def _index(request):
    return web.FileResponse(os.path.join(STATIC, "mrx.html"), headers={"Content-Type": "text/html"})


async def _static(request):
    name = request.match_info["name"]
    if name not in ("map.js", "mrx.js", "mrx.css", "style.css", "i18n.js"):
        raise web.HTTPNotFound()
    return web.FileResponse(os.path.join(STATIC, name))


async def _key_given(ws, page):
    """The socket's first message is {"t": "key", "k": KEY} with this page's key."""
    try:
        first = await ws.receive(timeout=KEY_WAIT_S)
    except asyncio.TimeoutError:
        return False
    if first.type != WSMsgType.TEXT:
        return False
    try:
        msg = json.loads(first.data)
    except ValueError:
        return False
    return isinstance(msg, dict) and msg.get("t") == "key" and secret_ok(msg.get("k"), page.key)


async def _ws(request):
    page = request.app[PAGE]
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    if not await _key_given(ws, page):
        await ws.close(code=4403, message=b"refused")
        return ws
    page.clients.add(ws)
    try:
        await ws.send_str(page.hello())
        if page.state_msg:
            await ws.send_str(page.state_msg)
        async for msg in ws_messages(ws):
            reply = {"t": "done", "id": msg.get("id"), "ok": True}
            try:
                page.inp.submit(command(msg), answering=ANSWERS.get(msg.get("do")))
            except (PageBusy, ValueError) as e:
                reply.update(ok=False, error=str(e))
            await ws.send_str(json.dumps(reply))
    finally:
        page.clients.discard(ws)
    return ws


def make_app(page):
    app = web.Application(middlewares=[_guard])
    app[PAGE] = page
    app.router.add_get("/", _index)
    app.router.add_get("/ws", _ws)
    app.router.add_get("/static/{name}", _static)
    i18n_web.add_route(app)

    async def _start(app):
        app[LOOPS] = [asyncio.ensure_future(page.state_loop())]

    async def _stop(app):
        for t in app[LOOPS]:
            t.cancel()
        for ws in list(page.clients):
            await ws.close()

    app.on_startup.append(_start)
    app.on_shutdown.append(_stop)
    return app


def lan_address():
    """This computer's address on the local network (the interface of its default route)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # no packet is sent: it only picks the interface
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def lan_choice(address):
    """The address to serve on for --lan [ADDRESS]: ADDRESS (an IPv4 or IPv6 address of this
    computer), or with "auto" the one of the default route's interface. ValueError if not one."""
    if address in (None, "", "auto"):
        return lan_address()
    return str(ipaddress.ip_address(address))


def start_secret_page(path, pageinput, said, lan=None, port=0, map_name="london"):
    """Serve Mister X's page for the secret log at `path`; with `lan` (an address of this computer)
    on that address alone, over TLS. Returns (url with its key in the fragment, stop); stop.page is
    the page, stop.fingerprint the TLS certificate's SHA-256 fingerprint (None without lan)."""
    page = SecretPage(path, pageinput, said, lan, map_name)
    ssl_context = fingerprint = None
    if lan:
        from host.web.tls import server_context
        ssl_context, fingerprint = server_context(lan)
    port, stop = serve(make_app(page), lan or "127.0.0.1", port, name="yard-secret-page", ssl_context=ssl_context)
    name = "[%s]" % lan if lan and ":" in lan else (lan or "127.0.0.1")
    url = "%s://%s:%d/#k=%s" % (page.scheme, name, port, page.key)
    stop.page = page
    stop.fingerprint = fingerprint
    return url, stop


def qr_text(url):
    """The URL as a QR code drawn with text blocks, to scan from the terminal with a phone."""
    try:
        import segno
    except ImportError:  # a dependency (pyproject.toml); an older environment may lack it
        return _("(no QR code: pip install segno)")
    buf = io.StringIO()
    segno.make(url, error="m").terminal(out=buf, compact=True)
    return buf.getvalue()
