"""Sensor faults: scripted scenarios on the simulated board, each with the LED feedback the
players must see (docs/protocol.md, "The board's LEDs") and a check that nothing is committed
that the players did not do. One board, reset between scenarios.

A scenario returns {"name", "led_failures": [...], "wrong_commits": [...]}. A *wrong commit* is a
journal event the scenario's players did not make (a move to a station no piece was put on, a
move made out of turn taken as a move, two events for one placement)."""
import time

from host.link.boardlink import BoardCommandError
from host.reliability.common import FastLink, RelSim
from host.web.board import piece_rgb
from sy.play.board import TRANSPORT_RGB, _ERROR
from host.simulator.board import SIM_HEAP

DARK = (0, 0, 0)


def shown(c, bright=64):
    """A logical colour as it reaches the strip (brightness 0.25: a lit channel stays lit)."""
    return tuple(((v * bright) >> 8) or 1 if v else 0 for v in c)


def full(name):
    """A piece's colour at its full level (255/256), as it reaches the strip."""
    return shown(tuple((v * 255) >> 8 for v in piece_rgb(name)))


RED = shown(tuple(_ERROR))
TAXI, BUS, UG = (shown(tuple(TRANSPORT_RGB[3 * t:3 * t + 3])) for t in range(3))


class Bench:
    def __init__(self, heap=SIM_HEAP):
        self.sim = RelSim(heapsize=heap, debounce_ms=10, config={"scan_hz": 500})
        self.sim.start()
        self.link = FastLink(self.sim.port, timeout=5)
        self.link.open()
        self.result = None

    def close(self):
        self.link.close()
        self.sim.stop()

    # --- helpers ---------------------------------------------------------------------------
    def fresh(self, mrx=True):
        """D1 13, D2 26, B1 29, B2 34 on the board; with mrx the detectives' turn has begun."""
        sim, link = self.sim, self.link
        link.request("reset", confirm=True)
        link.applied = 0  # BoardLink keeps `applied` across games: a new game's events would be dropped
        for s in range(1, 200):
            if sim.switch(s):
                sim.set_switch(s, False)
        sim.settle()
        link.request("setup", detectives=[13, 26], bobbies=[29, 34], replace=True)
        for s in (13, 26, 29, 34):
            sim.place(s, settle=False)
        link.wait_event("ready")
        if mrx:
            link.request("mrx", ticket="taxi")
        link.poll(0.05)
        self.seq0 = link.request("status")["seq"]

    def seen(self, stations, seconds=1.3):
        out = {s: set() for s in stations}
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            leds = self.sim.leds()
            for s in stations:
                out[s].add(leds.get(s, DARK))
            time.sleep(0.015)
        return out

    def expect(self, fails, what, got, want):
        """want: ("blink", colour) | ("steady", colour) | ("dark",) | ("has", colour)."""
        kind = want[0]
        ok = {"blink": lambda: want[1] in got and DARK in got,
              "steady": lambda: got == {want[1]},
              "dark": lambda: got == {DARK},
              "has": lambda: want[1] in got}[kind]()
        if not ok:
            fails.append("%s: want %s %s, saw %s" % (what, kind, want[1:] or "", sorted(got)))

    def new_events(self):
        """Journal events after the scenario's start."""
        rec = self.link.record(everything=True)
        return rec[self.seq0:]

    def status(self):
        return self.link.request("status")


def sc_chatter(b):
    fails, wrong = [], []
    b.fresh()
    sim = b.sim
    sim.chatter(100, bounces=12, period=0.003)  # a bouncing reed on an empty station
    sim.settle()
    st = b.status()
    if st["extra"] or b.new_events():
        wrong.append("a bouncing empty reed was taken as a piece: %s" % st["extra"])
    b.expect(fails, "bouncing empty station 100", b.seen([100], 0.6)[100], ("dark",))
    sim.lift(13)
    sim.set_switch(4, True)
    sim.chatter(4, bounces=10, period=0.003, end=True)  # the piece lands with a bounce
    sim.settle()
    b.link.poll(0.1)
    ev = b.new_events()
    if ev != [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]:
        wrong.append("a bouncing landing on 4 gave %s" % ev)
    return {"name": "chatter", "led_failures": fails, "wrong_commits": wrong}


def sc_two_lifted(b):
    fails, wrong = [], []
    b.fresh()
    sim = b.sim
    sim.lift(13, settle=False)
    sim.lift(26)
    sim.place(4)  # D1 put down while D2 is still in the air
    seen = b.seen([13, 26, 4])
    b.expect(fails, "D1's station while two are lifted", seen[13], ("blink", full("D1")))
    b.expect(fails, "D2's station while two are lifted", seen[26], ("blink", full("D2")))
    b.expect(fails, "station 4 while two are lifted", seen[4], ("blink", RED))
    if b.new_events():
        wrong.append("committed while two pieces were lifted: %s" % b.new_events())
    sim.place(26)  # D2 back: D1's placement on 4 is now the only change
    b.link.poll(0.1)
    ev = b.new_events()
    if ev != [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]:
        wrong.append("after D2 went back: %s" % ev)
    return {"name": "two_lifted", "led_failures": fails, "wrong_commits": wrong}


