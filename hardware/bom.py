"""Bill of materials with quantities computed from the netlist and the board's placement.

    python -m hardware.bom [--board pico|esp32] [--measurements my_board.csv]

Electronic parts come from hardware/wiring.net: the controller's once, the reader board's once per
74HC165 (reeds.chips). Wire and ribbon lengths come from the placement (hardware.placement: the LED
route, which stations each chip reads, where the power is fed in), with SLACK for bends and strain
relief. hardware/README.md shows this table for the example measurements; a test keeps them equal.
"""
import argparse
import math
import sys

from hardware import magnets, placement, stripboard, wiring
from sy.hardware import boardconfig

SLACK = 1.25              # wire runs are not straight: +25 %
SPARES = 1.05             # LEDs and reeds: 5 % spares (reeds are glass, LEDs die from static)
FEED_LEDS = (0, 99, 198)  # where 5 V and GND are fed into the LED chain (the schematic's LED1 pins)
PIECES = 15               # Mister X, 5 detectives, bobbies ... one magnet each, with spares

# How a netlist part is bought: (what, example part number, note). Keyed by the part's value.
CATALOGUE = {
    "DC jack 2.1 mm, rated 5 A": ("DC barrel jack 2.1 mm, panel mount, rated >= 5 A", "Switchcraft 712A",
                                  "the supply's plug"),
    "5 A fast": ("fuse 5 A fast-acting 5x20 mm + panel fuse holder", "Littelfuse 0217005.HXP + 0345 holder",
                 "buy 3 fuses (1 + 2 spares) and 1 holder; opens on a short, not on a wrong adapter (the "
                 "over-voltage switch does)"),
    "power switch": ("power switch, >= 5 A DC", "", ""),
    "SUP75P03-07": ("P-MOSFET 30 V, 10 mohm at VGS -4.5 V, TO-220AB", "Vishay SUP75P03-07 (or Infineon IPP80P03P4L-04)",
                    "Q1 reverse polarity, Q3 over-voltage switch; the second source is also specified at -4.5 V"),
    "12 V 0.5 W zener (BZX79-C12)": ("zener 12 V 0.5 W", "BZX79-C12", "Q1's and Q3's gates within 12 V of their sources"),
    "100 uF 35 V": ("electrolytic 100 uF 35 V", "", "at the MOSFETs' input: a cable's current has somewhere to go "
                                                   "when Q3 opens (python -m hardware.ovp)"),
    "100 k": ("resistor 100 kohm 1/4 W", "", ""),
    "BC557B PNP": ("PNP transistor 45 V 100 mA, TO-92", "BC557B (or BC327)", "switches Q3 off"),
    "2.2 k": ("resistor 2.2 kohm 1/4 W", "", ""),
    "TL431B shunt reference TO-92 (TL431BILP)": ("adjustable shunt reference 2.495 V 0.5 %, TO-92", "TI TL431BILP",
                                                  "over-voltage detector"),
    "1.18 k 1 %": ("resistor 1.18 kohm 1 % metal film", "", "over-voltage divider (python -m hardware.ovp)"),
    "1 k 1 %": ("resistor 1 kohm 1 % metal film", "", "over-voltage divider"),
    "39 ohm": ("resistor 39 ohm 1/4 W", "", "series resistors of the reader bus (source termination)"),
    "10 k": ("resistor 10 kohm 1/4 W", "", "pull resistors"),
    "330 ohm": ("resistor 330 ohm 1/4 W", "", "LED data, at LED 0"),
    "1000 uF 10 V": ("electrolytic 1000 uF 10 V", "", "one at each 5 V feed into the LED chain"),
    "100 nF": ("ceramic capacitor 100 nF", "KEMET C320C104K5R5TA", "decoupling, one per IC"),
    "1N5817 Schottky": ("Schottky diode 1 A", "1N5817", "+5V to the MCU board's 5 V input only"),
    "2-pin jumper": ("2-pin header + jumper", "", "ESP32: open while USB is plugged in"),
    "push button": ("push button", "Omron B3F-4055 or arcade buttons", "taxi, bus, underground, confirm, safe mode"),
    "74AHCT125 DIP-14 in a socket": ("74AHCT125 quad buffer, DIP-14 + DIP-14 socket", "TI SN74AHCT125N",
                                     "LED data 3.3 V -> 5 V"),
    "74HC165 DIP-16 in a socket at 3.3 V": ("74HC165 shift register, DIP-16 + DIP-16 socket", "TI SN74HC165N", ""),
    "74AHC14 DIP-14 Schmitt inverters in a socket at 3.3 V": ("74AHC14 hex Schmitt-trigger inverter, DIP-14 + socket",
                                                              "TI SN74AHC14N", "re-drives CLK and SH/LD"),
    "74AHC573 DIP-20 latch in a socket at 3.3 V": ("74AHC573 octal latch, DIP-20 + DIP-20 socket", "TI SN74AHC573N",
                                                   "holds QH while CLK is high"),
    "9 x 10 k bussed network SIP-10 (4610X-101-103)": ("9 x 10 kohm bussed resistor network, SIP-10",
                                                       "Bourns 4610X-101-103LF", "pull-ups + SER"),
    "2x5 box header": ("2x5 box header, 2.54 mm (shrouded, keyed)", "", "ribbon connectors"),   # also IN, OUT
    "1x8 pin header": ("1x8 pin header 2.54 mm + 1x8 Dupont housing and 8 crimp contacts", "",
                       "reed leads plug in"),
}


