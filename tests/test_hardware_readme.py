"""hardware/README.md stays in step with the firmware's defaults and the tools' numbers."""
import os
import re

from hardware import power
from sy import boardconfig

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hardware", "README.md")


def pin_table():
    rows = {}
    for line in open(README):
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


def test_power_table_matches_the_budget():
    text = open(README).read()
    b = power.budget(boardconfig.default())
    for k in ("idle", "worst_full_white", "worst_at_brightness", "worst_with_cap", "typical"):
        shown = "{:,}".format(round(b[k])).replace(",", " ")
        assert "| %s mA |" % shown in text, (k, shown)
