"""The reader bus simulated in ngspice: SCK, SH/LD and the DATA return as the real ribbon.

    python -m hardware.bus [--design redrive|today|schmitt] [--clock 250000] [-o build] [--png]

The ribbon runs from the controller to reader board 0, then board to board (lengths from
hardware.placement: each board at the centre of its 8 stations, + hardware.bom.SLACK for bends).
Every segment is a lossy transmission line (ngspice's TXL: R, L, C per metre of 1.27 mm ribbon,
each signal between two ground wires); every reader input is its capacitance with its protection
diodes to 3V3 and GND; every driver is a voltage step behind its output resistance.

Three designs, all simulated the same way:

* ``today``    one SCK and one SH/LD line past all 25 74HC165 (CMOS inputs, no hysteresis), 68 ohm
               in series at the controller, the far end open.
* ``schmitt``  the same bus with SN74HCS165 (Schmitt-trigger inputs) in place of the 74HC165.
* ``redrive``  point to point: every board receives CLK and SH/LD on a 74AHC14 Schmitt inverter and
               drives them on (two inverters: non-inverting) through 39 ohm to the next board, so
               every ribbon segment has one driver, matched at its source, and one receiver at its
               open end. Its QH leaves through a 74AHC573 latch that is transparent while CLK is low,
               so DATA changes half a clock period after the sampling edge (the scan-chain
               "lock-up latch"): every receiver samples in the middle of its bit.

From the waveforms the timing check takes, at every reader, the times its input crosses the
edges of its threshold band (any part may switch anywhere in it), then the setup and hold margin of
every link of the chain: board k+1's DATA into board k's SER, and board 0's DATA into the MCU.
"""
import argparse
import itertools
import math
import os
import shutil
import subprocess
import sys
import tempfile

from hardware import bom, placement

VCC = 3.3
CHIPS = 25

# 10-way 1.27 mm ribbon (28 AWG, 7 strands), each signal wire between two ground wires: about
# 90 ohm and 4.9 ns/m (PVC, velocity ~0.68 c); 0.21 ohm/m for the signal wire + the two grounds in
# parallel. PVC's dielectric loss at these frequencies is far below the copper's: G = 0.
RIBBON_Z0 = 90.0
RIBBON_DELAY_S_PER_M = 4.9e-9
RIBBON_R_PER_M = 0.32
RIBBON_L_PER_M = RIBBON_Z0 * RIBBON_DELAY_S_PER_M
RIBBON_C_PER_M = RIBBON_DELAY_S_PER_M / RIBBON_Z0
BOARD_TRACE_M = 0.06          # J3 -> J4 across a reader board: part of the line

# Drivers (Thevenin: a step with rise time behind an output resistance).
MCU_ROUT = 40.0               # RP2040 GPIO, 4 mA drive (MicroPython's default pad setting)
MCU_EDGE_S = 2e-9             # its fastest edge: faster edges ring more (the worst case here)
MCU_CIN_F = 5e-12
GATE_ROUT = 50.0              # a 74HC / 74AHC output at 3.3 V
GATE_EDGE_S = 4e-9
# Reader input: 74HC datasheets give Ci 3.5 pF typical; + DIP socket and ~3 cm of strip.
READER_CIN_F = 6.5e-12

# Thresholds at VCC = 3.3 V, interpolated linearly between the TI datasheets' 2 V and 4.5 V rows
# (-40..85 C). A CMOS input (74HC165) may switch anywhere between V_IL and V_IH and has no
# hysteresis; a Schmitt input (74AHC14, SN74HCS165) switches rising somewhere in [VT+ min, VT+ max]
# and falling in [VT- min, VT- max], with at least DVT min between the two.
BANDS = {
    "cmos": {"rise": (0.94, 2.36), "fall": (0.94, 2.36), "hyst": 0.0, "nominal": (1.65, 1.65)},
    # one band for the SN74HCS165 and the SN74AHC14, wide enough for both datasheets' tables
    "schmitt": {"rise": (0.90, 2.40), "fall": (0.60, 1.70), "hyst": 0.30, "nominal": (1.80, 1.10)},

}
NOISE_V = 0.02                # a dip smaller than this in a CMOS input's band counts as flat

