"""The reader board (one 74HC165 with its 8 reeds) as a stripboard layout, from hardware/wiring.net.

    python -m hardware.stripboard [-o build/reader-stripboard.svg]

The parts' places are fixed here (PLACES); everything else comes from the netlist: where a strip
must be cut (two nets on one strip), and which wire links join the pieces of one net. `connections()`
walks the finished board (strips, cuts, links) back to nets; the test checks that it gives exactly
the netlist's nets, so a missing cut (a short) or a missing link (an open) fails. Each part's body
(`bodies()`: the PCB's footprints, a box header's shroud included, and the standoffs' screw heads)
is an obstacle: no link lies under one (`links_under_parts()`), and every body lies inside the
board's edge (`edge_margins()`). Links of different nets that cross are insulated wire
(`crossing_links()`).

Strips run left to right (rows); holes are 2.54 mm apart. Two kinds of cut: at a free hole (a 3 mm
drill bit turned by hand, or a spot-face cutter) and between two adjacent holes (two knife scores
1 mm apart, the copper between them lifted), needed beside the box headers.
"""
import argparse
import math
import os
import sys

from hardware import wiring
from sy.hardware import boardconfig

READER_PARTS = ("U3", "U4", "U5", "RN1", "C2", "C3", "C4", "R7", "R8", "R9", "J3", "J4", "J5", "J6")
ICS = ("U3", "U4", "U5")
# 20 rows for the parts and 5 spare strips at the bottom: the links that would pass under a
# socket go round it along them
ROWS, COLS = 25, 40
PITCH = 2.54
# four corner holes drilled out to 3.2 mm for M3 standoffs: no part, cut or link may use them
MOUNTING = ((0, 0), (0, COLS - 1), (ROWS - 1, 0), (ROWS - 1, COLS - 1))
# the board's edge lies half a pitch beyond its outer holes' centres (cut midway between two rows)
EDGE = PITCH / 2
# a wire link: 0.6 mm tinned copper, straight between two holes on the component side
LINK_WIRE = 0.6
# ... and keeps this far (mm) from every part's body: the bodies' sizes vary from maker to maker
BODY_GAP = 0.5
# ... two links of different nets closer than this (centre lines, mm) touch: where they must, both
# are insulated wire; the layout tool pays CROSSING holes of length to avoid one
LINK_GAP = LINK_WIRE + 0.4
CROSSING = 20


def _dip(r, c, pins):
    """A DIP straddling the cut under it: pins 1..n/2 down column c, n..n/2+1 down column c+3."""
    half = pins // 2
    out = {str(k): (r + k - 1, c) for k in range(1, half + 1)}
    out.update({str(pins + 1 - k): (r + k - 1, c + 3) for k in range(1, half + 1)})
    return out


def _column(r, c, n):
    return {str(k): (r + k - 1, c) for k in range(1, n + 1)}


def _box_header(r, c, gnd_left):
    """2x5 box header, odd pins (signals) and even pins (GND) in two columns, pin 1 on row r."""
    sig, gnd = (c + 1, c) if gnd_left else (c, c + 1)
    out = {}
    for k in range(5):
        out[str(2 * k + 1)] = (r + k, sig)
        out[str(2 * k + 2)] = (r + k, gnd)
    return out


