"""Render the wiring diagram (SVG) from hardware/wiring.net and the board config's pin map.

    python -m hardware.wiring [--board pico|esp32] [--config board.json] [-o build/wiring-pico.svg]

MCU pins in the netlist are board.json keys ({reeds.sck}); they are resolved here from the same
config the firmware reads, so the drawing cannot drift from the firmware's pin map. A key whose
value is null (no buttons, no safe-mode pin) drops that pin and its connection.
"""
import argparse
import os
import re
import sys

from sy import boardconfig

HERE = os.path.dirname(os.path.abspath(__file__))
NETLIST = os.path.join(HERE, "wiring.net")
CANVAS = (1240, 860)
PIN_STEP = 30
STUB = 18
COLOURS = {"power": "#d22", "ground": "#222", "signal": "#1565c0"}
MCU_NAMES = {"pico": "Raspberry Pi Pico (RP2040)", "esp32": "ESP32-DevKitC (WROOM-32)"}


class NetlistError(Exception):
    pass


def config_value(cfg, key):
    v = cfg
    for part in key.split("."):
        if v is None:  # a null section (buttons: null): every pin in it is absent
            return None
        if part not in v:
            raise NetlistError("{%s} is not a board config key" % key)
        v = v[part]
    return v


def pin_label(board, n):
    return ("GP%d" if board == "pico" else "GPIO%d") % n


def parse(text, cfg):
    """(parts, nets): parts {ref: {x, y, w, h, title, pins: [(side, name, label)]}},
    nets [(name, kind, [(ref, pin)])]. Config keys are resolved; errors name the line."""
    parts, nets = {}, []
    board = cfg["board"]
    dropped = set()
    orphans = set()

    def resolve(name, where):
        m = re.fullmatch(r"\{([\w.]+)\}", name)
        if not m:
            return name
        try:
            v = config_value(cfg, m.group(1))
        except NetlistError as e:
            raise NetlistError("%s: %s" % (where, e))
        if v is None:
            dropped.add(name)
            return None
        return pin_label(board, v)

    for n, line in enumerate(text.splitlines(), 1):
        where = "wiring.net line %d" % n
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        kind = words[0]
        if kind == "part":
            if len(words) < 7:
                raise NetlistError("%s: part REF X Y W H Title" % where)
            ref = words[1]
            title = " ".join(words[6:]).replace("{mcu}", MCU_NAMES[board])
            parts[ref] = dict(zip("xywh", map(int, words[2:6])), title=title, pins=[])
        elif kind == "pin":
            if len(words) < 4 or words[2] not in ("L", "R"):
                raise NetlistError("%s: pin REF L|R NAME [label]" % where)
            if words[1] not in parts:
                raise NetlistError("%s: pin of unknown part %s" % (where, words[1]))
            name = resolve(words[3], where)
            if name is None:
                continue
            label = name + ((" " + " ".join(words[4:])) if len(words) > 4 else "")
            parts[words[1]]["pins"].append((words[2], name, label))
        elif kind == "net":
            if len(words) < 5 or words[2] not in COLOURS:
                raise NetlistError("%s: net NAME power|ground|signal REF.PIN REF.PIN ..." % where)
            ends = []
            lost = False  # the net's MCU pin is null in the config: the net is left out
            for e in words[3:]:
                ref, _, pin = e.partition(".")
                if ref not in parts:
                    raise NetlistError("%s: net %s: unknown part %s" % (where, words[1], ref))
                if pin in dropped:
                    lost = True
                    continue
                name = resolve(pin, where)
                if name not in [p[1] for p in parts[ref]["pins"]]:
                    raise NetlistError("%s: net %s: part %s has no pin %s" % (where, words[1], ref, pin))
                ends.append((ref, name))
            if lost:
                orphans.update(ends)
            elif len(ends) >= 2:
                nets.append((words[1], words[2], ends))
        else:
            raise NetlistError("%s: unknown line kind %r" % (where, kind))
    used = {e for _, _, ends in nets for e in ends}
    for ref, p in parts.items():
        for side, name, _ in p["pins"]:
            if (ref, name) not in used and (ref, name) not in orphans:
                raise NetlistError("pin %s.%s is not connected to anything" % (ref, name))
    return parts, nets


