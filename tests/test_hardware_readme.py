"""hardware/README.md stays in step with the firmware's defaults, the netlist and the tools' numbers."""
import math
import os
import re

from hardware import bom, placement, power, stripboard, wiring
from sy.hardware import boardconfig

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware", "README.md")
TEXT = open(README).read()


def pin_table():
    rows = {}
    for line in TEXT.splitlines():
        m = re.match(r"\| ((?:reeds|leds|buttons)\.\w+|safe_mode_pin) \| (\S+) \| (\S+) \|", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def value(cfg, key):
    v = cfg
    for k in key.split("."):
        v = v[k]
    return v


def test_pin_table_matches_boardconfig_defaults():
    rows = pin_table()
    pico, esp = boardconfig.default("pico"), boardconfig.default("esp32")
    keys = ["reeds.spi", "reeds.sck", "reeds.miso", "reeds.load", "leds.pin", "buttons.taxi", "buttons.bus",
            "buttons.underground", "buttons.confirm", "safe_mode_pin"]
    assert sorted(rows) == sorted(keys)
    for key in keys:
        p, e = rows[key]
        if key == "reeds.spi":
            assert (int(p), int(e)) == (value(pico, key), value(esp, key))
        else:
            assert p == "GP%d" % value(pico, key), key
            assert e == "GPIO%d" % value(esp, key), key


def test_header_pin_numbers_in_the_pin_table_are_the_netlists():
    for key, pico_pin, esp_pin in (("reeds.sck", 24, "J3-9"), ("reeds.miso", 21, "J3-8"),
                                   ("reeds.load", 22, "J3-10"), ("leds.pin", 29, "J2-9")):
        assert wiring.header_pin("pico", value(boardconfig.default("pico"), key)) == str(pico_pin)
        assert wiring.header_pin("esp32", value(boardconfig.default("esp32"), key)) == esp_pin
        assert re.search(r"\| %s \|.*\(pin %d, %s\)" % (re.escape(key), pico_pin, esp_pin), TEXT), key


def test_power_table_matches_the_budget():
    b = power.budget(boardconfig.default())
    for k in ("idle", "worst_full_white", "worst_at_brightness", "worst_with_cap", "typical"):
        shown = "{:,}".format(round(b[k])).replace(",", " ")
        assert "| %s mA |" % shown in TEXT, (k, shown)
    assert "(%d mA for the 4 A supply)" % b["cap_allowed"] in TEXT


def test_bom_is_the_tools_output():
    # quantities typed by hand drift from the design: the README's are the tools' output
    pl = placement.placement_from_file(placement.EXAMPLE)
    table = bom.table(boardconfig.default("pico"), pl)
    m = re.search(r"<!-- bom:start -->\n(.*?)\n<!-- bom:end -->", TEXT, re.S)
    assert m and m.group(1) == table
    rows = {r[1]: r[0] for r in bom.rows(boardconfig.default("pico"), pl)}
    chips = boardconfig.default()["reeds"]["chips"]
    assert rows["2x5 box header, 2.54 mm (shrouded, keyed)"] == str(2 * chips + 1)   # 2 per board + J2
    assert rows["10-way ribbon cable assemblies: ribbon + 2 IDC sockets 2x5 each"] == str(chips)
    assert rows["ceramic capacitor 100 nF"] == str(3 * chips + 1)   # U3, U4, U5 per board + U2
    assert rows["74AHCT125 quad buffer, DIP-14 + DIP-14 socket"] == "1"
    assert 20 <= int(rows["22-24 AWG stranded, red + black"].split()[0]) <= 30       # ~25 m for the chain
    assert 25 <= int(rows["26-28 AWG stranded, two colours"].split()[0]) <= 40       # ~30 m for the reeds
    # the stripboards' links: every link's span from the layout, bare and (where links cross) insulated
    lay = stripboard.build(wiring.load(boardconfig.default()))
    spans = sum(math.hypot(a[0] - b[0], a[1] - b[1]) * stripboard.PITCH for a, b, _net in lay.links)
    bare = float(rows["tinned copper wire 0.6 mm (23 AWG), solid, bare"].split()[0])
    sleeved = float(rows["hook-up wire 0.6 mm (23 AWG) solid core, PVC insulated"].split()[0])
    assert stripboard.crossing_links(lay) and sleeved > 0
    assert (bare + sleeved) * 1000 >= chips * spans
    for part in ("fuse 5 A fast-acting", "stripboard", "perfboard", "screw terminal", "power switch", "standoff",
                 "1x20 pin header"):
        assert any(part in r for r in rows), part


def test_power_feed_points_are_the_same_everywhere():
    # one set of feed points, the same in every place that names them
    assert bom.FEED_LEDS == (0, 99, 198)
    nl = wiring.load(boardconfig.default())
    feeds = sorted(int(p.number.split("@")[1]) for p in nl.parts["LED1"].pins.values() if "@" in p.number
                   and p.net.name == "+5V")
    assert feeds == [99, 198]
    assert "**LED 0**" in TEXT and "**LED 99**" in TEXT and "**LED 198**" in TEXT
    assert "every ~50" not in TEXT and "after about LED 100" not in TEXT
    assert "22–24 AWG" in TEXT


def test_before_first_power_checklist():
    m = re.search(r"## Before first power\n(.*?)\n## ", TEXT, re.S)
    assert m
    steps = m.group(1)
    for must in ("+5V to GND must not beep", "3V3 to GND", "No 5 V on any GPIO", "limited to 300 mA",
                 "One reader board first", "LED sections before gluing", "2.5 mm off the", "thinnest"):
        assert must in steps, must


def test_readme_names_the_generated_documents():
    for cmd in ("python -m hardware.schematic", "python -m hardware.erc", "python -m hardware.stripboard",
                "python -m hardware.bom"):
        assert cmd in TEXT, cmd
    assert "hardware.wiring " not in TEXT   # the old hand-written renderer is gone
    assert "QH, pin 9" in TEXT and "/QH" in TEXT


def test_the_continuity_step_names_what_the_netlist_joins():
    # a maker's meter follows the checklist literally: what it says beeps must be one net in
    # wiring.net, and what passes through a board from IN to OUT is power only
    nl = wiring.load(boardconfig.default())
    m = re.search(r"2\. \*\*Continuity, unpowered\*\*(.*?)\n3\. ", TEXT, re.S)
    assert m
    step = " ".join(m.group(1).split())
    through = sorted(int(n) for n, p in nl.parts["J3"].pins.items() if p.net is nl.parts["J4"].pins[n].net)
    assert through == [1, 2, 4, 6, 8, 9, 10]
    assert "only power passes through" in step and "pins 1 and 9 (3V3)" in step
    parts = {"U4 pin 1": "U4.1", "U4 pin 5": "U4.5", "R7": "R7.1", "R8": "R8.2", "R9": "R9.2", "U3 pin 10": "U3.10"}
    claims = re.findall(r"(IN|OUT) pin (\d+)(?: \([^)]*\))? to (U\d pin \d+|R\d)", step)
    assert len(claims) == 6, claims
    for header, pin, what in claims:
        conn = nl.parts["J3" if header == "IN" else "J4"].pins[pin]
        ref, num = parts[what].split(".")
        other = nl.parts[ref].pins[num]
        assert conn.net is other.net, (header, pin, what)
