"""Electrical-rules check of hardware/wiring.net: the mistakes that cost a builder parts.

    python -m hardware.erc [--board pico|esp32] [--config board.json]

Rules (each violation names the part, the pin and the net):

* voltage    no pin sees more than it tolerates: an MCU GPIO at most 3.6 V (the RP2040 and the
             ESP32 are not 5 V tolerant), a logic input at most its own part's supply + 0.5 V.
             A signal net's level is the highest of its drivers (an output at its part's
             supply, a GPIO at 3.3 V) and of the nets it reaches through a resistor, fuse,
             switch, jumper or diode (anode to cathode).
* vin        an MCU board's 5 V input (Pico VSYS, DevKitC 5V) is fed only through a diode's
             cathode, so its USB cannot back-feed the LED rail.
* decoupling every IC has a capacitor of its own from each supply pin to its GND.
* floating   no logic input is left floating: its net is a rail, or has a driving output
             (directly or through a series resistor), or a pull resistor to a rail. An MCU GPIO
             is high-impedance while the MCU resets or is flashed, so it does not count.
* contention no two outputs drive one net.
* levels     every logic input's V_IH is met by each of its drivers' V_OH, across supply domains: a
             driver's high level is its own supply (a GPIO 3.3 V); an input needs 0.7 x its own
             supply (CMOS: 74HC, 74AHC, WS2812B), or 2.0 V when its part has TTL inputs (HCT, AHCT).
             A driver reaches an input directly or through series resistors.
* polarity   parts that only work one way round: a reverse-polarity P-MOSFET has its drain toward
             the supply input (its body diode conducts forward), a switching P-MOSFET its source
             (its body diode cannot feed the load); a diode's anode is on the higher rail; a
             zener's cathode is on the higher net (it clamps reverse-biased).
* fuse       the supply input reaches nothing but a fuse: every path from the input connector's
             supply pin into the board passes through one.
"""
import argparse
import sys

from hardware import wiring
from host import configerrors  # board.json's problems worded from their codes
from sy.hardware import boardconfig

GPIO_MAX_V = 3.6          # RP2040 and ESP32: IOVDD 3.3 V; neither is 5 V tolerant
GPIO_V = 3.3
INPUT_MARGIN_V = 0.5      # 74HC/74AHCT/WS2812B: V_I up to VCC + 0.5 V (absolute maximum)
# parts through which a DC level reaches the next net (the diode only from anode to cathode)
CONDUCTS = ("r", "fuse", "sw", "toggle", "jumper")


def supply(part):
    """The part's supply voltage: the highest rail on its pwr pins (None: it has none)."""
    v = [p.net.volts for p in part.pins.values() if p.kind == "pwr" and p.net is not None]
    return max(v) if v else None


def net_levels(nl):
    """{net name: volts}: rails as declared, signals from their drivers and neighbours."""
    level = {}
    for n in nl.nets.values():
        level[n.name] = n.volts if n.kind != "signal" else 0.0
    links = []   # (from net, to net): the level of the first reaches the second
    for part in nl.parts.values():
        pins = list(part.pins.values())
        if part.kind in CONDUCTS:
            a, b = pins[0].net, pins[1].net
            if a and b:
                links += [(a, b), (b, a)]
        elif part.kind == "d":
            a, k = part.pin("A").net, part.pin("K").net
            if a and k:
                links.append((a, k))
        elif part.kind == "rnet":
            com = part.pin("COM").net
            for p in pins:
                if p.name != "COM" and p.net and com:
                    links += [(com, p.net), (p.net, com)]
        for p in pins:
            if p.net is None or p.net.kind != "signal":
                continue
            if p.kind == "out":
                level[p.net.name] = max(level[p.net.name], supply(part) or 0.0)
            elif p.kind == "gpio":
                level[p.net.name] = max(level[p.net.name], GPIO_V)
    changed = True
    while changed:
        changed = False
        for a, b in links:
            if b.kind == "signal" and level[a.name] > level[b.name]:
                level[b.name] = level[a.name]
                changed = True
    return level


def _pulls(nl, net):
    """Does net have a resistor to a rail, or a resistor from a net with a driving output?"""
    for part in nl.parts.values():
        pins = list(part.pins.values())
        if part.kind == "r":
            others = [q.net for p, q in ((pins[0], pins[1]), (pins[1], pins[0])) if p.net is net and q.net]
        elif part.kind == "rnet":
            com = part.pin("COM").net
            others = [com] if any(p.net is net and p.name != "COM" for p in pins) and com else []
        else:
            continue
        for o in others:
            if o.kind != "signal" or any(q.kind == "out" for q in o.pins):
                return True
    return False


