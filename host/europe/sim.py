"""`yard sim --game europe --map FOLDER`: a Europe demo game on the simulated board.

The firmware's Europe loop (firmware/europe_main.py, sy/europe/app.py) runs under the MicroPython
unix port (or, with --board pico, on the emulated Raspberry Pi Pico: host/europe/pico.py) with the
map generated from FOLDER (docs/map-format.md); the host is the bag and plays
both sides with the computer players (host/europe/agents.py). Mister X's turns reach the board
as public record lines; each detective move is guided (lit) by the host and carried out by the
simulator's hands through the reed switches, and the board commits it. At the end the board's
record must equal the host's public record line for line, and replay to the same result.
"""
import json
import os
import random
import shutil
import sys
import time

import serial

from host import refusals, words
from host.errors import UserError, BoardError
from host.i18n import _, number
from host.europe.agents import MrxAgent, DetectiveAgent
from host.europe.match import EuropeMatch
from host.europe.mapformat import MapFormatError, load_graph, read_map, render_module
from host.europe.pico import BOARD_MAP
from host.device.mpy_build import compile_file
from host.simulator.board import SimBoard, FIRMWARE
from sy.europe.rules import LEVEL_NAMES, PH_OVER, ticket_name


PICO_TIMEOUT = 180.0  # seconds of wall time for an answer of the emulated Pico (it runs slower than a Pico)


def module_name(folder):
    name = "".join(c if c.isalnum() else "_" for c in os.path.basename(os.path.normpath(folder)).lower())
    return name if name[:1].isalpha() else "map_" + name


class EuropeSimBoard(SimBoard):
    """The simulated board running the Europe entry point with an owner's map module."""

    def __init__(self, map_folder, map_name, **kw):
        super().__init__(**kw)
        self.map_folder = map_folder
        self.map_name = map_name

    def _build(self):
        lib = super()._build()
        text = render_module(read_map(self.map_folder), self.map_name, self.map_folder)
        src = os.path.join(self.folder, self.map_name + ".py")
        with open(src, "w") as f:
            f.write(text)
        proc = compile_file(src, os.path.join(lib, "sy", "maps", self.map_name + ".mpy"))
        if proc.returncode:
            raise RuntimeError(_("mpy-cross failed on the map module:\n%s") % proc.stderr)
        shutil.copy(os.path.join(FIRMWARE, "europe_main.py"), os.path.join(self.folder, "europe_main.py"))
        return lib

    def script(self):
        return os.path.join(self.folder, "europe_main.py")

    def environment(self):
        env = super().environment()
        env["SY_EUROPE_MAP"] = self.map_name
        return env


class EuropeLink:
    """Lines to and from the Europe board: replies by id, events and notes kept apart. A `chain`
    note (the reader chain lies, the game paused; or whole again) is told to the players at once
    through `say`, in their language, as Mister X's console tells London's."""

    def __init__(self, port, timeout=20.0, say=None):
        self.ser = serial.serial_for_url(port, timeout=0.05)
        self.timeout = timeout
        self.next_id = 0
        self.events = []
        self.notes = []
        self.say = say
        self.buf = b""

    def _file(self, obj):
        """An event or a note that came while the link waited for something else."""
        if "ev" in obj:
            self.events.append(obj["ev"])
        elif "note" in obj and "id" not in obj:
            self.notes.append(obj)
            if obj.get("note") == "chain" and self.say is not None:
                self.say("  " + refusals.chain_note(obj))

    def _lines(self, until):
        while time.monotonic() < until:
            data = self.ser.read(4096)
            if data:
                self.buf += data
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                line = line.strip()
                if line.startswith(b"{"):
                    try:
                        yield json.loads(line)
                    except ValueError:
                        continue
            if not data:
                yield None

    def wait_ready(self, seconds=30.0):
        for obj in self._lines(time.monotonic() + seconds):
            if obj and obj.get("note") == "ready":
                return
        raise BoardError(_("the simulated Europe board did not start"))

    def request(self, cmd, **args):
        self.next_id += 1
        ident = self.next_id
        args.update(cmd=cmd, id=ident)
        self.ser.write((json.dumps(args) + "\n").encode())
        for obj in self._lines(time.monotonic() + self.timeout):
            if obj is None:
                continue
            if obj.get("id") == ident:
                return obj
            self._file(obj)
        raise BoardError(_("the board did not answer %s") % cmd)

    def event(self, seconds=None):
        if self.events:
            return self.events.pop(0)
        for obj in self._lines(time.monotonic() + (seconds or self.timeout)):
            if obj:
                self._file(obj)
                if self.events:
                    return self.events.pop(0)
        raise BoardError(_("no move from the board"))

    def wait_note(self, name, seconds=None):
        """The first note called name (notes before it are dropped)."""
        for obj in self._lines(time.monotonic() + (seconds or self.timeout)):
            if obj:
                self._file(obj)
            while self.notes:
                n = self.notes.pop(0)
                if n.get("note") == name:
                    return n
        raise BoardError(_("the board did not answer %s") % name)

    def close(self):
        self.ser.close()