def pin_xy(part, name):
    """Outer end of a pin's stub."""
    lefts = [p for p in part["pins"] if p[0] == "L"]
    rights = [p for p in part["pins"] if p[0] == "R"]
    for i, p in enumerate(lefts):
        if p[1] == name:
            return part["x"] - STUB, part["y"] + 40 + i * PIN_STEP
    for i, p in enumerate(rights):
        if p[1] == name:
            return part["x"] + part["w"] + STUB, part["y"] + 40 + i * PIN_STEP
    raise KeyError(name)


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(parts, nets, cfg):
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif">' % (CANVAS * 2),
           '<rect width="100%" height="100%" fill="#fff"/>',
           '<text x="20" y="24" font-size="16" font-weight="bold">Scotland Yard board wiring: %s '
           '(generated from hardware/wiring.net and the board config)</text>' % _esc(MCU_NAMES[cfg["board"]])]
    for ref, p in parts.items():
        out.append('<g class="part" id="%s">' % ref)
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="#f7f7f2" stroke="#333" stroke-width="1.5" '
                   'rx="4"/>' % (p["x"], p["y"], p["w"], p["h"]))
        words, lines = (ref + " " + p["title"]).split(), [""]
        for w in words:  # wrap the title to the box width (about 6 px per character)
            if lines[-1] and len(lines[-1]) + len(w) + 1 > p["w"] // 6:
                lines.append("")
            lines[-1] = (lines[-1] + " " + w).strip()
        for i, t in enumerate(lines[:2]):
            out.append('<text class="title" x="%d" y="%d" font-size="10" font-weight="bold">%s</text>'
                       % (p["x"] + 4, p["y"] + 13 + 11 * i, _esc(t)))
        for side, name, label in p["pins"]:
            x, y = pin_xy(p, name)
            inner = x + STUB if side == "L" else x - STUB
            out.append('<path class="pin" d="M%d %dH%d" stroke="#333" stroke-width="1.5"/>' % (x, y, inner))
            anchor, tx = ("start", inner + 4) if side == "L" else ("end", inner - 4)
            out.append('<text class="pinlabel" x="%d" y="%d" font-size="10" text-anchor="%s">%s</text>'
                       % (tx, y + 3, anchor, _esc(label)))
        out.append('</g>')
    for k, (name, kind, ends) in enumerate(nets):
        colour = COLOURS[kind]
        out.append('<g class="net" id="net-%s">' % name)
        for a, b in zip(ends, ends[1:]):
            x1, y1 = pin_xy(parts[a[0]], a[1])
            x2, y2 = pin_xy(parts[b[0]], b[1])
            # leave each pin horizontally away from its part, then run on a per-net lane
            dx1 = -1 if x1 < parts[a[0]]["x"] else 1
            dx2 = -1 if x2 < parts[b[0]]["x"] else 1
            lane = 6 + (k % 6) * 4
            xa, xb = x1 + dx1 * lane, x2 + dx2 * lane
            xm = (xa + xb) // 2 if dx1 != dx2 else (max(xa, xb) if dx1 > 0 else min(xa, xb))
            out.append('<path class="wire" d="M%d %dH%dV%dH%d" fill="none" stroke="%s" stroke-width="1.4" '
                       'stroke-opacity="0.85"/>' % (x1, y1, xm, y2, x2, colour))
        x, y = pin_xy(parts[ends[0][0]], ends[0][1])
        out.append('<text class="netlabel" x="%d" y="%d" font-size="9" fill="%s">%s</text>'
                   % (x + (3 if x > parts[ends[0][0]]["x"] else -40), y - 3, colour, _esc(name)))
        out.append('</g>')
    notes = [
        "LED data: 3.3 V GPIO -> 74AHCT125 (VCC 5 V, TTL input) -> 330 R -> DIN of L0; 100 nF at each LED.",
        "74HC165 x 25 at 3.3 V: SH/LD and CLK shared; QH of chip n+1 -> SER of chip n; chip 24 SER -> GND; "
        "CLK INH -> GND; 100 nF per chip.",
        "Each input: 10 k to 3.3 V (bussed network), reed switch to GND: a piece on the station reads 0 "
        "(active_low).",
        "Pins shown are read from the board config (reeds.*, leds.pin, buttons.*, safe_mode_pin).",
    ]
    for i, t in enumerate(notes):
        out.append('<text class="note" x="20" y="%d" font-size="12">%s</text>' % (CANVAS[1] - 80 + i * 18, _esc(t)))
    out.append('</svg>')
    return "\n".join(out) + "\n"


def diagram(cfg, netlist_path=NETLIST):
    with open(netlist_path) as f:
        parts, nets = parse(f.read(), cfg)
    return render(parts, nets, cfg), parts, nets


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.wiring", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", choices=boardconfig.BOARDS, default="pico")
    ap.add_argument("--config", help="a board.json (default: the defaults for --board)")
    ap.add_argument("-o", "--out", help="output SVG (default build/wiring-<board>.svg)")
    args = ap.parse_args(argv)
    try:
        cfg = boardconfig.load(args.config) if args.config else boardconfig.default(args.board)
        svg, parts, nets = diagram(cfg)
    except (boardconfig.ConfigError, NetlistError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    out = args.out or os.path.join("build", "wiring-%s.svg" % cfg["board"])
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as f:
        f.write(svg)
    print("wrote %s: %d parts, %d nets, %d wires" % (out, len(parts), len(nets),
                                                      sum(len(e) - 1 for _, _, e in nets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
