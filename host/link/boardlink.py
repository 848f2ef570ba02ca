"""The host's end of the board protocol (docs/protocol.md) over any pyserial port or URL.

    link = BoardLink("/dev/ttyACM0")             # or "socket://..", "loop://", a SimBoard's port
    info = link.open()                            # hello: protocol version check, resend of events
    link.request("setup", detectives=[13, 26])    # -> reply dict, or raises BoardCommandError
    for ev in link.poll(0.5): ...                 # board events, in order, each exactly once

Events carry sequence numbers; the link acknowledges each one after handing it out, drops
duplicates (a resend after a reconnect) and asks for a resend when it sees a gap. `applied` (the
last event handed out) is what a host saves to resume later: BoardLink(port, applied=N).
"""
import json
import threading
import time

import serial

from host.errors import BoardError
from host.link.auth import LinkKey, PortShared, claim_port
from host.link.ports import explain_open_error

PROTO = 1
# Mister X's moves per reveal line: the board checks each line as it comes (sy/play/verify.py), and a
# short line is a small object on its heap, at the end of a game when the heap is fullest.
REVEAL_CHUNK = 2


def reveal_requests(start, moves, chunk=REVEAL_CHUNK):
    """The reveal command's arguments, line by line: his start [salt, station], then his moves
    [[salt, station], ...] `chunk` at a time, `more` on every line but the last."""
    moves = list(moves)
    offset = 0
    while True:
        args = {"offset": offset, "moves": moves[offset:offset + chunk]}
        if offset == 0:
            args["start"] = start
        if offset + chunk < len(moves):
            args["more"] = True
        yield args
        offset += chunk
        if offset >= len(moves):
            return


