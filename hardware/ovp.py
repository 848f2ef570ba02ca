"""The power entry simulated in ngspice: reverse-polarity MOSFET Q1, over-voltage switch Q3 with
its detector (TL431 U6, divider R10/R11, PNP Q4), fuse, switch and the LED chain's capacitors.

    python -m hardware.ovp      (exit code 1 when a figure is outside its limit)

The deck is built from hardware/wiring.net (its parts, values and nets), so the simulation is of
the circuit the schematic, the ERC and the BOM describe. What it computes:

* the trip point: the input swept slowly (a bench supply), the last input at which Q3 is fully on
  and the first at which it is off, at the nominal parts and at the tolerance corners (TL431
  reference ±1 %: the TL431B's ±0.5 % at 25 °C plus its drift over temperature; R10, R11 ±1 %);
* a wrong adapter plugged in (9, 12, 15 V, and 20 V for the ratings): the highest voltage the load
  (+5V, C10) sees and how long Q3 takes to turn off once the input passes the trip point;
* a 5 V supply: the drop from the jack to +5V and each MOSFET's power at the loads a 4 A supply
  and the 5 A fuse allow;
* each MOSFET's V_GS and V_DS in every case (a 20 V adapter plugged in either way round) against
  its absolute maximum ratings.

Models (datasheet figures; a VDMOS for each P-MOSFET, fitted to R_DS(on) at V_GS = -4.5 V and
checked by ``rdson``): SUP75P03-07 30 V, ±20 V gate, 10 mohm at -4.5 V, V_GS(th) -1..-3 V; BC557B
Gummel-Poon; BZX79-C12; the TL431 as a reference, an error amplifier with a 1 MHz gain-bandwidth
(its datasheet's small-signal gain falls through 0 dB near 1 MHz) and a cathode sink that needs
about 2 V across it; the adapter a source behind 0.1 ohm and 1 uH of cable.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from hardware import wiring
from sy.hardware import boardconfig

# The parts of the power entry, simulated as wired in wiring.net (the LED chain's other
# capacitors C11, C12 sit behind the feed wires).
PARTS = ("F1", "SW1", "Q1", "R15", "D4", "C13", "Q3", "D3", "R12", "Q4", "R13", "R14", "U6", "R10", "R11", "C10",
         "C11", "C12")
# electrolytics' ESR: C10 at the power entry, C11/C12 behind the LED feed wires, C13 a 35 V part
ESR = {"C10": "50m", "C11": "100m", "C12": "100m", "C13": "300m"}

VREF = 2.495                   # TL431B, 25 degC
VREF_TOL = 0.01                # ±0.5 % at 25 degC, and its drift over -40..85 degC: ±1 % in all
IREF_A = 2e-6                  # TL431 reference input current, typical (4 uA max)
R_TOL = 0.01                   # the divider's metal-film resistors

# SUP75P03-07 (Vishay; second source IPP80P03P4L-04): absolute maximum ratings
MOSFET_VDS_MAX = 30.0
MOSFET_VGS_MAX = 20.0
MOSFET_RDSON_4V5 = 0.010       # ohm at V_GS = -4.5 V, 25 degC (datasheet maximum)
MOSFET_RDSON_HOT = 1.6         # R_DS(on) at T_J 125 degC over 25 degC (the datasheet's curve)
MOSFET_TJ_MAX = 175.0
MOSFET_RTHJA = 62.5            # degC/W, TO-220 in free air, no heat sink
AMBIENT_C = 40.0               # inside the game box

FUSE_A = 5.0
SUPPLY_A = 4.0
LOAD_SPEC_V = 5.6              # the highest the load may see: WS2812B 5.3 V + the chain's drop
IDLE_LOAD_A = 0.26             # LEDs idle (199 mA) + the controller (60 mA)

MODELS = """
.model PMOS_SUP75P03 VDMOS(pchan Vto=-1.9 Kp=60 Rd=1.5m Rs=1m Rg=2 Lambda=0.005 Ksubthres=0.12
+ Cgdmax=2.5n Cgdmin=0.25n A=1 Cgs=5n Cjo=2.5n Is=5e-12 N=1.1 Rb=4m Vj=0.6 M=0.4 Tt=50n Bv=34)
.model PNP_BC557B PNP(Is=2.059e-14 Nf=1.003 Ise=2.971e-15 Ne=1.316 Bf=227 Ikf=0.0872 Vaf=37.2
+ Nr=1.007 Isc=1.339e-14 Nc=1.15 Br=7.69 Ikr=0.0765 Var=11.4 Rb=1 Re=0.688 Rc=0.644 Cje=14p
+ Vje=0.59 Mje=0.357 Tf=0.7n Cjc=11p Vjc=0.1 Mjc=0.34 Fc=0.79)
.model DZ_BZX79C12 D(Is=1e-14 Rs=10 Cjo=45p Bv=12 Ibv=5m Nbv=1.5)
.model DSW D(Is=1e-14 N=1)
* TL431: REF above VREF drives the error amplifier (gain 1e4, pole 100 Hz: 1 MHz gain-bandwidth)
* whose output sets the cathode's sink current; the sink needs ~2 V across it (the datasheet's
* V_KA minimum is V_REF: a TL431 used as a comparator pulls its cathode down to about 2 V).
.subckt TL431 K A REF params: vref=2.495 iref=2u
Iref REF A {iref}
Ge A x REF A_ref 1m
Vr A_ref A {vref}
Rx x A 10Meg
Cx x A 159p
Dhi x xhi DSW
Vhi xhi A 3
Dlo xlo x DSW
Vlo xlo A -1
Bk K A I = 1e-7 + 0.05*ln(1+exp(20*(V(x,A)-0.05)))/20 * (1-exp(-max(V(K,A)-1.6,0)/0.2))
Ck K A 20p
.ends
"""


SIGNALS = ("+5V_IN", "+5V_SW", "+5V_RP", "+5V", "OVP_GATE", "Q1_GATE")


class SimError(Exception):
    pass


def _ohms(text):
    """'11.8 k 1 %' -> 11800.0, '100 k' -> 1e5, '2.2 k' -> 2200.0, '39 ohm' -> 39.0"""
    m = re.match(r"([\d.]+)\s*(k|M|ohm)?", text)
    return float(m.group(1)) * {"k": 1e3, "M": 1e6}.get(m.group(2), 1.0)


def _farads(text):
    m = re.match(r"([\d.]+)\s*(uF|nF|pF)", text)
    return float(m.group(1)) * {"uF": 1e-6, "nF": 1e-9, "pF": 1e-12}[m.group(2)]


def _node(net):
    return "0" if net.kind == "ground" else re.sub(r"[^A-Za-z0-9_]", "_", net.name).lower()


def circuit(corner=None, nl=None):
    """The power entry's elements from wiring.net. corner: {'vref': x, 'R10': x, ...} factors."""
    corner = corner or {}
    nl = nl or wiring.load(boardconfig.default("pico"))
    lines = []
    for ref in PARTS:
        if ref not in nl.parts:
            continue   # a variant without it (the tests take parts out)
        p = nl.parts[ref]

        def n(pin):
            return _node(p.pin(pin).net)
        k = corner.get(ref, 1.0)
        if p.kind == "r":
            lines.append("R%s %s %s %.6g" % (ref, n("1"), n("2"), _ohms(p.value) * k))
        elif p.kind == "fuse":
            lines.append("R%s %s %s 15m" % (ref, n("1"), n("2")))          # 5 A fast, cold resistance
        elif p.kind == "toggle":
            lines.append("R%s %s %s 5m" % (ref, n("1"), n("2")))
        elif p.kind == "pmos":
            lines.append("M%s %s %s %s PMOS_SUP75P03" % (ref, n("D"), n("G"), n("S")))
        elif p.kind == "zener":
            lines.append("D%s %s %s DZ_BZX79C12" % (ref, n("A"), n("K")))
        elif p.kind == "pnp":
            lines.append("Q%s %s %s %s PNP_BC557B" % (ref, n("C"), n("B"), n("E")))
        elif p.kind == "ic" and "TL431" in p.text:
            lines.append("X%s %s %s %s TL431 vref=%.6g iref=%.3g" % (
                ref, n("K"), n("A"), n("REF"), VREF * corner.get("vref", 1.0), corner.get("iref", IREF_A)))
        elif p.kind == "cpol":
            esr = ESR[ref]
            lines.append("C%s %s_%s %s %.6g" % (ref, n("+"), ref.lower(), n("-"), _farads(p.value)))
            lines.append("R%s_esr %s %s_%s %s" % (ref, n("+"), n("+"), ref.lower(), esr))
        else:
            raise SimError("no model for %s (%s)" % (ref, p.kind))
    return lines


