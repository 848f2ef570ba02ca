"""The reader board (one 74HC165 with its 8 reeds) as a stripboard layout, from hardware/wiring.net.

    python -m hardware.stripboard [-o build/reader-stripboard.svg]

The parts' places are fixed here (PLACES); everything else comes from the netlist: where a strip
must be cut (two nets on one strip), and which wire links join the pieces of one net. `connections()`
walks the finished board (strips, cuts, links) back to nets; the test checks that it gives exactly
the netlist's nets, so a missing cut (a short) or a missing link (an open) fails.

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
    # the box headers stand across the strips; each shroud reaches 5 mm past its end pins, so
    # they keep clear of the corner standoffs and of the sockets' top row (row 7)
    "J3": _box_header(1, 3, gnd_left=True),                  # IN, toward the controller
    "J4": _box_header(1, 20, gnd_left=False),                # OUT, to the next board: over RN1 and J5's gap
    "U3": _dip(7, 8, 16),
    "U4": _dip(7, 26, 14),                                   # CLK and SH/LD re-driver
    "U5": _dip(7, 33, 20),                                   # QH latch, 3 holes clear of U4: the links
                                                             # of its pins' pieces stay off both bodies
    "C3": {"1": (5, 31), "2": (6, 31)},                      # 3V3 (the ribbon's 3V3 strip) to the GND strip
    "C4": {"1": (7, 38), "2": (6, 38)},                      # 3V3 (VCC row) to a GND strip above, one
                                                             # column off U5's socket
    "R8": {"1": (18, 28), "2": (18, 33)},                    # CLK to the next board
    "R9": {"1": (19, 21), "2": (19, 26)},                    # SH/LD to the next board: beside R8, not
                                                             # beneath it (their bodies are 2.5 mm wide)
    "C2": {"1": (7, 13), "2": (8, 13)},                      # 3V3 (VCC row) to GND (CLK_INH row)
    "RN1": _column(7, 18, 10),                               # COM on the VCC row
    "J5": {str(k): (7 + k, 22) for k in range(1, 9)},       # reed k-1 beside RN1's R(k)
    "R7": {"1": (17, 5), "2": (17, 10)},                      # QH series resistor, 5 holes long
}


# Cuts placed by hand where the rule in build() leaves a piece no free hole outside a socket's
# body: {(row, column of the pin left of the cut): column of the cut}. Row 12 between U4's 4A and
# U5's D5 (GND) beside U4, so the GND piece reaches out of U5's body; rows 8 and 9 beside J5, so
# U4's CLK_N pieces keep free holes for their links round the sockets.
CUT_AT = {(12, 29): 30, (8, 22): 23, (9, 22): 23}
# ... and knife cuts between two holes: {(row, column of the pin left of the cut): column after
# which to cut}. Row 13 between U4's 4Y and U5's D6 (GND): each piece keeps a free hole.
KNIFE_AT = {(13, 29): 30}


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
    """The layout (see _build); the nets whose links would pass under a socket are linked first
    and the board built again, while that leaves fewer such links."""
    first = []
    lay = _build(nl, cut_at, knife_at, partial, first)
    for _ in range(8):
        under = links_under_sockets(lay)
        if not under:
            break
        nets = [n for _a, _b, n in under if n not in first]
        if not nets:
            break
        again = _build(nl, cut_at, knife_at, partial, first + nets)
        if len(links_under_sockets(again)) >= len(under):
            break
        first, lay = first + nets, again
    return lay


def _build(nl, cut_at, knife_at, partial, first):
    """Cuts and links for PLACES from the netlist. cut_at: {(row, first pin col): cut col} to
    choose a cut's hole by hand (default: CUT_AT); knife_at: {(row, first pin col): col} for a
    knife cut between col and col + 1 instead (default: KNIFE_AT). partial: leave a net that
    cannot be linked open (a placement being worked on), else ValueError."""
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
    by_net = {}
    for i, n in net_of_seg.items():
        by_net.setdefault(n, []).append(i)
    links = []
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
                            if _crosses_ic(a, b):
                                d += 200   # under a socket: only where no other way is left
                            if _blocked(a, b, used, links):
                                continue
                            if best is None or d < best[0]:
                                best = (d, a, b, j)
            if best is None or _crosses_ic(best[1], best[2]):
                way = _detour([segs[i] for i in done], {j: segs[j] for j in idx if j not in done}, used, links,
                              spare)
                if way is not None:
                    (a, x, y, b, j), r, ends = way
                    links += [(a, x, net), (y, b, net)]
                    used.update((a, x, y, b))
                    cuts.update(ends)
                    used.update(ends)
                    spare[r].append((min(x[1], y[1]), max(x[1], y[1])))
                    done.add(j)
                    continue
            if best is None:
                if partial:
                    print("no free holes to link the pieces of %s" % net, file=sys.stderr)
                    break
                raise ValueError("no free holes to link the pieces of %s" % net)
            _d, a, b, j = best
            links.append((a, b, net))
            used.update((a, b))
            done.add(j)
    lay.links = links
    return lay


def _detour(mine, others, used, links, spare):
    """The shortest way from one of a net's pieces (mine) to another (others: {index: piece}) round
    the sockets: a straight link down (or up) to a spare strip, a stretch of it, a link back.
    ((a, x, y, b, j), spare row, cut holes at the stretch's ends), or None."""
    best = None
    for r, taken in spare.items():
        def drops(pieces):
            out = []
            for key, seg in pieces:
                for h in _free_holes(seg, used):
                    t = (r, h[1])
                    if t not in used and not _crosses_ic(h, t) and not _blocked(h, t, used, links):
                        out.append((abs(h[0] - r), h, t, key))
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


def links_under_sockets(layout):
    """The links that pass under an IC socket's body: they must go in before the socket."""
    return [(a, b, n) for a, b, n in layout.links if _crosses_ic(a, b)]


def links_under_shrouds(layout):
    """The links that pass under a box header's shroud (3.2 mm beside its pins, 5.1 mm past its
    end pins: 1.25 and 2 holes): they go in before the header."""
    out = []
    for a, b, n in layout.links:
        for ref in ("J3", "J4"):
            (r0, c0), (r1, c1) = min(PLACES[ref].values()), max(PLACES[ref].values())
            if any(r0 - 1.99 <= a[0] + (b[0] - a[0]) * t / 20 <= r1 + 1.99
                   and c0 - 1.25 <= a[1] + (b[1] - a[1]) * t / 20 <= c1 + 1.25 for t in range(21)):
                out.append((a, b, n))
                break
    return out


def _crosses_ic(a, b):
    """Does the straight link a-b pass over an IC's body?"""
    for ref in ICS:
        r0, c0 = min(PLACES[ref].values())
        r1, c1 = max(PLACES[ref].values())
        for t in (i / 20 for i in range(21)):
            r = a[0] + (b[0] - a[0]) * t
            c = a[1] + (b[1] - a[1]) * t
            if r0 - 0.5 <= r <= r1 + 0.5 and c0 <= c <= c1:
                return True
    return False


# ---- the picture -----------------------------------------------------------------------------------
NET_COLOURS = {"GND": "#222", "3V3": "#c62828", "CLK": "#1565c0", "SH_LD": "#6a1b9a", "DATA0": "#00838f",
               "SER": "#2e7d32", "QH": "#ef6c00"}


def svg(layout, nl):
    s = 10.0   # px per hole pitch
    x0, y0 = 80, 60
    W, H = x0 + COLS * s + 260, y0 + ROWS * s + 80

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
    # parts
    for ref in READER_PARTS:
        holes = PLACES[ref].values()
        rs = [h[0] for h in holes]
        cs = [h[1] for h in holes]
        bx0, by0 = x0 + min(cs) * s + 1, y0 + min(rs) * s + 1
        bx1, by1 = x0 + (max(cs) + 1) * s - 1, y0 + (max(rs) + 1) * s - 1
        out.append('<rect class="part" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333" '
                   'stroke-width="0.8" stroke-dasharray="%s"/>' % (bx0, by0, bx1 - bx0, by1 - by0,
                                                                  "2 1" if ref in ("C2", "R7") else "none"))
        part = nl.parts[ref]
        out.append('<text x="%.1f" y="%.1f" font-size="6" font-weight="bold">%s %s</text>'
                   % (bx0, by0 - 12 if ref == "J6" else by1 + 7, ref, _esc(part.value)))
    for h, (ref, net) in layout.pins.items():
        x, y = xy(h)
        num = ref.split(".")[1]
        out.append('<circle cx="%.1f" cy="%.1f" r="2.2" fill="#555"/>' % (x, y))
        out.append('<text x="%.1f" y="%.1f" font-size="3.6" fill="#fff" text-anchor="middle">%s</text>'
                   % (x, y + 1.3, _esc(num[:2])))
    for a, b, net in layout.links:
        (xa, ya), (xb, yb) = xy(a), xy(b)
        out.append('<path class="link" d="M%.1f %.1fL%.1f %.1f" stroke="%s" stroke-width="1.3" '
                   'stroke-linecap="round" fill="none" opacity="0.85"/>' % (xa, ya, xb, yb, NET_COLOURS.get(net, "#1f4fa0")))
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
             "Cuts: %d at holes, %d between holes; %d wire links. Check with a meter before fitting U3: no strip "
             "may beep to its neighbour." % (len(layout.cuts), len(layout.knife), len(layout.links)),
             "Black rings: drill the four corner holes to 3.2 mm for M3 nylon standoffs (each at a strip's end). "
             "Rows %d-%d: spare strips for the links that go round the sockets." % (_spare_from(), ROWS - 1)]
    for i, t in enumerate(notes):
        out.append('<text x="10" y="%.1f" font-size="7">%s</text>' % (y0 + ROWS * s + 30 + 12 * i, _esc(t)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _spare_from():
    """The first spare strip: the row below the parts' lowest pin."""
    return max(r for holes in PLACES.values() for r, _c in holes.values()) + 1


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
    lay = build(nl)
    if connections(lay) != expected(nl):
        print("error: the layout does not join the netlist's nets", file=sys.stderr)
        return 1
    overlaps = courtyard_overlaps()
    if overlaps:
        print("error: courtyards overlap: %s" % ", ".join("%s/%s" % p for p in overlaps), file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        f.write(svg(lay, nl))
    print("wrote %s: %d x %d holes, %d cuts at holes, %d between holes, %d wire links; connections match "
          "wiring.net, no two courtyards overlap" % (args.out, COLS, ROWS, len(lay.cuts), len(lay.knife), len(lay.links)))
    if args.png:
        from hardware.schematic import to_png
        png = os.path.splitext(args.out)[0] + ".png"
        if to_png(args.out, png, 1600):
            print("wrote %s" % png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
