"""Placement: where each LED and reed switch goes under the printed board.

From the station coordinates (data/london/stations.csv, a 1639 x 1228 pixel space) and four or
more stations measured on the maker's own board (mm from the board's top-left corner), fit an
affine transform (least squares; residuals shown), then

* choose each reed's direction (one end of the glass under the station, where the piece's magnet
  sits; the body pointing away from every other station, so a neighbour's piece cannot close it),
* route the LED chain as a short serpentine (horizontal bands, alternate directions, then 2-opt),
  which gives the station -> LED index map (and the 74HC165 bit map: 8 route-neighbours per chip),
* draw a real-size drilling template (SVG in mm; A4 tiles; PDF via rsvg-convert when present).

    python -m hardware.placement hardware/example_measurements.csv -o build/placement
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATIONS_CSV = os.path.join(ROOT, "data", "london", "stations.csv")
MAP_SIZE_PX = (1639, 1228)

# Parts under each station (mm). The LED is a WS2812B on a 10 mm round carrier PCB in a pocket of
# the backing plate, shining through a small hole beside the printed number; the reed switch lies
# flat in a groove with one end of its glass under the station centre.
LED_HOLE_MM = 3.0
LED_POCKET_MM = 11.0
# The reed (MKA-14103 class): 14 mm of glass, 2 mm across. Its leads must stay straight for at
# least 2 mm from the glass (bending closer cracks the seal), then bend down into a wire hole
# through the plate. So the groove holds glass + 2 straight leads, and the wire holes sit at its ends.
REED_GLASS_MM = 14.0
REED_GLASS_DIA_MM = 2.0
REED_LEAD_STRAIGHT_MM = 2.0
REED_LENGTH_MM = REED_GLASS_MM + 2 * REED_LEAD_STRAIGHT_MM   # groove length: 18 mm
REED_WIDTH_MM = REED_GLASS_DIA_MM + 1.0                       # groove width
REED_DEPTH_MM = REED_GLASS_DIA_MM + 0.5                       # the glass lies below the plate's face
REED_BACK_MM = REED_LEAD_STRAIGHT_MM   # the groove starts this far behind the centre: the glass's
                                       # near end lies under the station centre
WIRE_HOLE_MM = 1.5                     # at both ends of the groove, through the plate
LED_POCKET_DEPTH_MM = 3.5              # 1.6 mm carrier PCB + 1.6 mm WS2812B + glue
# Every cut in the plate (LED pocket, reed groove, wire hole) keeps at least this much wood to the
# next one, of its own station and of every other: the LED board must never rest on a reed lead.
GEOMETRY_MARGIN_MM = 1.0
# A typical 10-20 AT reed closes from an 8 x 3 mm N42 disc at up to ~12 mm (hardware/README.md):
# a neighbour's piece closer than this to a reed's glass may close it.
MAGNET_REACH_MM = 12.0
REED_DIRECTIONS = 16         # candidate directions tried per station
A4_MM = (210.0, 297.0)
TILE_MARGIN_MM = 10.0        # printers do not print to the paper's edge; tiles overlap by 2x this


class PlacementError(Exception):
    pass


def read_stations(path=STATIONS_CSV):
    """{station: (x_px, y_px)}"""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {int(r["station"]): (float(r["x"]), float(r["y"])) for r in rows}


def read_measurements(path):
    """[(station, x_mm, y_mm)] from a CSV 'station,x_mm,y_mm' ('#' starts a comment)."""
    out = []
    with open(path, newline="") as f:
        lines = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    reader = csv.DictReader(lines)
    need = {"station", "x_mm", "y_mm"}
    if not reader.fieldnames or not need <= set(reader.fieldnames):
        raise PlacementError("%s: the header must be station,x_mm,y_mm" % path)
    for n, r in enumerate(reader, 2):
        try:
            out.append((int(r["station"]), float(r["x_mm"]), float(r["y_mm"])))
        except (TypeError, ValueError):
            raise PlacementError("%s: line %d is not station,x_mm,y_mm: %r" % (path, n, r))
    return out


def _solve3(m, v):
    """Solve the 3x3 system m x = v (Gaussian elimination, partial pivoting)."""
    a = [list(m[i]) + [v[i]] for i in range(3)]
    for c in range(3):
        p = max(range(c, 3), key=lambda r: abs(a[r][c]))
        if abs(a[p][c]) < 1e-9:
            raise PlacementError("the measured stations are (nearly) on one line: measure four stations "
                                 "spread over the board, e.g. near its corners")
        a[c], a[p] = a[p], a[c]
        for r in range(3):
            if r != c:
                f = a[r][c] / a[c][c]
                for k in range(c, 4):
                    a[r][k] -= f * a[c][k]
    return [a[i][3] / a[i][i] for i in range(3)]


class Affine:
    """x_mm = a*x + b*y + c ; y_mm = d*x + e*y + f"""

    def __init__(self, a, b, c, d, e, f):
        self.m = (a, b, c, d, e, f)

    def __call__(self, p):
        a, b, c, d, e, f = self.m
        return (a * p[0] + b * p[1] + c, d * p[0] + e * p[1] + f)

    def scale(self):
        """mm per pixel (geometric mean of the two axes)."""
        a, b, _, d, e, _ = self.m
        return math.sqrt(abs(a * e - b * d))

    def rotation_deg(self):
        a, _, _, d, _, _ = self.m
        return math.degrees(math.atan2(d, a))


class Fit:
    def __init__(self, transform, residuals, check=None):
        self.transform = transform
        self.residuals = residuals        # [(station, dx_mm, dy_mm, distance_mm)]
        # {station: mm}: how far the fit on the *other* stations misses this one. A misread station
        # shows here much more clearly than in its own residual, which least squares spreads out.
        self.check = check or {}

    def suspect(self):
        """The station whose leave-one-out miss is largest, or None."""
        return max(self.check, key=self.check.get) if self.check else None

    @property
    def rms(self):
        return math.sqrt(sum(r[3] ** 2 for r in self.residuals) / len(self.residuals))

    @property
    def max(self):
        return max(self.residuals, key=lambda r: r[3])

    def report(self):
        t = self.transform
        lines = ["affine fit on %d stations: %.4f mm/px, rotation %.2f deg" % (len(self.residuals), t.scale(),
                                                                                 t.rotation_deg())]
        for s, dx, dy, dist in self.residuals:
            lines.append("  station %3d: residual %5.2f mm (dx %+.2f, dy %+.2f); fit on the others misses it by "
                         "%.2f mm" % (s, dist, dx, dy, self.check.get(s, float("nan"))))
        lines.append("  rms %.2f mm, max %.2f mm (station %d)" % (self.rms, self.max[3], self.max[0]))
        if self.check and self.check[self.suspect()] > 2.0:
            lines.append("  WARNING: station %d looks misread (the others place it %.1f mm away): measure it again"
                         % (self.suspect(), self.check[self.suspect()]))
        return "\n".join(lines)


def _lsq(stations, measured):
    """The least-squares affine transform (exact for 3 points)."""
    ata = [[0.0] * 3 for _ in range(3)]
    atx = [0.0] * 3
    aty = [0.0] * 3
    for s, xm, ym in measured:
        row = (stations[s][0], stations[s][1], 1.0)
        for i in range(3):
            atx[i] += row[i] * xm
            aty[i] += row[i] * ym
            for j in range(3):
                ata[i][j] += row[i] * row[j]
    a, b, c = _solve3(ata, atx)
    d, e, f = _solve3(ata, aty)
    return Affine(a, b, c, d, e, f)


def fit_affine(stations, measured):
    """Least-squares affine transform from station pixels to measured mm; needs >= 4 stations
    (3 would fit exactly and hide a wrong measurement)."""
    if len(measured) < 4:
        raise PlacementError("measure at least 4 stations (got %d): three would fit exactly and a "
                             "misread ruler would go unnoticed" % len(measured))
    seen = set()
    for s, _, _ in measured:
        if s not in stations:
            raise PlacementError("station %d is not on the map (1..%d)" % (s, max(stations)))
        if s in seen:
            raise PlacementError("station %d is measured twice" % s)
        seen.add(s)
    t = _lsq(stations, measured)
    check = {}
    for i, (s, xm, ym) in enumerate(measured):
        try:
            x, y = _lsq(stations, measured[:i] + measured[i + 1:])(stations[s])
            check[s] = math.hypot(xm - x, ym - y)
        except PlacementError:  # the other three are on one line: no check for this one
            pass
    res = []
    for s, xm, ym in measured:
        x, y = t(stations[s])
        res.append((s, xm - x, ym - y, math.hypot(xm - x, ym - y)))
    return Fit(t, res, check)


def _seg_point_distance(p, a, b):
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)
    t = max(0.0, min(1.0, t))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def reed_segment(centre, angle):
    ux, uy = math.cos(angle), math.sin(angle)
    x, y = centre
    return ((x - REED_BACK_MM * ux, y - REED_BACK_MM * uy),
            (x + (REED_LENGTH_MM - REED_BACK_MM) * ux, y + (REED_LENGTH_MM - REED_BACK_MM) * uy))


def glass_segment(centre, angle):
    """The reed's glass (not its leads): from the station centre outward."""
    ux, uy = math.cos(angle), math.sin(angle)
    x, y = centre
    return ((x, y), (x + REED_GLASS_MM * ux, y + REED_GLASS_MM * uy))


