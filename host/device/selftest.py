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

from host.device.calibrate import (STATIONS, GREEN, Progress, Quit, Service, _out_factory, chain_pos, parse_stations,
                            stopped)
from host import refusals
from host.link.boardlink import BoardCommandError
from sy.hardware import boardconfig
from host.link.ports import add_port_argument, resolve

BUS_CLOCKS = [100000, 250000, 500000, 1000000, 2000000, 4000000]
BUS_READS = 40
BUS_MARGIN = 2   # run the chain at no more than half the fastest clock that read reliably
COLOURS = (("red", [255, 0, 0]), ("green", [0, 255, 0]), ("blue", [0, 0, 255]), ("white", [255, 255, 255]))
TODO = [60, 0, 0]


def add_arguments(parser):
    add_port_argument(parser)
    parser.add_argument("--progress", metavar="FILE", default="yard-selftest.progress.json",
                        help="progress file (default ./yard-selftest.progress.json): the test continues from it")
    parser.add_argument("--restart", action="store_true", help="throw away saved progress and start again")
    parser.add_argument("--report", metavar="FILE", default="yard-selftest-report.txt",
                        help="also write the report here (default ./yard-selftest-report.txt)")
    parser.add_argument("--chase-ms", type=int, default=80, help="ms per LED in the chase (0 skips the chase)")
    parser.add_argument("--take-out", choices=("ask", "yes", "no"), default="ask",
                        help="take the broken switches found out of service (and put those out of service "
                             "that now work back): ask (default), yes, no")
    parser.add_argument("--pause", action="store_true",
                        help="test during a game (the game waits; put the pieces back afterwards)")


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
        return "station %3d  %s" % (station, chain_pos(self.bits[station - 1]))

    def bit_where(self, bit):
        s = self.station_of.get(bit)
        return self.where(s) if s else "%s, no station (a spare input)" % chain_pos(bit)

    # before step 1
    def bus(self):
        d = self.p.data
        if "bus" in d:
            return
        self.say("The reader bus: reading the switch chain %d times at each of %d clocks (keep the pieces "
                 "still) ..." % (BUS_READS, len(BUS_CLOCKS)))
        try:
            r = self.svc.cmd("svc_bus", baudrates=BUS_CLOCKS, reads=BUS_READS)
        except BoardCommandError as e:
            d["bus"] = {"skipped": e.message}
            self.say("  skipped: %s" % e.message)
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
        self.say("Step 1 of 4: switches on an empty board.")
        self.svc.ask("Take every piece off the board, then press Enter: ")
        self.svc.raw(clear=True)
        time.sleep(0.6)
        r = self.svc.raw()
        d["stuck"] = sorted(r["stable"] - self.marker)
        d["chatter"] = sorted((r["ever"] | r["raw"]) - r["stable"] - self.marker)
        for b in d["stuck"]:
            self.say("  closed with nothing on it: " + self.bit_where(b))
        for b in d["chatter"]:
            self.say("  flickering: " + self.bit_where(b))
        if not d["stuck"] and not d["chatter"]:
            self.say("  every switch is open: good")
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
        self.say("Step 2 of 4: the sweep. Touch every station with a piece, in any order (sliding it over "
                 "them is fine). The board shows the stations still to do in red, those done in green.\n"
                 "Press Enter when every station is green, or when the rest never turn green.")
        last_print = 0.0
        shown = -1
        while True:
            line = self.svc.typed()
            if line is not None:
                if line.strip().lower() == "q":
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
                    self.say("\n  %s closed: a reed wired to an input no station uses?" % chain_pos(b))
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
                self.say("  seen %3d/%d%s%s" % (shown, len(want), "; still to touch: " if left else "",
                                                " ".join(str(s) for s in left[:12]) + more))
                if not left:
                    self.say("  every station seen: press Enter")
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
            self.say("Step 3 of 4: colours. The whole board lights in one colour at a time.")
        for name, rgb in COLOURS:
            if name in got:
                continue
            self.svc.all(rgb)
            while True:
                text = self.svc.ask("Every station should be %s. Enter if all are; else type the stations that "
                                    "are dark or another colour: " % name.upper())
                low = text.lower()
                if low == "q":
                    raise Quit()
                if low in dict(COLOURS) or low in ("off", "dark", "none"):
                    got[name] = {"all": low}
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
        self.say("Step 4 of 4: the chase. One LED at a time in chain order; the screen says where it should be.")
        led_station = {k: s + 1 for s, k in enumerate(self.index)}
        for k in range(self.count):
            self.svc.led(k)
            s = led_station.get(k)
            self.say("\r  LED %3d/%d  station %s   " % (k + 1, self.count, s if s else "-"), end="", flush=True)
            time.sleep(self.chase_ms / 1000)
        self.svc.off()
        self.say("")
        while True:
            text = self.svc.ask("Did it go through every station as named? Enter if so; else the station where it "
                                "went wrong: ")
            if text.lower() == "q":
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
        for stations, to_out, what in ((out, True, "Take the switch%s of station %s out of service until repaired "
                                                   "(the board works around %s; board.json remembers it)? [y/N] "),
                                       (back, False, "The switch%s of station %s work%s again: put %s back in "
                                                     "service? [y/N] ")):
            if not stations or d.get("took_out" if to_out else "put_back") is not None:
                continue
            names = ", ".join(str(s) for s in stations)
            plural = len(stations) > 1
            if to_out:
                prompt = what % ("es" if plural else "", names, "them" if plural else "it")
            else:
                prompt = what % ("es" if plural else "", names, "" if plural else "s", "them" if plural else "it")
            yes = answer == "yes"
            if answer == "ask":
                text = self.svc.ask(prompt).lower()
                if text == "q":
                    raise Quit()
                yes = text in ("y", "yes")
            done = []
            if yes:
                for st in stations:
                    try:
                        r = self.svc.cmd("reed", station=st, out=to_out)
                    except BoardCommandError as e:
                        self.say("  station %d: the board refused: %s" % (st, e.message))
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
        lines.append("SWITCHES  %d of %d OK" % (STATIONS - len(bad_sw - {None}), STATIONS))
        for b in stuck:
            lines.append("  STUCK CLOSED  %s: closed with no piece on the board" % self.bit_where(b))
            lines.append("                -> a magnet left there? Else the reed's blades stick (tap it, or replace"
                         " it) or that input is shorted to GND")
        for b in chatter:
            lines.append("  FLICKERING    %s: opens and closes with no piece on it" % self.bit_where(b))
            lines.append("                -> a loose wire or a bad joint at the reed or at the shift register input")
        for s in never:
            b = self.bits[s - 1]
            lines.append("  NEVER CLOSED  %s: did not close when the piece came" % self.where(s))
            lines.append("                -> solder joints and the wire to chip %d input D%d; the reed's near end "
                         "under the station centre; else replace the reed" % (b // 8, 7 - b % 8))
        for b in d.get("stray", []):
            lines.append("  SPARE INPUT   %s closed during the sweep: a reed wired to the wrong input? "
                         "(yard calibrate maps it)" % chain_pos(b))
        for s in d.get("dead", []):
            lines.append("  OUT OF SERVICE station %3d: the board works around it (the confirm button puts a piece "
                         "there); repair it, then run yard selftest again" % s)
        led_lines, led_ok = self._led_report(d)
        lines += led_lines
        bus = d.get("bus")
        bus_ok = True
        if bus is not None:
            bl = bus_lines(bus)
            lines += bl
            bus_ok = bus_verdict(bus)[0]
        ok = not stuck and not chatter and not never and not d.get("stray") and led_ok and bus_ok
        lines.append("Everything passed." if ok else "Fix the items above and run yard selftest again "
                                                    "(yard calibrate if stations and LEDs are mixed up).")
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
        out.append("LEDS      %d of %d OK" % (STATIONS - len(bad) if not whole else 0, STATIONS))
        for name, saw in whole:
            if saw in dict(COLOURS):
                out.append("  WRONG COLOUR  every LED shows %s for %s: set leds.order in board.json (now the "
                           "wiring order differs; WS2812B is usually GRB)" % (saw, name))
            else:
                out.append("  ALL DARK      for %s: check the 5 V supply, the data line from the controller "
                           "(leds.pin, the 74AHCT125, the 330 ohm resistor) and LED 0" % name)
        dark = sorted((self.index[s - 1], s) for s, cs in per.items() if len(cs) == len(COLOURS))
        tail = self._tail(dark)
        for k, s in dark:
            if tail is not None and k > tail:
                continue
            if tail == k:
                out.append("  CHAIN BREAK   station %3d  LED chain index %d and every LED after it stay dark" % (s, k))
                out.append("                -> the data line between LED %d's DOUT and LED %d's DIN, or LED %d "
                           "itself (it passes the data on)" % (k - 1, k, k))
                continue
            out.append("  DARK          station %3d  LED chain index %d: dark in every colour" % (s, k))
            out.append("                -> its 5 V and GND joints; if the LEDs after it work, the data passes: "
                       "replace LED %d" % k)
        for s in sorted(s for s, cs in per.items() if len(cs) < len(COLOURS)):
            k = self.index[s - 1]
            out.append("  COLOUR FAULT  station %3d  LED chain index %d: wrong or dark in %s" % (
                s, k, ", ".join(per[s])))
            out.append("                -> one colour channel of LED %d is dead: replace it" % k)
        if chase:
            k = self.index[chase - 1]
            out.append("  CHASE         went wrong at station %d (LED chain index %d): LEDs out of order from "
                       "there: run yard calibrate" % (chase, k))
        ok = not bad and not whole and not chase
        if chase is not None and ok:
            out.append("  the chase followed the route")
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
        return ["READER BUS  not tested: %s" % r["skipped"]]
    ok, fastest = bus_verdict(r)
    out = ["READER BUS  %s" % ("OK" if ok else "PROBLEM")]
    lied = refusals.pause(r.get("chain"))
    if lied:   # the chain's own check (its marker bit) refused reads
        out.append("  " + lied)
    for baud, bad, reads in sorted(r["results"]):
        out.append("  %8d Hz: %s" % (baud, "%d of %d reads differed" % (bad, reads) if bad else "all %d reads agree"
                                     % reads))
    if fastest is None:
        out.append("  no clock read the chain reliably -> check the ribbon's CLK and SH/LD wires, the 68 ohm "
                   "series resistors and every chip's 100 nF; a piece moved during the test also does this")
    else:
        out.append("  fastest reliable clock: %d Hz; reeds.baudrate is %d Hz%s" % (
            fastest, r["configured"], "" if ok else " -> set reeds.baudrate to %d or less in board.json"
            % (fastest // BUS_MARGIN)))
    return out


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
                say("The board's map changed since the saved self-test: starting again.")
            prog.data = {"kind": "selftest", "bits": svc.info["bits"], "index": svc.info["index"]}
            prog.save()
            say("Self-test of the board on %s (%s, firmware %s). Progress is saved in %s: q or Ctrl-C, then "
                "run it again to continue." % (port, svc.hello.get("board"), svc.hello.get("firmware"), progress_path))
        else:
            say("Continuing the self-test saved %s in %s." % (d.get("saved", "?"), progress_path))
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
    head = "SELF-TEST REPORT  board on %s (%s, firmware %s), %s" % (
        port, svc.hello.get("board"), svc.hello.get("firmware"), time.strftime("%Y-%m-%d %H:%M"))
    text, ok = st.report(head)
    say("\n" + text)
    if report_path:
        with open(report_path, "w") as f:
            f.write(text + "\n")
        say("(report saved to %s; this session took %.0f s)" % (report_path, time.monotonic() - t0))
    prog.remove()
    return 0 if ok else 1


def run(args):
    return selftest(resolve(args.port), args.progress, args.restart, args.report, args.chase_ms, args.pause,
                    take_out=args.take_out)