TTL_INPUT_V = 2.0          # V_IH of HCT/AHCT inputs
CMOS_INPUT_SHARE = 0.7     # V_IH of CMOS inputs: 0.7 x VCC (74HC, 74AHC, WS2812B)
PATH_PARTS = ("fuse", "toggle", "sw", "jumper", "pmos", "d")   # what the supply passes through


def v_ih(part):
    vcc = supply(part)
    if vcc is None:
        return None
    return TTL_INPUT_V if "HCT" in part.value.upper() else CMOS_INPUT_SHARE * vcc


def drivers_of(nl, net, seen=None):
    """[(pin, V_OH)]: the outputs and GPIOs that drive net, directly or through series resistors."""
    seen = seen or set()
    seen.add(net.name)
    out = []
    for q in net.pins:
        if q.kind == "out":
            out.append((q, supply(q.part) or 0.0))
        elif q.kind == "gpio":
            out.append((q, GPIO_V))
        elif q.part.kind == "r":
            other = [x for x in q.part.pins.values() if x is not q][0].net
            if other is not None and other.kind == "signal" and other.name not in seen:
                out += drivers_of(nl, other, seen)
    return out


def _levels_rule(nl):
    bad = []
    for part in nl.parts.values():
        need = v_ih(part)
        for p in part.pins.values():
            if p.kind != "in" or need is None or p.net is None or p.net.kind != "signal":
                continue
            for q, voh in drivers_of(nl, p.net):
                if voh < need - 1e-9:
                    bad.append("levels: %s (%s) needs %.2f V for a high (%s at %.1f V) but %s drives at most %.1f V"
                               % (p.ref, p.name, need, part.ref, supply(part), q.ref, voh))
    return bad


def _input_pins(nl):
    """The supply input: connector pins of kind src on a power net."""
    return [p for part in nl.parts.values() if part.kind == "conn" for p in part.pins.values()
            if p.kind == "src" and p.net is not None and p.net.kind == "power"]


def _path_distance(nl):
    """{net name: steps from the supply input along the power path (fuse, switch, MOSFET, diode)}."""
    dist = {p.net.name: 0 for p in _input_pins(nl)}
    frontier = list(dist)
    while frontier:
        nxt = []
        for name in frontier:
            for part in nl.parts.values():
                if part.kind not in PATH_PARTS:
                    continue
                ends = [q for q in part.pins.values() if q.number != "G" and q.net is not None]
                if part.kind == "d":
                    ends = [part.pin("A"), part.pin("K")] if part.pin("A").net and part.pin("K").net else []
                    ends = ends if ends and ends[0].net.name == name else []
                if not any(q.net.name == name for q in ends):
                    continue
                for q in ends:
                    if q.net.name not in dist and q.net.kind == "power":
                        dist[q.net.name] = dist[name] + 1
                        nxt.append(q.net.name)
        frontier = nxt
    return dist


def _polarity_rule(nl, level):
    bad = []
    dist = _path_distance(nl)
    for part in nl.parts.values():
        if part.kind == "pmos":
            d, s = part.pin("D").net, part.pin("S").net
            if d is None or s is None or d.name not in dist or s.name not in dist:
                continue
            text = part.text.lower()
            role = "reverse" if "reverse" in text else "switch" if "switch" in text else None
            if role is None:
                bad.append("polarity: %s (%s) is on the power path but says neither reverse-polarity nor switch"
                           % (part.ref, part.value))
            elif role == "reverse" and not dist[d.name] < dist[s.name]:
                bad.append("polarity: %s (%s) reverse-polarity P-MOSFET must have its drain toward the input "
                           "(drain on %s, source on %s)" % (part.ref, part.value, d.name, s.name))
            elif role == "switch" and not dist[s.name] < dist[d.name]:
                bad.append("polarity: %s (%s) switching P-MOSFET must have its source toward the input, or its "
                           "body diode feeds the load (drain on %s, source on %s)" % (part.ref, part.value, d.name,
                                                                                      s.name))
        elif part.kind in ("d", "zener"):
            a, k = part.pin("A").net, part.pin("K").net
            if a is None or k is None:
                continue
            va, vk = level[a.name], level[k.name]
            if part.kind == "d" and a.kind == "power" and k.kind == "power" and va < vk:
                bad.append("polarity: %s (%s) points from %s (%.1f V) to the higher %s (%.1f V)"
                           % (part.ref, part.value, a.name, va, k.name, vk))
            if part.kind == "zener" and vk < va:
                bad.append("polarity: %s (%s) zener is forward-biased: cathode on %s (%.1f V), anode on %s (%.1f V)"
                           % (part.ref, part.value, k.name, vk, a.name, va))
    return bad