# ---- geometry of the cuts ---------------------------------------------------------------------------

def _rect(centre, angle):
    """The reed groove's corners: REED_LENGTH_MM x REED_WIDTH_MM from reed_segment's ends."""
    (ax, ay), (bx, by) = reed_segment(centre, angle)
    nx, ny = -math.sin(angle) * REED_WIDTH_MM / 2, math.cos(angle) * REED_WIDTH_MM / 2
    return [(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)]


def _point_in(p, poly):
    sign = None
    for a, b in zip(poly, poly[1:] + poly[:1]):
        c = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        if abs(c) > 1e-12:
            if sign is None:
                sign = c > 0
            elif sign != (c > 0):
                return False
    return True


def _point_poly(p, poly):
    """Distance from point p to the convex polygon poly (0 inside)."""
    if _point_in(p, poly):
        return 0.0
    return min(_seg_point_distance(p, a, b) for a, b in zip(poly, poly[1:] + poly[:1]))


def _poly_poly(p, q):
    """Distance between two convex polygons (0 when they overlap)."""
    if any(_point_in(v, q) for v in p) or any(_point_in(v, p) for v in q):
        return 0.0
    d = min([_point_poly(v, q) for v in p] + [_point_poly(v, p) for v in q])
    if d > 0:
        for a, b in zip(p, p[1:] + p[:1]):
            for c, e in zip(q, q[1:] + q[:1]):
                if _segments_cross(a, b, c, e):
                    return 0.0
    return d


