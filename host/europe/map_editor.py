"""`yard map-editor PHOTO`: the digitizer, a browser page to transcribe a board from a photo.

The owner loads a photo of their board, fits it with four or more known points (photo pixel ->
board coordinate, a homography), clicks every city's centre and types its number, draws the
connections by transport, marks kinds, mission rings, destinations and start cards, and saves the
map folder (docs/map-format.md) with a provenance note. `--map FOLDER` opens an existing map (a
Europe map folder, or London's data/london) to check it against one's own edition.

Served on loopback only. The page's writes need the session's token (in the URL the command
prints) in a header, so no other web page in the browser can save files through it, and the
server answers only requests addressed to 127.0.0.1 (no DNS rebinding). It writes only into the
--out folder given on the command line.
"""
import csv
import datetime
import hashlib
import os
import secrets
import struct
import threading

from aiohttp import web

from host.errors import UserError
from host.i18n import N_, _, ngettext
from host.i18n import web as i18n_web
from host.europe import mapformat
from host.web.server import serve

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "map_editor.html")
SCRIPT = os.path.join(HERE, "map_editor.js")
I18N_SCRIPT = os.path.join(os.path.dirname(HERE), "web", "static", "i18n.js")
LONDON_TRANSPORTS = ("taxi", "bus", "underground", "ferry")
MAX_BODY = 4 << 20
PHOTO_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp",
               ".svg": "image/svg+xml", ".gif": "image/gif"}


def add_arguments(parser):
    parser.add_argument("photo", help=_("a photo (or scan) of your board: PNG, JPEG, WebP, SVG"))
    parser.add_argument("--map", metavar="FOLDER", help=_("open an existing map: a Europe map folder or data/london"))
    parser.add_argument("--out", metavar="FOLDER", help=_("where Save writes the map folder (default: ./my-map)"))
    parser.add_argument("--port", type=int, default=0, help=_("port on 127.0.0.1 (default: any free one)"))
    parser.add_argument("--no-browser", action="store_true", help=_("print the URL, do not open a browser"))


def photo_size(path):
    """(width, height) of a PNG or JPEG from its header; None if unknown (the page measures it)."""
    with open(path, "rb") as f:
        head = f.read(64 * 1024)
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", head[16:24])
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(head):
            if head[i] != 0xFF:
                i += 1
                continue
            marker = head[i + 1]
            if marker in (0xC0, 0xC1, 0xC2):
                h, w = struct.unpack(">HH", head[i + 5:i + 9])
                return w, h
            i += 2 + struct.unpack(">H", head[i + 2:i + 4])[0]
    return None


def is_london(folder):
    return os.path.exists(os.path.join(folder, "stations.csv")) and os.path.exists(os.path.join(folder, "edges.csv"))


def load_existing(folder):
    """The page's state for an existing map folder (Europe format, or London's)."""
    if is_london(folder):
        with open(os.path.join(folder, "stations.csv"), newline="") as f:
            cities = [{"n": int(r["station"]), "x": float(r["x"]), "y": float(r["y"]), "kind": None}
                      for r in csv.DictReader(f)]
        with open(os.path.join(folder, "edges.csv"), newline="") as f:
            connections = [[int(r["a"]), int(r["b"]), r["transport"]] for r in csv.DictReader(f)]
        cards = []
        path = os.path.join(folder, "start_cards.csv")
        if os.path.exists(path):
            with open(path, newline="") as f:
                cards = [[int(r["station"]), r["side"]] for r in csv.DictReader(f)]
        return {"format": "london", "cities": cities, "connections": connections, "london_cards": cards,
                "rings": {}, "destinations": {}, "start_cards": []}
    try:
        m = mapformat.read_map(folder, whole=False)
    except mapformat.MapFormatError as e:
        raise UserError(_("cannot open %(folder)s: %(problem)s") % {"folder": folder, "problem": e})
    return {"format": "europe",
            "cities": [{"n": c, "x": x, "y": y, "kind": mapformat.KINDS[k]} for c, (x, y, k) in sorted(m.cities.items())],
            "connections": [[a, b, mapformat.TRANSPORTS[t]] for a, b, t in m.connections],
            "rings": {lv: list(m.rings[lv]) for lv in mapformat.LEVELS},
            "destinations": dict(m.destinations), "start_cards": list(m.start_cards)}


