"""The reader module as a two-layer PCB a fab can make, from hardware/wiring.net.

    python -m hardware.pcb [-o build/pcb]

The parts sit on the stripboard's 2.54 mm grid, all through-hole, where PLACES puts them: the
stripboard's placement (hardware.stripboard.PLACES) with the parts a PCB lets sit otherwise
moved (the courtyard check, on both placements: no two parts' courtyards overlap, the box
headers' shrouds and the corner standoffs included). A maze router joins each net's pads on a 0.635 mm grid on both copper layers
(orthogonal tracks, vias where it changes layer), keeping every other net's copper at least
CLEARANCE away by construction. The design-rules check then measures the finished copper
itself, independently of the router: every pair of features of different nets on a layer, track
widths, annular rings, drills, copper to the board's edge, against the design's rules and a common
fab's minimums (FAB). Gerbers (copper, mask, silkscreen, outline) and an Excellon drill file are
written with gerbonara, with a BOM and a placement (CPL) file and pictures of both sides; the
tests read the Gerbers back with gerbonara and find the netlist in the copper.
"""
import argparse
import csv
import heapq
import math
import os
import shutil
import subprocess
import sys

from hardware import missing_extra, stripboard, wiring
from sy.hardware import boardconfig

PITCH = stripboard.PITCH
GRID = PITCH / 4                # routing grid: 0.635 mm
MARGIN = 2 * PITCH              # board edge to the outermost pad centres
TRACK = 0.3
CLEARANCE = 0.25
PAD = 1.7                       # through-hole pad diameter (pins and headers)
DRILL = 1.0                     # 0.64 mm square pins and 0.5 mm wire leads
VIA = 0.8
VIA_DRILL = 0.4
MOUNT_DRILL = 3.2               # M3, not plated
EDGE_CLEARANCE = 0.5
VIA_COST = 12                   # grid steps a layer change is worth
# A common fab's two-layer minimums (JLCPCB, PCBWay class): trace, space, annular ring, drill, mm
FAB = {"track": 0.127, "clearance": 0.127, "annular": 0.13, "drill": 0.3, "edge": 0.3}
LAYERS = ("top", "bottom")
FOOTPRINTS = {"U3": "DIP-16 socket", "U4": "DIP-14 socket", "U5": "DIP-20 socket", "RN1": "SIP-10",
              "J3": "2x5 box header", "J4": "2x5 box header", "J5": "1x8 pin header", "J6": "1x8 pin header",
              "C2": "disc 2.54 mm", "C3": "disc 2.54 mm", "C4": "disc 2.54 mm",
              "R7": "axial 12.7 mm", "R8": "axial 12.7 mm", "R9": "axial 12.7 mm"}


BOARD_NAME = "SCOTLAND YARD READER"
REVISION = "D"                  # the design's revision, as in the schematic's title block
SILK_LINE = 0.15                # a common fab's minimum silkscreen line
SILK_TEXT = 1.0                 # text height, mm (the fab's minimum for legible text)
SILK_TO_PAD = 0.2               # silkscreen kept off the pads' exposed copper
# A footprint's body beyond its outermost pin centres, mm: (across the pin rows, along them). The
# courtyard is the body or the pads, whichever reaches further, + COURTYARD_MARGIN (IPC-7351).
BODIES = {"DIP-16 socket": (1.27, 1.27), "DIP-14 socket": (1.27, 1.27), "DIP-20 socket": (1.27, 1.27),
          "SIP-10": (1.25, 1.27),
          "2x5 box header": (3.18, 5.07),     # the shroud: 20.3 x 8.9 mm around 10.16 x 2.54 mm of pins
          "1x8 pin header": (1.27, 1.27),
          "disc 2.54 mm": (1.25, 0.63),       # a dipped radial 100 nF, 3.8 x 2.5 mm
          "axial 12.7 mm": (1.25, 0.0)}       # a 1/4 W resistor, 6.3 x 2.5 mm between its pads
COURTYARD_MARGIN = 0.25
STANDOFF = 6.4                  # an M3 hex standoff across its corners, mm


def _box_header_across(r, c):
    """A 2x5 box header lying along a row: odd pins (signals) on row r, even pins (GND) on row
    r + 1, pin 1 at column c (a PCB's tracks need not follow strips)."""
    out = {}
    for k in range(5):
        out[str(2 * k + 1)] = (r, c + k)
        out[str(2 * k + 2)] = (r + 1, c + k)
    return out


