"""The board's side of the line protocol (docs/protocol.md): JSON lines, commands with ids and
replies, sequenced events the host acknowledges, unsequenced notes. A line is checked here and
handed to its command's handler: the session's own (hello, ack, ping, mem) below, the game's in
sy/link/handlers.py, service mode's in sy/link/service.py. Nothing here may crash the board: every
failure becomes an error reply."""
import json
import sys

from sy import forget
from sy.rules.base import RuleError
from sy.link.fields import ProtoError, PROTO, FIRMWARE


# JSON byte classes (ASCII): 1 white space, 2 in a number or literal, 4 may follow a backslash
_CLASS = b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x02\x02\x04\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x02\x04\x00\x00\x02\x06\x00\x00\x00\x00\x00\x02\x00\x06\x00\x00\x00\x06\x02\x06\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'


def well_formed(raw):
    """True if raw (bytes) is one JSON value by the grammar's separators and escapes.

    MicroPython's json reads some broken JSON (a missing colon, an unknown escape); a line that
    is not JSON must never run as a command. Allocates nothing."""
    state = 0  # 0 a value, 1 after a value, 2 a key or '}', 3 ':', 4 a key, 5 a value or ']'
    objs = 0   # bit k set: nesting level k is an object (else an array)
    depth = 0
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        i += 1
        k = _CLASS[c] if c < 128 else 0
        if k & 1:
            continue
        if state == 3:
            if c != 58:  # ':'
                return False
            state = 0
        elif state == 1:
            if not depth:
                return False
            obj = objs >> (depth - 1) & 1
            if c == 44:  # ','
                state = 4 if obj else 0
            elif c == (125 if obj else 93):  # '}' or ']'
                depth -= 1
            else:
                return False
        elif (state == 2 and c == 125) or (state == 5 and c == 93):
            depth -= 1
            state = 1
        elif c == 34:  # '"': a string, checked to its end
            while i < n and raw[i] != 34:
                if raw[i] < 32:
                    return False
                if raw[i] == 92:
                    i += 1
                    if i >= n or raw[i] >= 128 or not _CLASS[raw[i]] & 4:
                        return False
                i += 1
            if i >= n:
                return False
            i += 1
            state = 3 if state in (2, 4) else 1
        elif state in (2, 4):
            return False
        elif c == 123 or c == 91:  # '{' or '['
            if depth >= 30:
                return False
            objs = (objs & ~(1 << depth)) | ((c == 123) << depth)
            depth += 1
            state = 2 if c == 123 else 5
        elif k & 2:
            while i < n and raw[i] < 128 and _CLASS[raw[i]] & 2:
                i += 1
            state = 1
        else:
            return False
    return state == 1 and depth == 0