def _catalogue_key(value):
    """A part's value as the catalogue knows it: a reader board's box headers are one part, named
    in the netlist by the ribbon's direction (IN, OUT)."""
    for side in (" IN", " OUT"):
        if value.endswith(side):
            return value[:-len(side)]
    return value


def part_counts(nl, chips):
    """{catalogue description: (qty, part number, note)} for the electronics."""
    out = {}
    for ref, part in nl.parts.items():
        if part.kind == "led":
            continue   # counted per station below
        if part.kind == "mcu":
            desc, pn, note = part.value, "", "MicroPython"
        else:
            value = _catalogue_key(part.value)
            if value not in CATALOGUE:
                raise KeyError("hardware.bom: no catalogue entry for %s %r" % (ref, part.value))
            desc, pn, note = CATALOGUE[value]
        n = chips if ref in stripboard.READER_PARTS else 1
        q, _pn, _note = out.get(desc, (0, pn, note))
        out[desc] = (q + n, pn, note)
    return out


def runs(pl, chips):
    """Wire and ribbon lengths in metres from the placement."""
    route = pl.route
    pos = pl.pos
    chain = placement.route_length(route, pos) / 1000
    centres = []
    for k in range(chips):
        members = route[8 * k:8 * k + 8]
        if not members:
            centres.append(centres[-1])
            continue
        centres.append((sum(pos[s][0] for s in members) / len(members), sum(pos[s][1] for s in members) / len(members)))
    controller = pos[route[0]]   # the controller sits at the chain's start
    ribbon = math.dist(controller, centres[0]) + sum(math.dist(a, b) for a, b in zip(centres, centres[1:]))
    reed = 0.0
    for k in range(chips):
        for s in route[8 * k:8 * k + 8]:
            reed += 2 * math.dist(pos[s], centres[k])
    # one two-core cable (5 V and GND together) from the controller to each feed
    feeds = sum(math.dist(controller, pos[route[i]]) for i in FEED_LEDS[1:] if i < len(route))
    return {"chain": chain, "led_power": 2 * chain * SLACK, "led_data": chain * SLACK, "ribbon": ribbon / 1000 * SLACK,
            "reed": reed / 1000 * SLACK, "feeds": feeds / 1000 * SLACK + 0.5}