def _nodes(nl=None):
    nl = nl or wiring.load(boardconfig.default("pico"))
    return {name: _node(nl.nets[name]) for name in SIGNALS}


def _run(deck, vectors):
    ngspice = shutil.which("ngspice")
    if not ngspice:
        raise SimError("ngspice is not installed (Debian: apt-get install ngspice; `make setup` does it)")
    with tempfile.TemporaryDirectory() as tmp:
        path, data = os.path.join(tmp, "ovp.cir"), os.path.join(tmp, "ovp.txt")
        control = ".control\nset wr_singlescale\nset wr_vecnames\nrun\nwrdata %s %s\n.endc\n" % (
            data, " ".join(vectors))
        with open(path, "w") as f:
            f.write(deck + control + ".end\n")
        p = subprocess.run([ngspice, "-b", path], capture_output=True, text=True, cwd=tmp)
        if not os.path.exists(data):
            raise SimError("ngspice failed:\n" + (p.stdout + p.stderr)[-2000:])
        with open(data) as f:
            head = f.readline().split()
            rows = [[float(x) for x in ln.split()] for ln in f if ln.strip()]
    return {h: [r[i] for r in rows] for i, h in enumerate(head)}


ADAPTER_OHM = 0.1     # a plug-in adapter's output resistance and its cable
BENCH_OHM = 0.001     # a bench supply regulates at its terminals


