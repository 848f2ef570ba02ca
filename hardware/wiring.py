"""Read hardware/wiring.net, the one source of the board's wiring, for one board kind and config.

    nl = wiring.load(cfg)            # cfg: a board.json (sy.hardware.boardconfig) -> Netlist
    nl.parts["U2"].pins["9"].net     # 'DATA0'

The schematic (hardware.schematic), the electrical-rules check (hardware.erc), the reader-board
stripboard layout (hardware.stripboard) and the bill of materials (hardware.bom) all read this,
so none of them can drift from the others. MCU pins are written as board.json keys
({reeds.sck}); they are resolved here from the same config the firmware reads. A key whose
value is null (no buttons, no safe-mode pin) drops that pin and every connection to it.

File format (one item per line, '#' starts a comment):

    only pico|esp32|all               the lines that follow apply to that board (all: both)
    part REF KIND X Y [h|v|u] -- text KIND: see PIN_SETS and BOXES; X Y: centre, schematic units;
                                      h: first pin left, v: first pin on top, u: first pin below
    pin REF NUMBER NAME SIDE TYPE     box parts only; SIDE L or R; NUMBER may be {config.key}
    net NAME power VOLTS REF.PIN ...  a supply rail at VOLTS
    net NAME ground REF.PIN ...
    net NAME signal REF.PIN ...       PIN is a pin number or a pin name
    nc REF.PIN ...                    pins deliberately left unconnected

Pin TYPEs: in (a logic input), out (a logic output), gpio (an MCU pin: 3.3 V logic, high
impedance while the MCU resets), pwr (a part's supply input), vin (an MCU board's 5 V input),
src (where the supply enters), gnd, pas (a passive pin: connectors, jumpers).
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
NETLIST = os.path.join(HERE, "wiring.net")
MCU_NAMES = {"pico": "Raspberry Pi Pico (RP2040)", "esp32": "ESP32-DevKitC V4 (WROOM-32)"}

# Two- and three-terminal parts: their pins, in the order the symbol's anchors give them.
PIN_SETS = {
    "r": (("1", "pas"), ("2", "pas")),
    "c": (("1", "pas"), ("2", "pas")),
    "cpol": (("+", "pas"), ("-", "pas")),
    "d": (("A", "pas"), ("K", "pas")),
    "zener": (("A", "pas"), ("K", "pas")),
    "fuse": (("1", "pas"), ("2", "pas")),
    "sw": (("1", "pas"), ("2", "pas")),       # a push button
    "toggle": (("1", "pas"), ("2", "pas")),   # a switch that stays where it is put
    "jumper": (("1", "pas"), ("2", "pas")),
    "pmos": (("S", "pas"), ("D", "pas"), ("G", "in")),
    "scr": (("A", "pas"), ("K", "pas"), ("G", "pas")),
    "pnp": (("E", "pas"), ("C", "pas"), ("B", "pas")),
}
BOXES = ("ic", "mcu", "conn", "led", "rnet")  # drawn as a box with numbered pins on its sides
# rnet: a bussed resistor network; its pin named COM is the common end of every resistor
PIN_TYPES = ("in", "out", "gpio", "pwr", "vin", "src", "gnd", "pas")

# Header pin numbers of the GPIOs the config may name (datasheets: Raspberry Pi Pico pinout;
# ESP32-DevKitC V4 headers J2 (1..19) and J3 (20 + 1..19)).
PICO_HEADER = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
               13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
               27: 32, 28: 34}
ESP32_HEADER = {36: "J2-3", 39: "J2-4", 34: "J2-5", 35: "J2-6", 32: "J2-7", 33: "J2-8", 25: "J2-9",
                26: "J2-10", 27: "J2-11", 14: "J2-12", 12: "J2-13", 13: "J2-15", 23: "J3-2", 22: "J3-3",
                1: "J3-4", 3: "J3-5", 21: "J3-6", 19: "J3-8", 18: "J3-9", 5: "J3-10", 17: "J3-11",
                16: "J3-12", 4: "J3-13", 0: "J3-14", 2: "J3-15", 15: "J3-16"}


class NetlistError(Exception):
    pass


class Pin:
    def __init__(self, part, number, name, side, kind):
        self.part = part
        self.number = number
        self.name = name
        self.side = side
        self.kind = kind
        self.net = None      # the Net, or None for an nc pin

    @property
    def ref(self):
        return "%s.%s" % (self.part.ref, self.number)

    def __repr__(self):
        return "<pin %s %s>" % (self.ref, self.name)


class Part:
    def __init__(self, ref, kind, x, y, orient, text):
        self.ref = ref
        self.kind = kind
        self.x = x
        self.y = y
        self.orient = orient
        self.text = text
        self.pins = {}       # number -> Pin, in declaration order

    @property
    def value(self):
        return self.text.split(";")[0].strip()

    def pin(self, key):
        """A pin by number or by name."""
        if key in self.pins:
            return self.pins[key]
        named = [p for p in self.pins.values() if p.name == key]
        if len(named) == 1:
            return named[0]
        raise KeyError(key)


class Net:
    def __init__(self, name, kind, volts, pins):
        self.name = name
        self.kind = kind       # power, ground, signal
        self.volts = volts     # power: the rail's voltage; ground: 0; signal: None
        self.pins = pins

    def __repr__(self):
        return "<net %s %s>" % (self.name, [p.ref for p in self.pins])


class Netlist:
    def __init__(self, board, parts, nets, nc):
        self.board = board
        self.parts = parts   # ref -> Part, in file order
        self.nets = nets     # name -> Net, in file order
        self.nc = nc         # pins left open on purpose

    def net_of(self, ref_pin):
        ref, _, key = ref_pin.partition(".")
        return self.parts[ref].pin(key).net


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


def header_pin(board, gpio):
    table = PICO_HEADER if board == "pico" else ESP32_HEADER
    if gpio not in table:
        raise NetlistError("%s has no header pin for GPIO %d" % (MCU_NAMES[board], gpio))
    return str(table[gpio])


def parse(text, cfg):
    """The Netlist of text for cfg's board; errors name the line."""
    board = cfg["board"]
    parts, nets, nc = {}, {}, []
    dropped = set()    # "REF.{key}" of config pins that are null
    active = True
    for n, line in enumerate(text.splitlines(), 1):
        where = "wiring.net line %d" % n
        words = line.split("#")[0].split()
        if not words:
            continue
        kind = words[0]
        if kind == "only":
            if len(words) != 2 or words[1] not in ("pico", "esp32", "all"):
                raise NetlistError("%s: only pico|esp32|all" % where)
            active = words[1] in ("all", board)
            continue
        if not active:
            continue
        if kind == "part":
            head, _, text_ = line.partition("--")
            w = head.split()
            if len(w) < 5 or w[2] not in PIN_SETS and w[2] not in BOXES:
                raise NetlistError("%s: part REF KIND X Y [h|v] -- text (KIND one of %s)"
                                   % (where, ", ".join(list(BOXES) + list(PIN_SETS))))
            ref = w[1]
            if ref in parts:
                raise NetlistError("%s: part %s declared twice" % (where, ref))
            orient = w[5] if len(w) > 5 else "h"
            if orient not in ("h", "v", "u"):
                raise NetlistError("%s: orientation must be h, v (down) or u (up)" % where)
            p = Part(ref, w[2], float(w[3]), float(w[4]), orient,
                     text_.strip().replace("{mcu}", MCU_NAMES[board]))
            parts[ref] = p
            for num, t in PIN_SETS.get(w[2], ()):
                p.pins[num] = Pin(p, num, num, None, t)
        elif kind == "pin":
            if len(words) != 6 or words[4] not in ("L", "R") or words[5] not in PIN_TYPES:
                raise NetlistError("%s: pin REF NUMBER NAME L|R TYPE (TYPE one of %s)" % (where, ", ".join(PIN_TYPES)))
            ref, num, name, side, t = words[1:]
            if ref not in parts or parts[ref].kind not in BOXES:
                raise NetlistError("%s: pin of unknown box part %s" % (where, ref))
            m = re.fullmatch(r"\{([\w.]+)\}", num)
            if m:
                try:
                    gpio = config_value(cfg, m.group(1))
                except NetlistError as e:
                    raise NetlistError("%s: %s" % (where, e))
                if gpio is None:
                    dropped.add("%s.%s" % (ref, num))
                    continue
                name = pin_label(board, gpio) + "/" + name
                num = header_pin(board, gpio)
            if num in parts[ref].pins:
                raise NetlistError("%s: %s pin %s declared twice" % (where, ref, num))
            parts[ref].pins[num] = Pin(parts[ref], num, name, side, t)
        elif kind in ("net", "nc"):
            if kind == "net":
                if len(words) < 4 or words[2] not in ("power", "ground", "signal"):
                    raise NetlistError("%s: net NAME power VOLTS|ground|signal REF.PIN ..." % where)
                name, nkind = words[1], words[2]
                volts, ends = None, words[3:]
                if nkind == "power":
                    try:
                        volts, ends = float(ends[0]), ends[1:]
                    except (IndexError, ValueError):
                        raise NetlistError("%s: net %s: a power net needs its voltage" % (where, name))
                elif nkind == "ground":
                    volts = 0.0
                if name in nets:
                    raise NetlistError("%s: net %s declared twice" % (where, name))
            else:
                name, ends = None, words[1:]
            pins, lost = [], False
            for e in ends:
                ref, _, key = e.partition(".")
                if ref not in parts:
                    raise NetlistError("%s: net %s: unknown part %s" % (where, name, ref))
                if e in dropped:
                    lost = True
                    continue
                m = re.fullmatch(r"\{([\w.]+)\}", key)
                if m:
                    key = header_pin(board, config_value(cfg, m.group(1)))
                try:
                    pin = parts[ref].pin(key)
                except KeyError:
                    raise NetlistError("%s: net %s: part %s has no pin %s" % (where, name, ref, key))
                if pin.net is not None or pin in nc:
                    raise NetlistError("%s: pin %s is already connected (%s)"
                                       % (where, pin.ref, pin.net.name if pin.net else "nc"))
                pins.append(pin)
            if kind == "nc":
                nc.extend(pins)
                continue
            if lost:
                # the net's MCU pin is null in the config: the rest of it stays open (and is
                # then checked by the electrical rules like any open pin)
                for pin in pins:
                    nc.append(pin)
                continue
            if len(pins) < 2:
                raise NetlistError("%s: net %s joins fewer than two pins" % (where, name))
            net = Net(name, nkind, volts, pins)
            for pin in pins:
                pin.net = net
            nets[name] = net
        else:
            raise NetlistError("%s: unknown line kind %r" % (where, kind))
    for p in parts.values():
        for pin in p.pins.values():
            if pin.net is None and pin not in nc:
                raise NetlistError("pin %s (%s) is not connected to anything (list it on an nc line if "
                                   "that is meant)" % (pin.ref, pin.name))
    return Netlist(board, parts, nets, nc)


def load(cfg, path=NETLIST):
    with open(path) as f:
        return parse(f.read(), cfg)
