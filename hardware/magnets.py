"""Magnet and reed switch, from a field calculation (magpylib): which reed sensitivity band a
piece's magnet closes through the board, at every station, and never under another station.

    python -m hardware.magnets [--measurements my_board.csv]

A reed closes when the magnetic potential difference along its blades reaches its pull-in rating:
a rating of N ampere-turns (AT) is measured in a coil around the glass, whose field integrated
along the reed is N (1 AT ~ 0.1 mT over a 12.7 mm reed: the reed makers' rule of thumb). So each
magnet position gives the reed an equivalent AT = (integral of B along the glass) / mu0, computed
here from magpylib's exact field of an axially magnetised cylinder. A magnet over the middle of
the glass gives 0 (both blades see the same pole: the dead zone), over one end the most.

Geometry (hardware.placement): the glass starts under the station centre and points away; the
magnet's lower face lies on the printed card (the piece's base is BASE_MM thick), the card is
CARD_MM thick and the glass's axis lies GLASS_AXIS_MM below the backing plate's face. A piece
stands anywhere within PLACE_TOLERANCE_MM of its station's centre.

For every candidate magnet and standard reed band (pull-in AT range) the tool asks: does the
weakest own-station position reach the band's top (a reed of the least sensitive kind still
closes) by MARGIN, and does the worst neighbour sum (every other station occupied, each piece at
its worst spot, all poles alike) stay below the band's bottom by MARGIN, at every station?
"""
import argparse
import math
import sys

from hardware import missing_extra, placement

MU0 = 4e-7 * math.pi
BASE_MM = 0.5             # the piece's base under its magnet
CARD_MM = 2.0             # the printed board
GLASS_AXIS_MM = 1.5       # the groove is 2.5 mm deep for a 2 mm glass: axis 0.5 + 1 mm below the face
PLACE_TOLERANCE_MM = 2.5  # a piece put down by hand, off its station's centre
MARGIN = 1.25             # on both sides of the band
NEIGHBOUR_RANGE_MM = 45.0
SAMPLES = 57              # points along the glass
# Disc magnets, axially magnetised: (diameter mm, height mm, remanence T: N35 ~1.19, N42 ~1.29)
MAGNETS = {
    "5 x 2 mm N42": (5.0, 2.0, 1.29),
    "6 x 2 mm N35": (6.0, 2.0, 1.19),
    "6 x 3 mm N42": (6.0, 3.0, 1.29),
    "8 x 3 mm N42": (8.0, 3.0, 1.29),
    "10 x 2 mm N42": (10.0, 2.0, 1.29),
}
# Pull-in ranges reed makers sell (AT, measured in their standard coil)
BANDS = [(10, 15), (15, 20), (20, 25), (25, 30), (30, 40), (40, 50), (50, 60)]
# What the BOM orders: the choice with the most margin for the example board (a test keeps it so)
MAGNET = "5 x 2 mm N42"
REED_BAND = (20, 25)


def _depth_mm():
    """From the glass's axis up to the magnet's lower face."""
    return GLASS_AXIS_MM + CARD_MM + BASE_MM


def reed_at(positions, magnet):
    """[equivalent AT] on a reed along +x from (0, 0) (its glass, REED_GLASS_MM long) for a magnet
    centred over each (x, y) mm in positions."""
    import magpylib
    import numpy as np
    d, h, br = MAGNETS[magnet]
    cyl = magpylib.magnet.Cylinder(polarization=(0, 0, br), dimension=(d / 1000, h / 1000),
                                   position=(0, 0, (_depth_mm() + h / 2) / 1000))
    xs = np.linspace(0.0, placement.REED_GLASS_MM, SAMPLES)
    pos = np.asarray(positions, dtype=float).reshape(-1, 2)
    obs = np.zeros((len(pos), SAMPLES, 3))
    obs[:, :, 0] = (xs[None, :] - pos[:, 0:1]) / 1000
    obs[:, :, 1] = -pos[:, 1:2] / 1000
    bx = cyl.getB(obs.reshape(-1, 3))[:, 0].reshape(len(pos), SAMPLES)
    return list(np.trapezoid(bx, xs / 1000, axis=1) / MU0)


def _ring(x, y, r, n=8):
    return [(x, y)] + [(x + r * math.cos(2 * math.pi * k / n), y + r * math.sin(2 * math.pi * k / n))
                       for k in range(n)]


def own_at(magnet):
    """The weakest |AT| a piece gives its own reed (anywhere within the placing tolerance)."""
    return min(abs(a) for a in reed_at(_ring(0.0, 0.0, PLACE_TOLERANCE_MM), magnet))