def sc_wrong_station(b):
    fails, wrong = [], []
    b.fresh()
    sim = b.sim
    sim.lift(13)
    seen = b.seen([13, 4, 14, 46], 0.7)
    b.expect(fails, "D1 in hand: its station", seen[13], ("steady", full("D1")))
    b.expect(fails, "D1 in hand: taxi destination 4", seen[4], ("steady", TAXI))
    b.expect(fails, "D1 in hand: bus destination 14", seen[14], ("steady", BUS))
    b.expect(fails, "D1 in hand: underground destination 46", seen[46], ("steady", UG))
    sim.place(100)
    note = b.link.wait_note("illegal", timeout=2)
    if note.get("station") != 100:
        fails.append("no illegal note for 100: %s" % note)
    b.expect(fails, "illegal placement on 100", b.seen([100], 0.6)[100], ("blink", RED))
    if b.new_events():
        wrong.append("an illegal placement was committed: %s" % b.new_events())
    sim.lift(100)
    sim.place(4)
    b.link.poll(0.1)
    if b.new_events() != [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]:
        wrong.append("after the correction: %s" % b.new_events())
    return {"name": "wrong_station", "led_failures": fails, "wrong_commits": wrong}


def sc_knocked_off(b):
    fails, wrong = [], []
    b.fresh()
    sim = b.sim
    sim.lift(13)
    sim.place(4)
    b.link.poll(0.1)
    sim.lift(4)  # D1 has moved this round and is knocked off its new station
    seen = b.seen([4])
    b.expect(fails, "knocked-off D1 (already moved)", seen[4], ("blink", full("D1")))
    sim.lift(29)  # and a bobby knocked off while D1 is off: two missing
    if len(b.new_events()) != 1:
        wrong.append("knocking pieces off committed: %s" % b.new_events()[1:])
    sim.place(4, settle=False)
    sim.place(29)
    st = b.status()
    if st["missing"] or st["extra"] or len(b.new_events()) != 1:
        wrong.append("after putting them back: missing %s extra %s, events %s" % (
            st["missing"], st["extra"], b.new_events()))
    return {"name": "knocked_off", "led_failures": fails, "wrong_commits": wrong}


def sc_stuck_closed(b):
    """A reed stuck closed (or a stray magnet) on 14, a legal bus destination of D1, then D1 is
    lifted and held in the air: nothing may be committed; 14 blinks red."""
    fails, wrong = [], []
    b.fresh()
    sim = b.sim
    sim.place(14)
    b.expect(fails, "stuck-closed reed on 14", b.seen([14], 0.6)[14], ("blink", RED))
    sim.lift(13)  # D1 in the air
    b.link.poll(0.1)
    ev = b.new_events()
    if ev:
        wrong.append("D1 lifted and held in the air, committed: %s" % ev)
    return {"name": "stuck_closed", "led_failures": fails, "wrong_commits": wrong}


def sc_stuck_open(b):
    """D2's reed stuck open (the piece stands, the reed says nothing): D2 blinks; another
    piece's move never commits a wrong move."""
    fails, wrong = [], []
    b.fresh()
    sim = b.sim
    sim.lift(26)  # stuck open: reads as lifted
    # the board cannot tell a stuck-open reed from D2 in hand: its station glows steady
    b.expect(fails, "stuck-open reed under D2", b.seen([26], 0.7)[26], ("steady", full("D2")))
    sim.lift(13)
    sim.place(4)
    b.link.poll(0.1)
    ev = b.new_events()
    if ev and ev != [{"type": "move", "piece": "D1", "ticket": "taxi", "to": 4}]:
        wrong.append("with a stuck-open reed: %s" % ev)
    return {"name": "stuck_open", "led_failures": fails, "wrong_commits": wrong}


def sc_moved_in_mrx_turn(b):
    """D1 moved 13 -> 4 while Mister X has not moved yet: shown, never taken as D1's move,
    even once Mister X's move comes in."""
    fails, wrong = [], []
    b.fresh(mrx=False)
    sim = b.sim
    sim.lift(13)
    sim.place(4)
    seen = b.seen([13, 4])
    b.expect(fails, "D1 moved in Mister X's turn: its station", seen[13], ("blink", full("D1")))
    b.expect(fails, "D1 moved in Mister X's turn: where it went", seen[4], ("blink", RED))
    if b.new_events():
        wrong.append("moved during Mister X's turn, committed: %s" % b.new_events())
    b.link.request("mrx", ticket="taxi")
    b.link.poll(0.2)
    ev = [e for e in b.new_events() if e.get("type") == "move"]
    if ev:
        wrong.append("a move made before Mister X moved was committed once he had: %s" % ev)
    return {"name": "moved_in_mrx_turn", "led_failures": fails, "wrong_commits": wrong}


