"""Fair play at the table (docs/fairplay.md), measured for `yard bench reliability` (secrecy part):

- take-back probing in the rules core against the computer Mister X (host/reliability/probing.py);
- on the simulated board (the firmware on the unix port, a real pty): a game with a key, and a
  second program that writes every kind of line that speaks for Mister X (untagged, tagged with
  another key or for another session, a good line changed or sent again), opens the port while
  the host holds it, and holds the confirm button on a move that landed where he could be.
  Every line's reply and the board's journal say whether it took it.
- the host's side (`host_loops`, `lan_bytes_readable`): host/reliability/hostside.py (HOST_SIDE
  below; a figure whose module is missing is reported as not measured, None).
"""
import json
import os
import subprocess
import time

import serial

from host.link.auth import PortShared, Signer, claim_port, new_key
from host.simulator.board import SIM_HEAP

DETECTIVES = (13, 26, 29, 34, 50)
MRX_START = 45
# the host's own measures of the rest of the secrecy part: module, function -> {figure: count}
HOST_SIDE = (("host.reliability.hostside", "run"),)


# a second program, as an ordinary user (root passes TIOCEXCL: CAP_SYS_ADMIN), with the system's Python
_OTHER_PYTHON = "/usr/bin/python3"
_OPEN_PORT = """import os, sys, time
try:
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
except OSError as e:
    print("refused", e.errno, flush=True)
    sys.exit(0)
print("opened", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _as_nobody():
    os.setgid(65534)
    os.setuid(65534)


def other_program(port, hold=0.0):
    """Start a second program, as user nobody, that opens `port` (and holds it `hold` seconds).
    Returns (process, 'opened' or 'refused ERRNO'); None where it cannot be run (not root, or
    no system Python)."""
    if os.geteuid() != 0 or not os.path.exists(_OTHER_PYTHON):
        return None
    os.chmod(port, 0o666)  # a user's own port: only the exclusivity may stop the other program
    proc = subprocess.Popen([_OTHER_PYTHON, "-c", _OPEN_PORT, port, str(hold)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd="/", preexec_fn=_as_nobody)
    return proc, proc.stdout.readline().strip()


class LineClient:
    """The host's end of the serial line, small: lines out, replies by id, events acknowledged."""

    def __init__(self, port, timeout=5.0):
        self.ser = serial.Serial(port, 115200, timeout=0)
        self.timeout = timeout  # seconds for a reply
        self.partial = b""
        self.replies = {}
        self.events = []
        self.notes = []
        self.next_id = 1

    def close(self):
        self.ser.close()

    def write(self, line):
        self.ser.write(line + b"\n")
        self.ser.flush()

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while True:
            data = self.ser.read(self.ser.in_waiting or 1)
            if data:
                self.partial += data
                while b"\n" in self.partial:
                    raw, self.partial = self.partial.split(b"\n", 1)
                    self._line(raw.strip(b"\r"))
                continue
            if time.monotonic() >= end:
                return
            time.sleep(0.002)

    def _line(self, raw):
        try:
            msg = json.loads(raw)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        if "ev" in msg:
            self.events.append(msg["ev"])
            self.write(b'{"cmd":"ack","seq":%d}' % msg["seq"])
        elif "id" in msg and "ok" in msg:
            self.replies[msg["id"]] = msg
        elif "note" in msg:
            self.notes.append(msg)

    def send(self, line, rid, timeout=None):
        """A raw line whose id is rid; its reply."""
        self.write(line)
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while rid not in self.replies:
            if time.monotonic() > end:
                raise TimeoutError("no reply to %r" % line[:80])
            self.pump(0.02)
        return self.replies.pop(rid)

    def body(self, cmd, **args):
        args["cmd"] = cmd
        args["id"] = self.next_id
        self.next_id += 1
        return args

    def request(self, cmd, **args):
        obj = self.body(cmd, **args)
        return self.send(json.dumps(obj, separators=(",", ":")).encode(), obj["id"])

    def signed(self, signer, cmd, **args):
        obj = self.body(cmd, **args)
        return self.send(signer.line(obj), obj["id"])

    def wait_event(self, kind, timeout=5.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for k, ev in enumerate(self.events):
                if ev.get("type") == kind:
                    del self.events[:k + 1]
                    return ev
            self.pump(0.02)
        raise TimeoutError("no %s event" % kind)


def forged_lines(heap=SIM_HEAP):
    """The second program's attack on a keyed game on the simulated board. Returns the counts."""
    from sy.rules import commit as commitlib
    from sy.rules.game import Game
    from host.simulator.board import SimBoard
    out = {"forged_lines_sent": 0, "forged_lines_accepted": 0, "second_opens_tried": 0, "second_opens_refused": 0,
           "board_probes_tried": 0, "board_probes_accepted": 0}
    sim = SimBoard(heapsize=heap, debounce_ms=10).start()
    host = None
    try:
        # a program that opened the port first: the host finds it and will not send the key
        first = other_program(sim.port, hold=30)
        if first is not None:
            out["shared_ports_tried"] = 1
            probe = LineClient(sim.port)
            try:
                claim_port(probe.ser, sim.port)
                out["shared_ports_missed"] = 1
            except PortShared:
                out["shared_ports_missed"] = 0
            finally:
                probe.ser.close()
                first[0].kill()
                first[0].wait()
        host = LineClient(sim.port)
        claim_port(host.ser, sim.port)
        for _ in range(50):
            try:
                hello = host.request("hello", proto=1)
                break
            except TimeoutError:
                continue
        assert "session" not in hello  # a board without a keyed game: nothing to tag yet
        key = new_key()
        salt = "5a" * 16
        r = host.request("setup", detectives=list(DETECTIVES), bobbies=[], key=key.hex(),
                         commit=commitlib.commitment(MRX_START, salt), replace=True)
        assert r["ok"], r
        signer = Signer(key, r["session"], r["auth_n"])
        for s in DETECTIVES:
            sim.place(s, settle=False)
        host.wait_event("ready", timeout=10)

        # a second program opens the port while the host holds it
        second = other_program(sim.port)
        if second is not None:
            second[0].wait()
            out["second_opens_tried"] += 1
            out["second_opens_refused"] += second[1].startswith("refused")

        def seq():
            return host.request("status")["seq"]

        def forge(line, rid):
            """A line the host did not make, through the port: taken if the board's journal grew."""
            before = seq()
            r = host.send(line, rid)
            out["forged_lines_sent"] += 1
            if r.get("ok") or seq() != before:
                out["forged_lines_accepted"] += 1

        other = Signer(new_key(), r["session"], 100)
        elsewhere = Signer(key, "0011223344556677", 100)
        zero = "0" * 64
        forge(b'{"cmd":"mrx","ticket":"taxi","commit":"%s","id":9001}' % zero.encode(), 9001)
        forge(other.line({"cmd": "mrx", "ticket": "taxi", "commit": zero, "id": 9002}), 9002)
        forge(elsewhere.line({"cmd": "mrx", "ticket": "taxi", "commit": zero, "id": 9003}), 9003)
        forge(b'{"cmd":"cornered","id":9004}', 9004)
        forge(b'{"cmd":"capture","piece":"D1","id":9005}', 9005)
        forge(b'{"cmd":"reset","confirm":true,"id":9006}', 9006)
        forge(b'{"cmd":"setup","detectives":[13,26],"bobbies":[29,34],"replace":true,"id":9007}', 9007)
        forge(b'{"cmd":"reveal","offset":0,"start":["%s",45],"moves":[],"id":9008}' % salt.encode(), 9008)

        # Mister X's real move, then the same line again and the line changed
        truth = Game(list(DETECTIVES), [], MRX_START)
        to = min(s for s, t in truth.legal_mrx() if t == 0 and s != 46)
        obj = host.body("mrx", ticket="taxi", commit=commitlib.commitment(to, salt))
        line = signer.line(obj)
        r = host.send(line, obj["id"])
        assert r["ok"], r
        forge(line, obj["id"])
        forge(line.replace(b'"taxi"', b'"bus"'), obj["id"])

        # D1 lands on 46, where he could be (he is not): the confirm button held, then the host's
        # undo with a consent that is not his
        sim.lift(13)
        sim.place(46)
        host.wait_event("move")
        out["board_probes_tried"] += 1
        sim.press("confirm", hold=1.7)
        host.pump(0.5)
        if any(ev.get("type") == "undo" for ev in host.events):
            out["board_probes_accepted"] += 1
        forge(b'{"cmd":"undo","consent":true,"id":9010}', 9010)
        forge(other.line({"cmd": "undo", "consent": True, "id": 9011}), 9011)
        # his own consent is taken: the rule is his to waive
        r = host.signed(signer, "undo", consent=True)
        out["consented_take_backs"] = int(bool(r.get("ok")))
    finally:
        if host is not None:
            host.close()
        sim.stop()
    return out


def host_side(log=None):
    """The host's measures (host loops, LAN bytes readable), or None each where not built."""
    import importlib
    got = {"host_loops": None, "lan_bytes_readable": None}
    for module, fn in HOST_SIDE:
        try:
            m = importlib.import_module(module)
        except ImportError:
            continue
        got.update(getattr(m, fn)(log=log))
    return got


def run(probing_games=200, seed=1, heap=SIM_HEAP, log=None):
    from host.reliability import probing
    out = {}
    t0 = time.monotonic()
    p = probing.run(probing_games, seed=seed)
    out.update(p)
    if log:
        log("fair play: probing %.1f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    out.update(forged_lines(heap))
    if log:
        log("fair play: forged lines %.1f s" % (time.monotonic() - t0))
    out.update(host_side(log))
    return out