def _segments_cross(a, b, c, d):
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def led_offset():
    """The LED's distance from the station centre, at right angles to the reed: the smallest (in
    0.05 mm steps) at which its pocket keeps GEOMETRY_MARGIN_MM from its own groove and wire holes.
    (Opposite the reed it would need 9.25 mm: the near wire hole sits 2 mm behind the centre.)"""
    r = LED_POCKET_MM / 2 + GEOMETRY_MARGIN_MM
    d = 0.0
    while True:
        led = (0.0, d)   # the reed along +x from the origin
        holes = reed_segment((0.0, 0.0), 0.0)
        if _point_poly(led, _rect((0.0, 0.0), 0.0)) >= r and \
                all(math.dist(led, h) >= r + WIRE_HOLE_MM / 2 for h in holes):
            return round(d, 2)
        d += 0.05


LED_OFFSET_MM = led_offset()   # 8.0 mm


def led_at(centre, angle, side):
    """The LED's centre: LED_OFFSET_MM to the left (side +1) or right (-1) of the reed's direction."""
    return (centre[0] - side * LED_OFFSET_MM * math.sin(angle), centre[1] + side * LED_OFFSET_MM * math.cos(angle))


def cut_conflicts(pos, angles, sides, margin=GEOMETRY_MARGIN_MM):
    """[(station, other station or None, what, gap mm)]: every pair of cuts closer than margin (a
    negative gap: they overlap): within a station its LED pocket against its groove and wire holes,
    between stations every pocket, groove and wire hole against the other's."""
    shapes = {}
    for s, c in pos.items():
        shapes[s] = {"pocket": led_at(c, angles[s], sides[s]), "groove": _rect(c, angles[s]),
                     "holes": reed_segment(c, angles[s])}
    rp, rh = LED_POCKET_MM / 2, WIRE_HOLE_MM / 2
    out = []

    def pair(a, b):
        """gap between cut a of one station and cut b of another (dicts from shapes), by kind"""
        gaps = [("pocket/pocket", math.dist(a["pocket"], b["pocket"]) - 2 * rp),
                ("pocket/groove", _point_poly(a["pocket"], b["groove"]) - rp),
                ("groove/pocket", _point_poly(b["pocket"], a["groove"]) - rp),
                ("groove/groove", _poly_poly(a["groove"], b["groove"]))]
        gaps += [("pocket/hole", math.dist(a["pocket"], h) - rp - rh) for h in b["holes"]]
        gaps += [("hole/pocket", math.dist(b["pocket"], h) - rp - rh) for h in a["holes"]]
        gaps += [("hole/groove", _point_poly(h, b["groove"]) - rh) for h in a["holes"]]
        gaps += [("groove/hole", _point_poly(h, a["groove"]) - rh) for h in b["holes"]]
        return gaps

    for s, sh in shapes.items():
        own = [("pocket/groove", _point_poly(sh["pocket"], sh["groove"]) - rp)]
        own += [("pocket/hole", math.dist(sh["pocket"], h) - rp - rh) for h in sh["holes"]]
        out += [(s, None, what, g) for what, g in own if g < margin - 1e-9]
    keys = sorted(shapes)
    for i, s in enumerate(keys):
        for t in keys[i + 1:]:
            if math.dist(pos[s], pos[t]) > 2 * (REED_LENGTH_MM + LED_OFFSET_MM + LED_POCKET_MM):
                continue
            out += [(s, t, what, g) for what, g in pair(shapes[s], shapes[t]) if g < margin - 1e-9]
    return sorted(out, key=lambda x: x[3])