# part -> {pin number: (row, column)}
PLACES = {
    "J6": {str(k): (0, 8 + k) for k in range(1, 9)},       # reeds' GND leads, 2.54 mm apart on one strip
    # the box headers stand across the strips, IN at the left edge and OUT at the right, on the same
    # five rows: 3V3 passes straight through on rows 2 and 6, and each row between them carries one
    # signal in at one header and its counterpart out at the other (CLK, SH/LD: in at J3, the next
    # board's copy out at J4; SER in at J4, DATA out at J3). Each shroud reaches 5.07 mm past its
    # end pins: pin 1 on row 2 keeps it on the board, and 3.18 mm beside its pins: the GND side's two
    # outer columns stay free for the links that join the GND pins, clear of the corner standoffs
    "J3": _box_header(2, 3, gnd_left=True),                  # IN, toward the controller
    "J4": _box_header(2, 35, gnd_left=False),                # OUT, to the next board
    "U3": _dip(7, 8, 16),
    "U4": _dip(7, 26, 14),                                   # CLK and SH/LD re-driver
    "U5": _dip(9, 33, 20),                                   # QH latch, below J4's shroud and 3 holes
                                                             # clear of U4: the links of its pins' pieces
                                                             # stay off both bodies
    "C3": {"1": (7, 31), "2": (8, 31)},                      # on U4's 3V3 and GND rows, beside it
    "C4": {"1": (9, 38), "2": (8, 38)},                      # 3V3 (VCC row) to a GND strip above, one
                                                             # column off U5's socket
    # R8 and R9 on the CLK and SH/LD rows: the strip past each resistor carries the next board's copy
    # to J4, the piece before it the local signal; R9 one row down and clear of R8 (their bodies are
    # 2.5 mm wide)
    "R8": {"1": (3, 17), "2": (3, 22)},                      # CLK to the next board
    "R9": {"1": (4, 26), "2": (4, 31)},                      # SH/LD to the next board
    "C2": {"1": (7, 13), "2": (8, 13)},                      # 3V3 (VCC row) to GND (CLK_INH row)
    "RN1": _column(7, 18, 10),                               # COM on the VCC row
    "J5": {str(k): (7 + k, 22) for k in range(1, 9)},       # reed k-1 beside RN1's R(k)
    "R7": {"1": (17, 5), "2": (17, 10)},                      # QH series resistor, 5 holes long
}


# Cuts placed by hand where the rule in build() leaves a piece no free hole outside a socket's
# body: {(row, column of the pin left of the cut): column of the cut}. Rows 8 and 9 beside J5, so
# U4's CLK_N pieces keep free holes for their links round the parts.
CUT_AT = {(8, 22): 23, (9, 22): 23}
# ... and knife cuts between two holes: {(row, column of the pin left of the cut): column after
# which to cut}; none is needed on this placement besides the box headers' (build() adds those).
KNIFE_AT = {}


class Layout:
    def __init__(self, pins, cuts, knife, links):
        self.pins = pins      # (row, col) -> (pin ref, net name)
        self.cuts = cuts      # set of (row, col): the hole is drilled out
        self.knife = knife    # set of (row, col): the strip is cut between col and col + 1
        self.links = links    # [((row, col), (row, col), net name)]


def reader_pins(nl):
    """(row, col) -> (pin ref, net name) for the reader board's parts."""
    pins = {}
    for ref in READER_PARTS:
        part = nl.parts[ref]
        for num, pin in part.pins.items():
            hole = PLACES[ref][num]
            if hole in pins:
                raise ValueError("%s and %s both in hole %s" % (pins[hole][0], pin.ref, hole))
            pins[hole] = (pin.ref, pin.net.name if pin.net else None)
    return pins


def segments(layout):
    """[(row, first col, last col)] of copper between cuts."""
    out = []
    for r in range(ROWS):
        start = 0
        for c in range(COLS):
            if (r, c) in layout.cuts:
                if c > start:
                    out.append((r, start, c - 1))
                start = c + 1
            elif (r, c) in layout.knife:
                out.append((r, start, c))
                start = c + 1
        if start < COLS:
            out.append((r, start, COLS - 1))
    return out


def connections(layout):
    """{frozenset of pin refs}: what the finished board joins (strips + links), open pins left out."""
    seg_of = {}
    segs = segments(layout)
    for i, (r, c0, c1) in enumerate(segs):
        for c in range(c0, c1 + 1):
            seg_of[(r, c)] = i
    parent = list(range(len(segs)))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for a, b, _n in layout.links:
        parent[find(seg_of[a])] = find(seg_of[b])
    groups = {}
    for hole, (ref, _net) in layout.pins.items():
        groups.setdefault(find(seg_of[hole]), set()).add(ref)
    return {frozenset(g) for g in groups.values()}


def expected(nl):
    """The same grouping from the netlist, for the reader board's pins (open pins alone)."""
    groups = {}
    for ref in READER_PARTS:
        for pin in nl.parts[ref].pins.values():
            groups.setdefault(pin.net.name if pin.net else pin.ref, set()).add(pin.ref)
    return {frozenset(g) for g in groups.values()}