def sc_started_off(b):
    """Power off mid-game; D1 moved 13 -> 4 and B1 taken off meanwhile; power on: the board
    restores (nothing committed, Mister X refused) until the pieces are back."""
    fails, wrong = [], []
    b.fresh()
    sim, link = b.sim, b.link
    sim.lift(26)
    sim.place(39)  # D2's taxi move, committed
    link.poll(0.1)
    link.close()
    sim.power_cut()
    sim.lift(13, settle=False)
    sim.place(4, settle=False)
    sim.lift(29, settle=False)
    sim.start()
    end = time.monotonic() + 20
    while True:
        try:
            info = link.open()
            break
        except Exception:
            link.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.05)
    if not info.get("restoring"):
        fails.append("the board does not say it is restoring: %s" % info)
    seen = b.seen([13, 29, 4, 39])
    b.expect(fails, "after power-on, D1's saved station", seen[13], ("blink", full("D1")))
    b.expect(fails, "after power-on, B1's saved station", seen[29], ("blink", full("B1")))
    b.expect(fails, "after power-on, the stray piece on 4", seen[4], ("blink", RED))
    b.expect(fails, "after power-on, D2 (in place)", seen[39], ("steady", full("D2")))
    try:
        link.request("mrx", ticket="taxi")
        wrong.append("Mister X's move accepted while restoring")
    except BoardCommandError:
        pass
    sim.lift(4, settle=False)
    sim.place(13, settle=False)
    sim.place(29)
    link.wait_note("restored", timeout=2)
    ev = b.new_events()
    if ev != [{"type": "move", "piece": "D2", "ticket": "taxi", "to": 39}]:
        wrong.append("across the power cut: %s" % ev)
    return {"name": "started_off", "led_failures": fails, "wrong_commits": wrong}


def sc_setup_off(b):
    """A new game with pieces off their start stations and one on a wrong station: the start
    stations blink, the stray piece blinks red, the game does not begin until they are right."""
    fails, wrong = [], []
    sim, link = b.sim, b.link
    link.request("reset", confirm=True)
    link.applied = 0
    for s in range(1, 200):
        if sim.switch(s):
            sim.set_switch(s, False)
    sim.settle()
    sim.place(13, settle=False)
    sim.place(27)  # D2's piece on 27 instead of 26
    link.request("setup", detectives=[13, 26], bobbies=[29, 34], replace=True)
    b.seq0 = 1
    sim.settle()  # the reply comes a scan cycle before the frame that draws the setup
    seen = b.seen([13, 26, 27])
    b.expect(fails, "setup: D1 on its start station", seen[13], ("steady", full("D1")))
    b.expect(fails, "setup: D2's empty start station", seen[26], ("blink", full("D2")))
    b.expect(fails, "setup: a piece on 27", seen[27], ("blink", RED))
    sim.place(29, settle=False)
    sim.place(34)
    if b.new_events() or link.request("status")["stage"] != "setup":
        wrong.append("the game began with a piece off its start: %s" % b.new_events())
    sim.lift(27)
    sim.place(26)
    link.wait_event("ready", timeout=2)
    return {"name": "setup_off", "led_failures": fails, "wrong_commits": wrong}


SCENARIOS = (sc_chatter, sc_two_lifted, sc_wrong_station, sc_knocked_off, sc_stuck_closed, sc_stuck_open,
             sc_moved_in_mrx_turn, sc_started_off, sc_setup_off)


def run_faults(heap=SIM_HEAP, only=None, log=None):
    t0 = time.monotonic()
    b = Bench(heap)
    out = []
    try:
        for fn in SCENARIOS:
            if only and fn.__name__[3:] not in only:
                continue
            try:
                r = fn(b)
            except Exception as e:  # noqa: BLE001 (a scenario that breaks is a failure)
                r = {"name": fn.__name__[3:], "led_failures": ["%s: %s" % (type(e).__name__, e)], "wrong_commits": []}
                b.close()
                b = Bench(heap)
            if log:
                log("fault %s: %s" % (r["name"], "ok" if not r["led_failures"] and not r["wrong_commits"] else r))
            out.append(r)
    finally:
        b.close()
    return {"fault_scenarios": len(out), "wrong_commits": sum(len(r["wrong_commits"]) for r in out),
            "fault_led_failures": sum(len(r["led_failures"]) for r in out), "faults": out,
            "fault_seconds": round(time.monotonic() - t0, 1)}
