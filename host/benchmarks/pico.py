"""`yard bench pico`: the firmware measured on the emulated Raspberry Pi Pico (host/pico/), the
reference for every heap and timing figure. All with the flash chip's datasheet timing on.

  heap_free_boot_bytes    gc.mem_free() after boot (the board's `mem` command, after a collection)
  heap_watch_bytes        what the measuring (sy/cyclewatch.py) adds to the heap in use: in the peak
  heap_peak_unwatched_bytes   the peak without it: the board as it plays (the target's figure)
  heap_peak_used_bytes    the highest gc.mem_alloc() after events, right before their collection,
                          over a whole 5-detective game with salted commitments, the reveal and the
                          record download (the firmware collects every 16 KB allocated: sy/app.py)
  game_completed          that game ended, its commitments verified and its record downloaded
  debounce_ms             the board's debounce time (the default config: 30)
  place_to_frame_ms       the slowest placement: emulated ms from the reed closing at the 74HC165
                          input to the first LED frame decoded from the data pin that answers it
                          (the station no longer lit as a destination: the move shown, or the
                          board asking which ticket, the station blinking dark first); never
                          before the frame that answered the lift; _median_ beside it
  lift_to_frame_ms        the same for a lift: to the first frame lighting its destinations
  idle_scan_us            one scan cycle with nothing happening (mean of 1,000, from the REPL)
  max_cycle_us            the longest scan cycle of the whole game, whatever it did: a save to flash, a
                          host's command (a reveal chunk, the record), a reed or button change, an
                          LED frame, a note, a collection (a piece put down waits for any of them);
                          _kind: what it did (sy/cyclewatch.py KINDS)
  max_cycle_us_by_kind    the longest of each kind (save, command, event, collect, frame, note...)
  max_scan_us             the longest that neither wrote to flash, handled a host's command nor made
                          a step of a long answer
  max_frame_cycle_us      the longest that drew an LED frame (animations included)
  max_save_cycle_us       the longest that saved an event (a 45 ms flash erase stalls the CPU)
  max_command_cycle_us    the longest that handled a host's command (a reveal line, the record)
  max_step_cycle_us       the longest step of a long answer (the record, a reveal chunk: a step a cycle)
  longest_command         the start of the host's line whose command or step cycle was the longest
  save_ms                 the longest save of one committed event (journal line and snapshot)
  scan_alloc_bytes        gc.mem_alloc() change over 1,000 cycles with a piece in hand and the
                          LED animation running
  store_save_median_us    one save on its own (a journal line and a 160-byte snapshot, sy/storage/store.py),
                          timed on the board's REPL after the game, 60 in a row in a folder of their own:
                          the median, _max_us the longest, store_saves_over_10ms how many took longer
                          (the ones littlefs erased a block in)
  flash_erases, flash_programs   the flash chip's erases and page programs from power-on to the game's end
  boot_ms                 power-on to the first LED frame (the scan loop runs)
  cuts_every_boundary     power cuts at every flash erase and program of every kind of save (right
                          before each, and half-way through it) on MicroPython's littlefs, each
                          followed by a restart (host/benchmarks/cutsweep.py); _by_save: the erases
                          and programs of each kind of save; _problems: what went wrong (0)
  power_cuts, lost_moves, corrupt_saves   from games with cuts at random instructions and inside
                          or right after flash erases and programs (host/pico/chaos.py)
  emulated_per_wall       emulated seconds per wall second during the game
"""
import os
import statistics
import time

from host.i18n import _


DEFAULT_CUTS = 200