class Protocol:
    def __init__(self, link, board_name, app):
        self.link = link
        self.app = app
        self.board = None  # set by the app (the board needs us as its output first)
        self.revealed = None  # how far a reveal arriving in chunks got (sy/play/verify.py's new_state())
        self.board_name = board_name
        self.job = None  # an answer made in steps, a step a scan cycle (sy/app.py): (id, generator)

    # --- output (the board's `out`) -----------------------------------------------------------
    def event(self, seq, text):
        self.link.send('{"seq":%d,"ev":%s}' % (seq, text))

    def note(self, obj):
        try:
            self.link.send_json(obj)
        except Exception:
            pass

    def _reply(self, rid, obj):
        obj["id"] = rid
        obj["ok"] = True
        self.link.send_json(obj)

    def _error(self, rid, code, message):
        self.link.send_json({"id": rid, "ok": False, "error": code, "message": message})

    # --- input --------------------------------------------------------------------------------
    def too_long(self):
        self._error(None, "too_long", "the line is longer than %d bytes" % len(self.link.buf))

    def handle(self, raw):
        rid = cmd = None
        reading = False
        try:
            try:
                valid = well_formed(raw)
                msg = json.loads(raw) if valid else None
            except (ValueError, UnicodeError):
                valid = False
            if not valid:
                raise ProtoError("bad_input", "the line is not valid JSON")
            if not isinstance(msg, dict):
                raise ProtoError("bad_input", "a command must be a JSON object")
            rid = msg.get("id")
            if rid is not None and (not isinstance(rid, int) or isinstance(rid, bool)):
                rid = None
                raise ProtoError("bad_input", "id must be an integer")
            name = msg.get("cmd")
            if not isinstance(name, str):
                raise ProtoError("bad_input", "unknown command %r", name)
            cmd = name
            fn = _LINK_COMMANDS.get(cmd)
            if fn is None and cmd in _GAME_COMMANDS:
                from sy.link import handlers  # loaded at the first of the game's commands, kept
                fn = getattr(handlers, "handle_" + cmd)
            if fn is None and cmd[:4] == "svc_":
                from sy.link import service  # yard calibrate / selftest: loaded only for these, dropped at svc_end
                fn = service.handle
            if fn is None:
                raise ProtoError("bad_input", "unknown command %r", cmd)
            if cmd in _CHANGES_THE_GAME and self.app is not None and self.app.board is not self.board:
                raise ProtoError("wrong_turn", "the board is in service mode: end yard calibrate/selftest first")
            if rid is None and cmd != "ack":
                raise ProtoError("bad_input", "every command but ack needs an integer id")
            reading = cmd in _READ_THE_JOURNAL and self.app is not None
            if reading:
                self.app.reading_journal(True)
            out = fn(self, msg)
            if hasattr(out, "send") and self.app is not None:  # a generator: answered in steps (step())
                self.job = rid, out
                return
            if rid is not None:
                self._reply(rid, out or {})
            if cmd == "hello":
                self.resend(msg.get("acked", 0))
        except KeyboardInterrupt:
            raise
        except Exception as e:
            self._refuse(rid, e)
        finally:
            if reading:
                self.app.reading_journal(False)
            for name in _ONCE_A_GAME.get(cmd, ()):
                forget(name)

    def step(self):
        """The next step of the answer in hand (self.job: the main loop calls this, a step a cycle,
        while it is there); the reply after the last step, or the error that ended it."""
        rid, job = self.job
        try:
            try:
                next(job)
                return
            except StopIteration as e:
                out = e.args[0] if e.args else None
            self.job = None
            self._reply(rid, out or {})
        except KeyboardInterrupt:
            raise
        except Exception as e:
            self.job = None
            self._refuse(rid, e)

    def _refuse(self, rid, e):
        """The error reply for what a command raised: nothing here may crash the board."""
        if isinstance(e, RuleError):
            self._error(rid, e.code, e.message)
        elif isinstance(e, MemoryError):
            self._error(rid, "no_memory", "the board ran out of memory for this command")
        else:  # a bug: report it, keep the board alive
            self._error(rid, "internal", "%s: %s" % (type(e).__name__, e))
            if hasattr(sys, "print_exception"):
                sys.print_exception(e)

    def resend(self, acked):
        """Every event after seq acked, again (after the hello reply: what the host missed)."""
        for seq, text in self.board.store.lines(acked + 1):
            self.event(seq, text)

    # --- the session's own commands -----------------------------------------------------------
    def handle_hello(self, msg):
        """The status, with the versions; handle() then resends the events after `acked`."""
        v = msg.get("proto")
        if not isinstance(v, int) or isinstance(v, bool) or v != PROTO:  # 1.0 and true are not the version 1
            raise ProtoError("version", "the board speaks protocol %d, the host %r" % (PROTO, v))
        acked = msg.get("acked", 0)
        if not isinstance(acked, int) or acked < 0:
            raise ProtoError("bad_input", "acked must be a whole number")
        from sy.play.status import status
        b = self.board
        st = status(b)
        st["proto"] = PROTO
        st["firmware"] = FIRMWARE
        st["board"] = self.board_name
        st["map"] = b.game.graph.name if b.game else "london"
        return st

    def handle_ack(self, msg):
        """An event the host has (the board keeps no count: the host's hello says what it has)."""
        seq = msg.get("seq")
        if not isinstance(seq, int) or seq < 0 or seq > self.board.store.seq:
            raise ProtoError("bad_input", "seq must be an event number the board sent")
        return None

    def handle_ping(self, msg):
        return {"seq": self.board.store.seq}

    def handle_mem(self, msg):
        """The heap; with watch, the main loop measured (sy/cyclewatch.py, outside the loop's own
        code, loaded only for a board that is watched)."""
        import gc
        app = self.app
        if app is not None and (msg.get("watch") or getattr(app, "watch", None) is not None):
            from sy import cyclewatch
            return cyclewatch.mem(app, self.board, msg)
        if not hasattr(gc, "mem_alloc"):
            return {"watching": False} if app is not None else {}
        gc.collect()
        out = {"alloc": gc.mem_alloc(), "free": gc.mem_free()}
        if app is not None:
            out["watching"] = False
        return out


_LINK_COMMANDS = {"hello": Protocol.handle_hello, "ack": Protocol.handle_ack, "ping": Protocol.handle_ping,
                  "mem": Protocol.handle_mem}
# the game's commands: sy/link/handlers.py's handle_<cmd>
_GAME_COMMANDS = ("status", "mrx", "choose", "undo", "capture", "cornered", "guide", "setup", "reset",
                  "reveal", "record", "reed", "place")
# what comes at most once a game (the setup, the fair-play check, the record, reeds out of service):
# the game flow's module and the rules' module its command brought are dropped after it, not
# carried through the rest of the game (measured on the Pico: docs/memory.md)
_ONCE_A_GAME = {"setup": ("play.newgame", "rules.gamestart"), "reset": ("play.newgame", "rules.gamestart"),
                "reveal": ("play.verify", "rules.commit"), "record": ("play.report",),
                "reed": ("play.deadreed",), "place": ("play.deadreed",)}
# commands that read the whole journal: collected as they go (sy/app.py's GC_EVERY_READING)
_READ_THE_JOURNAL = ("hello", "record", "reveal", "capture", "cornered")
# commands that change the game: refused while service mode has the switches and LEDs
_CHANGES_THE_GAME = ("mrx", "choose", "setup", "reset", "reveal", "capture", "cornered", "guide", "undo", "place")