# Timing at 3.3 V, -40..85 C (the same interpolation; a minimum the datasheet does not give is
# taken as about a third of the typical value). Seconds.
HC165_CLK_TO_QH = (5e-9, 70e-9)
HC165_SER_SETUP = 45e-9
HC165_SER_HOLD = 10e-9
# The re-driver and the latch are AHC parts (SN74AHC14, SN74AHC573: 3.3 V parts with 5 V tolerant
# inputs; at VCC 3.3 V +-0.3 V, 50 pF, -40..85 C).
GATE = (1e-9, 18.5e-9)        # one AHC14 inverter; typical 8 ns
GATE_TYP = 8e-9
LATCH_LE_TO_Q = (1e-9, 17.5e-9)
LATCH_D_TO_Q = (1e-9, 16.5e-9)
LATCH_HOLD = 1.5e-9
# The two AHC14 gates of a board are in one package: a rising input passes one falling and one
# rising output, a falling input the same two, so the pair's rise and fall delays differ only by
# the mismatch of two gates of one die (assumed 1 ns a board; the datasheet gives no figure).
GATE_PAIR_SKEW = 1e-9
MCU_SETUP = 20e-9             # RP2040 SPI (PL022) input: 2 cycles of its 125 MHz clock + pad
MCU_HOLD = 10e-9
T0 = 20e-9                    # the MCU's SCK edge in every simulation
MARGIN_SHARE = 0.25           # a link passes with setup and hold margins >= 25 % of the period

# The clocks the tests hold the bus to: the default reeds.baudrate, and the fastest that `yard
# selftest` may propose (half the fastest clock of its sweep).
DEFAULT_CLOCK = 250_000
SELFTEST_MAX_CLOCK = 2_000_000

DESIGNS = {
    "today": {"receiver": "cmos", "redrive": False, "latch": False, "r_source": 68.0, "r_data": 68.0,
              "what": "one line past 25 74HC165, 68 ohm at the controller (the stripboard design)"},
    "schmitt": {"receiver": "schmitt", "redrive": False, "latch": False, "r_source": 68.0, "r_data": 68.0,
                "what": "the same line past 25 SN74HCS165 (Schmitt-trigger inputs)"},
    "redrive": {"receiver": "schmitt", "redrive": True, "latch": True, "r_source": 39.0, "r_data": 39.0,
                "what": "74AHC14 re-driver per board (39 ohm, point to point), QH through a 74AHC573 latch "
                        "open while CLK is low"},
}


class SimError(Exception):
    pass


def segment_lengths(pl=None, chips=CHIPS):
    """Metres of ribbon: [controller -> board 0, board 0 -> 1, ..., board chips-2 -> chips-1]."""
    pl = pl or placement.placement_from_file(placement.EXAMPLE)
    route, pos = pl.route, pl.pos
    centres = []
    for k in range(chips):
        members = route[8 * k:8 * k + 8] or route[-8:]
        centres.append((sum(pos[s][0] for s in members) / len(members),
                        sum(pos[s][1] for s in members) / len(members)))
    pts = [pos[route[0]]] + centres
    return [math.dist(a, b) / 1000 * bom.SLACK + BOARD_TRACE_M for a, b in itertools.pairwise(pts)]


# ---- the netlist ---------------------------------------------------------------------------------

def _line(name, a, b, metres):
    return ["Y%s %s 0 %s 0 rib_%s" % (name, a, b, name),
            ".model rib_%s txl r=%g l=%g g=0 c=%g length=%g" % (name, RIBBON_R_PER_M, RIBBON_L_PER_M,
                                                                 RIBBON_C_PER_M, metres)]


def _input(name, node, cin=READER_CIN_F):
    """A CMOS input: its capacitance and the ESD diodes to the rails (they clamp the ringing)."""
    return ["C%s %s 0 %g" % (name, node, cin), "DH%s %s vcc dclamp" % (name, node),
            "DL%s 0 %s dclamp" % (name, node)]


