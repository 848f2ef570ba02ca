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
"""
import argparse
import sys

from hardware import wiring
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
        print("error: %s" % e, file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