def _fuse_rule(nl):
    bad = []
    for p in _input_pins(nl):
        others = [q for q in p.net.pins if q is not p]
        if not others or any(q.part.kind != "fuse" for q in others):
            bad.append("fuse: the supply input %s (%s) reaches %s without a fuse in series"
                       % (p.ref, p.net.name, ", ".join(q.ref for q in others if q.part.kind != "fuse") or "nothing"))
    if not _input_pins(nl):
        bad.append("fuse: no supply input (a connector pin of kind src on a power net)")
    return bad


def check(nl):
    """[violation text]; empty when the netlist passes every rule."""
    bad = []
    level = net_levels(nl)
    for part in nl.parts.values():
        vcc = supply(part)
        for p in part.pins.values():
            n = p.net
            if n is None:
                continue
            v = level[n.name]
            if p.kind == "gpio" and v > GPIO_MAX_V:
                bad.append("voltage: %s (%s) is on %s at %.1f V; an MCU GPIO takes at most %.1f V"
                           % (p.ref, p.name, n.name, v, GPIO_MAX_V))
            if p.kind == "in" and vcc is not None and v > vcc + INPUT_MARGIN_V:
                bad.append("voltage: %s (%s) is on %s at %.1f V; %s runs at %.1f V and its inputs take at "
                           "most %.1f V" % (p.ref, p.name, n.name, v, part.ref, vcc, vcc + INPUT_MARGIN_V))
            if p.kind == "vin":
                others = [q for q in n.pins if q is not p]
                diodes = [q for q in others if q.part.kind == "d" and q.number == "K"]
                if len(others) != 1 or len(diodes) != 1:
                    bad.append("vin: %s (%s) must be fed only through a diode's cathode; its net %s also has %s"
                               % (p.ref, p.name, n.name, ", ".join(q.ref for q in others if q not in diodes)
                                  or "no diode"))
            if p.kind == "in" and n.kind == "signal":
                drivers = [q for q in n.pins if q.kind == "out"]
                if not drivers and not _pulls(nl, n):
                    gp = [q.ref for q in n.pins if q.kind == "gpio"]
                    bad.append("floating: %s (%s) on %s has no driver and no pull resistor%s"
                               % (p.ref, p.name, n.name,
                                  " (%s is high-impedance while the MCU resets)" % ", ".join(gp) if gp else ""))
    for n in nl.nets.values():
        outs = [q.ref for q in n.pins if q.kind == "out"]
        if len(outs) > 1:
            bad.append("contention: %s are outputs on one net %s" % (", ".join(outs), n.name))
    bad += _levels_rule(nl) + _polarity_rule(nl, level) + _fuse_rule(nl)
    used = set()
    for part in nl.parts.values():
        if part.kind != "ic":
            continue
        gnd = [p.net for p in part.pins.values() if p.kind == "gnd"]
        for p in part.pins.values():
            if p.kind != "pwr":
                continue
            caps = [c for c in nl.parts.values() if c.kind == "c" and c.ref not in used
                    and {q.net for q in c.pins.values()} == {p.net, gnd[0] if gnd else None}]
            if not caps:
                bad.append("decoupling: %s (%s) %s has no capacitor of its own to GND"
                           % (part.ref, part.value, p.name))
            else:
                used.add(caps[0].ref)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.erc", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", choices=boardconfig.BOARDS, help="default: both boards' defaults")
    ap.add_argument("--config", help="a board.json (its pins are checked)")
    args = ap.parse_args(argv)
    try:
        if args.config:
            cfgs = [boardconfig.load(args.config)]
        else:
            cfgs = [boardconfig.default(b) for b in ([args.board] if args.board else boardconfig.BOARDS)]
        failed = False
        for cfg in cfgs:
            nl = wiring.load(cfg)
            bad = check(nl)
            print("%s: %d parts, %d nets: %s" % (cfg["board"], len(nl.parts), len(nl.nets),
                                                 "every rule passes" if not bad else "%d violations" % len(bad)))
            for b in bad:
                print("  " + b)
            failed |= bool(bad)
    except (boardconfig.ConfigError, wiring.NetlistError) as e:
        print("error: %s" % (configerrors.explain(e) if isinstance(e, boardconfig.ConfigError) else e), file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