def _redriver(name, inp, out, mid, hyst):
    """A 74AHC14 pair: Schmitt input (rising at mid+hyst, falling at mid-hyst), two gate delays, a
    74HC output edge; out is the gate's output pin before its output resistance."""
    return ["a%s %s h%s schmitt_%s" % (name, inp, name, name),
            ".model schmitt_%s hyst(in_low=%g in_high=%g hyst=%g out_lower_limit=0 out_upper_limit=%g "
            "input_domain=0.001 fraction=FALSE)" % (name, mid - 0.001, mid + 0.001, hyst, VCC),
            "a%sd [h%s] [d%s] to_digital" % (name, name, name),
            "a%sb d%s e%s two_gates" % (name, name, name),
            "a%sa [e%s] [%s] to_analog" % (name, name, out)]


def netlist(design, clock, lengths):
    """The SPICE deck: SCK and SH/LD (SH/LD falls then rises, SCK rises then falls), and every DATA
    link launched at T0. Node names: s<k> / l<k> at board k's SCK / SH/LD input, g<k> / m<k> at its
    local CLK / SH/LD (redrive), r<k> at the receiving end of the DATA link from board k (board k-1's
    SER, or the MCU for k = 0)."""
    d = DESIGNS[design]
    band = BANDS[d["receiver"]]
    half = 0.5 / clock
    tstop = T0 + half + (len(lengths) * 50e-9 if d["redrive"] else 0) + 400e-9
    out = ["* reader bus: %s at %d Hz" % (design, clock),
           "Vcc vcc 0 %g" % VCC,
           ".model dclamp d(is=1e-14 n=1.05 rs=10)",
           ".model to_digital adc_bridge(in_low=%g in_high=%g)" % (VCC / 2 - 0.05, VCC / 2 + 0.05),
           ".model two_gates d_buffer(rise_delay=%g fall_delay=%g)" % (2 * GATE_TYP, 2 * GATE_TYP),
           ".model to_analog dac_bridge(out_low=0 out_high=%g t_rise=%g t_fall=%g)" % (VCC, GATE_EDGE_S,
                                                                                     GATE_EDGE_S)]
    mid = (band["nominal"][0] + band["nominal"][1]) / 2
    hyst = (band["nominal"][0] - band["nominal"][1]) / 2
    for sig, node, wave in (("s", "s", "pulse(0 %g %g %g %g %g %g)" % (VCC, T0, MCU_EDGE_S, MCU_EDGE_S,
                                                                      half - MCU_EDGE_S, 1.0)),
                            ("l", "l", "pulse(%g 0 %g %g %g %g %g)" % (VCC, T0, MCU_EDGE_S, MCU_EDGE_S,
                                                                      half - MCU_EDGE_S, 1.0))):
        out += ["V%smcu %smcu 0 %s" % (sig, sig, wave), "R%sout %smcu %sa %g" % (sig, sig, sig, MCU_ROUT),
                "R%ssrc %sa %sb %g" % (sig, sig, sig, d["r_source"]),
                "R%spull %sb %s 10k" % (sig, sig, "0" if sig == "s" else "vcc")]
        prev = "%sb" % sig
        for k, metres in enumerate(lengths):
            here = "%s%d" % (node, k)
            out += _line("%s%d" % (sig, k), prev, here, metres) + _input("%s%d" % (sig, k), here)
            if d["redrive"]:
                local = "%s%d" % ("g" if sig == "s" else "m", k)
                out += _redriver("%s%d" % (sig, k), here, "%so%d" % (sig, k), mid, hyst)
                out += ["R%sgo%d %so%d %s %g" % (sig, k, sig, k, local, GATE_ROUT)]
                out += _input("%sl%d" % (sig, k), local)
                if k + 1 < len(lengths):
                    out += ["R%ssr%d %s %sx%d %g" % (sig, k, local, sig, k, d["r_source"])]
                    prev = "%sx%d" % (sig, k)
            else:
                prev = here
    # DATA links: board k's QH (today) or latch output (redrive) toward board k-1 / the MCU
    for k, metres in enumerate(lengths):
        out += ["Vd%d dsrc%d 0 pulse(0 %g %g %g %g %g %g)" % (k, k, VCC, T0, GATE_EDGE_S, GATE_EDGE_S,
                                                              half, 1.0),
                "Rdo%d dsrc%d da%d %g" % (k, k, k, GATE_ROUT), "Rds%d da%d db%d %g" % (k, k, k, d["r_data"])]
        out += _line("d%d" % k, "db%d" % k, "r%d" % k, metres)
        out += _input("d%d" % k, "r%d" % k, MCU_CIN_F if k == 0 else READER_CIN_F)
    out += [".tran 0.1n %g 0 0.1n" % tstop, ".end"]
    return "\n".join(out) + "\n"


