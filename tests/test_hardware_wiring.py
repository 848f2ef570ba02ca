"""hardware.wiring: the diagram is generated from wiring.net and shows the config's pin map."""
import re
import xml.etree.ElementTree as ET

import pytest

from hardware import wiring
from sy import boardconfig

SVG = "{http://www.w3.org/2000/svg}"
PIN_KEYS = ["reeds.sck", "reeds.miso", "reeds.load", "leds.pin", "buttons.taxi", "buttons.bus",
            "buttons.underground", "buttons.confirm", "safe_mode_pin"]


def mcu_labels(root):
    mcu = [g for g in root.iter(SVG + "g") if g.get("id") == "MCU"][0]
    return [t.text for t in mcu.iter(SVG + "text") if t.get("class") == "pinlabel"]


@pytest.mark.parametrize("board", boardconfig.BOARDS)
def test_diagram_shows_every_configured_pin(board, tmp_path):
    cfg = boardconfig.default(board)
    out = tmp_path / "w.svg"
    assert wiring.main(["--board", board, "-o", str(out)]) == 0
    root = ET.parse(str(out)).getroot()
    labels = mcu_labels(root)
    for key in PIN_KEYS:
        want = wiring.pin_label(board, wiring.config_value(cfg, key)) + " " + key
        assert any(l.startswith(want) for l in labels), (want, labels)
    svg_text = out.read_text()
    assert wiring.MCU_NAMES[board] in svg_text


def test_netlist_covers_every_pin_key_of_the_config():
    # a pin added to the config schema must be wired in wiring.net too
    text = open(wiring.NETLIST).read()
    keys = set(re.findall(r"^pin MCU [LR] \{([\w.]+)\}", text, re.M))
    assert keys == set(PIN_KEYS)
    cfg = boardconfig.default()
    for key in keys:
        assert isinstance(wiring.config_value(cfg, key), int)


def test_element_counts_match_the_netlist():
    cfg = boardconfig.default()
    svg, parts, nets = wiring.diagram(cfg)
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(SVG + "g")]
    assert len([g for g in groups if g.get("class") == "part"]) == len(parts) == 12
    assert len([g for g in groups if g.get("class") == "net"]) == len(nets)
    wires = [p for p in root.iter(SVG + "path") if p.get("class") == "wire"]
    assert len(wires) == sum(len(e) - 1 for _, _, e in nets)
    npins = sum(len(p["pins"]) for p in parts.values())
    assert len([p for p in root.iter(SVG + "path") if p.get("class") == "pin"]) == npins


def test_a_custom_config_moves_the_pins_and_null_drops_them(tmp_path):
    cfg = boardconfig.default()
    cfg["leds"]["pin"] = 2
    cfg["buttons"] = None
    cfg["safe_mode_pin"] = None
    p = tmp_path / "board.json"
    import json
    p.write_text(json.dumps(cfg))
    out = tmp_path / "w.svg"
    assert wiring.main(["--config", str(p), "-o", str(out)]) == 0
    labels = mcu_labels(ET.parse(str(out)).getroot())
    assert any(l.startswith("GP2 leds.pin") for l in labels)
    assert not any("GP22" in l or "buttons" in l or "safe_mode" in l for l in labels)


def test_netlist_errors_are_clear():
    cfg = boardconfig.default()
    base = "part A 0 0 10 10 a\npin A L x\npart B 0 0 10 10 b\npin B L y\n"
    with pytest.raises(wiring.NetlistError, match="line 5.*no pin z"):
        wiring.parse(base + "net N signal A.x B.z\n", cfg)
    with pytest.raises(wiring.NetlistError, match="unknown part C"):
        wiring.parse(base + "net N signal A.x C.y\n", cfg)
    with pytest.raises(wiring.NetlistError, match="not connected"):
        wiring.parse(base, cfg)
    with pytest.raises(wiring.NetlistError, match="leds.pinn.*not a board config key"):
        wiring.parse(base + "pin A R {leds.pinn}\n", cfg)
    parts, nets = wiring.parse(base + "net N signal A.x B.y\n", cfg)
    assert nets == [("N", "signal", [("A", "x"), ("B", "y")])]
