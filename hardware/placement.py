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
LED_OFFSET_MM = 6.5          # from the station centre, opposite the reed
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
    """{station: angle}: the direction whose groove keeps farthest from every other station."""
    out = {}
    clearance = {}
    for s, c in pos.items():
        near = [q for t, q in pos.items() if t != s and math.dist(q, c) < REED_LENGTH_MM + 30]
        best = None
        for k in range(REED_DIRECTIONS):
            ang = 2 * math.pi * k / REED_DIRECTIONS
            a, b = reed_segment(c, ang)
            led = (c[0] - LED_OFFSET_MM * math.cos(ang), c[1] - LED_OFFSET_MM * math.sin(ang))
            gap = min([_seg_point_distance(q, a, b) for q in near] + [math.dist(led, q) for q in near] or [99.0])
            if best is None or gap > best[0] + 1e-9:
                best = (gap, ang)
        out[s] = best[1]
        clearance[s] = best[0]
    return out, clearance


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
        self.angles, self.clearance = choose_reed_angles(self.pos)
        self.route = led_route(self.pos)
        self.led_index = {s: i for i, s in enumerate(self.route)}
        self.warnings = reach_warnings(self.pos, self.angles)

    def led_position(self, s):
        c, a = self.pos[s], self.angles[s]
        return (c[0] - LED_OFFSET_MM * math.cos(a), c[1] - LED_OFFSET_MM * math.sin(a))

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
    try:
        pl = placement_from_file(args.measurements)
    except (PlacementError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    print(pl.summary())
    for p in write_outputs(pl, args.out, pdf=not args.no_pdf):
        print("wrote", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
