"""Draw the schematic of hardware/wiring.net with schemdraw, for the Pico or the ESP32 board.

    python -m hardware.schematic [--board pico|esp32] [--config board.json] [-o build/schematic-pico.svg] [--png]

Every part is a schemdraw symbol (boxes with pin numbers for ICs, boards and connectors). A
signal net is drawn as wires when they fit (one vertical trunk, a junction dot where a branch
meets it, nothing of another net touched); otherwise, and for every rail, each pin gets a short
stub ending in a label with the net's name: pins with the same label are connected, as in any
schematic. The drawing's geometry (`Sheet`) is checked by `check()`, the same function the
tests run: no wire touches another net's pin, wire, label or any part's body, two nets never
share a point, and every T of a net has its dot.
"""
import argparse
import os
import shutil
import subprocess
import sys

import schemdraw
import schemdraw.elements as elm

from hardware import wiring
from host import configerrors  # board.json's problems worded from their codes
from sy.hardware import boardconfig

schemdraw.use("svg")

PIN_STEP = 0.6            # schematic units between box pins
STUB = 0.5                # wire from a pin's tip to its label
FONT = 8                  # labels, in points; 1 unit = 0.5 inch = 36 pt in schemdraw
CHAR_W = FONT * 0.62 / 36 # units per character (sans-serif, generous)
TEXT_H = FONT * 1.25 / 36
GRID = 0.2
COLOURS = {"power": "#c62828", "ground": "#222222", "signal": "#1f4fa0"}
TWO_TERMINAL = {"r": elm.Resistor, "c": elm.Capacitor, "d": elm.Schottky, "zener": elm.Zener,
                "fuse": elm.Fuse, "sw": elm.Button, "toggle": elm.Switch, "jumper": elm.Switch}
DIRS = {"L": (-1, 0), "R": (1, 0), "U": (0, 1), "D": (0, -1)}


class Sheet:
    """The drawing's geometry, in schematic units: what check() and the tests look at."""

    def __init__(self):
        self.bodies = {}      # part ref -> (x0, y0, x1, y1)
        self.pins = []        # (net name or None, pin ref, tip (x, y), direction, lead segment)
        self.wires = []       # (net name, (x0, y0), (x1, y1)) axis-parallel
        self.labels = []      # (net name, text, (x0, y0, x1, y1), anchor point)
        self.dots = []        # (net name, (x, y))
        self.texts = []       # part titles: (ref, (x0, y0, x1, y1))
        self.nc = []          # no-connect crosses (x, y)
        self.frame = None     # the reader board's dashed frame (x0, y0, x1, y1)


# ---- geometry helpers ------------------------------------------------------------------------------
EPS = 1e-6


def _r(p):
    return (round(p[0], 4), round(p[1], 4))


def seg_box(a, b):
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))


def boxes_touch(p, q, gap=0.0):
    return not (p[2] + gap < q[0] - EPS or q[2] + gap < p[0] - EPS or p[3] + gap < q[1] - EPS
                or q[3] + gap < p[1] - EPS)


def on_segment(pt, a, b):
    x0, y0, x1, y1 = seg_box(a, b)
    return x0 - EPS <= pt[0] <= x1 + EPS and y0 - EPS <= pt[1] <= y1 + EPS


def interior(pt, a, b):
    return on_segment(pt, a, b) and _r(pt) != _r(a) and _r(pt) != _r(b)


