"""Protocol fuzzing: random and malformed lines at the firmware, each followed by a `status`
sentinel, in five board states (idle, setup, Mister X's turn, the detectives' turn, game over).

What counts (the definitions the figures use):
- a *line* is a non-empty run of bytes between line ends (the firmware ends a line at \\n or \\r);
  every payload here is one line unless it holds a \\r on purpose (then each part is a line);
- *answered*: between the previous sentinel's reply and this one the board sent exactly one reply
  (a JSON object with "ok") per line, with the line's integer id or id null; the only line that
  may go unanswered is a well-formed `ack` without an id (the protocol gives it no reply);
- *crash*: the firmware process died, printed something that is not a JSON line (a traceback),
  or answered `internal` (a caught firmware bug);
- *state change*: a rejected (ok false) or read-only line after which the status (everything but
  nothing) or any byte of the flash (journal, snapshot) differs from before the line.
Byte 0x03 (Ctrl-C) is left out of the noise: it stops the game loop by design (docs/protocol.md).
"""
import json
import os
import random
import select
import time

import serial

from host.reliability.common import RelSim, flash_bytes
from host.simulator.board import SIM_HEAP

CODES = {"bad_input", "wrong_turn", "already_moved", "not_connected", "no_ticket", "occupied", "ferry",
         "double_used", "game_over", "version", "too_long", "no_memory", "internal"}
READ_ONLY = {"hello", "ack", "ping", "status", "record", "mem"}
CMDS = ["hello", "ack", "ping", "status", "setup", "mrx", "choose", "capture", "cornered", "record", "reveal",
        "reset", "mem"]
SENTINEL = 10 ** 9


class Raw:
    """A bare line client: write lines, read JSON lines."""

    def __init__(self, port):
        self.ser = serial.serial_for_url(port, baudrate=115200, timeout=0)
        self.partial = b""
        self.other = []  # non-JSON output

    def write(self, data):
        self.ser.write(data)
        self.ser.flush()

    def read_until(self, pred, timeout=5.0):
        """Read messages until pred(msg) is true for one; returns (all messages, True/False)."""
        got = []
        end = time.monotonic() + timeout
        fd = self.ser.fileno()
        while True:
            while b"\n" in self.partial:
                line, self.partial = self.partial.split(b"\n", 1)
                line = line.strip(b"\r")
                if not line:
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    msg = None
                if not isinstance(msg, dict):
                    self.other.append(line)
                    continue
                got.append(msg)
                if pred(msg):
                    return got, True
            left = end - time.monotonic()
            if left <= 0:
                return got, False
            r, _, _ = select.select([fd], [], [], min(left, 0.05))
            if r:
                self.partial += os.read(fd, 65536)

    def request(self, rid, cmd, timeout=5.0, **args):
        args.update(cmd=cmd, id=rid)
        self.write(json.dumps(args).encode() + b"\n")
        got, ok = self.read_until(lambda m: m.get("id") == rid and "ok" in m, timeout)
        if not ok:
            raise RuntimeError("no reply to %s" % cmd)
        return got[-1]

    def close(self):
        self.ser.close()


# --- the corpus ------------------------------------------------------------------------------
def _weird(rng):
    return rng.choice([None, True, False, -1, 0, 1, 200, 10 ** 30, -(10 ** 30), 1.5, "", "13", "taxi", "D1", [],
                       [13], {}, {"a": 1}, [[1, 2]], "\u00e9\u4e2d", "x" * rng.randrange(1, 200), 1e308])