# the PCB's hole grid: 40 x 20 positions 2.54 mm apart (the stripboard's first 20 rows), M3 holes
# at its corners
ROWS, COLS = 20, 40
MOUNTING = ((0, 0), (0, COLS - 1), (ROWS - 1, 0), (ROWS - 1, COLS - 1))

# part -> {pin: (row, column)} on the PCB: the stripboard's places, and where the PCB differs
PLACES = dict(stripboard.PLACES, **{
    # IN one column in: its shroud clears the corner standoff
    "J3": stripboard._box_header(1, 3, gnd_left=True),
    # OUT along the top edge, between J6 and the corner standoff: its shroud (20.3 mm along the
    # pins) clears U5's socket, C4 and the standoff
    "J4": _box_header_across(2, 30),
    "U5": stripboard._dip(7, 32, 20),
    "C3": {"1": (5, 29), "2": (5, 30)},       # beside U4's VCC corner, off U5's socket
    "C4": {"1": (7, 37), "2": (6, 37)},
    "R8": {"1": (18, 28), "2": (18, 33)},
    "R9": {"1": (19, 22), "2": (19, 27)},     # beside R8, not beneath it: their bodies are 2.5 mm wide
})


class RouteError(Exception):
    pass


class Board:
    def __init__(self):
        self.w = (COLS - 1) * PITCH + 2 * MARGIN
        self.h = (ROWS - 1) * PITCH + 2 * MARGIN
        self.pads = []      # (pin ref, net or None, (x, y))
        self.tracks = []    # (layer, net, (x0, y0), (x1, y1))
        self.vias = []      # (net, (x, y))
        self.mounts = []    # (x, y)

    def xy(self, hole):
        """A stripboard hole (row, col) in mm, y up, origin at the board's lower left corner."""
        r, c = hole
        return (MARGIN + c * PITCH, MARGIN + (ROWS - 1 - r) * PITCH)


def place(nl):
    b = Board()
    for ref in stripboard.READER_PARTS:
        for num, pin in nl.parts[ref].pins.items():
            b.pads.append((pin.ref, pin.net.name if pin.net else None, b.xy(PLACES[ref][num])))
    b.mounts = [b.xy(h) for h in MOUNTING]
    return b