def reach_warnings(pos, angles, reach=MAGNET_REACH_MM):
    """[(station, neighbour, mm)]: a neighbour's centre (its piece's magnet) closer than reach to
    this station's glass, closest first."""
    out = []
    for s, c in pos.items():
        a, b = glass_segment(c, angles[s])
        for t, q in pos.items():
            if t != s and math.dist(q, c) < reach + REED_GLASS_MM:
                d = _seg_point_distance(q, a, b)
                if d < reach:
                    out.append((s, t, d))
    return sorted(out, key=lambda w: w[2])


def choose_reed_angles(pos):
    """({station: angle}, {station: LED side}, {station: gap}): per station the reed direction and
    the LED's side whose cuts keep clear of the cuts already placed (GEOMETRY_MARGIN_MM) and whose
    groove and LED keep farthest from every other station's centre (where its piece stands)."""
    out, sides, clearance = {}, {}, {}
    rp, rh = LED_POCKET_MM / 2, WIRE_HOLE_MM / 2
    for s, c in sorted(pos.items()):
        near = [q for t, q in pos.items() if t != s and math.dist(q, c) < REED_LENGTH_MM + 30]
        placed = [t for t in out if math.dist(pos[t], c) < 2 * (REED_LENGTH_MM + LED_OFFSET_MM + LED_POCKET_MM)]
        best = None
        for k in range(REED_DIRECTIONS):
            ang = 2 * math.pi * k / REED_DIRECTIONS
            a, b = reed_segment(c, ang)
            rect = _rect(c, ang)
            for side in (1, -1):
                led = led_at(c, ang, side)
                gap = min([_seg_point_distance(q, a, b) for q in near] + [math.dist(led, q) for q in near] or [99.0])
                cut = 99.0
                for t in placed:
                    tled, trect = led_at(pos[t], out[t], sides[t]), _rect(pos[t], out[t])
                    tholes = reed_segment(pos[t], out[t])
                    cut = min([cut, math.dist(led, tled) - 2 * rp, _point_poly(led, trect) - rp,
                               _point_poly(tled, rect) - rp, _poly_poly(rect, trect)]
                              + [math.dist(led, h) - rp - rh for h in tholes]
                              + [math.dist(tled, h) - rp - rh for h in (a, b)]
                              + [_point_poly(h, trect) - rh for h in (a, b)]
                              + [_point_poly(h, rect) - rh for h in tholes])
                score = (min(cut, GEOMETRY_MARGIN_MM), gap)
                if best is None or score > best[0]:
                    best = (score, ang, side)
        out[s], sides[s], clearance[s] = best[1], best[2], best[0][1]
    return out, sides, clearance


def route_length(order, pos):
    return sum(math.dist(pos[a], pos[b]) for a, b in zip(order, order[1:]))