class SaveError(ValueError):
    pass


def _number(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        # x and y are the coordinates' names in every language
        raise SaveError(_("%s must be a number") % (what if what in ("x", "y") else _(what)))
    return v


def _coordinate(v, what):
    v = round(float(_number(v, what)), 1)
    return int(v) if v.is_integer() else v


def europe_from_state(state):
    """A EuropeMap from the page's state (numbers checked); problems it cannot save are raised."""
    m = mapformat.EuropeMap()
    unnumbered = 0
    for c in state.get("cities", []):
        n = c.get("n")
        if n is None:
            unnumbered += 1
            continue
        n = int(_number(n, N_("a city number")))
        if n in m.cities:
            raise SaveError(_("city number %d is used twice") % n)
        kind = c.get("kind") or "car"
        if kind not in mapformat.KINDS:
            raise SaveError(_("unknown kind %r") % kind)
        m.cities[n] = (_coordinate(c.get("x"), "x"), _coordinate(c.get("y"), "y"), mapformat.KINDS.index(kind))
    for a, b, t in state.get("connections", []):
        if t not in mapformat.TRANSPORTS:
            raise SaveError(_("unknown transport %r") % t)
        a, b = int(_number(a, N_("a city"))), int(_number(b, N_("a city")))
        m.connections.append((min(a, b), max(a, b), mapformat.TRANSPORTS.index(t)))
    for level in mapformat.LEVELS:
        m.rings[level] = [int(_number(c, N_("a ring"))) for c in state.get("rings", {}).get(level, [])]
        d = state.get("destinations", {}).get(level)
        if d is not None:
            m.destinations[level] = int(_number(d, N_("a destination")))
    m.start_cards = [int(_number(c, N_("a start card"))) for c in state.get("start_cards", [])]
    return m, unnumbered


def provenance(state, photo):
    with open(photo, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    fit = state.get("fit") or []
    lines = ["# Provenance", "",
             "Transcribed with `yard map-editor` (the project's digitizer) on %s UTC." % datetime.datetime.now(
                 datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
             "Photo: `%s`, SHA-256 %s." % (os.path.basename(photo), digest)]
    if len(fit) >= 4:
        lines.append("Fit: %d known points (photo pixel -> board coordinate), RMS residual %.2f." % (
            len(fit), float(state.get("fit_rms") or 0)))
        for p in fit:
            lines.append("- photo (%.1f, %.1f) -> board (%s, %s)" % (p["px"], p["py"], p["x"], p["y"]))
    else:
        lines.append("No fit: coordinates are pixels of the photo.")
    note = (state.get("note") or "").strip()
    lines += ["", "## The transcriber's note", "", note or "(none given)", ""]
    return "\n".join(lines)


def save_state(state, out, photo):
    """Write the page's map into `out`; returns (files written, problems the checks found)."""
    if not isinstance(state, dict) or state.get("format") not in ("europe", "london"):
        raise SaveError(_("the map's format is europe or london"))
    os.makedirs(out, exist_ok=True)
    problems = []
    if state["format"] == "london":
        written = save_london(state, out)
    else:
        m, unnumbered = europe_from_state(state)
        if unnumbered:
            problems.append(ngettext("%d city without a number was not saved", "%d cities without a number were not saved",
                                     unnumbered) % unnumbered)
        m.provenance = provenance(state, photo)
        mapformat.write_map(m, out)
        written = list(mapformat.FILES) + [mapformat.PROVENANCE]
        try:
            problems += [_("warning: %s") % w for w in mapformat.read_map(out).warnings]
        except mapformat.MapFormatError as e:
            problems.append(str(e))
    return written, problems


def save_london(state, out):
    rows = []
    for c in state.get("cities", []):
        if c.get("n") is None:
            continue
        rows.append((int(_number(c["n"], N_("a station"))), _coordinate(c.get("x"), "x"), _coordinate(c.get("y"), "y")))
    with open(os.path.join(out, "stations.csv"), "w", newline="") as f:
        f.write("station,x,y\n" + "".join("%d,%s,%s\n" % r for r in sorted(rows)))
    edges = []
    for a, b, t in state.get("connections", []):
        if t not in LONDON_TRANSPORTS:
            raise SaveError(_("unknown transport %r") % t)
        a, b = int(_number(a, N_("a station"))), int(_number(b, N_("a station")))
        edges.append((min(a, b), max(a, b), LONDON_TRANSPORTS.index(t)))
    with open(os.path.join(out, "edges.csv"), "w", newline="") as f:
        f.write("a,b,transport\n" + "".join("%d,%d,%s\n" % (a, b, LONDON_TRANSPORTS[t]) for a, b, t in sorted(set(edges))))
    cards = state.get("london_cards") or []
    with open(os.path.join(out, "start_cards.csv"), "w", newline="") as f:
        f.write("station,side\n" + "".join("%d,%s\n" % (int(c), str(s)) for c, s in cards if s in ("D", "X")))
    return ["stations.csv", "edges.csv", "start_cards.csv"]


def make_app(photo, existing, out, token):
    app = web.Application(client_max_size=MAX_BODY)

    def guard(request, write=False):
        host = request.host.split(":")[0]
        if host not in ("127.0.0.1", "localhost"):
            raise web.HTTPForbidden(text=_("the digitizer answers on 127.0.0.1 only"))
        if write and request.headers.get("X-Editor-Token") != token:
            raise web.HTTPForbidden(text=_("wrong or missing token"))

    async def page(request):
        guard(request)
        return web.FileResponse(PAGE, headers={"Cache-Control": "no-store"})

    async def script(request):
        guard(request)
        return web.FileResponse(SCRIPT, headers={"Cache-Control": "no-store", "Content-Type": "text/javascript"})

    async def photo_file(request):
        guard(request)
        ext = os.path.splitext(photo)[1].lower()
        return web.FileResponse(photo, headers={"Content-Type": PHOTO_TYPES.get(ext, "application/octet-stream")})

    async def init(request):
        guard(request)
        size = photo_size(photo)
        return web.json_response({"photo": os.path.basename(photo), "size": size, "out": out,
                                  "map": existing, "token_ok": request.headers.get("X-Editor-Token") == token})

    async def save(request):
        guard(request, write=True)
        try:
            state = await request.json()
            written, problems = save_state(state, out, photo)
        except (ValueError, SaveError, TypeError, KeyError) as e:
            return web.json_response({"ok": False, "error": str(e)}, status=400)
        return web.json_response({"ok": True, "out": out, "written": written, "problems": problems})

    async def words(request):
        guard(request)
        return web.FileResponse(I18N_SCRIPT, headers={"Cache-Control": "no-store", "Content-Type": "text/javascript"})

    app.router.add_get("/", page)
    app.router.add_get("/editor.js", script)
    app.router.add_get("/i18n.js", words)  # the page's words: the catalog yard speaks (docs/i18n.md)
    i18n_web.add_route(app)
    app.router.add_get("/photo", photo_file)
    app.router.add_get("/api/init", init)
    app.router.add_post("/api/save", save)
    return app


def start_editor(photo, map_folder=None, out="my-map", port=0):
    """Serve the digitizer in a background thread; (url, stop)."""
    if not os.path.isfile(photo):
        raise UserError(_("no photo at %s") % photo)
    existing = load_existing(map_folder) if map_folder else None
    token = secrets.token_urlsafe(16)
    out = os.path.abspath(out)
    try:
        port, stop = serve(make_app(os.path.abspath(photo), existing, out, token), "127.0.0.1", port,
                           name="yard-map-editor")
    except Exception as e:  # noqa: BLE001 - a port in use, say: the user is told
        raise UserError(_("cannot serve the digitizer: %s") % e)
    url = "http://127.0.0.1:%d/#token=%s" % (port, token)
    return url, stop


def run(args):
    url, stop = start_editor(args.photo, args.map, args.out or "my-map", args.port)
    print(_("The digitizer: %s") % url, flush=True)
    print(_("Save writes into %s. Ctrl-C ends.") % os.path.abspath(args.out or "my-map"), flush=True)
    if not args.no_browser:
        import webbrowser
        webbrowser.open(url)
    try:
        threading.Event().wait()
    finally:
        stop()
    return 0