# ---- checks -------------------------------------------------------------------------------------------
def check(sheet, nl=None):
    """[problem text] for the drawn geometry; with nl also that the drawing joins exactly its nets."""
    bad = []
    conductors = [(n, a, b, "wire") for n, a, b in sheet.wires]
    conductors += [(n, lead[0], lead[1], "pin " + ref) for n, ref, _t, _d, lead in sheet.pins]
    for i, (n, a, b, what) in enumerate(conductors):
        if what == "wire":
            for ref, body in sheet.bodies.items():
                if boxes_touch(seg_box(a, b), body):
                    bad.append("wire of %s %s-%s crosses the body of %s" % (n, _r(a), _r(b), ref))
        for m, c, d, what2 in conductors[i + 1:]:
            if m == n and n is not None:
                continue
            if boxes_touch(seg_box(a, b), seg_box(c, d)):
                bad.append("%s of %s and %s of %s touch at %s-%s / %s-%s" % (what, n, what2, m, _r(a), _r(b),
                                                                                _r(c), _r(d)))
    for n, text, box, _pt in sheet.labels:
        for ref, body in sheet.bodies.items():
            if boxes_touch(box, body):
                bad.append("label %s lies on the body of %s" % (text, ref))
        for m, a, b, what in conductors:
            if m != n and boxes_touch(box, seg_box(a, b)):
                bad.append("label %s lies on the %s of %s" % (text, what, m))
        for ref, tbox in sheet.texts:
            if boxes_touch(box, tbox):
                bad.append("label %s lies on the title of %s" % (text, ref))
    for i, (n, t1, b1, _p) in enumerate(sheet.labels):
        for m, t2, b2, _q in sheet.labels[i + 1:]:
            if boxes_touch(b1, b2):
                bad.append("labels %s and %s overlap" % (t1, t2))
    for i, (r1, b1) in enumerate(sheet.texts):
        for r2, b2 in sheet.texts[i + 1:]:
            if boxes_touch(b1, b2):
                bad.append("titles of %s and %s overlap" % (r1, r2))
        for ref, body in sheet.bodies.items():
            if boxes_touch(b1, body):
                bad.append("title of %s lies on the body of %s" % (r1, ref))
        for m, a, b, what in conductors:
            if boxes_touch(b1, seg_box(a, b)):
                bad.append("title of %s lies on the %s of %s" % (r1, what, m))
    # junctions: a wire end on another same-net conductor's interior is a T and needs a dot;
    # a dot elsewhere is a lie
    dots = {(n, _r(p)) for n, p in sheet.dots}
    needed = set()
    same = [(n, a, b) for n, a, b, _w in conductors if n is not None]
    for n, a, b in sheet.wires:
        for end in (a, b):
            for m, c, d in same:
                if m == n and interior(end, c, d):
                    needed.add((n, _r(end)))
            meeting = sum(1 for m, c, d in same if m == n and on_segment(end, c, d))
            if meeting >= 3:
                needed.add((n, _r(end)))
    for n, p in sorted(needed - dots):
        bad.append("junction of %s at %s has no dot" % (n, p))
    for n, p in sorted(dots - needed):
        bad.append("dot of %s at %s joins nothing" % (n, p))
    if nl is not None:
        bad += check_connectivity(sheet, nl)
    return bad


def check_connectivity(sheet, nl):
    """The drawing joins exactly the netlist's pins: wires connect pins of one net; pins that no
    wire reaches carry a label naming their net."""
    bad = []
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    def union(a, b):
        parent[find(a)] = find(b)

    items = [("w", i, a, b) for i, (_n, a, b) in enumerate(sheet.wires)]
    items += [("p", ref, lead[0], lead[1]) for _n, ref, _t, _d, lead in sheet.pins]
    for i, (k1, id1, a, b) in enumerate(items):
        for k2, id2, c, d in items[i + 1:]:
            if any(on_segment(e, c, d) for e in (a, b)) or any(on_segment(e, a, b) for e in (c, d)):
                union((k1, id1), (k2, id2))
    labelled = {}
    for n, text, _box, pt in sheet.labels:
        hit = [(k, i) for k, i, a, b in items if on_segment(pt, a, b)]
        if not hit:
            bad.append("label %s is attached to nothing" % text)
            continue
        labelled.setdefault(find(hit[0]), set()).add(text)
    groups = {}
    for _n, ref, _t, _d, _lead in sheet.pins:
        groups.setdefault(find(("p", ref)), []).append(ref)
    for g, refs in groups.items():
        nets = {nl.net_of(r).name if nl.net_of(r) else None for r in refs}
        if len(nets) > 1:
            bad.append("pins %s of different nets %s are drawn connected" % (refs, sorted(map(str, nets))))
            continue
        net = nets.pop()
        names = labelled.get(g, set())
        if net is None:
            if names:
                bad.append("open pin %s has a label" % refs)
            continue
        if names and names != {net}:
            bad.append("pins %s of %s are labelled %s" % (refs, net, sorted(names)))
        whole = {p.ref for p in nl.nets[net].pins}
        if set(refs) != whole and names != {net}:
            bad.append("pins %s of %s are neither wired to the rest nor labelled" % (refs, net))
    drawn = {ref for _n, ref, _t, _d, _l in sheet.pins}
    for part in nl.parts.values():
        for p in part.pins.values():
            if p.ref not in drawn:
                bad.append("pin %s is not drawn" % p.ref)
    return bad