def send(link, pub):
    """A public line to the board; its verdict must be the host's."""
    reply = link.request("line", line=pub)
    if not reply.get("ok"):
        raise BoardError("the board refused %s: %s" % (json.dumps(pub), refusals.of_reply(reply)))
    return reply


def play(match, sim, link, rng, out, max_rounds, pace=0.0):
    """The demo game: computer against computer, detective moves through the reeds (`pace`:
    seconds between lines, for a person watching the browser view)."""
    g = match.game
    mrx, det = MrxAgent(match.graph, rng), DetectiveAgent(match.graph, rng)
    stats = {"reed_moves": 0, "lines": 0}

    def both(line):
        if pace:
            time.sleep(pace)
        verdict, pub = match.apply(line)
        if pub is not None:
            reply = send(link, pub)
            for key in ("reveal", "shown"):
                if key in verdict and reply.get(key) != verdict[key]:
                    raise BoardError("the board says %s %r, the host %r" % (key, reply.get(key), verdict[key]))
            stats["lines"] += 1
        return verdict

    for h in range(len(g.hand_size)):
        both({"type": "draw", "hand": g.hand_name(h), "tickets": match.bag.draw(g, h)})
    if g.reason == "mrx_stuck":
        send(link, match.declare_cornered())
    while g.phase != PH_OVER and g.round <= max_rounds:
        # Mister X
        both(mrx.turn(g))
        if g.phase == PH_OVER:
            break
        dropped = mrx.discard(g)
        if dropped:
            both({"type": "discard", "hand": "X", "tickets": dropped})
        both({"type": "draw", "hand": "X", "tickets": match.bag.draw(g, 0)})
        # the detectives, through the board
        while g.phase != PH_OVER:
            choice = det.move(g)
            if choice is None:
                break
            i, city, ticket = choice
            reply = link.request("guide", piece="D%d" % (i + 1), to=city, ticket=ticket_name(ticket))
            if not reply.get("ok"):
                raise BoardError("the board refused the guide: %s" % refusals.of_reply(reply))
            sim.lift(g.pos[i])
            sim.place(city)
            ev = link.event()
            if ev.get("piece") != "D%d" % (i + 1) or ev.get("to") != city or ev.get("ticket") != ticket_name(ticket):
                raise BoardError("the board committed %r, the host guided D%d to %d" % (ev, i + 1, city))
            verdict, _pub = match.apply(ev)
            stats["reed_moves"] += 1
            if g.reason == "capture":
                reply = link.request("capture", piece=ev["piece"])
                if not reply.get("ok"):
                    raise BoardError("the board refused the capture: %s" % refusals.of_reply(reply))
        if g.phase == PH_OVER:
            break
        op = det.operation(g)
        if op:
            old = g.pos[int(op["piece"][1:]) - 1] if op["type"] == "extra" else 0
            both(op)
            if op["type"] == "extra":  # the piece goes where the rules put it
                sim.lift(old)
                sim.place(op["to"])
            if g.phase == PH_OVER:
                break
        for h in range(1, len(g.hand_size)):
            dropped = det.discard(g, h)
            if dropped:
                both({"type": "discard", "hand": g.hand_name(h), "tickets": dropped})
            both({"type": "draw", "hand": g.hand_name(h), "tickets": match.bag.draw(g, h)})
        both({"type": "check"})
        if g.reason == "mrx_stuck":
            send(link, match.declare_cornered())
    return stats


def demo_match(graph, map_name, rng, n):
    """A EuropeMatch set up for a demo: a random level, n detectives on start cards shared among
    random players, Mister X on a free ring."""
    match = EuropeMatch(graph, map_name, seed=rng.randrange(1 << 62))
    level = rng.randrange(3)
    det = rng.sample(sorted(graph.d_cards), n)
    players, left = [], n
    while left:
        k = rng.randint(1, left)
        players.append(k)
        left -= k
    rings = [c for c in graph.ring_cities(level) if c not in det]
    if not rings:
        raise UserError(_("every %s ring holds a detective: try another --seed") % words.europe_level(LEVEL_NAMES[level]))
    match.setup(level, det, players, rng.choice(rings))
    return match


def board_config(args):
    """The simulated board's board.json overrides: the LEDs' rhythms with --patterns (as London's,
    host/commands/sim.py), else None."""
    return {"leds": {"patterns": True}} if getattr(args, "patterns", False) else None


