"""The LEDs' colours as players with a colour-vision deficiency see them.

Every pair of colours the players must tell apart (the three transports; the detectives and the
Bobbies; on the Europe board its three transports and five detectives) is simulated under protanopia, deuteranopia and tritanopia (Machado et al. 2009 at full
severity, as colorspacious implements it) and compared with CIEDE2000 (CIE Lab under D65 from
colorspacious; the ΔE00 formula below, checked against Sharma, Wu and Dalal's test data in
tests/test_colour_vision.py). `python -m host.leds.colourvision` prints the table of
docs/colour-vision.md.

Colour is not the only signal: the transports blink in patterns and a piece's empty station blinks
its number (sy/play/board.py, sy/europe/board.py, where board.json turns them on), so the threshold asks only that colours stay a useful second cue.
"""
import itertools
import math

from colorspacious import cspace_convert

from sy.europe import board as europe
from sy.play.board import BOBBY_RGB, PIECE_RGB, TRANSPORT_RGB

# The smallest ΔE00 allowed between two colours players must tell apart, in every vision. 2.3 is
# a just-noticeable difference for two patches side by side; two LEDs are seen apart, small and
# bright, and a player names a colour rather than compares it, which takes a step between named
# colours: about 10 (an orange and a yellow of the same lightness). 15 leaves half as much again
# for what the simulation leaves out (an LED's spectrum is not an sRGB primary's; a partial
# deficiency is milder than the full one simulated).
THRESHOLD = 15.0
VISIONS = ("normal", "protanopia", "deuteranopia", "tritanopia")
_CVD = {"protanopia": "protanomaly", "deuteranopia": "deuteranomaly", "tritanopia": "tritanomaly"}


def transports():
    return {name: tuple(TRANSPORT_RGB[3 * t:3 * t + 3]) for t, name in enumerate(("taxi", "bus", "underground"))}


def pieces():
    out = {"D%d" % (i + 1): tuple(PIECE_RGB[3 * i:3 * i + 3]) for i in range(5)}
    out["Bobby"] = tuple(PIECE_RGB[BOBBY_RGB:BOBBY_RGB + 3])
    return out


def europe_transports():
    return dict(zip(("car", "train", "plane"), europe.TRANSPORT_RGB))


def europe_pieces():
    return {"D%d" % (i + 1): rgb for i, rgb in enumerate(europe.PIECE_RGB)}


GROUPS = {"transports": transports, "pieces": pieces,
          "Europe transports": europe_transports, "Europe pieces": europe_pieces}


def seen(rgb, vision):
    """The colour as sRGB (0..1) a person with `vision` sees it."""
    srgb = [c / 255 for c in rgb]
    if vision == "normal":
        return srgb
    space = {"name": "sRGB1+CVD", "cvd_type": _CVD[vision], "severity": 100}
    return [min(1.0, max(0.0, c)) for c in cspace_convert(srgb, space, "sRGB1")]


def lab(srgb):
    return cspace_convert(srgb, "sRGB1", "CIELab")


def ciede2000(lab1, lab2):
    """ΔE00 (Sharma, Wu, Dalal 2005), kL = kC = kH = 1."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    C1 = math.hypot(a1, b1)
    C2 = math.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - math.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if C1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if C2p else 0.0
    dLp = L2 - L1
    dCp = C2p - C1p
    if C1p * C2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    dHp = 2 * math.sqrt(C1p * C2p) * math.sin(math.radians(dhp / 2))
    Lpm = (L1 + L2) / 2
    Cpm = (C1p + C2p) / 2
    if C1p * C2p == 0:
        hpm = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hpm = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hpm = (h1p + h2p + 360) / 2
    else:
        hpm = (h1p + h2p - 360) / 2
    T = (1 - 0.17 * math.cos(math.radians(hpm - 30)) + 0.24 * math.cos(math.radians(2 * hpm))
         + 0.32 * math.cos(math.radians(3 * hpm + 6)) - 0.20 * math.cos(math.radians(4 * hpm - 63)))
    dtheta = 30 * math.exp(-(((hpm - 275) / 25) ** 2))
    Rc = 2 * math.sqrt(Cpm ** 7 / (Cpm ** 7 + 25 ** 7))
    Sl = 1 + 0.015 * (Lpm - 50) ** 2 / math.sqrt(20 + (Lpm - 50) ** 2)
    Sc = 1 + 0.045 * Cpm
    Sh = 1 + 0.015 * Cpm * T
    Rt = -math.sin(math.radians(2 * dtheta)) * Rc
    return math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh))


def distance(rgb1, rgb2, vision):
    return ciede2000(lab(seen(rgb1, vision)), lab(seen(rgb2, vision)))


def table():
    """[(group, name1, name2, {vision: ΔE00})] for every pair players must tell apart."""
    rows = []
    for group, colours in GROUPS.items():
        named = colours()
        for (n1, c1), (n2, c2) in itertools.combinations(named.items(), 2):
            rows.append((group, n1, n2, {v: distance(c1, c2, v) for v in VISIONS}))
    return rows


def markdown():
    lines = ["| group | pair | " + " | ".join(VISIONS) + " |", "|---|---|" + "---:|" * len(VISIONS)]
    for group, n1, n2, d in table():
        lines.append("| %s | %s / %s | %s |" % (group, n1, n2, " | ".join("%.1f" % d[v] for v in VISIONS)))
    return "\n".join(lines)


if __name__ == "__main__":
    for group, colours in GROUPS.items():
        print(group, colours())
    print(markdown())