def rows(cfg, pl):
    """[(qty text, part, part number, note)] in buying order."""
    nl = wiring.load(cfg)
    chips = cfg["reeds"]["chips"]
    stations = boardconfig.STATIONS
    spare = math.ceil(stations * SPARES)
    r = runs(pl, chips)
    bare, sleeved = stripboard.link_wire_mm(stripboard.build(nl))
    out = [
        (str(spare), "WS2812B LED on a ~10 mm round carrier PCB with 100 nF", "Worldsemi WS2812B-V5",
         "%d + spares" % stations),
        (str(spare), "reed switch, normally open, glass %.0f x %.0f mm, pull-in %d-%d AT" % (
            placement.REED_GLASS_MM, placement.REED_GLASS_DIA_MM, magnets.REED_BAND[0], magnets.REED_BAND[1]),
         "MKA-14103 in its %d-%d AT range" % magnets.REED_BAND,
         "%d + spares; order the AT range, not only the type (python -m hardware.magnets); bend leads >= 2 mm "
         "from the glass" % stations),
        (str(PIECES), "neodymium disc magnet %s, axial" % magnets.MAGNET.replace(" mm", " mm,"), "generic",
         "one per piece + spares, glued in the piece's base at most %.1f mm above the board" % magnets.BASE_MM),
        ("1", "5 V supply, 4 A (leds.supply_ma = 4000)", "Mean Well GST25A05-P1J", "see the power budget"),
    ]
    for desc, (q, pn, note) in part_counts(nl, chips).items():
        out.append((str(q), desc, pn, note))
        if cfg["board"] == "pico" and desc == wiring.MCU_NAMES["pico"]:
            out.append(("2", "1x20 pin header 2.54 mm + 1x20 female header (a pair)", "",
                        "the Pico plugs into the controller board"))
    out += [
        (str(chips), "stripboard %d x %d holes (~%.0f x %.0f mm)" % (
            stripboard.COLS, stripboard.ROWS, stripboard.COLS * stripboard.PITCH, stripboard.ROWS * stripboard.PITCH),
         "", "one reader board per 74HC165 (python -m hardware.stripboard)"),
        ("%.1f m" % (math.ceil(SLACK * chips * bare / 100) / 10),
         "tinned copper wire 0.6 mm (23 AWG), solid, bare", "",
         "the stripboards' wire links (%.0f mm a board)" % bare),
        ("%.1f m" % (math.ceil(SLACK * chips * sleeved / 100) / 10),
         "hook-up wire 0.6 mm (23 AWG) solid core, PVC insulated", "",
         "the links that cross another net's link (%.0f mm a board; wide with a white core in the picture)" % sleeved),
        ("1", "perfboard ~100 x 80 mm", "", "the controller: MCU, U2, protection, buttons"),
        (str(4 * (chips + 1)), "M3 nylon standoff 10 mm + 2 M3 nylon screws", "",
         "4 per reader board and 4 for the controller (drill 3.2 mm at the boards' corners; nylon: the "
         "corner strips carry signals)"),
        (str(chips), "10-way ribbon cable assemblies: ribbon + 2 IDC sockets 2x5 each", "",
         "%d IDC sockets; %.1f m of 10-way ribbon in all" % (2 * chips, r["ribbon"])),
        (str(len(FEED_LEDS) + 1), "2-pole screw terminal block 5.08 mm", "",
         "power entry + each 5 V feed into the LED chain"),
        ("%.0f m" % math.ceil(r["feeds"]), "18 AWG two-core (5 V, GND)", "",
         "from the controller to the feeds at LEDs %s" % ", ".join(str(i) for i in FEED_LEDS[1:])),
        ("%.0f m" % math.ceil(r["led_power"]), "22-24 AWG stranded, red + black", "",
         "the LED chain's 5 V and GND, LED to LED (%.1f m chain)" % r["chain"]),
        ("%.0f m" % math.ceil(r["led_data"]), "26-28 AWG stranded, one colour", "", "the LED chain's data, DOUT -> DIN"),
        ("%.0f m" % math.ceil(r["reed"]), "26-28 AWG stranded, two colours", "",
         "the reeds' two leads to their reader board"),
        ("1", "backing plate, 6 mm plywood or MDF, the board's size", "", "pockets for LEDs, grooves for reeds"),
    ]
    return out


def table(cfg, pl):
    lines = ["| qty | part | part number / example | note |", "| --- | --- | --- | --- |"]
    for q, part, pn, note in rows(cfg, pl):
        lines.append("| %s | %s | %s | %s |" % (q, part, pn, note))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.bom", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", choices=boardconfig.BOARDS, default="pico")
    placement.add_measurements_argument(ap)
    args = ap.parse_args(argv)
    pl = placement.placement_or_say(args.measurements)
    if pl is None:
        return 2
    print(table(boardconfig.default(args.board), pl))
    return 0


if __name__ == "__main__":
    sys.exit(main())