def serpentine(pos, bands):
    """Stations in horizontal bands, left-to-right then right-to-left, from the top."""
    ys = [p[1] for p in pos.values()]
    top, h = min(ys), (max(ys) - min(ys)) / bands + 1e-9
    rows = [[] for _ in range(bands)]
    for s, p in pos.items():
        rows[min(bands - 1, int((p[1] - top) / h))].append(s)
    order = []
    for i, row in enumerate(rows):
        row.sort(key=lambda s: pos[s][0], reverse=bool(i % 2))
        order += row
    return order


def two_opt(order, pos, passes=20):
    """Open-path 2-opt; the first station (the chain's start at the controller) stays first."""
    order = list(order)
    n = len(order)
    d = math.dist
    for _ in range(passes):
        improved = False
        for i in range(1, n - 1):
            a, b = pos[order[i - 1]], pos[order[i]]
            for j in range(i + 1, n):
                c = pos[order[j]]
                old = d(a, b) + (d(c, pos[order[j + 1]]) if j + 1 < n else 0)
                new = d(a, c) + (d(b, pos[order[j + 1]]) if j + 1 < n else 0)
                if new < old - 1e-9:
                    order[i:j + 1] = reversed(order[i:j + 1])
                    b = pos[order[i]]
                    improved = True
        if not improved:
            break
    return order


def led_route(pos, optimise=True):
    """The LED chain: the shortest serpentine over 3..30 bands, then 2-opt. Returns station order."""
    best = min((serpentine(pos, n) for n in range(3, 31)), key=lambda o: route_length(o, pos))
    return two_opt(best, pos) if optimise else best