def nodes(design, chips=CHIPS):
    d = DESIGNS[design]
    names = ["s%d" % k for k in range(chips)] + ["l%d" % k for k in range(chips)]
    names += ["r%d" % k for k in range(chips)]
    if d["redrive"]:
        names += ["g%d" % k for k in range(chips)] + ["m%d" % k for k in range(chips)]
    return names


def run(design, clock, lengths=None):
    """{node: (times, volts)} from ngspice (batch mode)."""
    ngspice = shutil.which("ngspice")
    if not ngspice:
        raise SimError("ngspice is not installed (Debian: apt-get install ngspice; `make setup` does it)")
    lengths = lengths or segment_lengths()
    names = nodes(design, len(lengths))
    with tempfile.TemporaryDirectory() as tmp:
        deck = os.path.join(tmp, "bus.cir")
        data = os.path.join(tmp, "bus.txt")
        control = ".control\nset wr_singlescale\nset wr_vecnames\nrun\nwrdata %s %s\n.endc\n" % (
            data, " ".join("v(%s)" % n for n in names))
        with open(deck, "w") as f:
            f.write(netlist(design, clock, lengths).replace(".end\n", control + ".end\n"))
        p = subprocess.run([ngspice, "-b", deck], capture_output=True, text=True, cwd=tmp)
        if not os.path.exists(data):
            raise SimError("ngspice failed:\n" + (p.stdout + p.stderr)[-2000:])
        with open(data) as f:
            head = f.readline().split()
            rows = [[float(x) for x in ln.split()] for ln in f if ln.strip()]
    if len(head) != len(names) + 1:
        raise SimError("ngspice wrote %d columns, expected %d" % (len(head), len(names) + 1))
    times = [r[0] for r in rows]
    return {n: (times, [r[i + 1] for r in rows]) for i, n in enumerate(names)}


# ---- reading the waveforms -----------------------------------------------------------------------

def crossings(wave, lo, hi, start, stop, rising, nominal):
    """(first, nominal, last, dip) of the edge between start and stop: the time it first enters
    the band [lo, hi], crosses the nominal threshold, last crosses the band's far side, and the
    largest fall against the edge's direction while inside the band (0 for a monotonic edge)."""
    t, v = wave
    a, b, m = (lo, hi, nominal) if rising else (VCC - hi, VCC - lo, VCC - nominal)
    first = mid = last = None
    xs = []
    for i in range(1, len(t)):
        if t[i] < start or t[i] > stop:
            continue
        x0, x1 = (v[i - 1], v[i]) if rising else (VCC - v[i - 1], VCC - v[i])
        xs.append((t[i], x1))
        if first is None and x0 < a <= x1:
            first = _interp(t[i - 1], t[i], x0, x1, a)
        if mid is None and x0 < m <= x1:
            mid = _interp(t[i - 1], t[i], x0, x1, m)
        if x0 < b <= x1:
            last = _interp(t[i - 1], t[i], x0, x1, b)
    dip, peak = 0.0, None
    if first is not None and last is not None:
        for ti, x in xs:
            if first <= ti <= last:
                peak = min(b, x if peak is None else max(peak, x))
                dip = max(dip, peak - x)
    return first, mid, last, dip


def _interp(t0, t1, v0, v1, level):
    return t0 if v1 == v0 else t0 + (t1 - t0) * (level - v0) / (v1 - v0)


class Edge:
    """One input's edge: the window in which a part may switch and whether the edge is clean."""

    def __init__(self, name, first, nominal, last, dip, tolerance):
        self.name, self.first, self.nominal, self.last = name, first, nominal, last
        self.dip, self.tolerance = dip, tolerance

    @property
    def ok(self):
        return None not in (self.first, self.nominal, self.last) and self.dip <= self.tolerance

    @property
    def width(self):
        return self.last - self.first

    def __repr__(self):
        return "Edge(%s %s..%s dip %.3f V)" % (self.name, _ns(self.first), _ns(self.last), self.dip)