def build(nl, cut_at=None, knife_at=None, partial=False):
    """The layout (see _build). A net left without a way (the nets linked before it took the
    holes it needed) is linked first and the board built again, while that leaves fewer open."""
    first = []
    lay, stuck = _build(nl, cut_at, knife_at, first)
    for _ in range(8):
        nets = [n for n in stuck if n not in first]
        if not nets:
            break
        again, still = _build(nl, cut_at, knife_at, first + nets)
        if len(still) >= len(stuck):
            break
        first, lay, stuck = first + nets, again, still
    if not stuck:
        _drop_idle(lay, expected(nl))
    if stuck:
        if not partial:
            raise ValueError("no free holes to link the pieces of %s" % ", ".join(stuck))
        print("no free holes to link the pieces of %s" % ", ".join(stuck), file=sys.stderr)
    return lay


def _drop_idle(lay, want):
    """Leave out each cut that parts nothing (between two stretches of one net on a spare strip,
    or beside a bare stretch), and then each link that closes a loop: the board joins the same
    pins without them."""
    changed = True
    while changed:
        changed = False
        for cut in sorted(lay.cuts) + sorted(lay.knife):
            kind = lay.cuts if cut in lay.cuts else lay.knife
            kind.discard(cut)
            if connections(lay) != want:
                kind.add(cut)
            else:
                changed = True
        for link in list(lay.links):
            lay.links.remove(link)
            if connections(lay) != want:
                lay.links.append(link)
            else:
                changed = True
    lay.links.sort(key=lambda link: (link[2], link[0], link[1]))