def _valid_args(cmd, rng):
    """Plausible arguments of a command (often out of turn or with wrong values)."""
    st = rng.randrange(1, 200)
    tk = rng.choice(["taxi", "bus", "underground", "black"])
    return {
        "hello": {"proto": rng.choice([1, 1, 2, 0]), "acked": rng.choice([0, 1, 5, 10 ** 6])},
        "ack": {"seq": rng.choice([0, 1, 2, 10 ** 6, -3])},
        "setup": {"detectives": rng.sample(range(1, 200), rng.randrange(0, 7)),
                  "bobbies": rng.sample(range(1, 200), rng.randrange(0, 3)),
                  "mrx": rng.choice([None, st]), "replace": rng.random() < 0.05 and False},
        "mrx": rng.choice([{"ticket": tk}, {"ticket": tk, "to": st}, {"ticket": tk, "commit": "ab" * 32},
                           {"double": [{"ticket": tk}, {"ticket": tk, "to": st}]},
                           {"double": [{"ticket": tk}]}]),
        "choose": {"ticket": tk},
        "capture": {"piece": rng.choice(["D1", "D2", "B1", "X", "D9", 0])},
        "reveal": {"moves": [["s", st]], "offset": rng.choice([0, 1, 8]), "start": ["s", st]},
        "reset": {"confirm": rng.choice([False, None, 0, "yes"])},
        "record": {"all": rng.choice([True, False])},
    }.get(cmd, {})


def _command(rng):
    cmd = rng.choice(CMDS)
    msg = {"cmd": cmd}
    msg.update(_valid_args(cmd, rng))
    r = rng.random()
    if r < 0.8:
        msg["id"] = rng.randrange(1, 10 ** 6)
    elif r < 0.9:
        msg["id"] = _weird(rng)
    return msg


def _wrong_types(rng):
    msg = _command(rng)
    keys = [k for k in msg if k != "id"]
    for _ in range(rng.randrange(1, 3)):
        msg[rng.choice(keys + ["cmd", "ticket", "to", "seq", "piece", "double", "detectives"])] = _weird(rng)
    return msg


def payload(rng):
    """One fuzz line (bytes, without the final newline) and its kind."""
    kind = rng.choice(["broken", "huge", "noise", "turn", "types", "random", "cr"])
    if kind == "broken":
        text = json.dumps(_command(rng))
        k = rng.randrange(len(text))
        op = rng.randrange(4)
        if op == 0:
            text = text[:k]
        elif op == 1:
            text = text[:k] + rng.choice("{}[]\",:\\") + text[k:]
        elif op == 2:
            text = text[:k] + text[k + 1:]
        else:
            text = text.replace(":", rng.choice(["", "=", "::"]), 1)
        data = text.encode()
    elif kind == "huge":
        n = rng.choice([1023, 1024, 1025, 1500, 3000, 6000])
        msg = {"cmd": rng.choice(CMDS), "id": rng.randrange(1, 10 ** 6), "pad": ""}
        base = len(json.dumps(msg))
        msg["pad"] = "x" * max(0, n - base)
        data = json.dumps(msg).encode()
    elif kind == "noise":
        data = bytes(b for b in (rng.randrange(256) for _ in range(rng.randrange(1, 400))) if b not in (3, 10, 13))
        data = data or b"\x00"
    elif kind == "turn":
        data = json.dumps(_command(rng)).encode()
    elif kind == "types":
        data = json.dumps(_wrong_types(rng)).encode()
    elif kind == "random":
        def val(d):
            if d > 3 or rng.random() < 0.5:
                return _weird(rng)
            if rng.random() < 0.5:
                return [val(d + 1) for _ in range(rng.randrange(4))]
            return {rng.choice(["cmd", "id", "to", "x", "ticket"]): val(d + 1) for _ in range(rng.randrange(4))}
        data = json.dumps(val(0)).encode()
    else:  # a \r inside: the firmware ends a line there too
        a, b = json.dumps(_command(rng)), json.dumps(_command(rng))
        data = (a + "\r" + b).encode()
    return kind, data


def segments(data):
    parts = []
    for p in data.replace(b"\r", b"\n").split(b"\n"):
        if p:
            parts.append(p)
    return parts


def silent_ok(seg):
    """Only a well-formed ack without an id (absent or null) goes unanswered: a line that is not strict JSON is
    refused by the board (sy.link.proto.well_formed) and answered bad_input, id null."""
    try:
        m = json.loads(seg)
    except (ValueError, UnicodeError):
        return False
    return isinstance(m, dict) and m.get("cmd") == "ack" and m.get("id") is None  # "id": null = no id


