"""The simulated board's web page: aiohttp serves the page and one websocket per browser.

Server -> page (JSON): "hello" (map, display gain, whether
the LEDs have rhythms beside colour), "frame" (every LED frame the firmware
writes, one colour per station), "state" (the public game from the board's journal, the pieces,
faults, power, the board's notes). Page -> server: actions ({"do": "lift", "piece": "D1"}...),
each answered with {"t": "done", "id", "ok", "error"}. Serves on loopback only.

Other websites in the same browser: every request must name this server in its `Host`
header (127.0.0.1, localhost or [::1] with this port; anything else is a DNS-rebinding page and is
refused), a request that carries an `Origin` must come from this server's own origin (a websocket
from another site is refused before it opens), and actions need the page's token, which the
server writes into the page it serves and which no other origin can read.
"""
import asyncio
import csv
import hmac
import json
import os
import threading
import time
from urllib.parse import urlsplit

from aiohttp import web, WSMsgType

from host import ROOT, i18n
from host.i18n import N_, _, web as i18n_web
from host.misterx.randomness import token as new_token
from host.web.board import PhysicalBoard, ActionError
from host.web.public import JournalWatch
from host.words import command_word
from sy.hardware.leds import WIRE_ORDER

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
FRAME_POLL_S = 0.01
STATE_POLL_S = 0.05
LOOPBACK = ("127.0.0.1", "::1", "localhost")
HOST_NAMES = ("127.0.0.1", "localhost", "[::1]")  # how a Host header may name this server
TOKEN_META = '<meta name="yard-token" content="%s">'


def load_map(name="london"):
    """Station coordinates (1639 x 1228 px space) and connections from data/<map>/."""
    folder = os.path.join(ROOT, "data", "london")
    with open(os.path.join(folder, "stations.csv"), newline="") as f:
        stations = {int(r["station"]): (int(r["x"]), int(r["y"])) for r in csv.DictReader(f)}
    with open(os.path.join(folder, "edges.csv"), newline="") as f:
        edges = [[int(r["a"]), int(r["b"]), r["transport"]] for r in csv.DictReader(f)]
    if name == "london1983":
        edges.append([13, 14, "taxi"])  # the light 1983 board (sy/maps/london1983.py)
    return {"width": 1639, "height": 1228, "stations": {str(k): v for k, v in stations.items()},
            "edges": edges}


def secret_ok(given, secret):
    """A token or key given by a request equals ours (compared in constant time)."""
    return isinstance(given, str) and hmac.compare_digest(given.encode(), secret.encode())


async def ws_messages(ws):
    """The JSON objects a page sends over its websocket (anything else is skipped)."""
    async for m in ws:
        if m.type != WSMsgType.TEXT:
            continue
        try:
            msg = json.loads(m.data)
        except ValueError:
            continue
        if isinstance(msg, dict):
            yield msg


class Page:
    """What the board's page and Mister X's page (host/web/mrxpage.py) share: their websocket
    clients, and the state (make_state) pushed to them whenever it changes."""

    STATE_POLL_S = STATE_POLL_S

    def __init__(self):
        self.clients = set()
        self.state_msg = None
        # make_state runs in the executor's threads, from the state loop and after each action at
        # once: the watchers it polls read by offsets and keep partial lines, so one at a time
        self.state_lock = threading.Lock()

    def make_state(self):
        """The state message (JSON text) as it is now."""
        with self.state_lock:
            return self.read_state()

    def read_state(self):
        raise NotImplementedError

    async def broadcast(self, text):
        for ws in list(self.clients):
            try:
                await ws.send_str(text)
            except (ConnectionError, RuntimeError):
                self.clients.discard(ws)

    async def state_loop(self):
        loop = asyncio.get_running_loop()
        while True:
            text = await loop.run_in_executor(None, self.make_state)
            if text != self.state_msg:
                self.state_msg = text
                await self.broadcast(text)
            await asyncio.sleep(self.STATE_POLL_S)