def _ns(t):
    return "never" if t is None else "%.1f ns" % (t * 1e9)


def _first_cross(wave, level, start, upward):
    t, v = wave
    for i in range(1, len(t)):
        if t[i] > start and ((v[i - 1] < level <= v[i]) if upward else (v[i - 1] > level >= v[i])):
            return t[i]
    return None


def edges(waves, design, clock):
    """{(node, 'rise'|'fall'): Edge} for every reader input of the design: SCK and SH/LD inputs with
    the design's receiver, the local CLK / SH/LD pins and the DATA receivers (74HC165 SER, the MCU)
    with CMOS thresholds. Each node's first edge is sought from T0 to halfway to its second (a
    re-driven board's edges come later the farther it is down the chain)."""
    d = DESIGNS[design]
    out = {}
    for name, wave in waves.items():
        band = BANDS["cmos"] if name[0] in "gmr" else BANDS[d["receiver"]]
        tol = max(band["hyst"], NOISE_V)
        order = ("fall", "rise") if name[0] in "lm" else ("rise", "fall")   # SH/LD: the load, then shift
        nom = {"rise": band["nominal"][0], "fall": band["nominal"][1]}
        t1 = _first_cross(wave, nom[order[0]], T0, order[0] == "rise")
        t2 = _first_cross(wave, nom[order[1]], t1, order[1] == "rise") if t1 is not None else None
        split = (t1 + t2) / 2 if t2 is not None else wave[0][-1]
        for sense, a, b in ((order[0], T0, split), (order[1], split, wave[0][-1])):
            lo, hi = band[sense]
            out[(name, sense)] = Edge(name, *crossings(wave, lo, hi, a, b, sense == "rise", nom[sense]), tol)
    return out


# ---- timing ----------------------------------------------------------------------------------------

class Link:
    """Setup and hold margin of one DATA link, in seconds and as a share of the clock period."""

    def __init__(self, name, setup, hold, period):
        self.name, self.setup, self.hold, self.period = name, setup, hold, period

    @property
    def worst_share(self):
        return min(self.setup, self.hold) / self.period

    @property
    def ok(self):
        return self.worst_share >= MARGIN_SHARE

    def __repr__(self):
        return "%s: setup %.0f ns (%.0f %%), hold %.0f ns (%.0f %%)" % (
            self.name, self.setup * 1e9, 100 * self.setup / self.period, self.hold * 1e9, 100 * self.hold / self.period)