def add_arguments(parser):
    parser.add_argument("--micropython", metavar="RPI_PICO_UF2", help=_("MicroPython's RPI_PICO firmware "
                        "(default: $YARD_PICO_DIR/micropython-v1.28.0-RPI_PICO.uf2)"))
    parser.add_argument("--bootrom", metavar="ROM", help=_("the RP2040 boot ROM (default: $YARD_PICO_DIR)"))
    parser.add_argument("--cuts", type=int, default=DEFAULT_CUTS, help=_("power cuts to make (default %(default)s)"))
    parser.add_argument("--seed", type=int, default=1, help=_("seed of the game and the cuts"))
    parser.add_argument("--verbose", "-v", action="store_true", help=_("log the power-cut games"))
    parser.add_argument("--patterns", action="store_true",
                        help=_("the board with its LEDs' rhythms on (board.json leds.patterns): what they cost"))


def transport_wires(config):
    """The wire bytes (r, g, b) of the three transport colours at this board's brightness."""
    from sy.play.board import TRANSPORT_RGB
    from sy.hardware.leds import Leds

    class Strip:
        buf = bytearray(3)

        def write(self):
            pass
    leds = Leds(Strip(), 1, [0] * 199, "RGB", config["leds"]["brightness"])
    out = set()
    for t in range(3):
        leds.put(1, *TRANSPORT_RGB[3 * t:3 * t + 3])
        out.add(bytes(Strip.buf))
    return out


def station_wire(pico, wire, station):
    """(r, g, b) of a station in a frame's wire bytes."""
    from sy.hardware.leds import WIRE_ORDER
    cfg = pico.config["leds"]
    pr, pg, pb = WIRE_ORDER[cfg["order"]]
    k = 3 * cfg["index"][station - 1]
    return bytes((wire[k + pr], wire[k + pg], wire[k + pb])) if k + 2 < len(wire) else b"\0\0\0"


class Latency:
    """Reed changes as the hands make them, timed in emulated ms, and the frames that answer them."""

    def __init__(self, pico):
        self.pico = pico
        self.transports = transport_wires(pico.config)
        self.changes = []  # (emulated ms, station, closed)
        real = pico.set_switch

        def timed(station, closed):
            real(station, closed)
            self.changes.append((pico.last_input_t, station, closed))
        pico.set_switch = timed

    def answered(self, since, station, lit):
        """Emulated ms from `since` to the first frame in which station is (lit=True) or is no
        longer (lit=False) in a transport colour; None if no such frame came."""
        got = self.answer_frame(since, station, lit)
        return None if got is None else got[0] - since

    def answer_frame(self, since, station, lit):
        """(emulated ms, wire bytes) of that frame, or None."""
        for t, _n, wire in self.pico.frames_since(since):
            if (station_wire(self.pico, wire, station) in self.transports) == lit:
                return t, wire
        return None

    def destinations(self, wire):
        """The stations a frame shows in a transport colour (a piece in hand's destinations)."""
        return [s for s in range(1, 200) if station_wire(self.pico, wire, s) in self.transports]

    def placed(self, since, station, others, shown=None):
        """Emulated ms from `since` (a placement on station) to the first frame that answers it:
        the station no longer in a transport colour (the move taken, refused, or the board asking
        which ticket: it blinks, dark first), or the piece's other destinations (`others`, lit
        before) dark; None if no such frame came. `shown`: when the lift's own frame came (fast
        hands put the piece down before the board showed where it may go: the frames before that
        one answer the lift, not the placement)."""
        for t, _n, wire in self.pico.frames_since(max(since, shown or since)):
            if station_wire(self.pico, wire, station) not in self.transports:
                return t - since
            if others and not any(station_wire(self.pico, wire, s) in self.transports for s in others):
                return t - since
        return None


def _measure_repl(pico, link):
    """idle_scan_us and scan_alloc_bytes from the board's REPL, with a piece in hand."""
    from mpremote.transport_serial import SerialTransport
    link.close()
    t = SerialTransport(pico.port, baudrate=115200)
    try:
        t.enter_raw_repl(soft_reset=False)
        out, err = t.exec_raw(_REPL_SCRIPT.replace("STORE_SAVES", str(STORE_SAVES)), timeout=600)
        if err:
            raise RuntimeError("the measurement on the Pico's REPL failed: %s" % err.decode(errors="replace"))
        out = out.decode()
        t.exit_raw_repl()
    finally:
        t.close()
    figures = {}
    for line in out.splitlines():
        if line.startswith("FIG "):
            _tag, key, value = line.split()
            figures[key] = float(value) if "." in value else int(value)
    return figures


