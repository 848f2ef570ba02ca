"""The public browser view of a Europe game: what the detectives may see, nothing more.

The page polls /api/state. The state is computed from the public record only (the lines the board
keeps: `EuropeMatch.public`), replayed in secret mode, so Mister X's city, his hand and the bag's
seed cannot reach the page even by mistake: the detectives' positions and hands (public in the
game), Mister X's ticket board (transports, a covert move face down, the spent special tickets),
his hand's size, the cities investigations and position checks showed, his possible cities, the
bag's size, the phase and the result. Served on 127.0.0.1 only.
"""
import json
import os

from aiohttp import web

from host.europe.mapformat import read_map, KINDS, TRANSPORTS
from host.i18n import N_, web as i18n_web
from host.web.server import serve
from sy.europe.record import Replayer
from sy.europe.rules import ticket_name, COVERT, TRANSPORT_NAMES, LEVEL_NAMES

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "europe_view.html")
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "europe_view.js")
I18N_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "web", "static", "i18n.js")
PHASES = ("deal", "Mister X", "Mister X refills", "detectives", "detectives refill", "over")


def public_state(lines, graph):
    """The view's state from public record lines (dicts)."""
    r = Replayer(lambda _name: graph)
    for line in lines:
        r.feed(json.dumps(line))
    g = r.game
    if g is None:
        return {"stage": "idle"}
    log = []
    for e in range(1, len(g.trail)):
        t = g.trail[e][0]
        log.append({"entry": e, "transport": "covert" if t == COVERT else TRANSPORT_NAMES[t],
                    "shown": g.trail[e][2] or None})
    return {"stage": "over" if g.result else "play", "round": g.round, "phase": PHASES[g.phase],
            "level": LEVEL_NAMES[g.level], "destination": g.graph.destination(g.level),
            "detectives": [{"piece": "D%d" % (i + 1), "city": g.pos[i], "player": "P%d" % g.owner[i]} for i in range(g.n)],
            "hands": {g.hand_name(h): [ticket_name(t) for t in range(12) for _ in range(g.hands[h][t])]
                      for h in range(1, len(g.hand_size))},
            "mrx_hand": g.hand_count[0], "mrx_log": log, "start_shown": g.trail[0][2] or None,
            "spent": [ticket_name(t) for t in range(12) for _ in range(g.out[t])],
            "bag": g.bag_total, "shown": sorted(set(g.shown)), "possible": g.candidates(),
            "result": g.result, "reason": g.reason}


def map_picture(folder):
    m = read_map(folder)
    return {"cities": {str(c): [x, y, KINDS[k]] for c, (x, y, k) in m.cities.items()},
            "connections": [[a, b, TRANSPORTS[t]] for a, b, t in m.connections]}


def start_view(public_lines, graph, map_folder, port=0):
    """Serve the view in a background thread; `public_lines` is the live list of public lines."""
    picture = map_picture(map_folder)

    def guard(request):
        if request.host.split(":")[0] not in ("127.0.0.1", "localhost"):
            raise web.HTTPForbidden(text=i18n_web.gettext_for(request, N_("the view serves this computer only")))

    async def page(request):
        guard(request)
        return web.FileResponse(PAGE, headers={"Cache-Control": "no-store"})

    async def picture_json(request):
        guard(request)
        return web.json_response(picture)

    async def state(request):
        guard(request)
        return web.json_response(public_state(list(public_lines), graph))

    async def script(request):
        guard(request)
        return web.FileResponse(SCRIPT, headers={"Cache-Control": "no-store", "Content-Type": "text/javascript"})

    async def words(request):
        guard(request)
        return web.FileResponse(I18N_SCRIPT, headers={"Cache-Control": "no-store", "Content-Type": "text/javascript"})

    app = web.Application()
    app.router.add_get("/", page)
    app.router.add_get("/i18n.js", words)
    app.router.add_get("/view.js", script)  # the page's words: the catalog yard speaks (docs/i18n.md)
    i18n_web.add_route(app)
    app.router.add_get("/api/map", picture_json)
    app.router.add_get("/api/state", state)
    try:
        port, stop = serve(app, "127.0.0.1", port, name="yard-europe-view")
    except Exception as e:  # noqa: BLE001 - said to the caller as the view's failure
        raise RuntimeError("the Europe view did not start: %s" % e)
    return "http://127.0.0.1:%d/" % port, stop
