"""hardware/wiring.net, its electrical-rules check (hardware.erc) and its schematic (hardware.schematic).

Defects a hand-drawn schematic can hide (+5V along RP2040 GPIOs; SCK, MISO, LOAD and the LED data
joined on one wire; VSYS fed straight from the supply; the LED data floating at reset) are each a
failing check, shown here by putting the defect back."""
import json
import re
import xml.etree.ElementTree as ET

import pytest

from hardware import erc, schematic, wiring
from sy.hardware import boardconfig

PIN_KEYS = ["reeds.sck", "reeds.miso", "reeds.load", "leds.pin", "buttons.taxi", "buttons.bus",
            "buttons.underground", "buttons.confirm", "safe_mode_pin"]
TEXT = open(wiring.NETLIST).read()


@pytest.fixture(scope="module", params=boardconfig.BOARDS)
def drawn(request):
    cfg = boardconfig.default(request.param)
    return (cfg,) + schematic.draw(cfg)


def mutate(old, new, text=TEXT):
    assert old in text, old
    return text.replace(old, new)


def violations(text, board="pico"):
    return erc.check(wiring.parse(text, boardconfig.default(board)))


# ---- the netlist --------------------------------------------------------------------------------
def test_netlist_covers_every_pin_key_of_the_config():
    keys = set(re.findall(r"^pin U1 \{([\w.]+)\}", TEXT, re.M))
    assert keys == set(PIN_KEYS)


@pytest.mark.parametrize("board", boardconfig.BOARDS)
def test_mcu_pins_are_the_configs_with_their_header_numbers(board):
    cfg = boardconfig.default(board)
    nl = wiring.load(cfg)
    u1 = nl.parts["U1"]
    for key in PIN_KEYS:
        gpio = wiring.config_value(cfg, key)
        pin = u1.pins[wiring.header_pin(board, gpio)]
        assert pin.name.startswith(wiring.pin_label(board, gpio) + "/"), (key, pin.name)
    if board == "pico":   # datasheet pinout: GP18 is pin 24, GP16 pin 21, VSYS 39, 3V3(OUT) 36
        assert (u1.pins["24"].name, u1.pins["21"].name, u1.pins["39"].name) == ("GP18/SCK", "GP16/MISO", "VSYS")
    else:                 # DevKitC V4: J3-9 is IO18, J2-19 the 5V pin
        assert (u1.pins["J3-9"].name, u1.pins["J2-19"].name) == ("GPIO18/SCK", "5V")


def test_74hc165_pin_numbers_follow_the_datasheet():
    # QH is pin 9, the inverted /QH pin 7 (easy to confuse): only QH may carry the data
    nl = wiring.load(boardconfig.default())
    u3 = nl.parts["U3"]
    want = {"1": "SH/LD", "2": "CLK", "7": "/QH", "8": "GND", "9": "QH", "10": "SER", "15": "CLK_INH", "16": "VCC",
            "11": "A=D0", "14": "D=D3", "3": "E=D4", "6": "H=D7"}
    assert {k: u3.pins[k].name for k in want} == want
    assert u3.pins["7"] in nl.nc and u3.pins["9"].net.name == "QH"
    u2 = nl.parts["U2"]  # 74AHCT125: 1OE 1, 1A 2, 1Y 3, GND 7, VCC 14
    assert [u2.pins[k].name for k in ("1", "2", "3", "7", "14")] == ["1OE", "1A", "1Y", "GND", "VCC"]


def test_ribbon_pinout_has_ground_between_signals():
    nl = wiring.load(boardconfig.default())
    for ref in ("J2", "J3", "J4"):
        nets = [nl.parts[ref].pins[str(k)].net.name for k in range(1, 11)]
        assert nets[1::2] == ["GND"] * 5, (ref, nets)     # every even wire of the ribbon is GND
    assert [nl.parts["J2"].pins[str(k)].net.name for k in (1, 3, 5, 7, 9)] == ["3V3", "CLK", "SH_LD", "DATA0", "3V3"]


def test_a_null_config_pin_drops_its_connection():
    cfg = boardconfig.default()
    cfg["buttons"] = None
    cfg["safe_mode_pin"] = None
    nl = wiring.parse(TEXT, cfg)
    assert not any("TAXI" in p.name or "SAFE" in p.name for p in nl.parts["U1"].pins.values())
    assert "TAXI" not in nl.nets and nl.parts["S1"].pins["1"] in nl.nc