class WebBoard(Page):
    """One SimBoard shown to any number of pages."""

    def __init__(self, sim, power_cut_s=1.5):
        super().__init__()
        self.sim = sim
        self.phys = PhysicalBoard(sim, power_cut_s)
        self.journal = JournalWatch(os.path.join(sim.folder, "flash", "game.jsonl"))
        self.frame_msg = None
        self.frame_seq = None
        self.frame_leds = None
        self.frame_time = 0.0
        self.token = new_token()  # in the page we serve; actions without it are refused
        self.started = time.time()
        cfg = sim.config["leds"]
        self.gain = 1.0 / max(0.05, cfg["brightness"])  # a screen pixel is dimmer than an LED
        self.order = cfg["order"]
        self.index = cfg["index"]
        # the LEDs' rhythms beside colour (board.json leds.patterns): the frames show them as they
        # are; the page's legend names them only when the board has them
        self.patterns = cfg.get("patterns", False)
        self.map = load_map(sim.config.get("map", "london"))
        # commander(cmd, **args) -> reply: a command to the firmware over the game's own link (yard
        # sim: Mister X's console's; python -m host.web: the automatic Mister X's), None without one
        self.commander = None
        self.dead = sorted(sim.config["reeds"].get("dead", []))  # reeds out of service

    # --- what the firmware shows -------------------------------------------------------------
    def read_frame(self):
        """(seq, hex colours of stations 1..199) of the firmware's current frame; dark when off."""
        if not self.phys.powered or not self.sim.alive():
            return ("off", "000000" * 199)
        got = self.sim.frame()
        if got is None:
            return None
        seq, _cycle, wire = got
        pr, pg, pb = WIRE_ORDER[self.order]
        out = bytearray(3 * 199)
        for s in range(1, 200):
            k = 3 * self.index[s - 1]
            if k + 2 < len(wire):
                out[3 * s - 3] = wire[k + pr]
                out[3 * s - 2] = wire[k + pg]
                out[3 * s - 1] = wire[k + pb]
        return (seq, out.hex())

    def read_state(self):
        self.journal.poll()
        game = self.journal.state
        self.phys.sync_game(game)
        self.phys.tap.poll()
        st = {"t": "state", "game": game}
        st.update(self.phys.public())
        st["dead"] = self.dead
        return json.dumps(st)

    # --- actions -----------------------------------------------------------------------------
    def act(self, msg):
        """Run one page action (in a worker thread). Returns None or raises ActionError."""
        do = msg.get("do")
        p = self.phys
        if do == "lift":
            p.lift(msg.get("piece"))
        elif do == "place":
            p.place(msg.get("piece"), msg.get("station"))
        elif do == "move":
            p.move(msg.get("piece"), msg.get("station"))
        elif do == "setup":
            pieces = self.journal.state.get("pieces") or []
            p.set_up([(x["name"], x["station"]) for x in pieces])
        elif do == "press":
            p.press(msg.get("button"))
        elif do == "take_back":  # the confirm button held: the detectives' last move taken back
            p.press("confirm", hold=True)
        elif do == "chatter":
            p.chatter(msg.get("station"))
        elif do == "knock":
            p.knock(msg.get("piece"))
        elif do == "lift_two":
            p.lift_two(msg.get("a"), msg.get("b"))
        elif do == "stuck":
            p.set_stuck(msg.get("station"), msg.get("closed"))
        elif do == "reed":  # take a station's reed out of service (or back): the board's config
            self.reed(msg.get("station"), msg.get("out"))
        elif do == "power":
            p.power(bool(msg.get("on")))
        elif do == "power_cycle":
            p.power_cycle()
        else:
            raise ActionError(_("unknown action %(action)r") % {"action": do})

    def reed(self, station, out):
        if not isinstance(station, int) or isinstance(station, bool) or not 1 <= station <= 199:
            raise ActionError(_("a station is a number 1..199, not %(given)r") % {"given": station})
        if out is not True and out is not False:
            raise ActionError(_("out must be true (out of service) or false (back in service)"))
        if self.commander is None:
            lang = i18n.current()  # the console's words (host/words.py), in the language it speaks
            raise ActionError(_("no game is connected to the board: type %(command)s at Mister X's console") % {
                "command": "%s %s %d" % (command_word("reed", lang), command_word("out", lang), station)})
        from host.link.boardlink import BoardCommandError, LinkError
        try:
            self.dead = self.commander("reed", station=station, out=out).get("dead", [])
        except BoardCommandError as e:
            raise ActionError(_("the board refused: %(refusal)s") % {"refusal": e.message})
        except LinkError as e:
            raise ActionError(_("the board did not answer: %(error)s") % {"error": e})

    # --- the loops ---------------------------------------------------------------------------
    async def frame_loop(self):
        loop = asyncio.get_running_loop()
        while True:
            got = await loop.run_in_executor(None, self.read_frame)
            if got is not None and got[0] != self.frame_seq:
                self.frame_seq = got[0]
                if got[1] != self.frame_leds:  # animation frames that change nothing are not sent
                    self.frame_leds = got[1]
                    self.frame_time = time.time()
                    self.frame_msg = json.dumps({"t": "frame", "seq": got[0], "leds": got[1],
                                                 "at": round(self.frame_time * 1000)})
                    if self.clients:
                        await self.broadcast(self.frame_msg)
            await asyncio.sleep(FRAME_POLL_S)

    def hello(self):
        return json.dumps({"t": "hello", "map": self.map, "gain": self.gain, "patterns": self.patterns})


# --- aiohttp -----------------------------------------------------------------------------------
async def _index(request):
    with open(os.path.join(STATIC, "index.html"), encoding="utf-8") as f:
        html = f.read()
    html = html.replace("<head>", "<head>\n" + TOKEN_META % request.app[BOARD].token, 1)
    return web.Response(text=html, content_type="text/html")