class Placement:
    def __init__(self, fit, stations=None):
        self.fit = fit
        px = stations or read_stations()
        self.px = px
        self.pos = {s: fit.transform(p) for s, p in px.items()}
        self.angles, self.sides, self.clearance = choose_reed_angles(self.pos)
        self.route = led_route(self.pos)
        self.led_index = {s: i for i, s in enumerate(self.route)}
        self.warnings = reach_warnings(self.pos, self.angles)

    def led_position(self, s):
        return led_at(self.pos[s], self.angles[s], self.sides[s])

    def conflicts(self):
        return cut_conflicts(self.pos, self.angles, self.sides)

    def index_list(self):
        """leds.index / reeds.bits for the config: the chain position of stations 1..199."""
        return [self.led_index[s] for s in sorted(self.pos)]

    def extent(self):
        """(x0, y0, x1, y1) mm of the map area (the pixel frame transformed) and of all parts."""
        w, h = MAP_SIZE_PX
        pts = [self.fit.transform(p) for p in ((0, 0), (w, 0), (w, h), (0, h))]
        pts += [self.led_position(s) for s in self.pos]
        pts += [q for s in self.pos for q in reed_segment(self.pos[s], self.angles[s])]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return (min(min(xs), 0.0) - 5, min(min(ys), 0.0) - 5, max(xs) + 5, max(ys) + 5)

    def summary(self):
        worst = min(self.clearance, key=self.clearance.get)
        x0, y0, x1, y1 = self.extent()
        return "\n".join([
            self.fit.report(),
            "template %.0f x %.0f mm; LED chain %.0f mm (%d LEDs, first station %d, last %d)"
            % (x1 - x0, y1 - y0, route_length(self.route, self.pos), len(self.route), self.route[0],
               self.route[-1]),
            "smallest gap between a reed groove or LED and another station: %.1f mm (station %d)"
            % (self.clearance[worst], worst),
        ] + (["WARNING: %d stations have a neighbour's piece within the magnet's reach (%.0f mm) of their "
              "reed's glass; test those first with a piece on the neighbour (closest: station %d, neighbour %d "
              "at %.1f mm)" % (len({w[0] for w in self.warnings}), MAGNET_REACH_MM, self.warnings[0][0],
                               self.warnings[0][1], self.warnings[0][2])] if self.warnings else
             ["every station's reed glass is at least %.0f mm from every other station's centre" % MAGNET_REACH_MM]))

    # --- drawing -------------------------------------------------------------------------------

    def svg_body(self):
        out = []
        t = self.fit.transform
        w, h = MAP_SIZE_PX
        frame = " ".join("%.2f,%.2f" % t(p) for p in ((0, 0), (w, 0), (w, h), (0, h)))
        out.append('<polygon class="frame" points="%s" fill="none" stroke="#999" stroke-width="0.3"/>' % frame)
        route = " ".join("%.2f,%.2f" % self.led_position(s) for s in self.route)
        out.append('<polyline class="route" points="%s" fill="none" stroke="#2a7" stroke-width="0.4" '
                   'stroke-dasharray="2,1"/>' % route)
        for s in sorted(self.pos):
            x, y = self.pos[s]
            a, b = reed_segment(self.pos[s], self.angles[s])
            lx, ly = self.led_position(s)
            deg = math.degrees(self.angles[s])
            out.append('<g class="station" id="s%d">' % s)
            out.append('<rect class="reed" x="%.2f" y="%.2f" width="%.2f" height="%.2f" '
                       'transform="rotate(%.1f %.2f %.2f)" fill="none" stroke="#c33" stroke-width="0.3"/>'
                       % (x - REED_BACK_MM, y - REED_WIDTH_MM / 2, REED_LENGTH_MM, REED_WIDTH_MM, deg, x, y))
            for hx, hy in (a, b):
                out.append('<circle class="wirehole" cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="#c33" '
                           'stroke-width="0.2"/>' % (hx, hy, WIRE_HOLE_MM / 2))
            out.append('<circle class="pocket" cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="#36c" '
                       'stroke-width="0.2" stroke-dasharray="1,0.6"/>' % (lx, ly, LED_POCKET_MM / 2))
            out.append('<circle class="led" cx="%.2f" cy="%.2f" r="%.2f" fill="none" stroke="#000" '
                       'stroke-width="0.3"/>' % (lx, ly, LED_HOLE_MM / 2))
            out.append('<path class="centre" d="M%.2f %.2fh4M%.2f %.2fv4" stroke="#000" stroke-width="0.2"/>'
                       % (x - 2, y, x, y - 2))
            tx, ty = x + 3.5 * math.cos(self.angles[s] + 1.9), y + 3.5 * math.sin(self.angles[s] + 1.9)
            out.append('<text class="label" x="%.2f" y="%.2f" font-size="2.6" font-family="sans-serif" '
                       'text-anchor="middle">%d</text>' % (tx, ty + 1, s))
            out.append('<text class="ledno" x="%.2f" y="%.2f" font-size="1.8" font-family="sans-serif" '
                       'fill="#36c" text-anchor="middle">L%d</text>' % (lx, ly - LED_POCKET_MM / 2 - 0.6,
                                                                         self.led_index[s]))
            out.append('</g>')
        return "\n".join(out)

    def legend(self, x, y):
        s = self.fit
        return ('<text x="%.1f" y="%.1f" font-size="3.5" font-family="sans-serif">Scotland Yard drilling '
                'template, 1:1 (%.4f mm/px, fit rms %.2f mm). Check: this bar is 100 mm.</text>'
                '<path class="scalebar" d="M%.1f %.1fh100" stroke="#000" stroke-width="0.6"/>'
                '<text x="%.1f" y="%.1f" font-size="2.6" font-family="sans-serif">black circle: %.0f mm hole '
                'through the board (LED light); blue dashed: %.0f mm LED pocket in the backing plate; red: '
                'reed groove %.0f x %.0f mm, %.1f mm deep (%.0f mm glass + %.0f mm straight lead each end), '
                'the glass starting under the station; dots: %.1f mm wire holes; LED pockets %.1f mm deep; '
                'green dashed: LED chain; Ln = LED index</text>'
                % (x, y, s.transform.scale(), s.rms, x, y + 3, x, y + 8, LED_HOLE_MM, LED_POCKET_MM,
                   REED_LENGTH_MM, REED_WIDTH_MM, REED_DEPTH_MM, REED_GLASS_MM, REED_LEAD_STRAIGHT_MM,
                   WIRE_HOLE_MM, LED_POCKET_DEPTH_MM))

    def template_svg(self):
        x0, y0, x1, y1 = self.extent()
        y1 += 14
        return ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<svg xmlns="http://www.w3.org/2000/svg" width="%.1fmm" height="%.1fmm" viewBox="%.2f %.2f %.2f '
                '%.2f">\n<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#fff"/>\n%s\n%s\n</svg>\n'
                % (x1 - x0, y1 - y0, x0, y0, x1 - x0, y1 - y0, x0, y0, x1 - x0, y1 - y0, self.svg_body(),
                   self.legend(x0 + 5, y1 - 10)))

    def tiles(self):
        """A4 portrait pages (SVG text each) covering the template, overlapping, with a grid name
        and alignment crosses so the sheets can be taped together."""
        x0, y0, x1, y1 = self.extent()
        y1 += 14
        pw, ph = A4_MM[0] - 2 * TILE_MARGIN_MM, A4_MM[1] - 2 * TILE_MARGIN_MM
        cols = max(1, math.ceil((x1 - x0) / pw))
        rows = max(1, math.ceil((y1 - y0) / ph))
        body = self.svg_body() + self.legend(x0 + 5, y1 - 10)
        pages = []
        for r in range(rows):
            for c in range(cols):
                vx, vy = x0 + c * pw - TILE_MARGIN_MM, y0 + r * ph - TILE_MARGIN_MM
                marks = "".join('<path d="M%.1f %.1fh6m-3 -3v6" stroke="#f0f" stroke-width="0.3"/>'
                                % (x0 + i * pw - 3, y0 + j * ph)
                                for i in (c, c + 1) for j in (r, r + 1))
                pages.append('<?xml version="1.0" encoding="UTF-8"?>\n'
                             '<svg xmlns="http://www.w3.org/2000/svg" width="%gmm" height="%gmm" '
                             'viewBox="%.2f %.2f %g %g">\n<rect x="%.2f" y="%.2f" width="%g" height="%g" '
                             'fill="#fff"/>\n%s\n%s\n<text x="%.1f" y="%.1f" font-size="4" '
                             'font-family="sans-serif" fill="#f0f">sheet row %d col %d of %dx%d</text>\n</svg>\n'
                             % (A4_MM[0], A4_MM[1], vx, vy, A4_MM[0], A4_MM[1], vx, vy, A4_MM[0], A4_MM[1],
                                body, marks, vx + 12, vy + 7, r + 1, c + 1, rows, cols))
        return pages, rows, cols