def timing(design, clock, es, chips=CHIPS):
    """[Link] for every link: board 0 -> the MCU, board k+1 -> board k's SER. Every window is taken
    at its worst end: the earliest a DATA input can change against the latest a reader can sample
    (hold), the latest change against the earliest next sample (setup).

    On the shared line (today, schmitt) a 74HC165 samples anywhere in its SCK input's band; its QH
    follows 5..70 ns later. Re-driven, board k samples at its local CLK, the same edge its gates send
    on to board k+1, so their speed moves board k's sample and board k+1's edges alike; board k+1's
    DATA changes when its latch opens, one gate (at its datasheet extremes) after its CLK falls.
    What does not cancel is each board's rise against its fall: its Schmitt input switching
    anywhere in its bands (the simulation takes the nominal thresholds) and its gate pair's
    rise/fall mismatch. These add up along the chain; as independent tolerances of separate parts
    they are summed root-sum-square (DRIFT in the report).
    """
    d = DESIGNS[design]
    period = 1.0 / clock
    e = {key: v for key, v in es.items()}

    def flight(k):   # DATA from a launch at T0 into the receiver's band
        r = e[("r%d" % k, "rise")]
        return r.first - T0, r.last - T0

    def sample(k):
        r = e[("s%d" % k, "rise")]
        if not d["redrive"]:
            return r.first, r.last
        g = e[("g%d" % k, "rise")]   # the local CLK is also the edge sent on to board k+1: the speed
        return g.first, g.last       # of board k's gates moves both alike (the pair skew aside)

    def change(k):
        if not d["latch"]:
            a, b = sample(k)
            return a + HC165_CLK_TO_QH[0], b + HC165_CLK_TO_QH[1]
        f = e[("s%d" % k, "fall")]
        a, b = sample(k)   # QH reaches the latch's D: when the latch is already open, D -> Q counts
        return (f.first + GATE[0] + LATCH_LE_TO_Q[0],
                max(f.last + GATE[1] + LATCH_LE_TO_Q[1], b + HC165_CLK_TO_QH[1] + LATCH_D_TO_Q[1]))

    drift_setup = drift_hold = 0.0
    links = []
    for k in range(chips):
        a, b = change(k)
        fa, fb = flight(k)
        if k == 0:
            s_first = s_last = T0 + MCU_EDGE_S / 2
            su, ho = MCU_SETUP, MCU_HOLD
            name = "board 0 -> MCU"
        else:
            s_first, s_last = sample(k - 1)
            su, ho = HC165_SER_SETUP, HC165_SER_HOLD
            name = "board %d -> board %d" % (k, k - 1)
            if d["redrive"]:   # boards 0..k-1 moved board k's falling edge against k-1's rising one
                r, f = e[("s%d" % (k - 1), "rise")], e[("s%d" % (k - 1), "fall")]
                drift_setup += ((f.last - f.nominal) + (r.nominal - r.first) + GATE_PAIR_SKEW) ** 2
                drift_hold += ((f.nominal - f.first) + (r.last - r.nominal) + GATE_PAIR_SKEW) ** 2
        hold = (a + fa) - s_last - ho - math.sqrt(drift_hold)
        setup = (s_first + period) - (b + fb) - su - math.sqrt(drift_setup)
        links.append(Link(name, setup, hold, period))
    return links


def local_latch_hold():
    """Inside a re-driven board: the latch closes one gate after CLK rises, its D (QH) moves a
    gate and a 74HC165 delay later. Seconds of hold margin (no bus in it: not a share of the period)."""
    return GATE[0] + HC165_CLK_TO_QH[0] - LATCH_HOLD


class Result:
    def __init__(self, design, clock, waves, es, links):
        self.design, self.clock, self.waves, self.edges, self.links = design, clock, waves, es, links

    @property
    def bad_edges(self):
        return [e for e in self.edges.values() if not e.ok]

    @property
    def ok(self):
        return not self.bad_edges and all(x.ok for x in self.links)

    def plateau(self, k):
        """(ns, volts) the longest time board k's SCK input dwells in its rising band."""
        e = self.edges[("s%d" % k, "rise")]
        return e.width * 1e9 if e.first is not None and e.last is not None else float("nan")

    def report(self):
        d = DESIGNS[self.design]
        lines = ["%s at %g kHz: %s" % (self.design, self.clock / 1000, d["what"])]
        for k in range(len(self.links)):
            rise = self.edges[("s%d" % k, "rise")]
            link = self.links[k]
            lines.append("  board %2d: SCK in its band %s .. %s (%s, dip %.2f V); %r"
                         % (k, _ns(rise.first), _ns(rise.last), "clean" if rise.ok else "NOT MONOTONIC",
                            rise.dip, link))
        worst = min(self.links, key=lambda x: x.worst_share)
        lines.append("  worst link: %r -> %s" % (worst, "PASS" if self.ok else "FAIL"))
        if self.bad_edges:
            lines.append("  %d edges not monotonic through their band, e.g. %r" % (len(self.bad_edges),
                                                                                   self.bad_edges[0]))
        return "\n".join(lines)


def simulate(design, clock, lengths=None):
    lengths = lengths or segment_lengths()
    waves = run(design, clock, lengths)
    es = edges(waves, design, clock)
    return Result(design, clock, waves, es, timing(design, clock, es, len(lengths)))


# ---- drawing (SVG, PNG through rsvg-convert as hardware.schematic does) ---------------------------