def test_netlist_errors_are_clear():
    cfg = boardconfig.default()
    base = "part A ic 0 0 -- a\npin A 1 x L in\npart B ic 0 0 -- b\npin B 1 y L in\n"
    with pytest.raises(wiring.NetlistError, match="line 5.*no pin z"):
        wiring.parse(base + "net N signal A.x B.z\n", cfg)
    with pytest.raises(wiring.NetlistError, match="unknown part C"):
        wiring.parse(base + "net N signal A.x C.y\n", cfg)
    with pytest.raises(wiring.NetlistError, match="not connected"):
        wiring.parse(base, cfg)
    with pytest.raises(wiring.NetlistError, match="leds.pinn.*not a board config key"):
        wiring.parse(base + "pin A {leds.pinn} z R gpio\n", cfg)
    with pytest.raises(wiring.NetlistError, match="already connected"):
        wiring.parse(base + "net N signal A.x B.y\nnet M signal A.x B.y\n", cfg)
    nl = wiring.parse(base + "net N signal A.x B.y\n", cfg)
    assert [p.ref for p in nl.nets["N"].pins] == ["A.1", "B.1"]


# ---- electrical rules ---------------------------------------------------------------------------
@pytest.mark.parametrize("board", boardconfig.BOARDS)
def test_the_netlist_passes_every_electrical_rule(board):
    assert erc.check(wiring.load(boardconfig.default(board))) == []
    assert erc.main(["--board", board]) == 0


def test_erc_refuses_5v_on_an_rp2040_gpio():
    # the old diagram's +5V along GP18 (SCK), read literally
    text = mutate("net SCK_MCU signal U1.{reeds.sck} R1.1\n", "")
    text = mutate("Q3.D C10.+ D1.A", "Q3.D C10.+ D1.A U1.{reeds.sck}", text)
    text = mutate("nc U3./QH", "nc R1.1 U3./QH", text)
    bad = violations(text)
    assert any(v.startswith("voltage: U1.24 (GP18/SCK)") and "5.0 V" in v for v in bad), bad


def test_erc_refuses_a_3v3_input_on_5v():
    text = mutate("net D7 signal U3.H=D7 RN1.R8 J5.D7", "net D7 signal U3.H=D7 RN1.R8 J5.D7 R6.2")
    text = mutate("net DIN0 signal R6.2 LED0.DIN", "net DIN0 signal LED0.DIN R5.2", text)
    text = mutate(" R5.2 ", " ", text)
    bad = violations(text)
    assert any("U3.6 (H=D7)" in v and "3.3 V" in v for v in bad), bad


def test_erc_refuses_vsys_without_the_diode():
    text = mutate("net VSYS power 4.7 D1.K U1.VSYS\n", "")
    text = mutate("Q3.D C10.+ D1.A", "Q3.D C10.+ D1.A U1.VSYS", text)
    text = mutate("nc U3./QH", "nc D1.K U3./QH", text)
    bad = violations(text)
    assert any(v.startswith("vin: U1.39 (VSYS)") for v in bad), bad
    bad = violations(mutate("JP1.1 C1.1", "JP1.1 U1.5V C1.1", mutate("net VSYS power 4.7 D1.K U1.5V\n", "",
                                                                       mutate("nc U3./QH", "nc D1.K U3./QH"))), "esp32")
    assert any(v.startswith("vin: U1.J2-19 (5V)") for v in bad), bad


def test_erc_wants_the_led_data_pull_down():
    text = mutate("net LED_3V3 signal U1.{leds.pin} R5.1 U2.1A", "net LED_3V3 signal U1.{leds.pin} U2.1A")
    text = mutate("nc U3./QH", "nc R5.1 U3./QH", text)
    bad = violations(text)
    assert any(v.startswith("floating: U2.2 (1A)") and "U1.29" in v for v in bad), bad


def test_erc_wants_the_last_chips_ser_held():
    text = mutate("net SER signal U3.SER RN1.R9 J4.DATA", "net SER signal U3.SER J4.DATA")
    text = mutate("nc U3./QH", "nc RN1.R9 U3./QH", text)
    assert any(v.startswith("floating: U3.10 (SER)") for v in violations(text))


def test_erc_wants_every_ic_decoupled():
    text = mutate("U3.VCC C2.1 RN1.COM", "U3.VCC RN1.COM")
    text = mutate("nc U3./QH", "nc C2.1 U3./QH", text)
    # three ICs on the reader's 3V3 (U3, U4, U5) now share two capacitors: one of them goes without
    assert any(v.split(" ")[1] in ("U3", "U4", "U5") for v in violations(text) if v.startswith("decoupling:"))


def test_erc_refuses_two_outputs_on_one_net():
    text = mutate("net QH signal U3.QH U5.D1", "net QH signal U3.QH U5.D1 U3./QH")
    text = mutate("nc U3./QH", "nc", text)
    assert any(v.startswith("contention:") for v in violations(text))


