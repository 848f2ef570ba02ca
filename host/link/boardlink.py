"""The host's end of the board protocol (docs/protocol.md) over any pyserial port or URL.

    link = BoardLink("/dev/ttyACM0")             # or "socket://..", "loop://", a SimBoard's port
    info = link.open()                            # hello: protocol version check, resend of events
    link.request("setup", detectives=[13, 26])    # -> reply dict, or raises BoardCommandError
    for ev in link.poll(0.5): ...                 # board events, in order, each exactly once

One reader thread owns the port's input, as pyserial's `serial.threaded.ReaderThread` does: it
cuts the bytes into lines and hands each to `handle_line`, which files a reply for the request
waiting on its id, an event into the event queue, a note into the notes. Callers only wait on a
condition for what they asked; nobody else reads the port or the link's buffers. Every line to the
board is built by `command_line` and written by `send`, the one way out.

Events carry sequence numbers; the link acknowledges each one after queueing it, drops duplicates
(a resend after a reconnect) and asks for a resend when it sees a gap. `applied` (the last event
handed out) is what a host saves to resume later: BoardLink(port, applied=N).

`on_event(seq, ev)` and `on_note(note)` run on the reader thread: they must not wait on the link.
"""
import collections
import json
import threading
import time

import serial

from host.errors import BoardError
from host.i18n import _, number
from host.link.auth import LinkKey, PortShared, claim_port
from host.link.ports import explain_open_error
from sy.link.fields import PROTO  # the board's own constant: both ends speak the same version

# Mister X's moves per reveal line: the board checks each line as it comes (sy/play/verify.py), and a
# short line is a small object on its heap, at the end of a game when the heap is fullest.
REVEAL_CHUNK = 2
# How long the reader's blocking read waits before it looks whether the link is being closed.
READ_WAIT_S = 0.05
KEEP_CONSOLE_LINES = 200
KEEP_NOTES = 500
KEEP_REFUSALS = 20


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
        super().__init__("timeout", _("the board did not answer %(what)s within %(seconds)s s")
                         % {"what": what, "seconds": number(round(seconds, 1))})


class VersionMismatch(LinkError):
    pass


class LinkClosed(LinkError):
    pass


class BoardCommandError(LinkError):
    """The board refused a command (error codes: docs/protocol.md): `code`, and the detail `why` with
    its `values` where the board sent them; `message` words them in the player's language."""

    def __init__(self, code, message, why=None, values=()):
        super().__init__(code, message)
        self.why = why
        self.values = tuple(values)


def refused(reply):
    """The error for an error reply: codes and values as the board sent them, worded here."""
    from host import refusals
    code = reply.get("error", "unknown")
    args = reply.get("args")
    values = tuple(args) if isinstance(args, list) else ()
    why = reply.get("why") if isinstance(reply.get("why"), str) else None
    cls = VersionMismatch if code == "version" else BoardCommandError
    e = cls(code, refusals.refusal(code, why=why, args=values))
    e.why, e.values = why, values
    return e


