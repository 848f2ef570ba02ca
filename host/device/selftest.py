"""`yard selftest`: check every switch and every LED of an assembled board, and print a report a
maker can act on (which station, which chain position, what to look at).

Step 1, empty board: with every piece off, a closed switch is stuck closed (or a magnet is left
  there); one that flickers is chattering.
Step 2, the sweep: the maker touches every station with a piece, in any order; the board latches
  every closing (even a quick slide over it), lights the stations seen green and the others red;
  Enter ends the sweep. A switch never seen closed is reported.
Step 3, colours: the whole board lights red, green, blue, white; the maker types the stations that
  are dark or show another colour (Enter: all fine; a colour word: every LED shows that one).
Step 4, the chase (--chase-ms, 0 skips it): one LED at a time in chain order while the screen
  names the station it should be under; the maker types where it went wrong.
Then the broken switches (stuck closed, never closed): the maker may take them out of service
  (`reed` on the board, remembered in its board.json: the board then works around those stations,
  docs/protocol.md "Reeds out of service"), and switches out of service that now work are offered
  back into service. --take-out yes|no answers without asking.
Before step 1, the reader bus: the board reads the reed chain BUS_READS times at each clock in
  BUS_CLOCKS (svc_bus) and the report names the fastest clock at which every read agreed, and
  whether reeds.baudrate keeps a factor BUS_MARGIN below it (skipped on a simulated board).
Progress is saved after every step (and during the sweep): Ctrl-C or q, then run it again.
"""
import time

from host.device.calibrate import (STATIONS, GREEN, Progress, Quit, Service, _out_factory, chain_pos,
                                   parse_stations, stopped)
from host import refusals
from host.link.boardlink import BoardCommandError
from host.i18n import N_, _, is_yes, ngettext, number
from sy.hardware import boardconfig
from host.link.ports import add_port_argument, resolve

BUS_CLOCKS = [100000, 250000, 500000, 1000000, 2000000, 4000000]
BUS_READS = 40
BUS_MARGIN = 2   # run the chain at no more than half the fastest clock that read reliably
COLOURS = (("red", [255, 0, 0]), ("green", [0, 255, 0]), ("blue", [0, 0, 255]), ("white", [255, 255, 255]))
# the colours as the maker reads and types them (the progress file keeps the English keys)
COLOUR_NAMES = {"red": N_("red"), "green": N_("green"), "blue": N_("blue"), "white": N_("white")}
# what the maker may type for "every LED is dark", in English and in the catalog's language
DARK_WORDS = ("off", "dark", "none")
TODO = [60, 0, 0]


def add_arguments(parser):
    add_port_argument(parser)
    parser.add_argument("--progress", metavar="FILE", default="yard-selftest.progress.json",
                        help=_("progress file (default ./yard-selftest.progress.json): the test continues from it"))
    parser.add_argument("--restart", action="store_true", help=_("throw away saved progress and start again"))
    parser.add_argument("--report", metavar="FILE", default="yard-selftest-report.txt",
                        help=_("also write the report here (default ./yard-selftest-report.txt)"))
    parser.add_argument("--chase-ms", type=int, default=80, help=_("ms per LED in the chase (0 skips the chase)"))
    parser.add_argument("--take-out", choices=("ask", "yes", "no"), default="ask",
                        help=_("take the broken switches found out of service (and put those out of service "
                             "that now work back): ask (default), yes, no"))
    parser.add_argument("--pause", action="store_true",
                        help=_("test during a game (the game waits; put the pieces back afterwards)"))