def _deck(corner, source, load, analysis, r_source=ADAPTER_OHM, nl=None):
    """source: the supply's SPICE source text (node 'adp') behind r_source and 1 uH of cable;
    load: ohms or ('i', amps)."""
    nd = _nodes()
    body = ["* power entry", MODELS] + circuit(corner, nl)
    body.append("Vadp adp 0 %s" % source)
    body.append("Radp adp adp_l %g" % r_source)
    body.append("Ladp adp_l %s 1u" % nd["+5V_IN"])
    # Q3's drain current through a 0 V source, then the load
    body.append("Vq3 %s load 0" % nd["+5V"])
    if isinstance(load, tuple):
        body.append("Iload load 0 %g" % load[1])
    else:
        body.append("Rload load 0 %g" % load)
    body.append(analysis)
    return "\n".join(body) + "\n"


def _vectors():
    nd = _nodes()
    return ["v(%s)" % nd[k] for k in SIGNALS] + ["i(vq3)"]


def _cols(res):
    nd = _nodes()
    names = {"v(%s)" % nd[k]: k for k in SIGNALS}
    names["i(vq3)"] = "iq3"
    out = {}
    for h, v in res.items():
        out[names.get(h, h)] = v
    return out


CORNERS = {
    "nominal": {},
    # the lowest trip: reference low, top resistor low, bottom high
    "low": {"vref": 1 - VREF_TOL, "R10": 1 - R_TOL, "R11": 1 + R_TOL},
    "high": {"vref": 1 + VREF_TOL, "R10": 1 + R_TOL, "R11": 1 - R_TOL, "iref": 4e-6},
}


RAMP_S = 60e-3     # the trip test's supply ramp: 0.6 V in 60 ms, slow against the detector
VSG_ON = 4.0       # Q3 fully on: its R_DS(on) is specified at V_GS = -4.5 V
VSG_OFF = 1.0      # Q3 off: below its lowest V_GS(th)


def trip(corner=None, load=19.0, lo=5.2, hi=5.8, nl=None):
    """(on_until, off_from, worst Q3 power between): a bench supply ramped slowly from lo to hi
    volts; the input at the jack when Q3's V_SG last was >= VSG_ON, and when it first fell to
    VSG_OFF."""
    src = "PWL(0 %g %g %g)" % (lo, RAMP_S, hi)
    c = _cols(_run(_deck(corner, src, load, ".tran 5u %g 0 5u" % RAMP_S, BENCH_OHM, nl), _vectors()))
    on_until = off_from = None
    worst_w = 0.0
    for i, t in enumerate(c["time"]):
        v = lo + (hi - lo) * t / RAMP_S    # the supply's setting (the jack sees it less ~1 mV)
        vsg = c["+5V_RP"][i] - c["OVP_GATE"][i]
        if off_from is None:
            worst_w = max(worst_w, (c["+5V_RP"][i] - c["+5V"][i]) * abs(c["iq3"][i]))
            if vsg >= VSG_ON:
                on_until = v
            elif vsg <= VSG_OFF:
                off_from = v
    if on_until is None or off_from is None:
        raise SimError("the switch did not trip between %g and %g V" % (lo, hi))
    return on_until, off_from, worst_w


