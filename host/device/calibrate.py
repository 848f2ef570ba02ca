"""`yard calibrate`: the assembly wizard. Finds out which LED of the chain and which shift-register
input sits under each station, and writes the map into the board's board.json.

Step 1, LEDs: the LEDs light one at a time in chain order; the maker says which station each one
  shines under (Enter confirms the map's guess in [brackets], a number corrects it, x = dark).
Step 2, switches: each station lights; the maker puts a piece on it and the board reports which
  chain bit closed (nothing to type); s skips a switch that does not react.
Step 3, write: the map is checked with sy.hardware.boardconfig (the firmware's own validator), merged into
  the board's board.json, written over the REPL as `yard flash` writes files, and read back. Before
  it, one question: the LEDs' rhythms beside colour for colour-blind players (leds.patterns,
  docs/colour-vision.md); Enter, --yes or no answer keeps what the board's board.json says.

Every answer is saved at once to a progress file: after Ctrl-C, q or a crash, run the same
command again and it continues where it stopped (--restart throws the progress away).
The board side is firmware/sy/link/service.py (service mode; svc_* commands in docs/protocol.md).
The helpers here (Keyboard, Service, Progress) are shared with `yard selftest`.
"""
import json
import os
import queue
import sys
import threading
import time

from host import configerrors
from host.link.boardlink import BoardLink, BoardCommandError, LinkError
from host.errors import BoardError, UserError
from host.i18n import N_, _, is_no, is_yes
from host.link.ports import add_port_argument, resolve
from sy.hardware import boardconfig

STATIONS = 199
WHITE = [255, 255, 255]
CYAN = [0, 170, 255]
GREEN = [0, 255, 0]
KEEPALIVE_S = 5.0  # the board leaves service mode by itself after 120 s without a command


class Quit(Exception):
    """The maker typed q (or the input ended): the progress is saved, the wizard stops."""


def stopped(e, svc, progress_path, say):
    """A wizard (calibrate, selftest) stopped by q (Quit) or Ctrl-C (KeyboardInterrupt): its answers
    are saved, the board leaves service mode. Returns the exit code: 1 for q, 130 for Ctrl-C."""
    ctrl_c = isinstance(e, KeyboardInterrupt)
    text = (_("\nInterrupted. Progress saved in %s: run the same command again to continue.") if ctrl_c else
            _("\nStopped. Progress saved in %s: run the same command again to continue."))
    say(text % progress_path)
    svc.close()
    return 130 if ctrl_c else 1


def closed_bits(hexstr):
    """Chain bits set in a hex bitmap from svc_raw (bit k = 0x80 >> (k & 7) of byte k >> 3)."""
    data = bytes.fromhex(hexstr)
    return [8 * i + k for i, v in enumerate(data) if v for k in range(8) if v & (0x80 >> k)]