async def _ws(request):
    wb = request.app[BOARD]
    may_act = secret_ok(request.query.get("token"), wb.token)
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    wb.clients.add(ws)
    loop = asyncio.get_running_loop()
    try:
        await ws.send_str(wb.hello())
        if wb.state_msg:
            await ws.send_str(wb.state_msg)
        if wb.frame_msg:
            await ws.send_str(wb.frame_msg)
        async for msg in ws_messages(ws):
            if not may_act:
                await ws.send_str(json.dumps({"t": "done", "id": msg.get("id"), "ok": False,
                                              "error": "actions need the page's token: reload the page"}))
                continue
            asyncio.ensure_future(_run_action(wb, ws, msg, loop))
    finally:
        wb.clients.discard(ws)
    return ws


async def _run_action(wb, ws, msg, loop):
    reply = {"t": "done", "id": msg.get("id"), "ok": True}
    try:
        await loop.run_in_executor(None, wb.act, msg)
    except ActionError as e:
        reply.update(ok=False, error=str(e))
    except Exception as e:  # keep the page alive; say what broke
        reply.update(ok=False, error="%s: %s" % (type(e).__name__, e))
    # the new state follows at once, so the page's next look is not a stale one
    text = await loop.run_in_executor(None, wb.make_state)
    if text != wb.state_msg:
        wb.state_msg = text
        await wb.broadcast(text)
    if not ws.closed:
        await ws.send_str(json.dumps(reply))


def _own_port(request):
    sock = request.transport.get_extra_info("sockname") if request.transport else None
    return sock[1] if sock else None


def host_ok(host, port):
    """A Host header that names this server: a loopback name and our port (no DNS rebinding)."""
    if not host or port is None:
        return False
    name, sep, p = host.rpartition(":")
    return bool(sep) and name.lower() in HOST_NAMES and p == str(port)


def origin_ok(origin, host, scheme="http"):
    """No Origin (not a browser's cross-site request), or exactly this server's own origin."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme == scheme and parts.netloc.lower() == host.lower() and not parts.path


@web.middleware
async def _loopback_only(request, handler):
    if request.remote not in LOOPBACK and not (request.remote or "").startswith("127."):
        raise web.HTTPForbidden(text=i18n_web.gettext_for(request, N_("the simulated board serves this computer only")))
    host = request.headers.get("Host", "")
    if not host_ok(host, _own_port(request)):
        raise web.HTTPForbidden(text=i18n_web.gettext_for(request, N_(
            "the simulated board answers only to its own address (Host %r refused)")) % host)
    if not origin_ok(request.headers.get("Origin"), host):
        raise web.HTTPForbidden(text=i18n_web.gettext_for(request, N_(
            "requests from another site are refused (Origin %r)")) % request.headers.get("Origin"))
    resp = await handler(request)
    if isinstance(resp, web.StreamResponse) and not isinstance(resp, web.WebSocketResponse):
        resp.headers["Cache-Control"] = "no-store"
    return resp


# the application's keys (aiohttp.web.AppKey: typed, and no NotAppKeyWarning)
BOARD = web.AppKey("board", WebBoard)
LOOPS = web.AppKey("loops", list)


def make_app(webboard):
    app = web.Application(middlewares=[_loopback_only])
    app[BOARD] = webboard
    app.router.add_get("/", _index)
    app.router.add_get("/ws", _ws)
    app.router.add_static("/static/", STATIC)
    i18n_web.add_route(app)

    async def _start_loops(app):
        app[LOOPS] = [asyncio.ensure_future(webboard.frame_loop()),
                        asyncio.ensure_future(webboard.state_loop())]

    async def _stop_loops(app):
        for t in app[LOOPS]:
            t.cancel()
        for ws in list(webboard.clients):
            await ws.close()

    app.on_startup.append(_start_loops)
    app.on_shutdown.append(_stop_loops)
    return app


def start_web(simboard, host="127.0.0.1", port=0, power_cut_s=1.5):
    """Serve the page for a running SimBoard in a background thread.

    Returns (url, stop): stop() shuts the server down (the SimBoard is left running)."""
    if host not in LOOPBACK:
        raise ValueError("the simulated board's page serves loopback only (127.0.0.1), not %r" % host)
    wb = WebBoard(simboard, power_cut_s)
    port, stop = serve(make_app(wb), host, port, name="yard-web")
    url = "http://%s:%d/" % ("127.0.0.1" if host == "localhost" else host, port)
    stop.webboard = wb
    return url, stop


def serve(app, host, port, name="yard-web", ssl_context=None):
    """Run an aiohttp app in a background thread (over TLS with an ssl_context). Returns (port, stop)."""
    ready = threading.Event()
    box = {}

    def run():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        runner = web.AppRunner(app, access_log=None)
        try:
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
            loop.run_until_complete(site.start())
            sock = site._server.sockets[0]
            box["port"] = sock.getsockname()[1]
        except Exception as e:
            box["error"] = e
            ready.set()
            return
        box["loop"] = loop
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(runner.cleanup())
            loop.close()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    ready.wait(10)
    if "error" in box:
        raise box["error"]
    if "port" not in box:
        raise RuntimeError("the web server did not start")

    def stop():
        loop = box["loop"]
        if loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        thread.join(5)

    return box["port"], stop