def plug(volts, corner=None, load=19.0, t_end=300e-6, rise=1e-6, trip_v=5.45, nl=None):
    """A charged adapter of `volts` plugged in at t = 10 us (rising in `rise`: 1 us for a plug
    pushed into the jack, ~10 ms for an adapter switched on at the wall).
    {peak_load, off_us (from the input crossing the trip point until Q3 carries < 10 mA), vgs, vds,
    vgs1, vds1: the worst absolute values, final_load}."""
    src = "PWL(0 0 10u 0 %g %g)" % (10e-6 + rise, volts)
    t_end = max(t_end, 2 * rise)
    step = max(20e-9, t_end / 20000)
    c = _cols(_run(_deck(corner, src, load, ".tran %g %g 0 %g uic" % (step, t_end, step), nl=nl), _vectors()))
    t = c["time"]
    g, g1, rp, sw, ld = c["OVP_GATE"], c["Q1_GATE"], c["+5V_RP"], c["+5V_SW"], c["+5V"]
    # Q3's turn-off: from the input passing the nominal trip point until V_SG falls below VSG_OFF
    t_cross = t_off = None
    for i, ti in enumerate(t):
        if t_cross is None and rp[i] >= trip_v:
            t_cross = ti
        if t_cross is not None and rp[i] - g[i] <= VSG_OFF:
            t_off = ti
            break
    return {
        "peak_load": max(ld), "min_load": min(ld), "final_load": ld[-1],
        "peak_iq3": max(abs(x) for x in c["iq3"]),
        "up_ms": next(((ti - 10e-6) * 1e3 for ti, v in zip(t, ld) if v >= 0.95 * volts), None) if volts > 0 else None,
        "off_us": None if t_off is None or t_cross is None else (t_off - t_cross) * 1e6,
        "vgs": max(abs(g[i] - rp[i]) for i in range(len(t))),
        "vds": max(abs(ld[i] - rp[i]) for i in range(len(t))),
        "vgs1": max(abs(g1[i] - rp[i]) for i in range(len(t))),
        "vds1": max(abs(sw[i] - rp[i]) for i in range(len(t))),
    }


def steady(volts=5.0, amps=SUPPLY_A, corner=None):
    """A 5 V supply at a constant load current: {load_v, drop_v (jack to +5V), q1_w, q3_w}."""
    c = _cols(_run(_deck(corner, "DC %g" % volts, ("i", amps), ".op", BENCH_OHM), _vectors()))
    # .op writes one row: the supply regulated at the jack
    vin, vsw, vrp, vl = c["+5V_IN"][0], c["+5V_SW"][0], c["+5V_RP"][0], c["+5V"][0]
    i = abs(c["iq3"][0])
    return {"load_v": vl, "drop_v": vin - vl, "q1_w": (vsw - vrp) * i, "q3_w": (vrp - vl) * i, "amps": i}


def rdson(vgs=-4.5, amps=1.0):
    """The MOSFET model's R_DS(on) at vgs (checks the model against the datasheet)."""
    deck = "* rdson\n%s\nMq d g s PMOS_SUP75P03\nVs s 0 0\nVg g 0 %g\nId d 0 %g\n.op\n" % (MODELS, vgs, amps)
    c = _run(deck, ["v(d)"])
    return abs(c["v(d)"][0]) / amps


def thermal_ok(watts_25c):
    """T_J of a TO-220 in free air at AMBIENT_C, R_DS(on) hot: (tj, ok)."""
    tj = AMBIENT_C + watts_25c * MOSFET_RDSON_HOT * MOSFET_RTHJA
    return tj, tj < MOSFET_TJ_MAX - 25   # 25 degC of margin below the maximum


ADAPTERS = (9.0, 12.0, 15.0, 20.0)   # wrong adapters with the same 2.1 mm plug
PLUG_RISE_S = 1e-6                   # a charged adapter's plug pushed into the jack
WALL_RISE_S = 10e-3                  # an adapter in the jack switched on at the wall
LOADS_A = (IDLE_LOAD_A, 2.0, SUPPLY_A, FUSE_A)


def figures():
    """Every simulated figure the README shows and the tests check."""
    f = {"rdson": rdson(), "trip": {name: trip(c) for name, c in CORNERS.items()}, "steady": {}, "plug": {},
         "wall": {}}
    for amps in LOADS_A:
        f["steady"][amps] = steady(5.0, amps)
    trip_v = f["trip"]["nominal"][1]
    f["plug"][5.0] = plug(5.0, rise=PLUG_RISE_S, t_end=5e-3)
    for volts in ADAPTERS + (-20.0,):
        f["plug"][volts] = plug(volts, rise=PLUG_RISE_S, trip_v=trip_v)
    for volts in ADAPTERS:
        f["wall"][volts] = plug(volts, rise=WALL_RISE_S, trip_v=trip_v)
    return f