def neighbour_at(pl, magnet):
    """(worst |AT| sum at any station from all other stations' pieces, that station, its nearest
    contributor, that one's share): each piece at its worst spot within the tolerance, poles alike."""
    jobs = []    # (station, other, [(x, y) in the station's reed frame])
    for s, c in pl.pos.items():
        a = pl.angles[s]
        ux, uy = math.cos(a), math.sin(a)
        for t, q in pl.pos.items():
            if t == s or math.dist(c, q) > NEIGHBOUR_RANGE_MM:
                continue
            dx, dy = q[0] - c[0], q[1] - c[1]
            x, y = dx * ux + dy * uy, -dx * uy + dy * ux
            jobs.append((s, t, _ring(x, y, PLACE_TOLERANCE_MM)))
    flat = [p for _s, _t, ring in jobs for p in ring]
    at = reed_at(flat, magnet)
    total, top = {}, {}
    i = 0
    for s, t, ring in jobs:
        worst = max(abs(v) for v in at[i:i + len(ring)])
        i += len(ring)
        total[s] = total.get(s, 0.0) + worst
        if worst > top.get(s, (None, 0.0))[1]:
            top[s] = (t, worst)
    s = max(total, key=total.get)
    return total[s], s, top[s][0], top[s][1]


class Choice:
    def __init__(self, magnet, band, own, neighbour, station, other, share):
        self.magnet, self.band, self.own = magnet, band, own
        self.neighbour, self.station, self.other, self.share = neighbour, station, other, share

    @property
    def closes(self):       # own piece over the band's top, with the margin
        return self.own / self.band[1]

    @property
    def stays_open(self):   # neighbours under the band's bottom, with the margin
        return self.band[0] / self.neighbour

    @property
    def ok(self):
        return self.closes >= MARGIN and self.stays_open >= MARGIN

    def line(self):
        return ("%-14s reed %2d-%2d AT: own piece >= %5.1f AT (x%.2f over %d), neighbours <= %4.1f AT (x%.2f under %d; "
                "station %d, mostly from %d: %.1f) %s" % (
                    self.magnet, self.band[0], self.band[1], self.own, self.closes, self.band[1], self.neighbour,
                    self.stays_open, self.band[0], self.station, self.other, self.share, "ok" if self.ok else "-"))


def choices(pl):
    out = []
    for magnet in MAGNETS:
        own = own_at(magnet)
        nb, s, t, share = neighbour_at(pl, magnet)
        for band in BANDS:
            out.append(Choice(magnet, band, own, nb, s, t, share))
    return out


def best(cs):
    """The passing choice with the most margin on its weaker side (None if none passes)."""
    good = [c for c in cs if c.ok]
    return max(good, key=lambda c: min(c.closes, c.stays_open)) if good else None


def reach_mm(magnet, band_low):
    """How far from a reed's station centre (behind it, or beyond its glass's far end, on its axis:
    the strongest directions) a piece must stay for the reed's most sensitive kind to stay open."""
    out = []
    for start, step in ((0.0, -0.25), (placement.REED_GLASS_MM, 0.25)):
        x = start
        while abs(reed_at([(x, 0.0)], magnet)[0]) >= band_low / MARGIN:
            x += step
        out.append(abs(x) if step < 0 else x - placement.REED_GLASS_MM)
    return tuple(out)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.magnets", description=__doc__.split("\n\n")[0])
    placement.add_measurements_argument(ap)
    args = ap.parse_args(argv)
    missing = missing_extra("magnets", "magpylib", "numpy")
    if missing:
        print(missing, file=sys.stderr)
        return 2
    pl = placement.placement_or_say(args.measurements)
    if pl is None:
        return 2
    cs = choices(pl)
    print("magnet lower face %.1f mm above the glass's axis; pieces within %.1f mm of their station; margin x%.2f"
          % (_depth_mm(), PLACE_TOLERANCE_MM, MARGIN))
    for c in cs:
        print(c.line())
    b = best(cs)
    if b is None:
        print("no magnet and reed band closes every station's own reed and never a neighbour's")
        return 1
    behind, beyond = reach_mm(b.magnet, b.band[0])
    print("chosen: %s magnet, reed %d-%d AT; a piece on the reed's axis stays below %.0f AT (band bottom / margin) "
          "from %.2f mm behind the station centre and %.2f mm beyond the glass's far end"
          % (b.magnet, b.band[0], b.band[1], b.band[0] / MARGIN, behind, beyond))
    return 0


if __name__ == "__main__":
    sys.exit(main())