class SelfTest:
    def __init__(self, svc, prog, say, chase_ms):
        self.svc = svc
        self.p = prog
        self.say = say
        self.chase_ms = chase_ms
        self.bits = svc.info["bits"]     # station -> chain bit (the board's map)
        self.index = svc.info["index"]   # station -> LED chain index
        self.station_of = {b: s + 1 for s, b in enumerate(self.bits)}
        self.count = svc.info["count"]
        # the chain's marker bit is wired to GND: it reads closed and is no switch
        chips = svc.info.get("chips", boardconfig.default()["reeds"]["chips"])
        self.marker = {boardconfig.marker_bit(chips)}

    def where(self, station):
        return _("station %(station)3d  %(where)s") % {"station": station, "where": chain_pos(self.bits[station - 1])}

    def bit_where(self, bit):
        s = self.station_of.get(bit)
        return self.where(s) if s else _("%s, no station (a spare input)") % chain_pos(bit)

    # before step 1
    def bus(self):
        d = self.p.data
        if "bus" in d:
            return
        self.say(_("The reader bus: reading the switch chain %(reads)d times at each of %(clocks)d clocks (keep "
                   "the pieces still) ...") % {"reads": BUS_READS, "clocks": len(BUS_CLOCKS)})
        try:
            r = self.svc.cmd("svc_bus", baudrates=BUS_CLOCKS, reads=BUS_READS)
        except BoardCommandError as e:
            d["bus"] = {"skipped": e.message, "code": e.code}
            self.say(_("  skipped: %s") % skip_reason(d["bus"]))
        else:
            d["bus"] = r
            for line in bus_lines(r)[1:]:
                self.say(line)
        self.p.save()

    # step 1
    def empty(self):
        d = self.p.data
        if "stuck" in d:
            return
        self.say(_("Step 1 of 4: switches on an empty board."))
        self.svc.ask(_("Take every piece off the board, then press Enter: "))
        self.svc.raw(clear=True)
        time.sleep(0.6)
        r = self.svc.raw()
        d["stuck"] = sorted(r["stable"] - self.marker)
        d["chatter"] = sorted((r["ever"] | r["raw"]) - r["stable"] - self.marker)
        for b in d["stuck"]:
            self.say(_("  closed with nothing on it: %s") % self.bit_where(b))
        for b in d["chatter"]:
            self.say(_("  flickering: %s") % self.bit_where(b))
        if not d["stuck"] and not d["chatter"]:
            self.say(_("  every switch is open: good"))
        self.p.save()

    # step 2
    def sweep(self):
        d = self.p.data
        if d.get("swept"):
            return
        seen = set(d.get("seen", []))
        stuck = set(d["stuck"])
        stray = set(d.get("stray", []))
        want = {b for b in self.bits if b not in stuck}
        self.svc.all(TODO)
        for b in seen:
            s = self.station_of.get(b)
            if s:
                self.svc.led(self.index[s - 1], GREEN, keep=True)
        self.say(_("Step 2 of 4: the sweep. Touch every station with a piece, in any order (sliding it over "
                   "them is fine). The board shows the stations still to do in red, those done in green.\n"
                   "Press Enter when every station is green, or when the rest never turn green."))
        last_print = 0.0
        shown = -1
        while True:
            line = self.svc.typed()
            if line is not None:
                if is_quit(line):
                    raise Quit()
                break
            r = self.svc.raw(clear=True)
            new = (r["ever"] | r["stable"]) - stuck - seen - self.marker
            for b in sorted(new):
                seen.add(b)
                s = self.station_of.get(b)
                if s:
                    self.svc.led(self.index[s - 1], GREEN, keep=True)
                elif b not in stray:
                    stray.add(b)
                    self.say(_("\n  %s closed: a reed wired to an input no station uses?") % chain_pos(b))
            if new:
                d["seen"] = sorted(seen)
                d["stray"] = sorted(stray)
                self.p.save()
            left = sorted(self.station_of[b] for b in want - seen)
            now = time.monotonic()
            if len(seen & want) != shown and (now - last_print > 0.5 or not left):
                shown = len(seen & want)
                last_print = now
                more = " ..." if len(left) > 12 else ""
                seen_text = _("  seen %(seen)3d/%(of)d") % {"seen": shown, "of": len(want)}
                if left:
                    seen_text += _("; still to touch: %s") % (" ".join(str(s) for s in left[:12]) + more)
                self.say(seen_text)
                if not left:
                    self.say(_("  every station seen: press Enter"))
            time.sleep(self.svc.poll_s)
        d["seen"] = sorted(seen)
        d["swept"] = True
        self.p.save()
        self.svc.off()

    # step 3
    def colours(self):
        d = self.p.data
        got = d.setdefault("colours", {})
        if len(got) < len(COLOURS):
            self.say(_("Step 3 of 4: colours. The whole board lights in one colour at a time."))
        for name, rgb in COLOURS:
            if name in got:
                continue
            self.svc.all(rgb)
            while True:
                text = self.svc.ask(_("Every station should be %s. Enter if all are; else type the stations "
                                      "that are dark or another colour: ") % _(COLOUR_NAMES[name]).upper())
                if is_quit(text):
                    raise Quit()
                whole = colour_word(text)
                if whole:
                    got[name] = {"all": whole}
                    break
                try:
                    got[name] = {"bad": parse_stations(text)}
                    break
                except ValueError as e:
                    self.say("  %s" % e)
            self.p.save()
        self.svc.off()

    # step 4
    def chase(self):
        d = self.p.data
        if "chase" in d:
            return
        if self.chase_ms <= 0:
            d["chase"] = None
            self.p.save()
            return
        self.say(_("Step 4 of 4: the chase. One LED at a time in chain order; the screen says where it should be."))
        led_station = {k: s + 1 for s, k in enumerate(self.index)}
        for k in range(self.count):
            self.svc.led(k)
            s = led_station.get(k)
            self.say(_("\r  LED %(led)3d/%(of)d  station %(station)s   ") % {"led": k + 1, "of": self.count,
                                                                        "station": s if s else "-"},
                     end="", flush=True)
            time.sleep(self.chase_ms / 1000)
        self.svc.off()
        self.say("")
        while True:
            text = self.svc.ask(_("Did it go through every station as named? Enter if so; else the station where "
                                  "it went wrong: "))
            if is_quit(text):
                raise Quit()
            try:
                bad = parse_stations(text)
                break
            except ValueError as e:
                self.say("  %s" % e)
        d["chase"] = bad[0] if bad else 0
        self.p.save()

    # the broken switches: out of service, or back in
    def broken(self):
        """The stations whose switch is stuck closed or never closed, in order."""
        d = self.p.data
        seen = set(d.get("seen", []))
        stuck = set(d["stuck"])
        return sorted(s for s in range(1, STATIONS + 1) if self.bits[s - 1] in stuck or self.bits[s - 1] not in seen)

    def take_out(self, dead, answer="ask"):
        """Offer to take the broken switches out of service and those out of service that work back
        in. dead: the stations out of service now. Returns the stations out of service after."""
        d = self.p.data
        dead = set(dead)
        broken = self.broken()
        out = [s for s in broken if s not in dead]
        back = sorted(dead - set(broken))
        for stations, to_out in ((out, True), (back, False)):
            if not stations or d.get("took_out" if to_out else "put_back") is not None:
                continue
            names = ", ".join(str(s) for s in stations)
            if to_out:
                prompt = ngettext("Take the switch of station %(stations)s out of service until repaired (the board "
                                  "works around it; board.json remembers it)? [y/N] ",
                                  "Take the switches of station %(stations)s out of service until repaired (the "
                                  "board works around them; board.json remembers it)? [y/N] ", len(stations))
            else:
                prompt = ngettext("The switch of station %(stations)s works again: put it back in service? [y/N] ",
                                  "The switches of station %(stations)s work again: put them back in service? "
                                  "[y/N] ", len(stations))
            yes = answer == "yes"
            if answer == "ask":
                text = self.svc.ask(prompt % {"stations": names})
                if is_quit(text):
                    raise Quit()
                yes = is_yes(text)
            done = []
            if yes:
                for st in stations:
                    try:
                        r = self.svc.cmd("reed", station=st, out=to_out)
                    except BoardCommandError as e:
                        self.say(_("  station %(station)d: the board refused: %(reason)s")
                                 % {"station": st, "reason": refusal(e)})
                        break
                    done.append(st)
                    dead = set(r["dead"])
            d["took_out" if to_out else "put_back"] = done
            self.p.save()
        d["dead"] = sorted(dead)
        self.p.save()
        return sorted(dead)

    # the report
    def report(self, head):
        d = self.p.data
        lines = [head]
        stuck, chatter = d["stuck"], d["chatter"]
        seen = set(d.get("seen", []))
        never = [s for s in range(1, STATIONS + 1) if self.bits[s - 1] not in seen and self.bits[s - 1] not in stuck]
        bad_sw = {self.station_of.get(b) for b in stuck + chatter} | set(never)
        lines.append(_("SWITCHES  %(ok)d of %(of)d OK") % {"ok": STATIONS - len(bad_sw - {None}), "of": STATIONS})
        for b in stuck:
            lines.append(_("  STUCK CLOSED  %s: closed with no piece on the board") % self.bit_where(b))
            lines.append(_("                -> a magnet left there? Else the reed's blades stick (tap it, or replace"
                           " it) or that input is shorted to GND"))
        for b in chatter:
            lines.append(_("  FLICKERING    %s: opens and closes with no piece on it") % self.bit_where(b))
            lines.append(_("                -> a loose wire or a bad joint at the reed or at the shift register "
                           "input"))
        for s in never:
            b = self.bits[s - 1]
            lines.append(_("  NEVER CLOSED  %s: did not close when the piece came") % self.where(s))
            lines.append(_("                -> solder joints and the wire to chip %(chip)d input D%(input)d; the "
                           "reed's near end under the station centre; else replace the reed")
                         % {"chip": b // 8, "input": 7 - b % 8})
        for b in d.get("stray", []):
            lines.append(_("  SPARE INPUT   %s closed during the sweep: a reed wired to the wrong input? "
                           "(yard calibrate maps it)") % chain_pos(b))
        for s in d.get("dead", []):
            lines.append(_("  OUT OF SERVICE station %3d: the board works around it (the confirm button puts a "
                           "piece there); repair it, then run yard selftest again") % s)
        led_lines, led_ok = self._led_report(d)
        lines += led_lines
        bus = d.get("bus")
        bus_ok = True
        if bus is not None:
            bl = bus_lines(bus)
            lines += bl
            bus_ok = bus_verdict(bus)[0]
        ok = not stuck and not chatter and not never and not d.get("stray") and led_ok and bus_ok
        lines.append(_("Everything passed.") if ok else _("Fix the items above and run yard selftest again "
                                                          "(yard calibrate if stations and LEDs are mixed up)."))
        return "\n".join(lines), ok

    def _led_report(self, d):
        got = d.get("colours", {})
        out = []
        per = {}  # station -> colours it failed
        whole = []
        for name, _rgb in COLOURS:
            g = got.get(name, {})
            if "all" in g:
                whole.append((name, g["all"]))
            for s in g.get("bad", []):
                per.setdefault(s, []).append(name)
        bad = set(per)
        chase = d.get("chase")
        out.append(_("LEDS      %(ok)d of %(of)d OK") % {"ok": STATIONS - len(bad) if not whole else 0, "of": STATIONS})
        for name, saw in whole:
            if saw in dict(COLOURS):
                out.append(_("  WRONG COLOUR  every LED shows %(shows)s for %(asked)s: set leds.order in board.json "
                             "(now the wiring order differs; WS2812B is usually GRB)")
                           % {"shows": _(COLOUR_NAMES[saw]), "asked": _(COLOUR_NAMES[name])})
            else:
                out.append(_("  ALL DARK      for %s: check the 5 V supply, the data line from the controller "
                             "(leds.pin, the 74AHCT125, the 330 ohm resistor) and LED 0") % _(COLOUR_NAMES[name]))
        dark = sorted((self.index[s - 1], s) for s, cs in per.items() if len(cs) == len(COLOURS))
        tail = self._tail(dark)
        for k, s in dark:
            if tail is not None and k > tail:
                continue
            if tail == k:
                out.append(_("  CHAIN BREAK   station %(station)3d  LED chain index %(index)d and every LED after "
                             "it stay dark") % {"station": s, "index": k})
                out.append(_("                -> the data line between LED %(before)d's DOUT and LED %(led)d's DIN, "
                             "or LED %(led)d itself (it passes the data on)") % {"before": k - 1, "led": k})
                continue
            out.append(_("  DARK          station %(station)3d  LED chain index %(index)d: dark in every colour")
                       % {"station": s, "index": k})
            out.append(_("                -> its 5 V and GND joints; if the LEDs after it work, the data passes: "
                         "replace LED %d") % k)
        for s in sorted(s for s, cs in per.items() if len(cs) < len(COLOURS)):
            k = self.index[s - 1]
            out.append(_("  COLOUR FAULT  station %(station)3d  LED chain index %(index)d: wrong or dark in "
                         "%(colours)s") % {"station": s, "index": k,
                                           "colours": ", ".join(_(COLOUR_NAMES[c]) for c in per[s])})
            out.append(_("                -> one colour channel of LED %d is dead: replace it") % k)
        if chase:
            k = self.index[chase - 1]
            out.append(_("  CHASE         went wrong at station %(station)d (LED chain index %(index)d): LEDs out of "
                         "order from there: run yard calibrate") % {"station": chase, "index": k})
        ok = not bad and not whole and not chase
        if chase is not None and ok:
            out.append(_("  the chase followed the route"))
        return out, ok

    def _tail(self, dark):
        """The chain index where a run of dark LEDs reaching the chain's end starts (≥ 2 LEDs)."""
        ks = [k for k, _s in dark]
        used_last = max(self.index)
        if len(ks) < 2 or ks[-1] != used_last:
            return None
        start = ks[-1]
        i = len(ks) - 1
        lit = set(self.index)
        while i > 0:
            prev = ks[i - 1]
            if any(j in lit for j in range(prev + 1, start)):
                break
            start = prev
            i -= 1
        return start


def bus_verdict(r):
    """(ok, fastest reliable clock or None) from a svc_bus answer. Reliable: every read at that
    clock and at every slower one agreed with the first read."""
    if "skipped" in r:
        return True, None
    fastest = None
    for baud, bad, _reads in sorted(r["results"]):
        if bad:
            break
        fastest = baud
    ok = fastest is not None and r["configured"] * BUS_MARGIN <= fastest
    return ok, fastest


def bus_lines(r):
    if "skipped" in r:
        return [_("READER BUS  not tested: %s") % skip_reason(r)]
    ok, fastest = bus_verdict(r)
    out = [_("READER BUS  OK") if ok else _("READER BUS  PROBLEM")]
    lied = refusals.pause(r.get("chain"))
    if lied:   # the chain's own check (its marker bit) refused reads
        out.append("  " + lied)
    for baud, bad, reads in sorted(r["results"]):
        verdict = (_("%(bad)d of %(reads)d reads differed") % {"bad": bad, "reads": reads} if bad else
                   _("all %d reads agree") % reads)
        out.append(_("  %(clock)s Hz: %(verdict)s") % {"clock": number(baud).rjust(9), "verdict": verdict})
    if fastest is None:
        out.append(_("  no clock read the chain reliably -> check the ribbon's CLK and SH/LD wires, the 68 ohm "
                     "series resistors and every chip's 100 nF; a piece moved during the test also does this"))
    else:
        line = _("  fastest reliable clock: %(fastest)s Hz; reeds.baudrate is %(configured)s Hz") % {
            "fastest": number(fastest), "configured": number(r["configured"])}
        if not ok:
            line += _(" -> set reeds.baudrate to %s or less in board.json") % (fastest // BUS_MARGIN)
        out.append(line)
    return out


def skip_reason(bus):
    """Why the board did not test its reader bus: a board that knows svc_bus refuses it only for
    want of an SPI reed chain (a simulated board); any other code is rendered from the catalog."""
    if bus.get("code", "bad_input") == "bad_input":
        return _("this board has no SPI reed chain to test (a simulated board)")
    return refusals.refusal(bus["code"])


def refusal(error):
    """A board's refusal in the maker's language, from its code (host/refusals.py)."""
    return refusals.of(error)


def is_quit(text):
    # i18n: the key a maker types to save and stop a wizard (English q works too)
    return text.strip().lower() in ("q", _("q"))


def colour_word(text):
    """The colour every LED shows when the maker typed a colour word (or dark), else None."""
    low = text.strip().lower()
    for key, name in COLOUR_NAMES.items():
        if low in (key, _(name).lower()):
            return key
    if low in DARK_WORDS or low == _("dark"):
        return "dark"
    return None


def selftest(port, progress_path="yard-selftest.progress.json", restart=False, report_path=None, chase_ms=80,
             pause=False, out=print, keyboard=None, take_out="ask"):
    say = _out_factory(out)
    prog = Progress(progress_path)
    if restart:
        prog.remove()
    t0 = time.monotonic()
    svc = Service(port, say, keyboard)
    svc.open(pause=pause)
    try:
        d = prog.load()
        if d is None or d.get("bits") != svc.info["bits"] or d.get("index") != svc.info["index"]:
            if d is not None:
                say(_("The board's map changed since the saved self-test: starting again."))
            prog.data = {"kind": "selftest", "bits": svc.info["bits"], "index": svc.info["index"]}
            prog.save()
            say(_("Self-test of the board on %(port)s (%(board)s, firmware %(firmware)s). Progress is saved in "
                  "%(progress)s: q or Ctrl-C, then run it again to continue.")
                % {"port": port, "board": svc.hello.get("board"), "firmware": svc.hello.get("firmware"),
                   "progress": progress_path})
        else:
            say(_("Continuing the self-test saved %(saved)s in %(progress)s.")
                % {"saved": d.get("saved", "?"), "progress": progress_path})
        st = SelfTest(svc, prog, say, chase_ms)
        st.bus()
        st.empty()
        st.sweep()
        st.colours()
        st.chase()
        st.take_out(svc.hello.get("dead", []), take_out)
    except (Quit, KeyboardInterrupt) as e:
        return stopped(e, svc, progress_path, say)
    svc.close()
    head = _("SELF-TEST REPORT  board on %(port)s (%(board)s, firmware %(firmware)s), %(when)s") % {
        "port": port, "board": svc.hello.get("board"), "firmware": svc.hello.get("firmware"),
        "when": time.strftime("%Y-%m-%d %H:%M")}
    text, ok = st.report(head)
    say("\n" + text)
    if report_path:
        with open(report_path, "w") as f:
            f.write(text + "\n")
        say(_("(report saved to %(path)s; the test took %(seconds)s s)")
            % {"path": report_path, "seconds": number(round(time.monotonic() - t0))})
    prog.remove()
    return 0 if ok else 1


def run(args):
    return selftest(resolve(args.port), args.progress, args.restart, args.report, args.chase_ms, args.pause,
                    take_out=args.take_out)