def chain_pos(bit):
    """Where a chain bit is wired: 'chain bit 37 (chip 4, input D2)'."""
    return _("chain bit %(bit)d (chip %(chip)d, input D%(input)d)") % {"bit": bit, "chip": bit // 8, "input": 7 - bit % 8}


def parse_stations(text):
    """'12 57,88' -> [12, 57, 88]; ValueError with a sentence if something is not a station."""
    out = []
    for word in text.replace(",", " ").split():
        if not word.isdigit() or not 1 <= int(word) <= STATIONS:
            raise ValueError(_("%(word)r is not a station number 1..%(last)d") % {"word": word, "last": STATIONS})
        out.append(int(word))
    return out


# --- the keyboard: lines from stdin, read in a thread so the wizard can poll the board meanwhile ---
class Keyboard:
    def __init__(self, stream=None):
        self.stream = stream or sys.stdin
        self.q = queue.Queue()
        self.ended = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        try:
            for line in iter(self.stream.readline, ""):
                self.q.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self.q.put(None)

    def get(self, timeout):
        """A typed line, '' if none came within timeout; Quit when the input has ended."""
        if self.ended:
            raise Quit()
        try:
            line = self.q.get(timeout=timeout) if timeout > 0 else self.q.get_nowait()
        except queue.Empty:
            return None
        if line is None:
            self.ended = True
            raise Quit()
        return line


# --- the board in service mode ---------------------------------------------------------------
class Service:
    def __init__(self, port, out=print, keyboard=None, poll_s=0.03):
        self.port = port
        self.out = out
        self.kb = keyboard or Keyboard()
        self.poll_s = poll_s
        self.link = None
        self.hello = None
        self.info = None
        self.last = 0.0

    def open(self, pause=False):
        self.link = BoardLink(self.port, timeout=5)
        self.hello = self.link.open()
        try:
            self.cmd("svc_begin", pause=pause)
        except BoardCommandError as e:
            if e.code == "bad_input":
                raise BoardError(_("the board's firmware has no service mode: update it with yard flash"))
            from host import refusals
            raise BoardError(_("the board refused service mode: %s") % refusals.of(e))
        self.info = self.cmd("svc_info")
        return self

    def cmd(self, name, **args):
        self.last = time.monotonic()
        return self.link.request(name, **args)

    def close(self):
        if self.link is not None:
            try:
                self.cmd("svc_end")
            except LinkError:
                pass
            self.link.close()
            self.link = None

    def led(self, index, rgb=WHITE, keep=False):
        return self.cmd("svc_led", index=index, rgb=list(rgb), keep=keep)

    def all(self, rgb):
        return self.cmd("svc_led", all=list(rgb))

    def off(self):
        return self.cmd("svc_led", off=True)

    def raw(self, clear=False):
        r = self.cmd("svc_raw", clear=clear)
        return {k: set(closed_bits(r[k])) for k in ("raw", "stable", "ever", "ever_stable")}

    def ask(self, prompt):
        """Print prompt, wait for a line (keeping the board in service mode meanwhile)."""
        self.out(prompt, end="", flush=True)
        while True:
            line = self.kb.get(0.5)
            if line is not None:
                return line.strip()
            if time.monotonic() - self.last > KEEPALIVE_S:
                self.cmd("svc_raw")

    def typed(self):
        """A line typed while the wizard watches the board (non-blocking), or None."""
        return self.kb.get(0)


def _out_factory(out):
    def say(*args, **kw):
        if out is print:
            print(*args, **kw)
        else:
            out(" ".join(str(a) for a in args) + ("" if kw.get("end") == "" else "\n"))
    return say


class Progress:
    """A JSON progress file, rewritten atomically after every answer."""

    def __init__(self, path):
        self.path = path
        self.data = None

    def load(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                self.data = json.load(f)
        except FileNotFoundError:
            self.data = None
        except (OSError, ValueError) as e:
            raise UserError(_("cannot read the progress file %(path)s (%(error)s): delete it or use --restart")
                            % {"path": self.path, "error": e})
        return self.data

    def save(self):
        self.data["saved"] = time.strftime("%Y-%m-%d %H:%M:%S")
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)

    def remove(self):
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


# --- writing board.json the way yard flash writes files ------------------------------------------
def write_board_config(port, make, sim, out=print):
    """Over the board's REPL (as yard flash does; this stops the game loop): read its board.json,
    make(that dict or None) -> the new config, validate it with sy.hardware.boardconfig, write it (temp
    file + rename), read it back, and restart the firmware. Returns the validated config."""
    import hashlib
    import tempfile
    from host.device.flash import Flasher, Progress as FlashProgress
    fl = Flasher(port, resume=True, out=out)
    fl.connect()
    try:
        try:
            base = json.loads(fl.t.fs_readfile("board.json").decode("utf-8"))
        except Exception:
            base = None
        try:
            checked = boardconfig.validate(make(base))
        except boardconfig.ConfigError as e:
            raise UserError(_("the calibrated config is not valid, nothing written: %s") % configerrors.explain(e))
        text = json.dumps(checked)
        with tempfile.TemporaryDirectory() as tmp:
            local = os.path.join(tmp, "board.json")
            with open(local, "w") as f:
                f.write(text)
            fl.write("board.json", local, FlashProgress(len(text), True))
        back = fl.t.fs_readfile("board.json")
        if hashlib.sha256(back).digest() != hashlib.sha256(text.encode()).digest():
            raise BoardError(_("board.json read back from the board differs from what was written"))
    except BaseException:
        _restart(fl, sim)
        raise
    _restart(fl, sim)
    return checked


def _restart(fl, sim):
    """Start the firmware again after the REPL had it (a soft reset; the unix port would end on
    one, so there main() is called at its REPL)."""
    try:
        if sim:
            t = fl.t
            t.exit_raw_repl()
            t.serial.write(b"board_app = None\r\nmain()\r\n")
            time.sleep(0.5)
        else:
            fl.reset_and_hello()
    finally:
        fl.close()


# --- calibration ----------------------------------------------------------------------------------
def add_arguments(parser):
    add_port_argument(parser)
    parser.add_argument("--config", metavar="BOARD_JSON",
                        help=_("the generated map to start from (python -m hardware.gen_config); default: the map "
                             "the board uses now"))
    parser.add_argument("--progress", metavar="FILE", default="yard-calibrate.progress.json",
                        help=_("progress file (default ./yard-calibrate.progress.json): the wizard continues from it"))
    parser.add_argument("--restart", action="store_true", help=_("throw away saved progress and start again"))
    parser.add_argument("--save", metavar="FILE", default="board-calibrated.json",
                        help=_("also keep the calibrated config here (default ./board-calibrated.json)"))
    parser.add_argument("--no-write", action="store_true", help=_("do not write the board's board.json"))
    parser.add_argument("--yes", "-y", action="store_true",
                        help=_("write without asking at the end (the rhythms' setting stays as it is)"))
    parser.add_argument("--patterns", choices=("on", "off"),
                        help=_("for colour-blind players: a rhythm beside each colour on the LEDs, on or off "
                               "(board.json leds.patterns; docs/colour-vision.md); without it the wizard asks"))


LED_HELP = N_("""\
Step 1 of 3: LEDs. The LEDs light white one at a time, in chain order (from the controller).
For each, type where it shines:
  Enter     under the station in [brackets] (the generated map)
  a number  under that station
  x         it stays dark / you cannot see it     b  back one LED     q  save and stop""")

REED_HELP = N_("""\
Step 2 of 3: switches. Take one piece. Each station lights in turn: put the piece on it, the board
finds its switch (no typing), then take the piece off again.
  s + Enter  skip: the switch does not react      b + Enter  back one      q + Enter  save and stop""")

# the keys a maker types in the wizards: English, and the catalog's (each language's own letters)
KEYS = {
    # i18n: the key for "save and stop" in the wizards (LED_HELP, REED_HELP)
    "q": N_("q"),
    # i18n: the key for "back one" in the calibration wizard
    "b": N_("b"),
    # i18n: the key for "skip this switch" in the calibration wizard
    "s": N_("s"),
    # i18n: the key for "this LED stays dark" in the calibration wizard
    "x": N_("x"),
}


def key(text):
    """The English key a maker typed ('q', 'b', 's', 'x'), in English or in the catalog's
    language; else the text as typed, lowered."""
    low = text.strip().lower()
    for k, name in KEYS.items():
        if low in (k, _(name).lower()):
            return k
    return low


class Calibration:
    def __init__(self, svc, progress, defaults, say):
        self.svc = svc
        self.p = progress
        self.say = say
        d = progress.data
        self.count = d["count"]
        self.def_index = defaults["index"]  # station -> LED chain index (the generated map)
        self.def_bits = defaults["bits"]    # station -> chain bit

    # step 1
    def leds(self):
        d = self.p.data
        answers = d["leds"]  # per chain index: station, 0 dark, -1 no station (a spare)
        expect = d["expect"]
        count = self.count
        if len(answers) < count:
            self.say(_(LED_HELP))
        while len(answers) < count:
            k = len(answers)
            self.svc.led(k, WHITE)
            guess = expect[k]
            taken = {s: i for i, s in enumerate(answers) if s > 0}
            while True:
                text = self.svc.ask(_("LED %(led)3d/%(of)d (chain index %(index)d)  under station [%(guess)s]: ") % {
                    "led": k + 1, "of": count, "index": k, "guess": guess if guess else _("none")})
                low = key(text)
                if low == "q":
                    raise Quit()
                if low == "b":
                    if answers:
                        answers.pop()
                        self.p.save()
                    break
                if low == "x":
                    answers.append(0)
                    break
                if text == "":
                    s = guess if guess else -1
                else:
                    try:
                        s = parse_stations(text)
                    except ValueError as e:
                        self.say(_("  %(error)s; Enter, a station number, %(x)s, %(b)s or %(q)s") % {
                            "error": e, "x": _(KEYS["x"]), "b": _(KEYS["b"]), "q": _(KEYS["q"])})
                        continue
                    if len(s) != 1:
                        self.say(_("  one station per LED, please"))
                        continue
                    s = s[0]
                if s > 0 and s in taken:
                    self.say(_("  station %(station)d already has LED %(led)d (chain index %(index)d): type another "
                               "station, or %(b)s to go back and correct it")
                             % {"station": s, "led": taken[s] + 1, "index": taken[s], "b": _(KEYS["b"])})
                    continue
                if s > 0 and s != guess:
                    # the map was wrong here: most likely two LEDs swapped, so the LED the map gave to
                    # station s probably sits under this one's guessed station
                    for j in range(k + 1, count):
                        if expect[j] == s:
                            expect[j] = guess
                            break
                    expect[k] = s
                answers.append(s)
                break
            self.p.save()
        self.svc.off()

    def led_map(self):
        """(station -> chain index, warnings): dark stations get the dark LEDs by elimination."""
        answers = self.p.data["leds"]
        index = [None] * STATIONS
        for k, s in enumerate(answers):
            if s > 0:
                index[s - 1] = k
        free = [k for k, s in enumerate(answers) if s == 0]
        free += [k for k, s in enumerate(answers) if s < 0]
        warn = []
        for s in range(1, STATIONS + 1):
            if index[s - 1] is None:
                want = self.def_index[s - 1]
                k = want if want in free else free[0]
                free.remove(k)
                index[s - 1] = k
                warn.append(_("station %(station)d: LED chain index %(index)d by elimination (it stayed dark: "
                              "check that LED and the data line into it)") % {"station": s, "index": k})
        return index, warn

    # step 2
    def reeds(self):
        d = self.p.data
        reeds = d["reeds"]  # [[station, bit or -1], ...] in the order asked
        index, _warnings = self.led_map()
        order = sorted(range(1, STATIONS + 1), key=lambda s: (self.p.data["leds"][index[s - 1]] <= 0, index[s - 1]))
        if not d.get("empty_checked"):
            self.say(_(REED_HELP))
            self.svc.ask(_("Take every piece off the board, then press Enter: "))
            time.sleep(0.1)
            stuck = sorted(self.svc.raw()["stable"] - {self.marker})   # the marker always reads closed
            for bit in stuck:
                s = self.station_of_bit(bit)
                if s:
                    text = _("  %(where)s is closed with nothing on the board (the map says station %(station)d): a "
                             "stuck reed or a magnet left there. It is left out; fix it and run yard selftest.")
                else:
                    text = _("  %(where)s is closed with nothing on the board: a stuck reed or a magnet left there. "
                             "It is left out; fix it and run yard selftest.")
                self.say(text % {"where": chain_pos(bit), "station": s})
            d["stuck"] = stuck
            d["empty_checked"] = True
            self.p.save()
        elif len(reeds) < STATIONS:
            self.say(_(REED_HELP))
        stuck = set(d["stuck"])
        while len(reeds) < STATIONS:
            done = {s for s, _b in reeds}
            s = next(x for x in order if x not in done)
            owner = {b: st for st, b in reeds if b >= 0}
            lit = self.p.data["leds"][index[s - 1]] > 0
            self.svc.led(index[s - 1], CYAN)
            text = (_("Switch %(switch)3d/%(of)d: put the piece on station %(station)d (lit) ... ") if lit else
                    _("Switch %(switch)3d/%(of)d: put the piece on station %(station)d (its LED is dark) ... "))
            self.say(text % {"switch": len(reeds) + 1, "of": STATIONS, "station": s}, end="", flush=True)
            got = self.wait_piece(s, stuck, owner)
            if got == "q":
                self.say("")
                raise Quit()
            if got == "b":
                self.say(_("back"))
                if reeds:
                    reeds.pop()
                    self.p.save()
                continue
            if got == "s":
                self.say(_("skipped"))
                reeds.append([s, -1])
                self.p.save()
                continue
            want = self.def_bits[s - 1]
            reeds.append([s, got])
            self.p.save()
            text = (_("%s as in the map; take it off") % chain_pos(got) if got == want else
                    _("%(where)s (the map said bit %(bit)d); take it off") % {"where": chain_pos(got), "bit": want})
            self.say(text, end="", flush=True)
            if self.wait_lift(got, stuck) == "q":
                self.say("")
                raise Quit()
            self.say(_(" - ok"))
        self.svc.off()

    @property
    def marker(self):
        """The chain's marker bit: wired to GND, it reads closed and belongs to no station."""
        return boardconfig.marker_bit(self.p.data["chips"])

    def station_of_bit(self, bit):
        return self.def_bits.index(bit) + 1 if bit in self.def_bits else 0

    def wait_piece(self, station, stuck, owner):
        told = set()
        while True:
            line = self.svc.typed()
            if line is not None and key(line) in ("s", "b", "q"):
                return key(line)
            closed = self.svc.raw()["stable"] - stuck - {self.marker}
            if len(closed) == 1:
                bit = next(iter(closed))
                if bit not in owner:
                    return bit
                if bit not in told:
                    told.add(bit)
                    self.say(_("\n  %(where)s already belongs to station %(owner)d: is the piece on station "
                               "%(station)d? ") % {"where": chain_pos(bit), "owner": owner[bit], "station": station},
                             end="", flush=True)
            elif len(closed) > 1 and "many" not in told:
                told.add("many")
                self.say(_("\n  %(count)d switches are closed (%(bits)s): one piece at a time, please ") % {
                    "count": len(closed), "bits": ", ".join(str(b) for b in sorted(closed))}, end="", flush=True)
            time.sleep(self.svc.poll_s)

    def wait_lift(self, bit, stuck):
        while True:
            line = self.svc.typed()
            if line is not None and key(line) == "q":
                return "q"
            if bit not in self.svc.raw()["stable"]:
                return None
            time.sleep(self.svc.poll_s)

    def bit_map(self):
        """(station -> chain bit, warnings): skipped stations get the remaining bits by elimination."""
        chips = self.p.data["chips"]
        bits = [None] * STATIONS
        for s, b in self.p.data["reeds"]:
            if b >= 0:
                bits[s - 1] = b
        used = {b for b in bits if b is not None}
        free = [b for b in range(chips * 8) if b not in used and b != boardconfig.marker_bit(chips)]
        warn = []
        for s in range(1, STATIONS + 1):
            if bits[s - 1] is None:
                want = self.def_bits[s - 1]
                b = want if want in free else free[0]
                free.remove(b)
                bits[s - 1] = b
                warn.append(_("station %(station)d: %(where)s by elimination (its switch did not react: run yard "
                              "selftest)") % {"station": s, "where": chain_pos(b)})
        return bits, warn


def _defaults(svc, config_path):
    if config_path:
        try:
            cfg = boardconfig.load(config_path)
        except boardconfig.ConfigError as e:
            raise UserError(configerrors.explain(e))
        return {"index": list(cfg["leds"]["index"]), "bits": list(cfg["reeds"]["bits"]),
                "source": config_path}, cfg
    return {"index": svc.info["index"], "bits": svc.info["bits"], "source": None}, None


def calibrate(port, config=None, progress_path="yard-calibrate.progress.json", restart=False, save=None,
              write=True, yes=False, out=print, keyboard=None, patterns=None):
    """patterns: the LEDs' rhythms (board.json leds.patterns) True or False; None asks the maker
    (or, with yes, keeps the board's setting)."""
    say = _out_factory(out)
    prog = Progress(progress_path)
    if restart:
        prog.remove()
    svc = Service(port, say, keyboard)
    svc.open()
    sim = svc.hello.get("board") == "sim"
    try:
        defaults, file_cfg = _defaults(svc, config)
        count, chips = svc.info["count"], svc.info["chips"]
        d = prog.load()
        if d is not None and (d.get("count") != count or d.get("chips") != chips):
            raise UserError(_("the progress file %(path)s is for another board (%(count)s LEDs, %(chips)s chips): "
                              "use --restart or another --progress")
                            % {"path": progress_path, "count": d.get("count"), "chips": d.get("chips")})
        if d is None:
            expect = [0] * count
            for s in range(1, STATIONS + 1):
                expect[defaults["index"][s - 1]] = s
            prog.data = {"kind": "calibrate", "count": count, "chips": chips, "defaults": defaults,
                         "expect": expect, "leds": [], "reeds": [], "stuck": []}
            prog.save()
            say(_("Calibration of the board on %(port)s (%(board)s, %(count)d LEDs, %(chips)d shift registers). "
                  "Defaults: %(source)s.\nProgress is saved after every answer in %(progress)s: q, Ctrl-C or a "
                  "crash lose nothing.") % {"port": port, "board": svc.hello.get("board"), "count": count,
                                             "chips": chips, "progress": progress_path,
                                             "source": defaults["source"] or _("the board's current map")})
        else:
            defaults = prog.data["defaults"]
            say(_("Continuing the calibration saved %(saved)s in %(progress)s: LEDs %(leds)d/%(count)d, switches "
                  "%(switches)d/%(stations)d done.") % {"saved": d.get("saved", "?"), "progress": progress_path,
                                                        "leds": len(d["leds"]), "count": count,
                                                        "switches": len(d["reeds"]), "stations": STATIONS})
        cal = Calibration(svc, prog, defaults, say)
        cal.leds()
        cal.reeds()
        index, warn_l = cal.led_map()
        bits, warn_r = cal.bit_map()
        svc.off()
    except (Quit, KeyboardInterrupt) as e:
        return stopped(e, svc, progress_path, say)
    svc.close()
    d = prog.data
    moved_l = sum(1 for s in range(STATIONS) if index[s] != defaults["index"][s])
    moved_r = sum(1 for s in range(STATIONS) if bits[s] != defaults["bits"][s])
    say(_("\nStep 3 of 3: the map. LEDs: %(leds)d of %(stations)d differ from the defaults; switches: "
          "%(switches)d of %(stations)d differ.") % {"leds": moved_l, "switches": moved_r, "stations": STATIONS})
    for w in warn_l + warn_r:
        say(_("  warning: %s") % w)
    if patterns is None and not yes:
        patterns = ask_patterns(svc, say)
    return _write(port, sim, index, bits, file_cfg, prog, save, write, yes, svc, say, patterns)


def ask_patterns(svc, say):
    """The maker's answer to the rhythms' question: True, False, or None (Enter, or the input
    ended: the board's setting is kept)."""
    while True:
        try:
            ans = _ask_plain(svc, _("For colour-blind players, light a rhythm beside each colour (steady, slow pulse, "
                                    "double blink; docs/colour-vision.md)? [y/n, Enter keeps the board's setting] "))
        except Quit:
            return None
        if ans == "":
            return None
        if is_yes(ans):
            return True
        if is_no(ans):
            return False
        say(_("  %(yes)s or %(no)s, please (Enter keeps the board's setting)") % {"yes": _("y"), "no": _("n")})


def merged(base, file_cfg, index, bits, patterns=None):
    """The config to write: the board's own (pins, brightness...) if valid, else --config, else the
    defaults; with the calibrated maps, and the rhythms' setting where the maker gave one."""
    if base is not None:
        try:
            boardconfig.validate(base)
        except boardconfig.ConfigError:
            base = None
    if base is None:
        base = file_cfg if file_cfg else boardconfig.default("pico")
    cfg = dict(base)
    cfg["reeds"] = dict(base.get("reeds", {}), bits=list(bits))
    cfg["leds"] = dict(base.get("leds", {}), index=list(index))
    if patterns is not None:
        cfg["leds"]["patterns"] = patterns
    return cfg


def _save(path, cfg, say):
    from hardware.gen_config import dumps
    with open(path, "w") as f:
        f.write(dumps(boardconfig.validate(cfg)))
    say(_("Saved the calibrated config to %s.") % path)


def _write(port, sim, index, bits, file_cfg, prog, save, write, yes, svc, say, patterns=None):
    if not write:
        if save:
            _save(save, merged(None, file_cfg, index, bits, patterns), say)
        prog.remove()
        return 0
    if not yes:
        try:
            ans = _ask_plain(svc, _("Write it to the board's board.json now? [Y/n] "))
        except Quit:
            ans = "n"
        if is_no(ans):
            if save:
                _save(save, merged(None, file_cfg, index, bits, patterns), say)
            say(_("Not written. The answers stay in %s: run the command again to write them.") % prog.path)
            return 1
    checked = write_board_config(port, lambda base: merged(base, file_cfg, index, bits, patterns), sim, out=say)
    if save:
        _save(save, checked, say)
    # the firmware restarted with the new file: read its maps back through the protocol
    back = None
    for _attempt in range(40):
        back = Service(port, say, svc.kb)
        try:
            back.open()
            break
        except (LinkError, BoardError):
            if back.link is not None:
                back.link.close()
            back = None
            time.sleep(0.25)
    if back is None:
        raise BoardError(_("the board did not come back after writing board.json"))
    try:
        ok = back.info["bits"] == list(bits) and back.info["index"] == list(index)
    finally:
        back.close()
    if not ok:
        raise BoardError(_("the board runs with another map than the one written: is board.json in its root "
                           "folder?"))
    prog.remove()
    say(_("Written to the board's board.json and checked: the board runs with the calibrated map. "
          "Next: yard selftest."))
    say(_("Rhythms beside the colours, for colour-blind players: on.") if checked["leds"].get("patterns") else
        _("Rhythms beside the colours, for colour-blind players: off (yard calibrate --patterns on turns them on)."))
    return 0


def _ask_plain(svc, prompt):
    svc.out(prompt, end="", flush=True)
    while True:
        line = svc.kb.get(0.5)
        if line is not None:
            return line.strip()


def run(args):
    port = resolve(args.port)
    patterns = None if args.patterns is None else args.patterns == "on"
    return calibrate(port, args.config, args.progress, args.restart, args.save, not args.no_write, args.yes,
                     patterns=patterns)