# ---- drawing ----------------------------------------------------------------------------------------
def _frame(d, box, style, colour):
    x0, y0, x1, y1 = box
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        d.add(elm.Line().at(a).to(b).linestyle(style).color(colour))


def _text_box(net, dr, box):
    """Where a label's text goes inside its box (a power rail's box also holds its bar)."""
    w, h = len(net.name) * CHAR_W, TEXT_H
    if dr == "R":
        return (box[2] - w, (box[1] + box[3] - h) / 2, box[2], (box[1] + box[3] + h) / 2)
    if dr == "L":
        return (box[0], (box[1] + box[3] - h) / 2, box[0] + w, (box[1] + box[3] + h) / 2)
    if dr == "U":
        return ((box[0] + box[2] - w) / 2, box[3] - h, (box[0] + box[2] + w) / 2, box[3])
    return ((box[0] + box[2] - w) / 2, box[1], (box[0] + box[2] + w) / 2, box[1] + h)


class Drawer:
    def __init__(self, nl):
        self.nl = nl
        self.d = schemdraw.Drawing(show=False, fontsize=FONT, lw=1.1)
        self.sheet = Sheet()
        self.ends = {}   # pin ref -> (tip, direction)
        self.wired_pins = set()
        self.pending = []   # titles to place

    def colour(self, net):
        return COLOURS[net.kind] if net else "#777"

    def title(self, part, full=False):
        """Queue the part's name and value; placed by place_titles() once every part is drawn."""
        lines = [part.ref + "  " + part.value]
        if full and ";" in part.text:
            lines.append(part.text.split(";", 1)[1].strip())
        out = []
        for ln in lines:   # wrap, never cut: a cut title once hid "GND" from a note
            words, cur = ln.split(), ""
            for w in words:
                if cur and len(cur) + 1 + len(w) > 40:
                    out.append(cur)
                    cur = w
                else:
                    cur = (cur + " " + w).strip()
            out.append(cur)
        lines = out
        self.pending.append((part, lines))

    def place_titles(self):
        """Each title beside its part where it touches no body, pin or other title: above or below a
        box or a horizontal part, right or left of a vertical one."""
        sh = self.sheet
        leads = [lead for _n, _r_, _t, _d, lead in sh.pins]
        for part, lines in self.pending:
            w = max(len(t) for t in lines) * CHAR_W * 0.85
            h = TEXT_H * len(lines) * 0.85
            b = sh.bodies[part.ref]
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            above = (cx - w / 2, b[3] + 0.12)
            below = (cx - w / 2, b[1] - 0.12 - h)
            right = (b[2] + 0.2, cy - h / 2)
            left = (b[0] - 0.2 - w, cy - h / 2)
            tall = b[3] - b[1] > b[2] - b[0] and part.kind not in wiring.BOXES
            order = (right, left, above, below) if tall else (above, below, right, left)
            for x0, y0 in order + tuple((right[0] + k * 0.4, right[1]) for k in range(1, 6)):
                box = (x0, y0, x0 + w, y0 + h)
                if any(boxes_touch(box, o) for o in sh.bodies.values()) or any(
                        boxes_touch(box, t) for _r_, t in sh.texts) or any(
                        boxes_touch(box, seg_box(a, c)) for a, c in leads):
                    continue
                break
            else:
                x0, y0 = above
            self.d.add(elm.Label().theta(0).at((x0 + w / 2, y0 + h / 2)).label("\n".join(lines), fontsize=FONT - 1.5))
            sh.texts.append((part.ref, (x0, y0, x0 + w, y0 + h)))

    def box(self, part):
        lefts = [p for p in part.pins.values() if p.side == "L"]
        rights = [p for p in part.pins.values() if p.side == "R"]
        n = max(len(lefts), len(rights), 1)
        longest = max([len(p.name) for p in lefts] or [0]) + max([len(p.name) for p in rights] or [0])
        w = max(2.0, longest * CHAR_W + 0.8)
        h = n * PIN_STEP + 0.4
        pins = [elm.IcPin(name=p.name, pin=p.number.split("@")[0], side="left", anchorname="P" + str(i), lblsize=FONT)
                for i, p in reversed(list(enumerate(lefts)))]
        pins += [elm.IcPin(name=p.name, pin=p.number.split("@")[0], side="right", anchorname="Q" + str(i), lblsize=FONT)
                 for i, p in reversed(list(enumerate(rights)))]
        ic = elm.Ic(pins=pins, size=(w, h), pinspacing=PIN_STEP, edgepadH=0.2, pinfontsize=FONT - 2,
                    lblsize=FONT).theta(0).at((part.x - w / 2, part.y - h / 2))
        self.d.add(ic)
        x0, y0 = part.x - w / 2, part.y - h / 2
        self.sheet.bodies[part.ref] = (x0, y0, x0 + w, y0 + h)
        self.title(part, full=True)
        for side, group, letter in (("L", lefts, "P"), ("R", rights, "Q")):
            for i, p in enumerate(group):
                tip = tuple(ic.absanchors[letter + str(i)])
                edge = (x0 if side == "L" else x0 + w, tip[1])
                self.pin(p, tip, side, (edge, tip))

    def two_terminal(self, part):
        e = TWO_TERMINAL.get(part.kind)
        if part.kind == "cpol":
            e = lambda: elm.Capacitor(polar=True)  # noqa: E731
        el = e()
        if part.orient == "v":
            el = el.down().at((part.x, part.y + 1.5))
            dirs = ("U", "D")
        elif part.orient == "u":
            el = el.up().at((part.x, part.y - 1.5))
            dirs = ("D", "U")
        else:
            el = el.right().at((part.x - 1.5, part.y))
            dirs = ("L", "R")
        self.d.add(el)
        a = el.absanchors
        ist = a.get("istart", a["start"])
        ien = a.get("iend", a["end"])
        bb = el.get_bbox(transform=True)
        if part.orient in ("v", "u"):
            body = (bb.xmin, min(ist[1], ien[1]), bb.xmax, max(ist[1], ien[1]))
        else:
            body = (min(ist[0], ien[0]), bb.ymin, max(ist[0], ien[0]), bb.ymax)
        self.sheet.bodies[part.ref] = body
        pins = list(part.pins.values())
        for p, anchor, inner, dr in ((pins[0], a["start"], ist, dirs[0]), (pins[1], a["end"], ien, dirs[1])):
            self.pin(p, tuple(anchor), dr, (tuple(inner), tuple(anchor)))
        self.title(part)

    def three_terminal(self, part):
        if part.kind == "pmos":
            el = elm.PFet().theta(0).at((part.x, part.y + 0.75))
            names = (("S", "source", "U"), ("D", "drain", "D"), ("G", "gate", "R"))
        elif part.kind == "pnp":
            el = elm.BjtPnp().theta(0).at((part.x - 0.75, part.y))
            names = (("E", "emitter", "U"), ("C", "collector", "D"), ("B", "base", "L"))
        else:
            el = elm.SCR().down().at((part.x, part.y + 1.5))
            names = (("A", "start", "U"), ("K", "end", "D"), ("G", "gate", "L"))
        self.d.add(el)
        a = el.absanchors
        bb = el.get_bbox(transform=True)
        c = a["center"]
        if part.kind == "pmos":
            body = (bb.xmin + 0.1, c[1] - 0.5, bb.xmax - 0.6, c[1] + 0.5)
        elif part.kind == "pnp":
            body = (a["base"][0] + 0.05, c[1] - 0.45, bb.xmax - 0.05, c[1] + 0.45)
        else:
            body = (bb.xmin + 0.05, c[1] - 0.35, bb.xmax - 0.05, c[1] + 0.35)
        self.sheet.bodies[part.ref] = body
        for num, anchor, dr in names:
            tip = tuple(a[anchor])
            dx, dy = DIRS[dr]
            inner = (tip[0] - dx * 0.01, tip[1] - dy * 0.01)
            if dr in ("L", "R"):
                inner = (body[0] if dr == "L" else body[2], tip[1])
                if (tip[0] - inner[0]) * dx <= 0:
                    inner = (tip[0] - dx * 0.01, tip[1])
            else:
                inner = (tip[0], body[3] if dr == "U" else body[1])
            self.pin(part.pin(num), tip, dr, (inner, tip))
            # the pin's name beside its lead (S D G, E C B, A K G): which leg is which on the part
            off = (0.12, 0.0) if dr in ("U", "D") else (0.0, 0.14)
            mid = ((inner[0] + tip[0]) / 2 + off[0], (inner[1] + tip[1]) / 2 + off[1])
            self.d.add(elm.Label().theta(0).at(mid).label(num, fontsize=FONT - 2, halign="left", color="#555"))
        self.title(part)

    def pin(self, p, tip, direction, lead):
        tip, lead = _r(tip), (_r(lead[0]), _r(lead[1]))
        self.sheet.pins.append((p.net.name if p.net else None, p.ref, tip, direction, lead))
        self.ends[p.ref] = (tip, direction)

    # -- nets --
    def wire(self, net, a, b):
        self.d.add(elm.Line().at(a).to(b).color(self.colour(net)))
        self.sheet.wires.append((net.name, _r(a), _r(b)))

    def zone(self, ref):
        """Where a label for pin ref would go: kept free by the router."""
        tip = self.ends[ref][0]
        _end, box = self.label(self.nl.net_of(ref), ref, STUB)
        return (min(tip[0], box[0]), min(tip[1], box[1]), max(tip[0], box[2]), max(tip[1], box[3]))

    def label(self, net, ref, stub=STUB):
        """(stub end, box of what is drawn there): a ground symbol for the ground net, a bar and the
        rail's name for a power net, the net's name for a signal."""
        tip, dr = self.ends[ref]
        dx, dy = DIRS[dr]
        end = (tip[0] + dx * stub, tip[1] + dy * stub)
        if net.kind == "ground":   # the symbol: 0.64 along the stub, 0.5 across
            a, c = 0.02, 0.66
            if dr in ("L", "R"):
                x0, x1 = sorted((end[0] + dx * a, end[0] + dx * c))
                return end, (x0, end[1] - 0.25, x1, end[1] + 0.25)
            y0, y1 = sorted((end[1] + dy * a, end[1] + dy * c))
            return end, (end[0] - 0.25, y0, end[0] + 0.25, y1)
        text = net.name
        w, h = len(text) * CHAR_W, TEXT_H
        g = 0.08 if net.kind != "power" else 0.16   # a power rail's bar sits in the gap
        if dr == "R":
            box = (end[0] + g, end[1] - h / 2, end[0] + g + w, end[1] + h / 2)
        elif dr == "L":
            box = (end[0] - g - w, end[1] - h / 2, end[0] - g, end[1] + h / 2)
        elif dr == "U":
            box = (end[0] - w / 2, end[1] + g - 0.03, end[0] + w / 2, end[1] + g - 0.03 + h)
        else:
            box = (end[0] - w / 2, end[1] - g + 0.03 - h, end[0] + w / 2, end[1] - g + 0.03)
        if net.kind == "power":    # the bar, across the stub's end, inside the box
            box = (min(box[0], end[0] - 0.2), min(box[1], end[1] - 0.2), max(box[2], end[0] + 0.2),
                   max(box[3], end[1] + 0.2)) if dr in ("U", "D") else \
                  (min(box[0], end[0] + dx * 0.02), min(box[1], end[1] - 0.2), max(box[2], end[0] + dx * 0.02),
                   max(box[3], end[1] + 0.2))
        return end, box

    def place_label(self, net, p):
        """A stub and the net's name at pin p: the shortest stub whose label touches nothing."""
        tip = self.ends[p.ref][0]
        for stub in (STUB, STUB + 0.6, STUB + 1.2, STUB + 1.8, STUB + 2.4):
            end, box = self.label(net, p.ref, stub)
            if self.label_fits(net, (tip, end), box):
                break
        else:
            end, box = self.label(net, p.ref, STUB)   # check() will report it
        self.wire(net, tip, end)
        dr = self.ends[p.ref][1]
        if net.kind == "ground":
            theta = {"D": 0, "R": 90, "L": -90, "U": 180}[dr]
            self.d.add(elm.Ground().theta(theta).at(end).color(self.colour(net)))
            self.sheet.labels.append((net.name, net.name, box, end))
            return
        if net.kind == "power":
            a, b = ((end[0] - 0.2, end[1]), (end[0] + 0.2, end[1])) if dr in ("U", "D") else \
                ((end[0], end[1] - 0.2), (end[0], end[1] + 0.2))
            self.d.add(elm.Line().at(a).to(b).color(self.colour(net)).linewidth(1.6))
        text = _text_box(net, dr, box)
        cx, cy = (text[0] + text[2]) / 2, (text[1] + text[3]) / 2
        self.d.add(elm.Label().theta(0).at((cx, cy)).label(net.name, color=self.colour(net), fontsize=FONT))
        self.sheet.labels.append((net.name, net.name, box, end))

    def fits(self, net, segs):
        """Can segs (wires of net) be added without touching a body, a title, a label or anything
        of another net?"""
        sh = self.sheet
        others = [(a, b) for n, a, b in sh.wires if n != net.name]
        others += [lead for n, _ref, _t, _d, lead in sh.pins if n != net.name]
        zones = [self.zone(ref) for n, ref, _t, _d, _l in sh.pins
                 if n != net.name and n is not None and ref not in self.wired_pins]
        for a, b in segs:
            if any(boxes_touch(seg_box(a, b), z) for z in zones):
                return False
            box = seg_box(a, b)
            if any(boxes_touch(box, body) for body in sh.bodies.values()):
                return False
            if any(boxes_touch(box, t) for _r_, t in sh.texts):
                return False
            if any(boxes_touch(box, lb) for _n, _t, lb, _p in sh.labels):
                return False
            if any(boxes_touch(box, seg_box(c, d), 0.12) for c, d in others):
                return False
        # a wire of this net running along another wire of it would hide a junction: refuse
        mine = [(a, b) for n, a, b in sh.wires if n == net.name] + list(segs)
        for i, (a, b) in enumerate(mine):
            for c, d in mine[i + 1:]:
                if (a[0] == b[0] == c[0] == d[0] or a[1] == b[1] == c[1] == d[1]) and boxes_touch(
                        seg_box(a, b), seg_box(c, d)) and len({_r(a), _r(b)} & {_r(c), _r(d)}) == 0:
                    return False
        return True

    def label_fits(self, net, stub, box):
        sh = self.sheet
        if not self.fits(net, [stub]):
            return False
        if any(boxes_touch(box, b) for b in sh.bodies.values()) or any(boxes_touch(box, t) for _r_, t in sh.texts):
            return False
        if any(boxes_touch(box, lb) for _n, _t, lb, _p in sh.labels):
            return False
        others = [(a, b) for n, a, b in sh.wires if n != net.name]
        others += [lead for n, _ref, _t, _d, lead in sh.pins if n != net.name]
        return not any(boxes_touch(box, seg_box(a, b)) for a, b in others)

    def route(self, net):
        """Wires for net, or None: two pins by a straight line or an L; more by one vertical trunk."""
        ends = [self.ends[p.ref] for p in net.pins]
        if len(ends) == 2:
            (t1, d1), (t2, d2) = ends
            options = []
            if abs(t1[0] - t2[0]) < EPS or abs(t1[1] - t2[1]) < EPS:
                options.append([(t1, t2)])
            options += [[(t1, (t2[0], t1[1])), ((t2[0], t1[1]), t2)], [(t1, (t1[0], t2[1])), ((t1[0], t2[1]), t2)]]
            for segs in options:
                segs = [(a, b) for a, b in segs if _r(a) != _r(b)]
                if self._leaves_outward(segs, ends) and self.fits(net, segs):
                    return segs
        if any(dr not in ("L", "R") for _t, dr in ends):
            return None
        lo = max([t[0] + 0.3 for t, dr in ends if dr == "R"] or [-1e9])
        hi = min([t[0] - 0.3 for t, dr in ends if dr == "L"] or [1e9])
        if lo > hi:
            return None
        xs = sorted({t[0] for t, _d in ends})
        mid = sum(xs) / len(xs)
        start, stop = max(lo, min(xs) - 4), min(hi, max(xs) + 4)
        cands = []
        x = round(start / GRID) * GRID
        while x <= stop + EPS:
            if lo - EPS <= x <= hi + EPS:
                cands.append(round(x, 4))
            x += GRID
        cands.sort(key=lambda x: abs(x - mid))
        for x in cands:
            segs = [(t, (x, t[1])) for t, _dr in ends if abs(t[0] - x) > EPS]
            ys = sorted({t[1] for t, _d in ends})
            segs += [((x, y0), (x, y1)) for y0, y1 in zip(ys, ys[1:])]
            if self.fits(net, segs):
                return segs
        return None

    @staticmethod
    def _leaves_outward(segs, ends):
        """Each pin's first wire leaves it away from its part, not back across it."""
        for t, dr in ends:
            dx, dy = DIRS[dr]
            for a, b in segs:
                for p, q in ((a, b), (b, a)):
                    if _r(p) == _r(t):
                        if (q[0] - p[0]) * dx + (q[1] - p[1]) * dy <= EPS:
                            return False
        return True

    @staticmethod
    def _dots(name, wires):
        mine = [(a, b) for n, a, b in wires if n == name]
        out = set()
        for a, b in mine:
            for end in (a, b):
                touching = sum(1 for c, d in mine if on_segment(end, c, d))
                if touching >= 3 or any(interior(end, c, d) for c, d in mine):
                    out.add(_r(end))
        return out

    def draw(self):
        for part in self.nl.parts.values():
            if part.kind in wiring.BOXES:
                self.box(part)
            elif part.kind in ("pmos", "scr", "pnp"):
                self.three_terminal(part)
            else:
                self.two_terminal(part)
        self.place_titles()
        wired = 0
        signals = [n for n in self.nl.nets.values() if n.kind == "signal" or len(n.pins) <= 3]
        for net in sorted(signals, key=lambda n: len(n.pins)):
            segs = self.route(net)
            if segs:
                for a, b in segs:
                    self.wire(net, a, b)
                self.wired_pins.update(p.ref for p in net.pins)
                wired += 1
                for p in self._dots(net.name, self.sheet.wires):
                    self.d.add(elm.Dot(radius=0.09).theta(0).at(p).color(self.colour(net)))
                    self.sheet.dots.append((net.name, p))
        drawn = {(n) for n, _a, _b in self.sheet.wires}
        for net in self.nl.nets.values():
            if net.name in drawn:
                continue
            for p in net.pins:
                self.place_label(net, p)
        for p in self.nl.nc:   # pins left open on purpose: a cross at the tip
            if p.ref in self.ends:
                self.d.add(elm.NoConnect().at(self.ends[p.ref][0]))
                self.sheet.nc.append(_r(self.ends[p.ref][0]))
        self.reeds()
        self.reader_box()
        self.wired = wired
        return self.sheet

    def reeds(self):
        """The reeds are off the board: one symbol between J5 and J6 stands for the eight."""
        if "J5" not in self.nl.parts or "J6" not in self.nl.parts:
            return
        j5, j6 = self.sheet.bodies["J5"], self.sheet.bodies["J6"]
        y = min(j5[1], j6[1]) - 1.1
        x = (j5[0] + j6[2]) / 2
        el = elm.SwitchReed().right().at((x - 1.5, y))
        self.d.add(el)
        self.sheet.bodies["reeds"] = (x - 1.5, y - 0.3, x + 1.5, y + 0.3)
        text = "8 reed switches (off the board): reed k from J5 pin k+1 (Dk) to J6 pin k+1 (GND)"
        w = len(text) * CHAR_W * 0.85
        self.d.add(elm.Label().theta(0).at((x, y - 0.55)).label(text, fontsize=FONT - 1.5))
        self.sheet.texts.append(("reeds", (x - w / 2, y - 0.7, x + w / 2, y - 0.4)))

    def reader_box(self):
        """A dashed frame round the reader board's parts, and what it stands for."""
        from hardware import stripboard
        sh = self.sheet
        refs = [r for r in stripboard.READER_PARTS if r in sh.bodies] + ["reeds"]
        if not refs:
            return
        mine = [sh.bodies[r] for r in refs] + [t for r, t in sh.texts if r in refs]
        tips = [t for _n, ref, t, _d, _l in sh.pins if ref.split(".")[0] in refs]
        ends = {_r(t) for t in tips}
        # the labels at the reader's own pins' stubs
        for _n, _t, box, end in sh.labels:
            for tip in tips:
                if abs(end[0] - tip[0]) + abs(end[1] - tip[1]) < 3.1 and (end[0] == tip[0] or end[1] == tip[1]):
                    mine.append(box)
                    break
        del ends
        x0 = min(b[0] for b in mine) - 0.3
        y0 = min(b[1] for b in mine) - 0.3
        x1 = max(b[2] for b in mine) + 0.3
        y1 = max(b[3] for b in mine) + 0.3
        _frame(self.d, (x0, y0, x1, y1), "--", "#777")
        text = "reader board x 25: one per 8 stations, chained by ribbon (J3 IN, J4 OUT)"
        w = len(text) * CHAR_W
        self.d.add(elm.Label().theta(0).at((x1 - w / 2, y1 + 0.3)).label(text, fontsize=FONT, color="#555"))
        sh.frame = (x0, y0, x1, y1)
        sh.texts.append(("frame", (x1 - w, y1 + 0.1, x1, y1 + 0.5)))