def test_erc_refuses_a_gpio_straight_to_the_first_leds_din():
    # the level shifter bypassed: GPIO -> 330 ohm -> DIN of a 5 V WS2812B (V_IH 3.5 V > 3.3 V)
    text = mutate("net LED_3V3 signal U1.{leds.pin} R5.1 U2.1A", "net LED_3V3 signal U1.{leds.pin} R5.1 R6.1")
    text = mutate("net LED_5V signal U2.1Y R6.1\n", "", text)
    text = mutate("U2.GND U2.1OE", "U2.GND U2.1A U2.1OE", text)
    text = mutate("nc U3./QH", "nc U2.1Y U3./QH", text)
    bad = violations(text)
    assert any(v.startswith("levels: LED0.4 (DIN) needs 3.50 V") and "U1." in v for v in bad), bad
    assert not any(v.startswith("levels:") for v in violations(TEXT))


def test_erc_refuses_a_swapped_mosfet():
    text = mutate("net +5V_SW power 5.0 SW1.2 Q1.D", "net +5V_SW power 5.0 SW1.2 Q1.S")
    text = mutate("net +5V_RP power 5.0 Q1.S", "net +5V_RP power 5.0 Q1.D", text)
    assert any(v.startswith("polarity: Q1") and "drain toward the input" in v for v in violations(text))
    text = mutate("net +5V_RP power 5.0 Q1.S Q3.S", "net +5V_RP power 5.0 Q1.S Q3.D")
    text = mutate("Q3.D C10.+", "Q3.S C10.+", text)
    assert any(v.startswith("polarity: Q3") and "source toward the input" in v for v in violations(text))


def test_erc_refuses_a_reversed_zener_and_diode():
    text = mutate("Q4.C R12.1 D3.A Q3.G", "Q4.C R12.1 D3.K Q3.G")
    text = mutate("Q3.S D3.K", "Q3.S D3.A", text)
    assert any(v.startswith("polarity: D3") and "forward-biased" in v for v in violations(text))
    text = mutate("net VSYS power 4.7 D1.K U1.VSYS", "net VSYS power 4.7 D1.A U1.VSYS")
    text = mutate("C10.+ D1.A", "C10.+ D1.K", text)
    assert any(v.startswith("polarity: D1") for v in violations(text))


def test_erc_refuses_a_bypassed_fuse():
    text = mutate("net +5V_IN power 5.0 J1.1 F1.1", "net +5V_IN power 5.0 J1.1 F1.1 SW1.1")
    text = mutate("net +5V_FUSED power 5.0 F1.2 SW1.1\n", "", text)
    text = mutate("nc U3./QH", "nc F1.2 U3./QH", text)
    assert any(v.startswith("fuse: the supply input J1.1") and "SW1.1" in v for v in violations(text))


# ---- the schematic ------------------------------------------------------------------------------
def test_schematic_geometry_and_connectivity_are_clean(drawn):
    cfg, svg, sheet, nl, wired = drawn
    assert schematic.check(sheet, nl) == []
    assert wired >= 12 and sheet.dots            # real wires and junctions, not labels only
    assert len([r for r in sheet.bodies if r != "reeds"]) == len(nl.parts)   # (+ the reeds' one symbol)
    ET.fromstring(svg)
    for part in nl.parts.values():
        for p in part.pins.values():
            if part.kind in wiring.BOXES:
                assert ">%s<" % p.number.split("@")[0] in svg, p.ref   # every box pin shows its number
    for net in nl.nets:
        assert net in svg or all(p.ref in {r for n, r, *_ in sheet.pins if n == net} for p in nl.nets[net].pins)
    assert wiring.MCU_NAMES[cfg["board"]] in svg


def test_check_catches_shared_segments_crossings_and_missing_dots(drawn):
    _cfg, _svg, sheet, nl, _w = drawn
    body = next(iter(sheet.bodies.values()))
    pin = next(p for p in sheet.pins if p[0] == "GND")
    broken = schematic.Sheet()
    broken.bodies, broken.pins, broken.texts = sheet.bodies, sheet.pins, sheet.texts
    broken.labels, broken.dots = list(sheet.labels), list(sheet.dots)
    broken.wires = list(sheet.wires)
    # the old diagram's fault: two nets running along one segment
    broken.wires += [("SCK_MCU", (100, 0), (110, 0)), ("DATA0", (105, 0), (120, 0))]
    # a wire through a part's box, one onto another net's pin, and a T without its dot
    broken.wires += [("TAXI", (body[0] - 1, (body[1] + body[3]) / 2), (body[2] + 1, (body[1] + body[3]) / 2))]
    broken.wires += [("CLK", (pin[2][0], pin[2][1] - 3), pin[2])]
    broken.wires += [("BUS", (200, 0), (210, 0)), ("BUS", (205, 0), (205, 5))]
    bad = schematic.check(broken)
    assert any("SCK_MCU" in b and "DATA0" in b and "touch" in b for b in bad), bad
    assert any("crosses the body" in b and "TAXI" in b for b in bad), bad
    assert any("CLK" in b and "pin " + pin[1] in b for b in bad), bad
    assert any("junction of BUS at (205, 0)" in b for b in bad), bad