def _names_id(segs, rid):
    """The reply's id is one the line names (MicroPython's json also reads some broken JSON)."""
    if isinstance(rid, bool) or not isinstance(rid, int):
        return False
    return any(str(rid).encode() in sg for sg in segs)


# --- board states ----------------------------------------------------------------------------
STATES = ("idle", "setup", "mrx", "detectives", "over")


class Fuzzer:
    def __init__(self, sim, raw):
        self.sim = sim
        self.raw = raw
        self.rid = SENTINEL * 2

    def req(self, cmd, **args):
        self.rid += 1
        return self.raw.request(self.rid, cmd, **args)

    def clear_board(self):
        for s in range(1, 200):
            if self.sim.switch(s):
                self.sim.set_switch(s, False)

    def wait_stage(self, pred, timeout=5.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            st = self.req("status")
            if pred(st):
                return st
            time.sleep(0.02)
        raise RuntimeError("the board did not reach the state: %s" % st)

    def build(self, state):
        sim = self.sim
        self.req("reset", confirm=True)
        self.clear_board()
        sim.settle()
        if state == "idle":
            return
        rounds = 1 if state == "over" else 22
        self.req("setup", detectives=[13, 26], bobbies=[29, 34], rounds=rounds, replace=True)
        if state == "setup":
            return
        for s in (13, 26, 29, 34):
            sim.place(s, settle=False)
        self.wait_stage(lambda st: st["stage"] == "play")
        if state == "mrx":
            return
        self.req("mrx", ticket="taxi")
        if state == "detectives":
            return
        for a, b in ((13, 4), (26, 39), (29, 41), (34, 22)):  # round 1 for everyone: the game ends
            sim.lift(a, settle=False)
            time.sleep(0.02)
            sim.place(b, settle=False)
            sim.settle()
        self.wait_stage(lambda st: st["stage"] == "over")


def run_fuzz(lines=10000, seed=1, heap=SIM_HEAP, scan_hz=1000, window=3000, log=None):
    """Returns the figures: fuzz_lines, fuzz_crashes, fuzz_unanswered, fuzz_state_changes and
    details (by kind, accepted changes, examples of failures)."""
    rng = random.Random(seed)
    t0 = time.monotonic()
    res = {"fuzz_lines": 0, "fuzz_crashes": 0, "fuzz_unanswered": 0, "fuzz_state_changes": 0,
           "fuzz_accepted_changes": 0, "fuzz_kinds": {}, "fuzz_examples": []}
    sim = RelSim(heapsize=heap, debounce_ms=10, config={"scan_hz": scan_hz})
    sim.start()
    raw = None
    try:
        raw = Raw(sim.port)
        raw.write(b"\n")
        fz = Fuzzer(sim, raw)
        fz.req("hello", proto=1, acked=0)
        per_state = max(1, lines // len(STATES))
        sent_total = 0
        for k, state in enumerate(STATES):
            n = per_state if k < len(STATES) - 1 else lines - per_state * (len(STATES) - 1)
            fz.build(state)
            base = fz.req("status")
            base_flash = flash_bytes(sim.folder)
            sid = SENTINEL
            done = 0
            pending = None
            while done < n:
                # a window of (line, sentinel) pairs whose bytes the ptys hold without blocking
                # a line that may change the game goes alone, so the flash is compared around it alone
                batch = []
                size = 0
                while done + len(batch) < n and (not batch or size < window):
                    if pending is None:
                        pending = payload(rng)
                    alone = _may_mutate(pending[1])
                    if batch and alone:
                        break
                    sid += 1
                    batch.append((pending[0], pending[1], sid))
                    size += len(pending[1]) + 40
                    pending = None
                    if alone:
                        break
                raw.write(b"".join(d + b"\n" + b'{"cmd":"status","id":%d}\n' % s for _k, d, s in batch))
                last = batch[-1][2]
                got, ok = raw.read_until(lambda m: m.get("id") == last and "ok" in m, timeout=10 + len(batch))
                replies = [m for m in got if "ok" in m]
                # split the replies at the sentinels
                groups, cur, stats = [], [], []
                for m in replies:
                    if isinstance(m.get("id"), int) and SENTINEL <= m["id"] < 2 * SENTINEL:
                        groups.append(cur)
                        stats.append(m)
                        cur = []
                    else:
                        cur.append(m)
                for i, (kind, data, s) in enumerate(batch):
                    res["fuzz_lines"] += 1
                    res["fuzz_kinds"][kind] = res["fuzz_kinds"].get(kind, 0) + 1
                    if i >= len(groups):
                        res["fuzz_unanswered"] += 1
                        _example(res, "unanswered (no sentinel)", data)
                        continue
                    segs = segments(data)
                    rep = groups[i]
                    silent = sum(1 for sg in segs if silent_ok(sg))
                    if not (len(segs) - silent <= len(rep) <= len(segs)) or any(
                            m.get("id") is not None and not _names_id(segs, m["id"]) for m in rep):
                        res["fuzz_unanswered"] += 1
                        _example(res, "answers %s for %d line(s)" % ([m.get("id") for m in rep], len(segs)), data)
                    for m in rep:
                        if not isinstance(m.get("ok"), bool) or (not m["ok"] and (
                                m.get("error") not in CODES or "message" in m or not isinstance(m.get("why", ""), str))):  # codes, no sentence
                            res["fuzz_unanswered"] += 1
                            _example(res, "malformed reply %r" % m, data)
                        if m.get("error") == "internal":
                            res["fuzz_crashes"] += 1
                            _example(res, "internal error %r" % m.get("why"), data)
                    after = stats[i]
                    changed_ok = any(m.get("ok") for m in rep) and _may_mutate(data)
                    now_flash = flash_bytes(sim.folder) if i == len(batch) - 1 else base_flash
                    st_after = {k2: v for k2, v in after.items() if k2 != "id"}
                    st_base = {k2: v for k2, v in base.items() if k2 != "id"}
                    if changed_ok:
                        if st_after != st_base or now_flash != base_flash:
                            res["fuzz_accepted_changes"] += 1
                    elif st_after != st_base or now_flash != base_flash:
                        res["fuzz_state_changes"] += 1
                        _example(res, "in state %s, %s changed by a rejected line (%s)" % (
                            state, [n for n in set(now_flash) | set(base_flash) if now_flash.get(n) != base_flash.get(n)],
                            _diff(st_base, st_after)), data)
                    base, base_flash = after, now_flash
                done += len(batch)
                sent_total += len(batch)
                if not sim.alive():
                    res["fuzz_crashes"] += 1
                    _example(res, "the firmware process died", batch[-1][1])
                    sim.restart()
                    time.sleep(0.3)
                if not ok:
                    time.sleep(0.5)
                    raw.read_until(lambda m: False, timeout=0.5)
                if res["fuzz_accepted_changes"] and base.get("stage") != _stage_of(state):
                    fz.build(state)
                    base = fz.req("status")
                    base_flash = flash_bytes(sim.folder)
            if log:
                log("fuzz: %s: %d lines" % (state, n))
        res["fuzz_crashes"] += len(raw.other)
        for line in raw.other[:5]:
            _example(res, "non-JSON output", line)
    finally:
        if raw:
            raw.close()
        sim.stop()
    res["fuzz_seconds"] = round(time.monotonic() - t0, 1)
    return res


_MUTATING = (b"setup", b"mrx", b"choose", b"capture", b"cornered", b"reveal", b"reset")


def _may_mutate(data):
    return any(w in data for w in _MUTATING)


def _stage_of(state):
    return {"idle": "idle", "setup": "setup", "mrx": "play", "detectives": "play", "over": "over"}[state]


def _diff(a, b):
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return ", ".join("%s: %r -> %r" % (k, a.get(k), b.get(k)) for k in keys[:4]) or "flash bytes"


def _example(res, what, data):
    if len(res["fuzz_examples"]) < 10:
        res["fuzz_examples"].append("%s: %r" % (what, bytes(data)[:160]))