def _corner_text(name):
    c = CORNERS[name]
    if not c:
        return "nominal parts"
    sign = {True: "+", False: "-"}
    out = ["TL431 %s1 %%" % sign[c["vref"] > 1], "R10 %s1 %%" % sign[c["R10"] > 1], "R11 %s1 %%" % sign[c["R11"] > 1]]
    if "iref" in c:
        out.append("I_REF %.0f uA" % (c["iref"] * 1e6))
    return ", ".join(out)


def report(f=None):
    """The figures as the README's table rows."""
    f = f or figures()
    rows = ["| case | simulated (python -m hardware.ovp) |", "| --- | --- |"]
    rows.append("| Q1, Q3 model | R_DS(on) %.1f mohm at V_GS -4.5 V (datasheet maximum %.0f) |" % (
        f["rdson"] * 1e3, MOSFET_RDSON_4V5 * 1e3))
    for name in ("low", "nominal", "high"):
        on, off, w = f["trip"][name]
        rows.append("| trip, %s (%s) | Q3 fully on up to %.3f V, off from %.3f V (Q3 at most %.2f W between) |" % (
            name, _corner_text(name), on, off, w))
    for amps in LOADS_A:
        st = f["steady"][amps]
        tj, _ok = thermal_ok(max(st["q1_w"], st["q3_w"]))
        rows.append("| 5.00 V supply, %.2f A | +5V %.3f V (drop %.0f mV); Q1 %.2f W, Q3 %.2f W; T_J at most %.0f degC "
                    "in free air |" % (amps, st["load_v"], st["drop_v"] * 1e3, st["q1_w"], st["q3_w"], tj))
    p = f["plug"][5.0]
    rows.append("| 5 V supply plugged in | +5V reaches 95 %% after %.1f ms (Q3's gate charges through R12: a soft start); "
                "inrush at most %.1f A |" % (p["up_ms"], p["peak_iq3"]))
    for volts, p in f["plug"].items():
        if volts == 5.0:
            continue
        what = "plugged in reversed" if volts < 0 else "plugged in"
        rows.append("| %.0f V adapter %s | load at most %.2f V; Q3 at most %.0f mA; worst V_GS Q1 %.1f V, Q3 %.1f V; "
                    "V_DS Q1 %.1f V, Q3 %.1f V |" % (abs(volts), what, p["peak_load"], p["peak_iq3"] * 1e3, p["vgs1"],
                                                    p["vgs"], p["vds1"], p["vds"]))
    for volts, p in f["wall"].items():
        rows.append("| %.0f V adapter switched on (%.0f ms rise) | load at most %.2f V; Q3 off %.1f us after the input "
                    "passes the trip point; worst V_GS Q1 %.1f V, Q3 %.1f V; V_DS Q1 %.1f V, Q3 %.1f V |" % (
                        volts, WALL_RISE_S * 1e3, p["peak_load"], p["off_us"], p["vgs1"], p["vgs"], p["vds1"], p["vds"]))
    return "\n".join(rows)


SUPPLY_MAX_V = 5.25           # a 5 V supply at +5 %: must pass
DERATE = 0.8                  # of an absolute maximum rating


def problems(f):
    """[text]: every simulated figure outside its limit (empty: the power entry passes)."""
    bad = []
    for name, (on, off, _w) in f["trip"].items():
        if not SUPPLY_MAX_V < on <= off <= LOAD_SPEC_V:
            bad.append("trip, %s: %.3f-%.3f V, not within %.2f-%.2f V" % (name, on, off, SUPPLY_MAX_V, LOAD_SPEC_V))
    for amps, st in f["steady"].items():
        tj, ok = thermal_ok(max(st["q1_w"], st["q3_w"]))
        if not ok:
            bad.append("5 V at %.2f A: T_J %.0f degC" % (amps, tj))
    for kind in ("plug", "wall"):
        for volts, p in f[kind].items():
            if volts > LOAD_SPEC_V and p["peak_load"] > LOAD_SPEC_V:
                bad.append("%s %.0f V: the load sees %.2f V" % (kind, volts, p["peak_load"]))
            if max(p["vgs"], p["vgs1"]) > DERATE * MOSFET_VGS_MAX or max(p["vds"], p["vds1"]) > DERATE * MOSFET_VDS_MAX:
                bad.append("%s %.0f V: V_GS %.1f V, V_DS %.1f V past %.0f %% of the ratings" % (
                    kind, volts, max(p["vgs"], p["vgs1"]), max(p["vds"], p["vds1"]), DERATE * 100))
    return bad


def main(argv=None):
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    try:
        f = figures()
    except SimError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    print(report(f))
    bad = problems(f)
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