class LinkError(BoardError):
    """The link failed: `code` names how, `message` says it for a person."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class BoardTimeout(LinkError):
    def __init__(self, what, seconds):
        super().__init__("timeout", "the board did not answer %s within %.1f s" % (what, seconds))


class VersionMismatch(LinkError):
    pass


class LinkClosed(LinkError):
    pass


class BoardCommandError(LinkError):
    """The board refused a command (error codes: docs/protocol.md)."""


class BoardLink:
    def __init__(self, port, baudrate=115200, timeout=5.0, applied=0, on_event=None, on_note=None):
        self.port = port
        self.baudrate = baudrate
        self.timeout = timeout
        self.applied = applied  # last event seq handed out
        self.on_event = on_event
        self.on_note = on_note
        self.ser = None
        self.next_id = 1
        self.events = []   # (seq, event dict) not yet taken by poll()
        self.notes = []    # unsequenced notes
        self.console = []  # lines that were not protocol JSON (tracebacks, REPL text)
        self.info = None   # the last hello reply
        self.key = LinkKey()  # the game's key: Mister X's lines tagged (host/link/auth.py, docs/fairplay.md)
        self._replies = {}
        self._streams = {}
        self._partial = b""
        # a second thread may send a command (the browser view's `reed`, host/web/server.py) while
        # the game's thread polls: the reading, the ids and the hand-over of events are locked
        self._lock = threading.RLock()

    # --- connection ---------------------------------------------------------------------------
    def open(self):
        try:
            self.ser = serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=0)
        except (serial.SerialException, OSError, ValueError) as e:
            raise LinkClosed("closed", explain_open_error(self.port, e))
        try:
            claim_port(self.ser, self.port)  # no other program may read the key or write for him
        except PortShared:
            self.close()
            raise
        self._partial = b""
        self._write(b"\n")  # end any half line left over from before
        return self.hello()

    def close(self):
        if self.ser is not None:
            try:
                self.ser.close()
            except Exception:
                pass
            self.ser = None

    def reconnect(self, attempts=20, delay=0.25):
        """Close, reopen and hello again; the board then resends unacknowledged events."""
        self.close()
        last = None
        for _ in range(attempts):
            try:
                return self.open()
            except LinkError as e:
                last = e
                self.close()
                time.sleep(delay)
        raise last

    def hello(self):
        reply = self.request("hello", proto=PROTO, acked=self.applied, **self.key.hello_args())
        self.info = reply
        return reply

    def __enter__(self):
        if self.ser is None:
            self.open()
        return self

    def __exit__(self, *exc):
        self.close()

    # --- commands -----------------------------------------------------------------------------
    def request(self, cmd, timeout=None, **args):
        """Send a command and wait for its reply. Returns the reply (dict) or raises. A line that
        speaks for Mister X goes tagged; if the board lost the key (it restarted), hello gives it
        again and the line goes once more."""
        try:
            return self._request(cmd, timeout, args)
        except BoardCommandError as e:
            if cmd == "hello" or not self.key.lost(e.code):
                raise
        self.hello()
        return self._request(cmd, timeout, args)

    def _request(self, cmd, timeout, args):
        with self._lock:
            rid = self.next_id
            self.next_id += 1
            msg = dict(args)
            msg["cmd"] = cmd
            msg["id"] = rid
            line = self.key.line(msg) or json.dumps(msg, separators=(",", ":")).encode()
            self._write(line + b"\n")
        limit = self.timeout if timeout is None else timeout
        end = time.monotonic() + limit
        while rid not in self._replies:
            left = end - time.monotonic()
            if left <= 0:
                raise BoardTimeout(repr(cmd), limit)
            self._pump(min(left, 0.05), first=True)
        reply = self._replies.pop(rid)
        self.key.took(cmd, args, reply)
        if not reply.get("ok"):
            code = reply.get("error", "unknown")
            msg = reply.get("message", "the board refused %s" % cmd)
            if code == "version":
                raise VersionMismatch(code, msg)
            raise BoardCommandError(code, msg)
        return reply

    def record(self, everything=False, timeout=None):
        """The board's game record as a list of line dicts (everything: the whole journal)."""
        rid = self.next_id
        self._streams[rid] = []
        try:
            self.request("record", timeout=timeout, all=everything)
            return self._streams[rid]
        finally:
            self._streams.pop(rid, None)

    def reveal(self, start, moves, chunk=REVEAL_CHUNK, timeout=None):
        """After the game: reveal Mister X's start [salt, station] and moves [[salt, station], ...]
        a few per line (reveal_requests). Returns the final reply (verified, message)."""
        for args in reveal_requests(start, moves, chunk):
            reply = self.request("reveal", timeout=timeout, **args)
        return reply

    # --- events -------------------------------------------------------------------------------
    def poll(self, timeout=0.0):
        """Read for up to timeout seconds; returns the new events [(seq, event)] in order."""
        end = time.monotonic() + timeout
        while True:
            self._pump(max(0.0, min(0.05, end - time.monotonic())))
            if self.events or time.monotonic() >= end:
                break
        with self._lock:
            out, self.events = self.events, []
        return out

    def wait_event(self, kind=None, timeout=None, pred=None):
        """Wait for an event whose type is kind (and pred(ev) holds); returns (seq, ev).
        Events before it are dropped from the queue (they are still acknowledged)."""
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            while self.events:
                seq, ev = self.events.pop(0)
                if (kind is None or ev.get("type") == kind) and (pred is None or pred(ev)):
                    return seq, ev
            left = end - time.monotonic()
            if left <= 0:
                raise BoardTimeout("with a %s event" % (kind or "any"), self.timeout if timeout is None else timeout)
            self._pump(min(left, 0.05), first=True)

    def wait_note(self, name, timeout=None):
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            for k, n in enumerate(self.notes):
                if n.get("note") == name:
                    del self.notes[:k + 1]
                    return n
            left = end - time.monotonic()
            if left <= 0:
                raise BoardTimeout("with a %s note" % name, self.timeout if timeout is None else timeout)
            self._pump(min(left, 0.05), first=True)

    # --- bytes --------------------------------------------------------------------------------
    def _write(self, data):
        if self.ser is None:
            raise LinkClosed("closed", "the link to the board is not open")
        try:
            self.ser.write(data)
            self.ser.flush()
        except (serial.SerialException, OSError) as e:
            raise LinkClosed("closed", "writing to the board failed: %s" % e)

    def _pump(self, wait, first=False):
        """Read and handle lines for `wait` seconds; with first=True, return as soon as a line has
        been handled (the callers that wait for a reply, an event or a note check after each)."""
        with self._lock:
            self._pump_locked(wait, first)

    def _pump_locked(self, wait, first):
        if self.ser is None:
            raise LinkClosed("closed", "the link to the board is not open")
        end = time.monotonic() + wait
        while True:
            try:
                data = self.ser.read(self.ser.in_waiting or 1)
            except (serial.SerialException, OSError) as e:
                raise LinkClosed("closed", "reading from the board failed: %s" % e)
            if data:
                self._partial += data
                handled = False
                while b"\n" in self._partial:
                    line, self._partial = self._partial.split(b"\n", 1)
                    self._line(line.strip(b"\r"))
                    handled = True
                if handled and first:
                    return
                continue
            if time.monotonic() >= end:
                return
            time.sleep(0.002)

    def _line(self, raw):
        if not raw:
            return
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            self.console.append(raw.decode("utf-8", "replace"))
            del self.console[:-200]
            return
        if "seq" in msg and "ev" in msg:
            self._event(msg["seq"], msg["ev"])
        elif "ok" in msg and "id" in msg:
            self._replies[msg["id"]] = msg
        elif "line" in msg and msg.get("id") in self._streams:
            self._streams[msg["id"]].append(msg["line"])
        elif "note" in msg:
            self.notes.append(msg)
            del self.notes[:-500]
            if self.on_note:
                self.on_note(msg)
        elif "ok" in msg:  # an error without an id (malformed line)
            self._replies.setdefault(None, msg)

    def _event(self, seq, ev):
        if seq == 1 and isinstance(ev, dict) and ev.get("type") == "setup" and self.applied:
            # a new game starts a new journal at 1; the board never resends 1 to a host past it
            self.applied = 0
        if seq <= self.applied:
            self._ack(seq)  # a resend of something we have: never apply twice
            return
        if seq != self.applied + 1:
            # a gap: something got lost; ask for everything after what we have
            self._write(json.dumps({"cmd": "hello", "proto": PROTO, "acked": self.applied,
                                    "id": self._next()}).encode() + b"\n")
            return
        self.applied = seq
        self.events.append((seq, ev))
        if self.on_event:
            self.on_event(seq, ev)
        self._ack(seq)

    def _next(self):
        rid = self.next_id
        self.next_id += 1
        return rid

    def _ack(self, seq):
        self._write(('{"cmd":"ack","seq":%d}\n' % seq).encode())