REVISION = "D"   # B: the shared reader bus and the crowbar; C: re-driven bus, over-voltage switch, chain marker;
#                  D: the simulated power entry (divider 1.18 k/1 k, D4 + R15 at Q1's gate, C13)


def title_block(d, cfg):
    """A framed block under the drawing: what it is, its revision and how it was made."""
    y = min(b[1] for b in d.sheet.bodies.values()) - 1.6
    x1 = max(b[2] for b in d.sheet.bodies.values())
    lines = ["Scotland Yard board - %s" % wiring.MCU_NAMES[cfg["board"]],
             "Revision %s   sheet 1 of 1   source: hardware/wiring.net (python -m hardware.schematic)" % REVISION,
             "Labels with one name are one net; ground symbol = GND; bar = supply rail; X = not connected.",
             "Pin numbers: the part's datasheet (U1: header pins)."]
    w = max(len(t) for t in lines) * CHAR_W * 1.1
    h = TEXT_H * 1.3 * len(lines) + 0.3
    x0 = x1 - w
    _frame(d.d, (x0, y - h, x1, y), "-", "#222")
    for i, t in enumerate(lines):
        d.d.add(elm.Label().theta(0).at((x0 + 0.2, y - 0.25 - i * TEXT_H * 1.3)).label(
            t, fontsize=FONT + (2 if i == 0 else 0), halign="left"))
    d.sheet.title_block = (x0, y - h, x1, y, lines)