def placement_from_file(measurements_path, stations=None):
    stations = stations or read_stations()
    return Placement(fit_affine(stations, read_measurements(measurements_path)), stations)


# the example board's measurements: the tools' default, and the figures in hardware/README.md
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "example_measurements.csv")


def add_measurements_argument(ap):
    """The --measurements option of the tools that size things for your board (bom, magnets)."""
    ap.add_argument("--measurements", default=EXAMPLE, help="station,x_mm,y_mm CSV (default: the example)")


def placement_or_say(measurements_path):
    """The placement for a tool's command line, or None after one clear line on stderr."""
    try:
        return placement_from_file(measurements_path)
    except (OSError, PlacementError) as e:
        print("error: %s" % e, file=sys.stderr)
        return None


def write_outputs(pl, outdir, pdf=True):
    """Write template.svg, tile-RR-CC.svg, route.csv (and template.pdf / tiles.pdf when rsvg-convert is
    installed). Returns the list of files written."""
    os.makedirs(outdir, exist_ok=True)
    files = []

    def put(name, text):
        p = os.path.join(outdir, name)
        with open(p, "w") as f:
            f.write(text)
        files.append(p)
        return p

    template = put("template.svg", pl.template_svg())
    pages, rows, cols = pl.tiles()
    tile_files = [put("tile-%02d-%02d.svg" % (i // cols + 1, i % cols + 1), t) for i, t in enumerate(pages)]
    lines = ["led_index,station,x_mm,y_mm,reed_angle_deg"]
    for i, s in enumerate(pl.route):
        x, y = pl.pos[s]
        lines.append("%d,%d,%.1f,%.1f,%.0f" % (i, s, x, y, math.degrees(pl.angles[s])))
    put("route.csv", "\n".join(lines) + "\n")
    rsvg = shutil.which("rsvg-convert")
    if pdf and rsvg:
        for src, dst in (([template], "template.pdf"), (tile_files, "tiles.pdf")):
            subprocess.run([rsvg, "-f", "pdf", "-o", os.path.join(outdir, dst)] + src, check=True)
            files.append(os.path.join(outdir, dst))
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.placement", description=__doc__.split("\n\n")[0])
    ap.add_argument("measurements", help="CSV station,x_mm,y_mm of >= 4 stations measured on your board")
    ap.add_argument("-o", "--out", default="build/placement", help="output folder (default build/placement)")
    ap.add_argument("--no-pdf", action="store_true", help="do not call rsvg-convert")
    args = ap.parse_args(argv)
    pl = placement_or_say(args.measurements)
    if pl is None:
        return 2
    print(pl.summary())
    for p in write_outputs(pl, args.out, pdf=not args.no_pdf):
        print("wrote", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