class BoardLink:
    def __init__(self, port, baudrate=115200, timeout=5.0, applied=0, on_event=None, on_note=None):
        self.port = port
        self.baudrate = baudrate
        self.timeout = timeout
        self.applied = applied  # last event seq handed out
        self.on_event = on_event
        self.on_note = on_note
        self.ser = None
        self.info = None   # the last hello reply
        self.console = collections.deque(maxlen=KEEP_CONSOLE_LINES)  # lines that were not protocol JSON
        # Everything the reader files and the callers take is guarded by this one condition; the
        # reader notifies it after each line it files.
        self._filed = threading.Condition()
        self._events = collections.deque()  # (seq, event dict) not yet taken
        self._notes = collections.deque(maxlen=KEEP_NOTES)
        self._refusals = collections.deque(maxlen=KEEP_REFUSALS)  # error replies the board tied to no id
        self._replies = {}   # id -> reply, or None while its request waits
        self._streams = {}   # id -> the record lines streamed before its reply
        self._failure = None  # why the reader stopped (a LinkError), until the next open
        self._next_id = 1
        self._sending = threading.Lock()  # one line on the wire at a time, built in the order sent
        self._reader = None
        self._stop_reading = None
        self.key = LinkKey()  # the game's key: Mister X's lines tagged (host/link/auth.py, docs/fairplay.md)

    # --- connection ---------------------------------------------------------------------------
    def open(self):
        """Open the port (closing it first if open: one reader per link, or two would split the
        board's lines between them) and say hello. Returns the hello reply."""
        self.close()
        try:
            ser = serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=READ_WAIT_S)
        except (serial.SerialException, OSError, ValueError) as e:
            raise LinkClosed("closed", explain_open_error(self.port, e))
        try:
            claim_port(ser, self.port)  # no other program may read the key or write for him
        except PortShared:
            ser.close()
            raise
        with self._filed:
            self.ser = ser
            self._failure = None
        stop = self._stop_reading = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, args=(ser, stop), daemon=True,
                                        name="boardlink-reader")
        self._reader.start()
        self._transmit(b"\n")  # end any half line left over from before
        return self.hello()

    def close(self):
        if self._stop_reading is not None:
            self._stop_reading.set()
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            reader.join(2 * READ_WAIT_S + 1.0)
        with self._filed:
            ser, self.ser = self.ser, None
            self._filed.notify_all()
        if ser is not None:
            try:
                ser.close()
            except Exception:  # noqa: BLE001 (a port that vanished may fail to close in any way)
                pass

    def reconnect(self, attempts=20, delay=0.25):
        """Close, reopen and hello again; the board then resends unacknowledged events."""
        self.close()
        last = None
        for _attempt in range(attempts):
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

    # --- the way out --------------------------------------------------------------------------
    def command_line(self, msg):
        """The bytes of one command (a dict with `cmd`) on the wire: every line to the board is
        made here, in the order it is sent. A line that speaks for Mister X carries his host's
        tag (host/link/auth.py)."""
        return (self.key.line(msg) or json.dumps(msg, separators=(",", ":")).encode()) + b"\n"

    def send(self, msg):
        """Write one command without waiting for anything (acks; request() waits for a reply)."""
        with self._sending:
            self._transmit(self.command_line(msg))

    def _transmit(self, data):
        ser = self.ser
        if ser is None:
            raise LinkClosed("closed", "the link to the board is not open")
        try:
            ser.write(data)
            ser.flush()
        except (serial.SerialException, OSError, TypeError, AttributeError) as e:  # closed under us
            raise LinkClosed("closed", "writing to the board failed: %s" % e)

    # --- commands -----------------------------------------------------------------------------
    def request(self, cmd, timeout=None, **args):
        """Send a command and wait for its reply. Returns the reply (dict) or raises. If the board
        lost the game's key (it restarted), hello gives it again and the line goes once more."""
        try:
            return self._exchange(cmd, args, timeout)
        except BoardCommandError as e:
            if cmd == "hello" or not self.key.lost(e.code):
                raise
        self.hello()
        return self._exchange(cmd, args, timeout)

    def _exchange(self, cmd, args, timeout, stream=None):
        limit = self.timeout if timeout is None else timeout
        with self._filed:
            self._raise_if_down()
            rid = self._next_id
            self._next_id += 1
            self._replies[rid] = None
            if stream is not None:
                self._streams[rid] = stream
        try:
            msg = dict(args)
            msg["cmd"] = cmd
            msg["id"] = rid
            self.send(msg)
            with self._filed:
                if not self._filed.wait_for(lambda: self._replies[rid] is not None or self._down(), limit):
                    raise BoardTimeout(repr(cmd), limit)
                reply = self._replies[rid]
                if reply is None:
                    self._raise_if_down()
        finally:
            with self._filed:
                self._replies.pop(rid, None)
                self._streams.pop(rid, None)
        self.key.took(cmd, args, reply)
        if not reply.get("ok"):
            raise refused(reply)
        return reply

    def record(self, everything=False, timeout=None):
        """The board's game record as a list of line dicts (everything: the whole journal)."""
        lines = []
        self._exchange("record", {"all": everything}, timeout, stream=lines)
        return lines

    def reveal(self, start, moves, chunk=REVEAL_CHUNK, timeout=None):
        """After the game: reveal Mister X's start [salt, station] and moves [[salt, station], ...]
        a few per line (reveal_requests). Returns the final reply (verified, why, args)."""
        for args in reveal_requests(start, moves, chunk):
            reply = self.request("reveal", timeout=timeout, **args)
        return reply

    # --- what the board said on its own ---------------------------------------------------------
    def poll(self, timeout=0.0):
        """Wait up to timeout seconds for events; returns the new events [(seq, event)] in order."""
        with self._filed:
            self._filed.wait_for(lambda: self._events or self._down(), timeout)
            if not self._events:
                self._raise_if_down()
            out = list(self._events)
            self._events.clear()
        return out

    def wait_event(self, kind=None, timeout=None, pred=None):
        """Wait for an event whose type is kind (and pred(ev) holds); returns (seq, ev).
        Events before it are dropped from the queue (they are still acknowledged)."""
        limit = self.timeout if timeout is None else timeout
        found = []

        def match():
            while self._events:
                seq, ev = self._events.popleft()
                if (kind is None or ev.get("type") == kind) and (pred is None or pred(ev)):
                    found.append((seq, ev))
                    return True
            return self._down()

        with self._filed:
            if not self._filed.wait_for(match, limit):
                raise BoardTimeout("with a %s event" % (kind or "any"), limit)
            if not found:
                self._raise_if_down()
        return found[0]

    def wait_note(self, name, timeout=None):
        """Wait for a note called name; notes before it are dropped. Returns the note."""
        limit = self.timeout if timeout is None else timeout
        found = []

        def match():
            while self._notes:
                n = self._notes.popleft()
                if n.get("note") == name:
                    found.append(n)
                    return True
            return self._down()

        with self._filed:
            if not self._filed.wait_for(match, limit):
                raise BoardTimeout("with a %s note" % name, limit)
            if not found:
                self._raise_if_down()
        return found[0]

    def take_notes(self):
        """The notes that came since the last call (lifted, where, illegal...), oldest first."""
        with self._filed:
            out = list(self._notes)
            self._notes.clear()
        return out

    def take_refusal(self, timeout=0.0):
        """The oldest error reply the board could not tie to a command (a line it could not read),
        waiting up to timeout seconds for one; None if there is none."""
        with self._filed:
            self._filed.wait_for(lambda: self._refusals, timeout)
            return self._refusals.popleft() if self._refusals else None

    # --- the reader ---------------------------------------------------------------------------
    def _read_loop(self, ser, stop):
        """The reader of one opened port: it stops when told, and never speaks for a later one."""
        partial = b""
        try:
            while not stop.is_set() and self.ser is ser:
                self._check_link()
                data = ser.read(ser.in_waiting or 1)
                if not data:
                    continue
                partial += data
                while b"\n" in partial:
                    line, partial = partial.split(b"\n", 1)
                    self.handle_line(line.strip(b"\r"))
        except LinkError as e:
            self._fail(e, ser)
        except Exception as e:  # noqa: BLE001 (serial, OS, a port closed under us: the link is down)
            if not stop.is_set():
                self._fail(LinkClosed("closed", "reading from the board failed: %s" % e), ser)

    def _check_link(self):
        """Raise LinkError when the link is known to be gone (a hook: the reader calls it often)."""

    def _fail(self, error, ser):
        with self._filed:
            if self.ser is ser:  # a reader that outlived its port (a slow join) says nothing
                self._failure = error
                self._filed.notify_all()

    def _down(self):
        return self._failure is not None or self.ser is None

    def _raise_if_down(self):
        if self.ser is None:
            raise LinkClosed("closed", "the link to the board is not open")
        if self._failure is not None:
            f = self._failure
            e = type(f)(f.code, f.message)
            e.why, e.values = getattr(f, "why", None), getattr(f, "values", ())
            raise e

    def handle_line(self, raw):
        """One line from the board, filed for whoever waits for it (the reader thread calls this)."""
        if not raw:
            return
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            with self._filed:
                self.console.append(raw.decode("utf-8", "replace"))
            return
        if "seq" in msg and "ev" in msg:
            self._event(msg["seq"], msg["ev"])
            return
        with self._filed:
            rid = msg.get("id")
            if "ok" in msg and rid in self._replies:
                self._replies[rid] = msg
            elif "ok" in msg and rid is None:
                self._refusals.append(msg)
            elif "line" in msg and rid in self._streams:
                self._streams[rid].append(msg["line"])
            elif "note" in msg:
                self._notes.append(msg)
            else:
                return  # a reply nobody waits for (a gap's hello): nothing to file
            self._filed.notify_all()
        if "note" in msg and self.on_note:
            self.on_note(msg)

    def _event(self, seq, ev):
        if not isinstance(seq, int) or isinstance(seq, bool) or not isinstance(ev, dict):
            return
        with self._filed:
            if seq == 1 and ev.get("type") == "setup" and self.applied:
                # a new game starts a new journal at 1; the board never resends 1 to a host past it
                self.applied = 0
            if seq <= self.applied:
                resend, gap = True, False  # a resend of something we have: never apply twice
            elif seq != self.applied + 1:
                resend, gap = False, True
                rid = self._next_id
                self._next_id += 1
            else:
                resend = gap = False
                self.applied = seq
                self._events.append((seq, ev))
                self._filed.notify_all()
        if gap:
            # something got lost: ask for everything after what we have
            self.send({"cmd": "hello", "proto": PROTO, "acked": self.applied, "id": rid})
            return
        if not resend and self.on_event:
            self.on_event(seq, ev)
        self.send({"cmd": "ack", "seq": seq})