def run(args, out=print):
    folder = args.map
    if not folder:
        raise UserError(_("--game europe needs --map FOLDER: the owner's transcription of the board "
                          "(docs/map-format.md); tests/data/europe_testmap is a map made for the tests"))
    try:
        graph = load_graph(folder, module_name(folder))
    except MapFormatError as e:
        raise UserError(_("the map %(folder)s: %(problem)s") % {"folder": folder, "problem": e})
    if not args.demo:
        raise UserError(_("yard sim --game europe plays the demo only (--demo): computer against computer"))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    name = module_name(folder)
    on_pico = getattr(args, "board", "unix") == "pico"
    # the Pico boots as a maker's board would: the owner's map is its module `europe`
    n = args.players if args.players else 5
    if not 1 <= n <= 5:
        raise UserError(_("--players: 1 to 5 detectives"))
    match = demo_match(graph, BOARD_MAP if on_pico else name, rng, n)
    g = match.game
    level, det, players = g.level, list(g.pos), [list(g.owner).count(p) for p in range(1, len(g.hand_size))]
    out(_("Europe demo (seed %(seed)d) on map %(folder)s -- %(what)s. Mission %(level)s: from one of %(rings)s to "
          "%(destination)d. %(detectives)d detectives, players %(players)s.")
        % {"seed": seed, "folder": folder,
           "what": _("a map made for the tests, not the real board") if "testmap" in name else
           _("the owner's transcription"), "level": words.europe_level(LEVEL_NAMES[level]),
           "rings": ", ".join(str(c) for c in graph.ring_cities(level)), "destination": graph.destination(level),
           "detectives": n, "players": " + ".join(str(p) for p in players)})
    keep = os.path.join(args.keep, "board") if args.keep else None
    if on_pico:  # MicroPython's RPI_PICO firmware in rp2040js (docs/pico.md): slower, the reference
        from host.europe.pico import europe_pico  # the emulator's code only when asked for
        sim = europe_pico(folder, args.micropython, args.bootrom, folder=keep, realtime=bool(args.web),
                          config=board_config(args))
    else:
        sim = EuropeSimBoard(folder, name, debounce_ms=args.debounce_ms, heapsize=args.heap, folder=keep,
                             config=board_config(args))
    t0 = time.monotonic()
    link = stop_view = None
    try:
        sim.start()
        link = EuropeLink(sim.port, timeout=PICO_TIMEOUT if on_pico else 20.0, say=out)
        link.wait_ready(PICO_TIMEOUT if on_pico else 30.0)
        boot_mem = link.request("mem", reset=True, watch=True)
        send(link, match.public[0])
        for c in det:
            sim.place(c)
        if args.web:
            from host.europe.view import start_view
            url, stop_view = start_view(match.public, graph, folder, port=args.web_port)
            out(_("The detectives' view (public information only): %s") % url)
        stats = play(match, sim, link, rng, out, args.rounds, pace=0.4 if args.web else 0.0)
        g = match.game
        board_record = link.request("record")["lines"]
        end_mem = link.request("mem")
        if [json.loads(t) for t in board_record] != match.public:
            raise BoardError(_("the board's record differs from the host's public record"))
    finally:
        if link:
            link.close()
        sim.stop()
        if stop_view:
            if args.web and sys.stdin.isatty():
                input(_("The game is over; the view stays until you press Enter. "))
            stop_view()
    g = match.game
    if g.result:
        out(_("Result: %(winner)s (%(reason)s) in round %(round)d.")
            % {"winner": words.winner("detectives" if g.result == "detectives" else "mrx"),
               "reason": words.europe_reason(g.reason), "round": g.round})
    else:
        out(_("Stopped after %d rounds without an end (the rules have no round limit).") % args.rounds)
    out(_("Mister X's log: %s") % " ".join(str(c) for c in g.log))
    out(_("Shown by investigations and position checks: %s")
        % (", ".join(str(c) for c in g.shown) if g.shown else _("none")))
    out(_("Demo: %(moves)d detective moves through the simulated switches, %(lines)d lines checked by the board; "
          "the board's record equals the host's public record (%(public)d lines); %(seconds)s s.")
        % {"moves": stats["reed_moves"], "lines": stats["lines"], "public": len(match.public),
           "seconds": number(round(time.monotonic() - t0, 1))})
    if "peak" in end_mem:  # MicroPython reports its heap; the budget is the Pico's (docs/memory.md)
        out(_("The board's heap (%(where)s): %(boot)s B in use after boot, peak %(peak)s B over the game.")
            % {"where": _("emulated Pico") if on_pico else _("unix port"), "boot": number(boot_mem["alloc"]),
               "peak": number(end_mem["peak"])})
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for name_, lines in (("europe-secret.jsonl", match.full), ("europe-public.jsonl", match.public)):
            with open(os.path.join(args.keep, name_), "w") as f:
                f.write("".join(json.dumps(line) + "\n" for line in lines))
        out(_("Records: %(secret)s (secret), %(public)s (public)")
            % {"secret": os.path.join(args.keep, "europe-secret.jsonl"),
               "public": os.path.join(args.keep, "europe-public.jsonl")})
    return 0