def draw(cfg, netlist_path=wiring.NETLIST):
    """(svg text, Sheet, Netlist, number of nets drawn as wires)"""
    nl = wiring.load(cfg, netlist_path)
    dr = Drawer(nl)
    sheet = dr.draw()
    title_block(dr, cfg)
    svg = dr.d.get_imagedata("svg")
    return svg.decode() if isinstance(svg, bytes) else svg, sheet, nl, dr.wired


def to_png(svg_path, png_path, width=2400):
    """PNG through rsvg-convert (librsvg2-bin); False when it is missing."""
    tool = shutil.which("rsvg-convert")
    if not tool:
        return False
    subprocess.run([tool, "-w", str(width), "-b", "white", "-o", png_path, svg_path], check=True)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.schematic", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", choices=boardconfig.BOARDS, default="pico")
    ap.add_argument("--config", help="a board.json (default: the defaults for --board)")
    ap.add_argument("-o", "--out", help="output SVG (default build/schematic-<board>.svg)")
    ap.add_argument("--png", action="store_true", help="also write a PNG next to it (rsvg-convert)")
    args = ap.parse_args(argv)
    try:
        cfg = boardconfig.load(args.config) if args.config else boardconfig.default(args.board)
        svg, sheet, nl, wired = draw(cfg)
    except (boardconfig.ConfigError, wiring.NetlistError) as e:
        print("error: %s" % (configerrors.explain(e) if isinstance(e, boardconfig.ConfigError) else e), file=sys.stderr)
        return 2
    problems = check(sheet, nl)
    out = args.out or os.path.join("build", "schematic-%s.svg" % cfg["board"])
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as f:
        f.write(svg)
    print("wrote %s: %d parts, %d nets (%d drawn as wires), %d wire segments, %d junction dots"
          % (out, len(nl.parts), len(nl.nets), wired, len(sheet.wires), len(sheet.dots)))
    if args.png:
        png = os.path.splitext(out)[0] + ".png"
        print("wrote %s" % png if to_png(out, png) else "no rsvg-convert: no PNG (apt install librsvg2-bin)")
    for p in problems:
        print("drawing problem: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