def _build(nl, cut_at, knife_at, first):
    """Cuts and links for PLACES from the netlist, the nets in `first` linked first: (layout, the
    nets it could not link). cut_at: {(row, first pin col): cut col} to choose a cut's hole by
    hand (default: CUT_AT); knife_at: {(row, first pin col): col} for a knife cut between col and
    col + 1 instead (default: KNIFE_AT). No link lies under a part's body or runs over a hole in use;
    one that crosses another net's link costs CROSSING holes more."""
    cut_at = CUT_AT if cut_at is None else cut_at
    knife_at = KNIFE_AT if knife_at is None else knife_at
    pins = reader_pins(nl)
    cuts, knife = set(), set()
    for r in range(ROWS):
        row = sorted((c, pins[(r, c)][1] or pins[(r, c)][0]) for rr, c in pins if rr == r)
        for (c0, n0), (c1, n1) in zip(row, row[1:]):
            if n0 == n1:
                continue
            free = [c for c in range(c0 + 1, c1) if (r, c) not in pins]
            if (r, c0) in knife_at:
                knife.add((r, knife_at[(r, c0)]))
            elif free and cut_at.get((r, c0)) in free:
                cuts.add((r, cut_at[(r, c0)]))
            elif free:
                # beside an open pin (it needs no link: the other net keeps the free holes for its
                # links), else in the middle
                if pins[(r, c0)][1] is None:
                    cuts.add((r, free[0]))
                elif pins[(r, c1)][1] is None:
                    cuts.add((r, free[-1]))
                else:
                    cuts.add((r, free[len(free) // 2]))
            else:
                knife.add((r, c0))
    lay = Layout(pins, cuts, knife, [])
    segs = segments(lay)
    net_of_seg = {}
    for i, (r, c0, c1) in enumerate(segs):
        nets = {pins[(r, c)][1] or pins[(r, c)][0] for c in range(c0, c1 + 1) if (r, c) in pins}
        if len(nets) > 1:
            raise ValueError("strip %d joins %s" % (r, nets))
        if nets:
            net_of_seg[i] = nets.pop()
    for hole in MOUNTING:
        if hole in pins:
            raise ValueError("a part's pin sits in the mounting hole %s" % (hole,))
    used = set(pins) | cuts | set(MOUNTING)
    found = list(bodies().values())

    def under(a, b):
        return any(_under(a, b, body) for body in found)
    by_net = {}
    for i, n in net_of_seg.items():
        by_net.setdefault(n, []).append(i)
    links, stuck = [], []
    # rows without a pin (the spare strips at the bottom): a link that would pass under a socket
    # goes round it instead, down to a spare strip, along it and up again; each such detour takes
    # its own stretch of the strip, cut off at both ends
    spare = {r: [] for r in range(ROWS) if not any(rr == r for rr, _c in pins)}
    for net, idx in sorted(by_net.items(), key=lambda kv: (kv[0] not in first, first.index(kv[0]) if kv[0] in first
                                                         else 0, kv[0])):
        if len(idx) < 2:
            continue
        # Prim's tree over the net's strip pieces; a link runs between free holes, shortest first
        done = {idx[0]}
        while len(done) < len(idx):
            best = None
            for i in done:
                for j in idx:
                    if j in done:
                        continue
                    for a in _free_holes(segs[i], used):
                        for b in _free_holes(segs[j], used):
                            d = math.dist(a, b) + (3 if a[1] != b[1] else 0)  # straight up/down preferred
                            if best is not None and d >= best[0]:
                                continue
                            if under(a, b) or _blocked(a, b, used, links):
                                continue
                            d += CROSSING * _crossings(a, b, links, net)
                            if best is None or d < best[0]:
                                best = (d, a, b, j)
            if best is None:
                way = _detour([segs[i] for i in done], {j: segs[j] for j in idx if j not in done}, used, links,
                              spare, under, net)
                if way is None:
                    stuck.append(net)
                    break
                (a, x, y, b, j), r, ends = way
                links += [(a, x, net), (y, b, net)]
                used.update((a, x, y, b))
                cuts.update(ends)
                used.update(ends)
                spare[r].append((min(x[1], y[1]), max(x[1], y[1])))
                done.add(j)
                continue
            _d, a, b, j = best
            links.append((a, b, net))
            used.update((a, b))
            done.add(j)
    lay.links = links
    return lay, stuck


def _detour(mine, others, used, links, spare, under, net):
    """The shortest way from one of a net's pieces (mine) to another (others: {index: piece}) round
    the parts: a straight link down (or up) to a spare strip, a stretch of it, a link back; a
    link may slant by one column in two rows, to slip between the parts it passes.
    ((a, x, y, b, j), spare row, cut holes at the stretch's ends), or None."""
    best = None
    for r, taken in spare.items():
        def drops(pieces):
            out = []
            for key, seg in pieces:
                for h in _free_holes(seg, used):
                    rise = abs(h[0] - r)
                    for c in range(max(0, h[1] - rise // 2), min(COLS, h[1] + rise // 2 + 1)):
                        t = (r, c)
                        if t not in used and not under(h, t) and not _blocked(h, t, used, links):
                            out.append((math.dist(h, t) + (3 if c != h[1] else 0)
                                        + CROSSING * _crossings(h, t, links, net), h, t, key))
            return out
        starts = drops([(None, seg) for seg in mine])
        ends = drops(list(others.items()))
        for da, a, x, _k in starts:
            for db, b, y, j in ends:
                lo, hi = min(x[1], y[1]), max(x[1], y[1])
                if lo == hi or any(lo - 1 <= t1 and t0 <= hi + 1 for t0, t1 in taken):
                    continue
                if any((r, c) in used for c in range(lo, hi + 1)):
                    continue
                cost = da + db + (hi - lo)
                if best is None or cost < best[0]:
                    # a cut only between two stretches: the rest of a spare strip joins nothing
                    cut = [(r, lo - 1)] * any(t1 < lo for _t0, t1 in taken) + [(r, hi + 1)] * any(
                        t0 > hi for t0, _t1 in taken)
                    if any(h in used for h in cut):
                        continue
                    best = (cost, (a, x, y, b, j), r, cut)
    return None if best is None else best[1:]


def _free_holes(seg, used):
    r, c0, c1 = seg
    return [(r, c) for c in range(c0, c1 + 1) if (r, c) not in used]


def _blocked(a, b, used, links):
    """A link may not run over a hole in use (a pin or another link's end) nor along another link."""
    n = max(abs(b[0] - a[0]), abs(b[1] - a[1]))
    for k in range(1, n):
        r = a[0] + (b[0] - a[0]) * k / n
        c = a[1] + (b[1] - a[1]) * k / n
        if r == int(r) and c == int(c) and (int(r), int(c)) in used:
            return True
    for p, q, _n in links:
        # collinear and overlapping (same row or same column)
        for i in (0, 1):
            if a[i] == b[i] == p[i] == q[i]:
                j = 1 - i
                if max(min(a[j], b[j]), min(p[j], q[j])) < min(max(a[j], b[j]), max(p[j], q[j])):
                    return True
    return False


def _crossings(a, b, links, net):
    """How many of the other nets' links the link a-b would touch."""
    return sum(1 for p, q, other in links if other != net and _link_gap((a, b), (p, q)) < LINK_GAP)


def _link_gap(one, two):
    """mm between the centre lines of two links (0 where they cross)."""
    (a, b), (c, d) = one, two
    if min(a[0], b[0]) > max(c[0], d[0]) + 1 or min(c[0], d[0]) > max(a[0], b[0]) + 1 or \
            min(a[1], b[1]) > max(c[1], d[1]) + 1 or min(c[1], d[1]) > max(a[1], b[1]) + 1:
        return PITCH   # a hole apart or more
    from hardware import pcb
    return pcb._seg_dist(*((h[1] * PITCH, h[0] * PITCH) for h in (a, b, c, d)))


def crossing_links(layout):
    """The links that cross (or touch) another net's link: they must be insulated wire."""
    links = layout.links
    return [one for one in links if any(two[2] != one[2] and _link_gap(one[:2], two[:2]) < LINK_GAP
                                        for two in links)]


LINK_BEND_MM = 2 * 2.0    # each end bends down through its hole and is clinched under the board


def link_wire_mm(layout):
    """(bare, insulated) wire for one board's links, mm: each link's span plus its two bent ends."""
    insulated = crossing_links(layout)
    bare = sleeved = 0.0
    for link in layout.links:
        (ra, ca), (rb, cb), _net = link
        mm = math.hypot(ra - rb, ca - cb) * PITCH + LINK_BEND_MM
        if link in insulated:
            sleeved += mm
        else:
            bare += mm
    return bare, sleeved


def bodies(places=None, mounting=None):
    """{ref: ("box", x0, y0, x1, y1) or ("round", x, y, radius)}, mm, x along the strips from column 0's
    hole, y down from row 0's: each part's body on the component side, from the PCB's footprints
    (hardware.pcb.BODIES: a socket's frame, a box header's shroud, a resistor between its leads), and
    each corner standoff's screw head (MH1..MH4, as wide as the standoff's courtyard)."""
    from hardware import pcb
    places = PLACES if places is None else places
    mounting = MOUNTING if mounting is None else mounting
    out = {}
    for ref in READER_PARTS:
        xs = [c * PITCH for _r, c in places[ref].values()]
        ys = [r * PITCH for r, _c in places[ref].values()]
        across, along = pcb.BODIES[pcb.FOOTPRINTS[ref]]
        if max(xs) - min(xs) > max(ys) - min(ys):   # the pins run along the strip
            across, along = along, across
        out[ref] = ("box", min(xs) - across, min(ys) - along, max(xs) + across, max(ys) + along)
    for k, (r, c) in enumerate(mounting, 1):
        out["MH%d" % k] = ("round", c * PITCH, r * PITCH, pcb.STANDOFF / 2)
    return out


def _under(a, b, body):
    """Does the link from hole a to hole b lie under the body, or pass closer than BODY_GAP?"""
    reach = LINK_WIRE / 2 + BODY_GAP
    if body[0] == "round":
        _k, x, y, radius = body
        bx0, by0, bx1, by1 = x - radius, y - radius, x + radius, y + radius
    else:
        _k, bx0, by0, bx1, by1 = body
    if (min(a[1], b[1]) * PITCH > bx1 + reach or max(a[1], b[1]) * PITCH < bx0 - reach
            or min(a[0], b[0]) * PITCH > by1 + reach or max(a[0], b[0]) * PITCH < by0 - reach):
        return False   # far from it: the exact distance is not needed
    return _body_gap(a, b, body) < BODY_GAP


def _body_gap(a, b, body):
    """mm from the link a-b's wire (LINK_WIRE thick) to the body; 0 or less: under it."""
    from hardware import pcb
    p, q = (a[1] * PITCH, a[0] * PITCH), (b[1] * PITCH, b[0] * PITCH)
    if body[0] == "round":
        _k, x, y, radius = body
        return pcb._seg_dist(p, q, (x, y), (x, y)) - radius - LINK_WIRE / 2
    _k, x0, y0, x1, y1 = body
    if any(x0 <= x <= x1 and y0 <= y <= y1 for x, y in (p, q)):
        return -LINK_WIRE / 2
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    return min(pcb._seg_dist(p, q, corners[k], corners[k - 1]) for k in range(4)) - LINK_WIRE / 2


def link_clearance(layout, places=None, mounting=None):
    """mm: the least gap between a link's wire and a part's body (or a standoff's screw head)."""
    found = bodies(places, mounting).values()
    return min(_body_gap(a, b, body) for a, b, _n in layout.links for body in found)


def links_under_parts(layout, places=None, mounting=None):
    """[(link, ref)]: each link that lies under a part's body (or a standoff's screw head): it
    would have to go in first and be crushed, and could never be reworked."""
    found = bodies(places, mounting)
    return [(link, ref) for link in layout.links for ref, body in found.items() if _under(link[0], link[1], body)]


def board_outline():
    """(x0, y0, x1, y1), mm as in bodies(): the board cut midway between two rows (columns) of holes."""
    return (-EDGE, -EDGE, (COLS - 1) * PITCH + EDGE, (ROWS - 1) * PITCH + EDGE)


def edge_margins(places=None):
    """{ref: mm}: how far each part's body keeps inside the board's edge (negative: it overhangs)."""
    x0, y0, x1, y1 = board_outline()
    out = {}
    for ref, body in bodies(places).items():
        if body[0] == "box":
            _k, bx0, by0, bx1, by1 = body
            out[ref] = min(bx0 - x0, by0 - y0, x1 - bx1, y1 - by1)
    return out


# ---- the picture -----------------------------------------------------------------------------------
NET_COLOURS = {"GND": "#222", "3V3": "#c62828", "CLK": "#1565c0", "SH_LD": "#6a1b9a", "DATA0": "#00838f",
               "SER": "#2e7d32", "QH": "#ef6c00"}


def svg(layout, nl):
    s = 10.0   # px per hole pitch
    x0, y0 = 80, 60
    W, H = x0 + COLS * s + 260, y0 + ROWS * s + 92

    def xy(h):
        return x0 + h[1] * s + s / 2, y0 + h[0] * s + s / 2

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif">' % (W * 2, H * 2, W, H), '<rect width="100%" height="100%" fill="#fff"/>',
           '<text x="10" y="18" font-size="9" font-weight="bold">Reader board (one 74HC165, 8 reeds): stripboard '
           '%d x %d holes, component side, strips seen through</text>' % (COLS, ROWS),
           '<text x="10" y="40" font-size="7">Generated from hardware/wiring.net by python -m hardware.stripboard; '
           'the net of each strip piece is listed on the right.</text>',
           '<text x="10" y="30" font-size="7">Red X: cut the strip at that hole. Red bar: cut between two holes '
           '(knife). Coloured lines: wire links. Rows are numbered on the left, columns on top.</text>']
    for r in range(ROWS):
        out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#e8c39e"/>'
                   % (x0, y0 + r * s + 1.5, COLS * s, s - 3))
        out.append('<text x="%.1f" y="%.1f" font-size="6" text-anchor="end">%d</text>' % (x0 - 4, y0 + r * s + 7, r))
    for c in range(COLS):
        out.append('<text x="%.1f" y="%.1f" font-size="6" text-anchor="middle">%d</text>' % (x0 + c * s + 5, y0 - 4, c))
    for r in range(ROWS):
        for c in range(COLS):
            x, y = xy((r, c))
            out.append('<circle cx="%.1f" cy="%.1f" r="1.2" fill="#fff" stroke="#a07850" stroke-width="0.3"/>' % (x, y))
    for h in MOUNTING:
        x, y = xy(h)
        out.append('<circle class="mount" cx="%.1f" cy="%.1f" r="4.2" fill="#fff" stroke="#000" stroke-width="0.8"/>'
                   % (x, y))
    for h in sorted(layout.cuts):
        x, y = xy(h)
        out.append('<path class="cut" d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="#d00" stroke-width="1.4"/>' % (x - 3, y - 3))
    for h in sorted(layout.knife):
        x, y = xy(h)
        out.append('<path class="knife" d="M%.1f %.1fv8" stroke="#d00" stroke-width="1.6"/>' % (x + s / 2, y - 4))
    # parts: each body's outline on the board (a box header's shroud, a socket's frame, a resistor
    # between its leads), the standoffs' screw heads, and the board's edge
    def px(x_mm, y_mm):
        return x0 + s / 2 + x_mm / PITCH * s, y0 + s / 2 + y_mm / PITCH * s

    ex0, ey0 = px(*board_outline()[:2])
    ex1, ey1 = px(*board_outline()[2:])
    out.append('<rect class="edge" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#000" '
               'stroke-width="0.6"/>' % (ex0, ey0, ex1 - ex0, ey1 - ey0))
    for ref, body in bodies().items():
        if body[0] == "round":
            x, y = px(body[1], body[2])
            out.append('<circle class="head" cx="%.1f" cy="%.1f" r="%.1f" fill="none" stroke="#777" '
                       'stroke-width="0.5" stroke-dasharray="1.5 1"/>' % (x, y, body[3] / PITCH * s))
            continue
        (bx0, by0), (bx1, by1) = px(*body[1:3]), px(*body[3:5])
        out.append('<rect class="part" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333" '
                   'stroke-width="0.8"/>' % (bx0, by0, bx1 - bx0, by1 - by0))
        out.append('<text x="%.1f" y="%.1f" font-size="6" font-weight="bold">%s %s</text>'
                   % (bx0, by0 - 12 if ref == "J6" else by1 + 7, ref, _esc(nl.parts[ref].value)))
    for h, (ref, net) in layout.pins.items():
        x, y = xy(h)
        num = ref.split(".")[1]
        out.append('<circle cx="%.1f" cy="%.1f" r="2.2" fill="#555"/>' % (x, y))
        out.append('<text x="%.1f" y="%.1f" font-size="3.6" fill="#fff" text-anchor="middle">%s</text>'
                   % (x, y + 1.3, _esc(num[:2])))
    insulated = crossing_links(layout)
    for link in layout.links:
        a, b, net = link
        (xa, ya), (xb, yb) = xy(a), xy(b)
        out.append('<path class="link%s" d="M%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="%s" '
                   'stroke-linecap="round" fill="none" opacity="0.85"/>'
                   % (" insulated" * (link in insulated), xa, ya, xb, yb, NET_COLOURS.get(net, "#1f4fa0"),
                      "2.2" if link in insulated else "1.3"))
        if link in insulated:   # a white core: the wire in its sleeve
            out.append('<path d="M%.1f %.1fL%.1f %.1f" stroke="#fff" stroke-width="0.6" fill="none"/>'
                       % (xa, ya, xb, yb))
        for x, y in ((xa, ya), (xb, yb)):
            out.append('<circle cx="%.1f" cy="%.1f" r="1.6" fill="%s"/>' % (x, y, NET_COLOURS.get(net, "#1f4fa0")))
    # net of each strip piece, at the right
    for r in range(ROWS):
        names = []
        for seg in segments(layout):
            if seg[0] != r:
                continue
            nets = {layout.pins[(r, c)][1] for c in range(seg[1], seg[2] + 1) if (r, c) in layout.pins}
            nets |= {n for a, b, n in layout.links if a[0] == r and seg[1] <= a[1] <= seg[2]
                     or b[0] == r and seg[1] <= b[1] <= seg[2]}
            if nets - {None}:
                names.append("/".join(sorted(nets - {None})))
        out.append('<text x="%.1f" y="%.1f" font-size="6">%s</text>' % (x0 + COLS * s + 90, y0 + r * s + 7,
                                                                      _esc(" | ".join(names))))
    notes = ["J3 IN / J4 OUT: 2x5 box headers, pin 1 (3V3) at the top; ribbon wires 1..10: 3V3, GND, CLK, GND, "
             "SH/LD, GND, DATA, GND, 3V3, GND.",
             "J5: reed k's first lead at pin k+1 (input Dk); J6: every reed's second lead (GND). U3 notch at the top "
             "(pin 1 = column %d, row %d); RN1's dot (pin 1, common) at row %d." % (
                 PLACES["U3"]["1"][1], PLACES["U3"]["1"][0], PLACES["RN1"]["1"][0]),
             "Cuts: %d at holes, %d between holes; %d wire links, %d of them (wide, white core) insulated: they cross "
             "another net's link. Check with a meter before fitting U3: no strip may beep to its neighbour." % (
                 len(layout.cuts), len(layout.knife), len(layout.links), len(insulated)),
             "Black rings: drill the four corner holes to 3.2 mm for M3 nylon standoffs (each at a strip's end; dashed: "
             "the screw head). Rows %s: spare strips for the links that go round the parts." % _spare_rows(),
             "Boxes: the parts' bodies as they sit on the board (a box header's shroud, a socket's frame); "
             "no link lies under one, and every one lies inside the board's edge."]
    for i, t in enumerate(notes):
        out.append('<text x="10" y="%.1f" font-size="7">%s</text>' % (y0 + ROWS * s + 30 + 12 * i, _esc(t)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _spare_rows():
    """The strips without a pin, as "1, 19-24"."""
    rows = [r for r in range(ROWS) if not any(h[0] == r for holes in PLACES.values() for h in holes.values())]
    runs = []
    for r in rows:
        if runs and runs[-1][1] == r - 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in runs)


def courtyard_overlaps():
    """[(ref, ref)] of parts (and the corner standoffs, MH1..MH4) whose courtyards overlap on this
    placement, by the PCB's courtyard check (hardware.pcb.courtyards: the same footprints)."""
    from hardware import pcb
    return pcb.courtyard_overlaps(pcb.courtyards(places=PLACES, mounting=MOUNTING))


def _esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.stripboard", description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join("build", "reader-stripboard.svg"))
    ap.add_argument("--png", action="store_true", help="also write a PNG (rsvg-convert)")
    args = ap.parse_args(argv)
    nl = wiring.load(boardconfig.default())
    overlaps = courtyard_overlaps()
    if overlaps:
        print("error: courtyards overlap: %s" % ", ".join("%s/%s" % p for p in overlaps), file=sys.stderr)
        return 1
    margins = edge_margins()
    off = sorted(ref for ref, m in margins.items() if m < 0)
    if off:
        print("error: past the board's edge: %s" % ", ".join(off), file=sys.stderr)
        return 1
    try:
        lay = build(nl)
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    if connections(lay) != expected(nl):
        print("error: the layout does not join the netlist's nets", file=sys.stderr)
        return 1
    under = links_under_parts(lay)
    if under:
        print("error: links under a part: %s" % ", ".join("%s-%s under %s" % (a, b, ref) for (a, b, _n), ref in under),
              file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        f.write(svg(lay, nl))
    print("wrote %s: %d x %d holes (%.1f x %.1f mm), %d cuts at holes, %d between holes, %d wire links (%d "
          "insulated); connections match wiring.net, no two courtyards overlap, no link lies under a part "
          "(%.2f mm from the nearest body), every body on the board (%s)"
          % (args.out, COLS, ROWS, COLS * PITCH, ROWS * PITCH, len(lay.cuts), len(lay.knife), len(lay.links),
             len(crossing_links(lay)), link_clearance(lay),
             ", ".join("%s %.2f mm" % (ref, m) for m, ref in sorted((m, ref) for ref, m in margins.items())[:4])))
    if args.png:
        from hardware.schematic import to_png
        png = os.path.splitext(args.out)[0] + ".png"
        if to_png(args.out, png, 1600):
            print("wrote %s" % png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