# saves timed on their own after the game (store_save_*): enough for the flushes and compactions
# to come round several times
STORE_SAVES = 60

# App.cycle itself, not the watcher's timed twin the game's `mem` put on the App (sy/cyclewatch.py)
_REPL_SCRIPT = """
import gc, time
from sy.app import App
app = board_app
cycle = App.cycle
now = time.ticks_ms()
app.last_frame = now
t0 = time.ticks_us()
for i in range(1000):
    cycle(app, now)
print('FIG idle_scan_us', round(time.ticks_diff(time.ticks_us(), t0) / 1000, 1))
for i in range(50):
    now += 5
    cycle(app, now)
gc.collect()
before = gc.mem_alloc()
for i in range(1000):
    now += 5
    cycle(app, now)
print('FIG scan_alloc_bytes', gc.mem_alloc() - before)
# saves on their own: a journal line and a snapshot, as the board makes them, in a folder of its own
import os
from sy.storage.store import Store
from sy.storage import resume
st = Store('benchsaves')
st.reset()
resume.load(st)  # as at boot: the store told which file system it is on (nothing saved: None)
game = bytes(160)
took = []
for i in range(STORE_SAVES):
    t0 = time.ticks_us()
    st.append('{"type": "move", "piece": "D1", "from": 13, "to": %d, "ticket": "taxi"}' % (i % 199 + 1))
    st.save({'v': 1, 'stage': 2, 'x_on': 0}, game)
    took.append(time.ticks_diff(time.ticks_us(), t0))
st.reset()
os.rmdir('benchsaves')
took.sort()
print('FIG store_save_median_us', took[len(took) // 2])
print('FIG store_save_max_us', took[-1])
print('FIG store_saves_over_10ms', sum(1 for t in took if t > 10000))
"""


def play_measured_game(pico, link, seed):
    """The full game with commitments, reveal and record; returns figures."""
    from host.simulator.scripted import play_game
    lat = Latency(pico)
    moves = []

    def on_step(kind, info):
        if kind == "move":
            moves.append(info)
    t0_wall = time.monotonic()
    t0_emu = pico.now_ms()
    st = play_game(pico, link, commit=True, seed=seed, on_step=on_step, timeout=120)
    record = link.record(timeout=120)
    wall = time.monotonic() - t0_wall
    emu = pico.now_ms() - t0_emu
    mem = link.request("mem", timeout=60)
    # placements and lifts, matched to their reed changes
    places, lifts = [], []
    opened = {}
    for t, station, closed in lat.changes:
        if not closed:
            opened = {"t": t, "station": station}
            continue
        if opened:
            move = next((m for m in moves if m["station"] == station), None)
            dests = lat.answer_frame(opened["t"], station, True)
            if dests is not None:
                lifts.append(dests[0] - opened["t"])
            if move is not None:
                others = [s for s in lat.destinations(dests[1]) if s != station] if dests else []
                got = lat.placed(t, station, others, dests[0] if dests else None)
                if got is not None:
                    places.append(got)
            opened = {}
    return {
        "game_completed": bool(st.get("result") and st.get("verified") is True and len(record) >= len(moves)),
        "game_result": st.get("result"), "game_round": st.get("round"), "game_moves": len(moves),
        "game_wall_s": round(wall, 1), "game_emulated_s": round(emu / 1000, 1),
        "emulated_per_wall": round(emu / 1000 / wall, 2),
        "heap_peak_used_bytes": mem["peak"],
        "max_cycle_us": mem["cycle_max_us"], "max_cycle_kind": mem["cycle_max_kind"],
        "max_cycle_us_by_kind": mem["cycle_max_by_kind"],
        "max_scan_us": mem["plain_cycle_max_us"], "max_frame_cycle_us": mem["frame_cycle_max_us"],
        "max_save_cycle_us": mem["save_cycle_max_us"], "max_command_cycle_us": mem["command_cycle_max_us"],
        "max_step_cycle_us": mem["step_cycle_max_us"], "longest_command": mem["longest_command"],
        "save_ms": round(mem["save_max_us"] / 1000, 1),
        "place_to_frame_ms": round(max(places), 1) if places else None,
        "place_to_frame_median_ms": round(statistics.median(places), 1) if places else None,
        "placements_timed": len(places),
        "lift_to_frame_ms": round(max(lifts), 1) if lifts else None,
        "lift_to_frame_median_ms": round(statistics.median(lifts), 1) if lifts else None,
    }