def svg(result, boards=None, window_ns=None):
    """SCK at the first, middle and last board's input (and their local CLK pins when re-driven):
    the rising edge, with the threshold band shaded."""
    n = len(result.links)
    boards = boards or [0, n // 2, n - 1]
    d = DESIGNS[result.design]
    band = BANDS[d["receiver"]]["rise"]
    span = window_ns or min(0.5e9 / result.clock + 100, 400.0)
    w, h, pad = 900, 320, 50
    colours = ["#c33", "#2a7", "#36c"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="13"><rect width="100%%" height="100%%" fill="#fff"/>' % (w, h + 40)]

    def xy(t, v):
        return (pad + (t - T0) * 1e9 / span * (w - 2 * pad), h - pad - v / 4.0 * (h - 2 * pad) + 20)

    y_hi, y_lo = xy(T0, band[1])[1], xy(T0, band[0])[1]
    out.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#fd8" opacity="0.5"/>'
               % (pad, y_hi, w - 2 * pad, y_lo - y_hi))
    out.append('<text x="%d" y="%.1f" fill="#a70">threshold band %.2f-%.2f V</text>' % (w - pad - 200, y_hi - 4,
                                                                                       band[0], band[1]))
    for v in (0, 1, 2, 3):
        _x, y = xy(T0, v)
        out.append('<path d="M%d %.1fH%d" stroke="#ddd"/><text x="8" y="%.1f">%d V</text>' % (pad, y, w - pad, y + 4, v))
    for ns in range(0, int(span) + 1, 50):
        x, y = xy(T0 + ns * 1e-9, 0)
        out.append('<text x="%.1f" y="%.1f" text-anchor="middle">%d ns</text>' % (x, h - 5, ns))
    for i, k in enumerate(boards):
        for node, dash in (("s%d" % k, ""), ("g%d" % k, ' stroke-dasharray="5,3"')):
            if node not in result.waves:
                continue
            t, v = result.waves[node]
            shift = result.edges[("s%d" % k, "rise")].first - T0 - 20e-9   # each board from its own edge
            pts = " ".join("%.1f,%.1f" % xy(a - shift, b) for a, b in zip(t, v) if T0 <= a - shift <= T0 + span * 1e-9)
            out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>' % (pts, colours[i], dash))
        shift = result.edges[("s%d" % k, "rise")].first - T0
        out.append('<text x="%d" y="%d" fill="%s">board %d SCK input, from %.0f ns after the MCU edge%s</text>'
                   % (pad + 10, 16 + 15 * i, colours[i], k, shift * 1e9,
                      " (dashed: its local CLK)" if d["redrive"] else ""))
    out.append('<text x="%d" y="%d">%s, %g kHz: %s</text>' % (pad, h + 30, result.design, result.clock / 1000,
                                                            "PASS" if result.ok else "FAIL"))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_pictures(results, outdir, png=True):
    os.makedirs(outdir, exist_ok=True)
    files = []
    tool = shutil.which("rsvg-convert")
    for r in results:
        path = os.path.join(outdir, "bus-%s-%dk.svg" % (r.design, r.clock // 1000))
        with open(path, "w") as f:
            f.write(svg(r))
        files.append(path)
        if png and tool:
            subprocess.run([tool, "-b", "white", "-o", path[:-4] + ".png", path], check=True)
            files.append(path[:-4] + ".png")
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.bus", description=__doc__.split("\n\n")[0])
    ap.add_argument("--design", choices=sorted(DESIGNS), action="append",
                    help="design to simulate (repeatable; default: all)")
    ap.add_argument("--clock", type=int, action="append",
                    help="SCK in Hz (repeatable; default: %d and %d)" % (DEFAULT_CLOCK, SELFTEST_MAX_CLOCK))
    ap.add_argument("-o", "--out", default="build", help="folder for the waveform pictures (default build)")
    ap.add_argument("--png", action="store_true", help="also PNG (rsvg-convert)")
    args = ap.parse_args(argv)
    try:
        results = [simulate(d, c) for d in (args.design or ["today", "schmitt", "redrive"])
                   for c in (args.clock or [DEFAULT_CLOCK, SELFTEST_MAX_CLOCK])]
    except SimError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    for r in results:
        print(r.report())
    for p in write_pictures(results, args.out, args.png):
        print("wrote", p)
    return 0 if all(r.ok for r in results if r.design == "redrive") else 1


if __name__ == "__main__":
    sys.exit(main())