def test_connectivity_check_catches_a_mislabelled_pin(drawn):
    _cfg, _svg, sheet, nl, _w = drawn
    i = next(i for i, lab in enumerate(sheet.labels) if lab[0] == "3V3")
    n, text, box, pt = sheet.labels[i]
    wrong = schematic.Sheet()
    wrong.__dict__.update(sheet.__dict__)
    wrong.labels = list(sheet.labels)
    wrong.labels[i] = ("+5V", "+5V", box, pt)
    assert any("labelled ['+5V']" in b for b in schematic.check_connectivity(wrong, nl))


def test_main_writes_svg_and_png(tmp_path, capsys):
    out = tmp_path / "s.svg"
    assert schematic.main(["--board", "esp32", "-o", str(out), "--png"]) == 0
    assert out.exists() and "nets" in capsys.readouterr().out
    if schematic.shutil.which("rsvg-convert"):
        assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    cfg = boardconfig.default()
    cfg["leds"]["pin"] = 2
    p = tmp_path / "board.json"
    p.write_text(json.dumps(cfg))
    assert schematic.main(["--config", str(p), "-o", str(tmp_path / "c.svg")]) == 0
    assert "GP2/LED" in (tmp_path / "c.svg").read_text()


def test_part_titles_are_wrapped_never_cut(drawn):
    # a cut title can lose its last word ("chip 24 SER to GND" showed no "GND")
    _cfg, svg, _sheet, nl, _w = drawn
    shown = " ".join("".join(t.itertext()) for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"))
    assert "…" not in shown
    for part in nl.parts.values():
        if part.kind in wiring.BOXES and part.kind != "mcu":
            for word in part.text.replace(";", " ").split():
                assert word in shown, (part.ref, word)


def test_schematic_reads_like_one(drawn):
    from hardware import stripboard
    cfg, svg, sheet, nl, _wired = drawn
    # every pin left open on purpose carries a no-connect cross at its tip
    tips = {ref: t for _n, ref, t, _d, _l in sheet.pins}
    assert len(nl.nc) > 5 and all(schematic._r(tips[p.ref]) in sheet.nc for p in nl.nc)
    # the reader board's parts (and the reeds, drawn once) inside the dashed x 25 frame, nothing else
    x0, y0, x1, y1 = sheet.frame

    def inside(b):
        return x0 <= b[0] and b[2] <= x1 and y0 <= b[1] and b[3] <= y1

    def touches(b):
        return b[2] > x0 and b[0] < x1 and b[3] > y0 and b[1] < y1

    reader = set(stripboard.READER_PARTS) | {"reeds"}
    assert all(inside(sheet.bodies[r]) for r in reader)
    assert not [r for r, b in sheet.bodies.items() if r not in reader and touches(b)]
    assert not [r for r, b in sheet.texts if r not in reader | {"frame"} and touches(b)]
    assert "reader board x 25" in svg and "8 reed switches" in svg
    # the title block names the board and the revision
    assert "Revision %s" % schematic.REVISION in sheet.title_block[4][1]
    assert wiring.MCU_NAMES[cfg["board"]] in sheet.title_block[4][0]


def test_the_netlist_is_the_simulated_reader_bus():
    # hardware.bus proves the "redrive" design; wiring.net must be that design
    from hardware import bus
    nl = wiring.load(boardconfig.default())
    ohms = float(bus.DESIGNS["redrive"]["r_source"])
    for ref in ("R1", "R2", "R7", "R8", "R9"):
        assert float(nl.parts[ref].value.split()[0]) == ohms, ref
    assert nl.parts["U4"].value.startswith("74AHC14") and nl.parts["U5"].value.startswith("74AHC573")
    nets = {p.ref: p.net.name if p.net else None for part in nl.parts.values() for p in part.pins.values()}
    assert nets["J3.3"] == nets["U4.1"] and nets["U4.4"] == nets["U3.2"] == nets["R8.1"]   # CLK in, local, on
    assert nets["U4.2"] == nets["U5.11"]                      # the latch opens while CLK is low
    assert nets["U3.9"] == nets["U5.2"] and nets["U5.19"] == nets["R7.2"]   # QH through the latch