def run(args):
    from host.link.boardlink import BoardLink
    from host.pico.board import PicoBoard
    from host.pico.chaos import run_power_cuts
    figures = {}
    pico = PicoBoard(micropython=args.micropython, bootrom=args.bootrom, flash_timing=True,
                     config={"leds": {"patterns": True}} if args.patterns else None)
    try:
        pico.start()
        on = pico.events.get(timeout=60)
        end = time.monotonic() + 120
        while pico.frame() is None and time.monotonic() < end:
            time.sleep(0.01)
        figures["boot_ms"] = round(pico.frame()[1] - on["t"], 1)
        link = BoardLink(pico.port, timeout=60)
        link.open()
        mem = link.request("mem")  # before the watcher is loaded: the board as it plays unmeasured
        figures["heap_free_boot_bytes"] = mem["free"]
        figures["heap_used_boot_bytes"] = mem["alloc"]
        watched = link.request("mem", reset=True, watch=True)
        # what measuring costs the heap (sy/cyclewatch.py, loaded from here on): in the peak below
        figures["heap_watch_bytes"] = watched["alloc"] - mem["alloc"]
        figures["debounce_ms"] = pico.config["debounce_ms"]
        figures.update(play_measured_game(pico, link, args.seed))
        stats = pico.stats()  # the game's flash work (the REPL's saves below come after)
        figures["flash_erases"] = stats["erases"]
        figures["flash_programs"] = stats["programs"]
        figures["heap_peak_unwatched_bytes"] = figures["heap_peak_used_bytes"] - figures["heap_watch_bytes"]
        # the idle cycle and the scan loop's allocations, with a piece in hand
        link.request("setup", detectives=[13, 26, 29, 34, 50], replace=True, timeout=60)
        pico.set_inputs([13, 26, 29, 34, 50])
        link.wait_event("ready", timeout=60)
        link.request("mrx", ticket="taxi", timeout=60)
        pico.lift(13)
        figures.update(_measure_repl(pico, link))
    finally:
        pico.stop()
    from host.benchmarks.cutsweep import run_sweep
    sweep = run_sweep()
    figures["cuts_every_boundary"] = sweep["power_cuts"]
    figures["cuts_every_boundary_by_save"] = {k: v["boundaries"] for k, v in sweep["saves"].items()}
    figures["cuts_every_boundary_problems"] = len(sweep["problems"]) + sweep["lost_events"] + sweep["wrong_resumes"]
    cuts = run_power_cuts(args.cuts, seed=args.seed, micropython=args.micropython, bootrom=args.bootrom,
                          log=(lambda m: print(m, flush=True)) if args.verbose else None)
    for key in ("power_cuts", "lost_moves", "corrupt_saves", "cuts_in_erase", "cuts_in_program", "cuts_after_flash",
                "cuts_at_instruction", "cuts_during_save", "resumed_games", "lost_events", "duplicate_events",
                "disagreements", "secret_leaks"):
        figures[key] = cuts[key]
    figures["power_cut_problems"] = len(cuts["problems"])
    figures["power_cut_seconds"] = cuts["seconds"]
    figures["micropython"] = os.path.basename(pico.micropython)
    return figures