# ---- the router ----------------------------------------------------------------------------------------
class Grid:
    """Which net's copper is near each cell of each layer (0 free, -1 near two nets)."""

    def __init__(self, board, ids):
        self.nx = int(round(board.w / GRID)) + 1
        self.ny = int(round(board.h / GRID)) + 1
        self.near = [[0] * (self.nx * self.ny) for _ in LAYERS]
        self.ids = ids
        edge = int(math.ceil((EDGE_CLEARANCE + TRACK / 2) / GRID))
        for layer in range(2):
            for iy in range(self.ny):
                for ix in range(self.nx):
                    if ix < edge or iy < edge or ix >= self.nx - edge or iy >= self.ny - edge:
                        self.near[layer][iy * self.nx + ix] = -1

    def cell(self, p):
        return int(round(p[1] / GRID)) * self.nx + int(round(p[0] / GRID))

    def at(self, c):
        return ((c % self.nx) * GRID, (c // self.nx) * GRID)

    def mark(self, layers, p, radius, net):
        """Cells closer than radius to p are near net (or near two nets: blocked)."""
        cx, cy = int(round(p[0] / GRID)), int(round(p[1] / GRID))
        k = int(math.ceil(radius / GRID))
        for layer in layers:
            row = self.near[layer]
            for iy in range(max(0, cy - k), min(self.ny, cy + k + 1)):
                for ix in range(max(0, cx - k), min(self.nx, cx + k + 1)):
                    if math.hypot(ix * GRID - p[0], iy * GRID - p[1]) < radius - 1e-9:
                        i = iy * self.nx + ix
                        if row[i] == 0:
                            row[i] = net
                        elif row[i] != net:
                            row[i] = -1

    def free(self, layer, c, net):
        v = self.near[layer][c]
        return v == 0 or v == net

    def via_fits(self, c, net):
        p = self.at(c)
        k = int(math.ceil((VIA / 2 + CLEARANCE + TRACK / 2) / GRID))
        for layer in range(2):
            for dy in range(-k, k + 1):
                for dx in range(-k, k + 1):
                    if math.hypot(dx * GRID, dy * GRID) < VIA / 2 + CLEARANCE + TRACK / 2 - 1e-9:
                        ix, iy = int(round(p[0] / GRID)) + dx, int(round(p[1] / GRID)) + dy
                        if not (0 <= ix < self.nx and 0 <= iy < self.ny) or not self.free(layer, iy * self.nx + ix, net):
                            return False
        return True


PAD_KEEP = PAD / 2 + CLEARANCE + TRACK / 2      # another net's track centre stays this far from a pad
VIA_KEEP = VIA / 2 + CLEARANCE + TRACK / 2
TRACK_KEEP = TRACK + CLEARANCE                  # ... and this far from a track's centre line


def route(board):
    """Route every net; raises RouteError naming a net it could not join."""
    nets = sorted({n for _r, n, _p in board.pads if n})
    ids = {n: i + 1 for i, n in enumerate(nets)}
    pads_of = {n: [p for _r, m, p in board.pads if m == n] for n in nets}
    order = sorted((n for n in nets if len(pads_of[n]) > 1),
                   key=lambda n: (len(pads_of[n]) > 6, _span(pads_of[n])))
    for attempt in range(12):
        g = Grid(board, ids)
        for _r, n, p in board.pads:
            g.mark((0, 1), p, PAD_KEEP, ids[n] if n else -1)
        for p in board.mounts:
            g.mark((0, 1), p, MOUNT_DRILL / 2 + CLEARANCE + TRACK / 2, -1)
        tracks, vias = [], []
        failed = None
        for n in order:
            try:
                t, v = _route_net(g, ids[n], pads_of[n])
            except RouteError:
                failed = n
                break
            tracks += [(layer, n, a, b) for layer, a, b in t]
            vias += [(n, p) for p in v]
        if failed is None:
            board.tracks, board.vias = tracks, vias
            return board
        order.remove(failed)
        order.insert(0, failed)   # the net that did not fit goes first next time
    raise RouteError("no route for net %s" % failed)


def _span(pts):
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (max(xs) - min(xs)) + (max(ys) - min(ys))


def _route_net(g, net, pads):
    """Join pads (mm) of one net: Dijkstra from the net's copper so far to the nearest pad left."""
    tree = {(layer, g.cell(pads[0])) for layer in (0, 1)}
    left = {g.cell(p) for p in pads[1:]}
    tracks, vias = [], []
    nx = g.nx
    while left:
        dist = {s: 0 for s in tree}
        prev = {}
        heap = [(0, s) for s in tree]
        heapq.heapify(heap)
        goal = None
        while heap:
            d, (layer, c) = heapq.heappop(heap)
            if d > dist.get((layer, c), 1e18):
                continue
            if c in left and (layer, c) not in tree:
                goal = (layer, c)
                break
            x, y = c % nx, c // nx
            steps = []
            if x > 0:
                steps.append((layer, c - 1, 1))
            if x < nx - 1:
                steps.append((layer, c + 1, 1))
            if y > 0:
                steps.append((layer, c - nx, 1))
            if y < g.ny - 1:
                steps.append((layer, c + nx, 1))
            steps.append((1 - layer, c, VIA_COST))
            for l2, c2, cost in steps:
                if not g.free(l2, c2, net):
                    continue
                if l2 != layer and c not in left and (layer, c) not in tree and not g.via_fits(c, net):
                    continue
                nd = d + cost
                if nd < dist.get((l2, c2), 1e18):
                    dist[(l2, c2)] = nd
                    prev[(l2, c2)] = (layer, c)
                    heapq.heappush(heap, (nd, (l2, c2)))
        if goal is None:
            raise RouteError(net)
        path = [goal]
        while path[-1] not in tree:
            path.append(prev[path[-1]])
        path.reverse()
        for (l1, c1), (l2, c2) in zip(path, path[1:]):
            if l1 == l2:
                tracks.append((l1, g.at(c1), g.at(c2)))
                g.mark((l1,), g.at(c1), TRACK_KEEP, net)
                g.mark((l1,), g.at(c2), TRACK_KEEP, net)
            elif c1 not in left and (l1, c1) not in tree:
                vias.append(g.at(c1))
                g.mark((0, 1), g.at(c1), VIA_KEEP, net)
        tree.update(path)
        tree.update({(layer, goal[1]) for layer in (0, 1)})   # a pad is on both layers
        left.discard(goal[1])
    return _merge(tracks), vias


def _merge(tracks):
    """Collinear unit steps joined into straight segments."""
    out = []
    for layer, a, b in tracks:
        if out:
            l0, a0, b0 = out[-1]
            if l0 == layer and b0 == a and ((a0[0] == b0[0] == b[0]) or (a0[1] == b0[1] == b[1])):
                out[-1] = (layer, a0, b)
                continue
        out.append((layer, a, b))
    return out


# ---- design rules ---------------------------------------------------------------------------------------
def _seg_dist(a, b, c, d):
    """Distance between segments ab and cd."""
    def pt(p, s, e):
        dx, dy = e[0] - s[0], e[1] - s[1]
        L = dx * dx + dy * dy
        t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - s[0]) * dx + (p[1] - s[1]) * dy) / L))
        return math.hypot(p[0] - s[0] - t * dx, p[1] - s[1] - t * dy)

    def cross(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    if cross(a, b, c) * cross(a, b, d) < 0 and cross(c, d, a) * cross(c, d, b) < 0:
        return 0.0
    return min(pt(a, c, d), pt(b, c, d), pt(c, a, b), pt(d, a, b))


def features(board):
    """[(layer, net, a, b, radius)]: every copper feature as a capsule (a pad or via: a == b)."""
    out = []
    for layer in (0, 1):
        out += [(layer, n or ref, p, p, PAD / 2) for ref, n, p in board.pads]
        out += [(layer, n, p, p, VIA / 2) for n, p in board.vias]
    out += [(layer, n, a, b, TRACK / 2) for layer, n, a, b in board.tracks]
    return out


def drc(board, rules=None):
    """[violation text]: clearance between different nets on each layer, widths, rings, drills, edge."""
    rules = rules or {"track": TRACK, "clearance": CLEARANCE, "annular": min(PAD - DRILL, VIA - VIA_DRILL) / 2,
                      "drill": VIA_DRILL, "edge": EDGE_CLEARANCE}
    bad = []
    for key in FAB:
        if rules[key] < FAB[key] - 1e-9:
            bad.append("rule: %s %.3f mm is under the fab's %.3f mm" % (key, rules[key], FAB[key]))
    if TRACK < rules["track"] - 1e-9:
        bad.append("track width %.3f mm < %.3f mm" % (TRACK, rules["track"]))
    for what, ring in (("pad", (PAD - DRILL) / 2), ("via", (VIA - VIA_DRILL) / 2)):
        if ring < rules["annular"] - 1e-9:
            bad.append("%s annular ring %.3f mm < %.3f mm" % (what, ring, rules["annular"]))
    if min(DRILL, VIA_DRILL) < rules["drill"] - 1e-9:
        bad.append("drill under %.3f mm" % rules["drill"])
    feats = features(board)
    for layer in (0, 1):
        mine = [f for f in feats if f[0] == layer]
        for i, (_l, n1, a1, b1, r1) in enumerate(mine):
            box1 = (min(a1[0], b1[0]) - r1, min(a1[1], b1[1]) - r1, max(a1[0], b1[0]) + r1, max(a1[1], b1[1]) + r1)
            for _l2, n2, a2, b2, r2 in mine[i + 1:]:
                if n1 == n2:
                    continue
                reach = r2 + rules["clearance"]
                if (min(a2[0], b2[0]) - reach > box1[2] or max(a2[0], b2[0]) + reach < box1[0]
                        or min(a2[1], b2[1]) - reach > box1[3] or max(a2[1], b2[1]) + reach < box1[1]):
                    continue
                gap = _seg_dist(a1, b1, a2, b2) - r1 - r2
                if gap < rules["clearance"] - 1e-6:
                    bad.append("clearance %s: %s and %s %.3f mm apart at (%.2f, %.2f)"
                               % (LAYERS[layer], n1, n2, gap, a1[0], a1[1]))
        for _l, n, a, b, r in mine:
            for p in (a, b):
                if min(p[0], p[1], board.w - p[0], board.h - p[1]) - r < rules["edge"] - 1e-6:
                    bad.append("edge: %s copper at (%.2f, %.2f) too near the board's edge" % (n, p[0], p[1]))
    for m in board.mounts:
        for _l, n, a, b, r in feats:
            if _seg_dist(m, m, a, b) - r - MOUNT_DRILL / 2 < rules["clearance"] - 1e-6:
                bad.append("mounting hole at (%.1f, %.1f) too near %s" % (m[0], m[1], n))
    return bad


# ---- courtyards and silkscreen ------------------------------------------------------------------------
def courtyards(board=None, places=None, mounting=None):
    """{ref: (x0, y0, x1, y1)}: each part's body or pads, whichever reaches further, + the margin.
    places, mounting: another placement on the same grid (default: the PCB's PLACES, MOUNTING)."""
    board = board or Board()
    places = PLACES if places is None else places
    mounting = MOUNTING if mounting is None else mounting
    out = {}
    for ref in stripboard.READER_PARTS:
        pts = [board.xy(h) for h in places[ref].values()]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        across, along = BODIES[FOOTPRINTS[ref]]
        if max(xs) - min(xs) > max(ys) - min(ys):   # the pins run along x
            across, along = along, across
        mx = max(across, PAD / 2) + COURTYARD_MARGIN
        my = max(along, PAD / 2) + COURTYARD_MARGIN
        out[ref] = (min(xs) - mx, min(ys) - my, max(xs) + mx, max(ys) + my)
    for k, hole in enumerate(mounting, 1):   # an M3 standoff: 5.5 mm hex, 6.4 mm across corners
        x, y = board.xy(hole)
        r = STANDOFF / 2 + COURTYARD_MARGIN
        out["MH%d" % k] = (x - r, y - r, x + r, y + r)
    return out


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def courtyard_overlaps(yards):
    """[(ref, ref)] whose courtyards overlap: those two parts cannot both be fitted."""
    refs = list(yards)
    return [(a, b) for i, a in enumerate(refs) for b in refs[i + 1:] if _overlap(yards[a], yards[b])]


def _text_box(text, x, y, size):
    from gerbonara.newstroke import Newstroke
    (_x0, _y0), (x1, _y1) = Newstroke.load().bounding_box(text, size)
    return (x - x1 / 2, y - 0.1 * size, x + x1 / 2, y + 1.1 * size)


def _clear_of_pads(box, board):
    r = PAD / 2 + SILK_TO_PAD + SILK_LINE / 2
    for _ref, _n, (px, py) in board.pads:
        dx = max(box[0] - px, 0, px - box[2])
        dy = max(box[1] - py, 0, py - box[3])
        if math.hypot(dx, dy) < r:
            return False
    for mx, my in board.mounts:
        if box[0] - 3.5 < mx < box[2] + 3.5 and box[1] - 3.5 < my < box[3] + 3.5:
            return False   # the standoff's screw head
    return True


def silk_texts(board):
    """[(text, x, y, size)]: each part's reference designator beside its courtyard (or inside a
    socket's body, between its pin rows), and the board's name and revision in a free place; none
    on a pad, on another text or past the board's edge. x, y: the text's bottom centre."""
    yards = courtyards(board)
    placed = []

    def fits(box):
        return (box[0] >= EDGE_CLEARANCE and box[1] >= EDGE_CLEARANCE and box[2] <= board.w - EDGE_CLEARANCE
                and box[3] <= board.h - EDGE_CLEARANCE and _clear_of_pads(box, board)
                and not any(_overlap(box, _text_box(t, x, y, sz)) for t, x, y, sz in placed))

    for ref in stripboard.READER_PARTS:
        x0, y0, x1, y1 = yards[ref]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        spots = [(cx, y1 + 0.2), (cx, y0 - 0.2 - 1.2 * SILK_TEXT), (cx, cy - SILK_TEXT / 2)]
        spots += [(x1 + 0.3 + 1.5 * SILK_TEXT, cy - SILK_TEXT / 2), (x0 - 0.3 - 1.5 * SILK_TEXT, cy - SILK_TEXT / 2)]
        spots += [(cx + dx * PITCH / 2, cy + dy * PITCH / 2) for dx in range(-6, 7) for dy in range(-8, 9)]
        for x, y in spots:
            if fits(_text_box(ref, x, y, SILK_TEXT)):
                placed.append((ref, x, y, SILK_TEXT))
                break
        else:
            raise RouteError("no room on the silkscreen for %s" % ref)
    title = "%s REV %s" % (BOARD_NAME, REVISION)
    for size in (1.5, 1.2, SILK_TEXT):
        spot = next(((x, y) for y in _frange(EDGE_CLEARANCE + 0.2, board.h - 2 * size, 0.25)
                     for x in _frange(board.w / 2, board.w, 0.5, both=True)
                     if fits(_text_box(title, x, y, size))), None)
        if spot:
            placed.append((title, spot[0], spot[1], size))
            return placed
    raise RouteError("no room on the silkscreen for the board's name")


def _frange(a, b, step, both=False):
    """a, a+step, ... < b; both: from the middle a outwards, alternately (a, a-step, a+step, ...)."""
    if both:
        k, out = 0, []
        while step * k < b - a:
            out += [a - step * k, a + step * k] if k else [a]
            k += 1
        return out
    n = int((b - a) / step)
    return [a + step * i for i in range(n + 1)]


def silk_strokes(texts):
    """[[(x, y), ...]]: the texts as polylines in KiCad's newstroke font (shipped with gerbonara)."""
    from gerbonara.newstroke import Newstroke
    font = Newstroke.load()
    out = []
    for text, x, y, size in texts:
        bx0, _by0, _bx1, _by1 = _text_box(text, x, y, size)
        out += [list(st) for st in font.render(text, size=size, x0=bx0, y0=y, scale=(1, -1))]
    return out


# ---- fabrication output ---------------------------------------------------------------------------------
def write(board, nl, outdir):
    from gerbonara import ExcellonFile, GerberFile
    from gerbonara import graphic_objects as go
    from gerbonara.apertures import CircleAperture, ExcellonTool
    from gerbonara.utils import MM
    os.makedirs(outdir, exist_ok=True)
    pad_ap, via_ap, track_ap = CircleAperture(PAD, unit=MM), CircleAperture(VIA, unit=MM), CircleAperture(TRACK, unit=MM)
    mask_pad, mask_via = CircleAperture(PAD + 0.1, unit=MM), CircleAperture(VIA + 0.1, unit=MM)
    line_ap = CircleAperture(0.15, unit=MM)
    files = []

    def save(gf, name):
        path = os.path.join(outdir, name)
        gf.save(path)
        files.append(path)

    for layer, name in ((0, "reader-F_Cu.gtl"), (1, "reader-B_Cu.gbl")):
        gf = GerberFile()
        gf.objects += [go.Flash(p[0], p[1], pad_ap, unit=MM) for _r, _n, p in board.pads]
        gf.objects += [go.Flash(p[0], p[1], via_ap, unit=MM) for _n, p in board.vias]
        gf.objects += [go.Line(a[0], a[1], b[0], b[1], track_ap, unit=MM) for lyr, _n, a, b in board.tracks
                       if lyr == layer]
        save(gf, name)
    for name in ("reader-F_Mask.gts", "reader-B_Mask.gbs"):
        gf = GerberFile()
        gf.objects += [go.Flash(p[0], p[1], mask_pad, unit=MM) for _r, _n, p in board.pads]
        gf.objects += [go.Flash(p[0], p[1], mask_via, unit=MM) for _n, p in board.vias]
        save(gf, name)
    silk = GerberFile()
    for ref in stripboard.READER_PARTS:
        pts = [board.xy(h) for h in PLACES[ref].values()]
        x0, y0 = min(p[0] for p in pts) - 1.2, min(p[1] for p in pts) - 1.2
        x1, y1 = max(p[0] for p in pts) + 1.2, max(p[1] for p in pts) + 1.2
        for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
            silk.objects.append(go.Line(a[0], a[1], b[0], b[1], line_ap, unit=MM))
        p1 = board.xy(PLACES[ref]["1"])   # pin 1: a dot outside the outline
        silk.objects.append(go.Flash(p1[0] - 1.9, p1[1], CircleAperture(0.5, unit=MM), unit=MM))
    text_ap = CircleAperture(SILK_LINE, unit=MM)
    for st in silk_strokes(silk_texts(board)):
        for a, b in zip(st, st[1:]):
            silk.objects.append(go.Line(a[0], a[1], b[0], b[1], text_ap, unit=MM))
    save(silk, "reader-F_SilkS.gto")
    edge = GerberFile()
    w, h = board.w, board.h
    for a, b in (((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0))):
        edge.objects.append(go.Line(a[0], a[1], b[0], b[1], CircleAperture(0.1, unit=MM), unit=MM))
    save(edge, "reader-Edge_Cuts.gm1")
    pth = ExcellonFile()
    pin_tool, via_tool = ExcellonTool(DRILL, plated=True, unit=MM), ExcellonTool(VIA_DRILL, plated=True, unit=MM)
    pth.objects += [go.Flash(p[0], p[1], pin_tool, unit=MM) for _r, _n, p in board.pads]
    pth.objects += [go.Flash(p[0], p[1], via_tool, unit=MM) for _n, p in board.vias]
    path = os.path.join(outdir, "reader-PTH.drl")
    pth.save(path)
    files.append(path)
    npth = ExcellonFile()
    mtool = ExcellonTool(MOUNT_DRILL, plated=False, unit=MM)
    npth.objects += [go.Flash(p[0], p[1], mtool, unit=MM) for p in board.mounts]
    path = os.path.join(outdir, "reader-NPTH.drl")
    npth.save(path)
    files.append(path)
    files += _bom_cpl(board, nl, outdir)
    return files


def _bom_cpl(board, nl, outdir):
    bom = os.path.join(outdir, "reader-bom.csv")
    groups = {}
    for ref in stripboard.READER_PARTS:
        key = (nl.parts[ref].value, FOOTPRINTS[ref])
        groups.setdefault(key, []).append(ref)
    with open(bom, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Comment", "Designator", "Footprint", "Quantity"])
        for (value, fp), refs in groups.items():
            w.writerow([value, ",".join(refs), fp, len(refs)])
    cpl = os.path.join(outdir, "reader-cpl.csv")
    with open(cpl, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Designator", "Mid X", "Mid Y", "Layer", "Rotation"])
        for ref in stripboard.READER_PARTS:
            pts = [board.xy(h) for h in PLACES[ref].values()]
            w.writerow([ref, "%.2fmm" % (sum(p[0] for p in pts) / len(pts)),
                        "%.2fmm" % (sum(p[1] for p in pts) / len(pts)), "Top", 0])
    return [bom, cpl]


def pictures(outdir):
    """Both sides as SVG (gerbonara's rendering of the Gerbers), and PNG through rsvg-convert."""
    import warnings
    from gerbonara import LayerStack
    with warnings.catch_warnings():   # (no paste layers, no bottom silkscreen: through-hole parts)
        warnings.simplefilter("ignore", UserWarning)
        stack = LayerStack.open_dir(outdir)
    out = []
    for side in ("top", "bottom"):
        path = os.path.join(outdir, "reader-%s.svg" % side)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            svg = str(stack.to_pretty_svg(side=side))
        with open(path, "w") as f:
            f.write(svg)
        out.append(path)
        tool = shutil.which("rsvg-convert")
        if tool:
            subprocess.run([tool, "-w", "1200", "-b", "white", "-o", path[:-4] + ".png", path], check=True)
            out.append(path[:-4] + ".png")
    return out


def build(outdir, cfg=None):
    nl = wiring.load(cfg or boardconfig.default())
    board = route(place(nl))
    bad = drc(board)
    files = write(board, nl, outdir)
    return board, bad, files


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.pcb", description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join("build", "pcb"))
    ap.add_argument("--no-pictures", action="store_true")
    args = ap.parse_args(argv)
    missing = missing_extra("pcb", "gerbonara")
    if missing:
        print(missing, file=sys.stderr)
        return 2
    try:
        board, bad, files = build(args.out)
    except RouteError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    if not args.no_pictures:
        files += pictures(args.out)
    print("reader PCB %.1f x %.1f mm, 2 layers: %d pads, %d track segments, %d vias; DRC: %s"
          % (board.w, board.h, len(board.pads), len(board.tracks), len(board.vias),
             "clean" if not bad else "%d violations" % len(bad)))
    for b in bad[:20]:
        print("  " + b)
    for f in files:
        print("wrote", f)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
