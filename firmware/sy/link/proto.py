"""The board's side of the line protocol (docs/protocol.md): JSON lines, commands with ids and
replies, sequenced events the host acknowledges, unsequenced notes. Nothing here may crash the
board: every failure becomes an error reply."""
import json
import sys

from sy import forget, load
from sy.rules.base import RuleError
from sy.link.fields import ProtoError, PROTO, FIRMWARE, ticket_arg  # noqa: F401 (PROTO, FIRMWARE: the public names)


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
        self.revealed = None  # [start, [[salt, station], ...]] while a reveal arrives in chunks
        self.board_name = board_name
        self.acked = 0
        self.hello_seen = False

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
        rid = module = None
        try:
            try:
                msg = json.loads(raw) if well_formed(raw) else None
            except (ValueError, UnicodeError):
                msg = None
            if msg is None:
                raise ProtoError("bad_input", "the line is not valid JSON")
            if not isinstance(msg, dict):
                raise ProtoError("bad_input", "a command is a JSON object")
            rid = msg.get("id")
            if rid is not None and (not isinstance(rid, int) or isinstance(rid, bool)):
                rid = None
                raise ProtoError("bad_input", "id must be an integer")
            cmd = msg.get("cmd")
            fn = _COMMANDS.get(cmd) if isinstance(cmd, str) else None
            module = _HANDLERS.get(cmd) if fn is None and isinstance(cmd, str) else None
            if module:
                mod = load(module)
                fn = getattr(mod, "c_" + cmd)
            if fn is None and isinstance(cmd, str) and cmd[:4] == "svc_":
                from sy.play import service  # yard calibrate / selftest: loaded only for these, dropped at svc_end
                fn = service.command
            if fn is None:
                raise ProtoError("bad_input", "unknown command %r", cmd)
            if cmd in _GAME_CMDS and self.app is not None and self.app.board is not self.board:
                raise ProtoError("wrong_turn", "the board is in service mode: end yard calibrate/selftest first")
            if rid is None and cmd != "ack":
                raise ProtoError("bad_input", "every command but ack needs an integer id")
            out = fn(self, msg)
            if rid is not None:
                self._reply(rid, out or {})
            if cmd == "hello":
                mod.after_hello(self)
        except RuleError as e:
            self._error(rid, e.code, e.message)
        except MemoryError:
            self._error(rid, "no_memory", "the board ran out of memory for this command")
        except KeyboardInterrupt:
            raise
        except Exception as e:  # a bug: report it, keep the board alive
            self._error(rid, "internal", "%s: %s" % (type(e).__name__, e))
            if hasattr(sys, "print_exception"):
                sys.print_exception(e)
        finally:
            for name in _ONCE_A_GAME.get(module, ()):
                forget(name)

    # --- commands -----------------------------------------------------------------------------
    def c_ack(self, msg):
        seq = msg.get("seq")
        if not isinstance(seq, int) or seq < 0 or seq > self.board.store.seq:
            raise ProtoError("bad_input", "seq must be an event number the board sent")
        if seq > self.acked:
            self.acked = seq
        return None

    def c_ping(self, msg):
        return {"seq": self.board.store.seq}

    def c_mem(self, msg):
        import gc
        app = self.app
        if app and msg.get("watch") is not None:  # read the heap in use at each collection (a Pico: ~9 ms each)
            app.watch_heap = bool(msg["watch"])
        if not hasattr(gc, "mem_alloc"):
            return {"watching": app.watch_heap} if app else {}
        gc.collect()
        out = {"alloc": gc.mem_alloc(), "free": gc.mem_free()}
        if app:
            out["watching"] = app.watch_heap
            out["peak"] = app.mem_peak
            out["cycle_max_us"] = app.cycle_max_us
            out["cycle_max_kind"] = app.cycle_max_kind
            out["save_cycle_max_us"] = app.save_cycle_max_us
            out["command_cycle_max_us"] = app.command_cycle_max_us
            out["frame_cycle_max_us"] = app.frame_cycle_max_us
            out["save_max_us"] = self.board.save_max_us
            if msg.get("reset"):  # measure the next stretch on its own
                app.mem_peak = app.cycle_max_us = app.save_cycle_max_us = app.command_cycle_max_us = 0
                app.frame_cycle_max_us = 0
                self.board.save_max_us = 0
        return out

    def c_choose(self, msg):
        t = ticket_arg(msg.get("ticket"))
        if t > 2 or not self.board.choose(t):
            raise ProtoError("wrong_turn", "no piece is waiting for a ticket choice")
        return {"seq": self.board.store.seq}


_COMMANDS = {
    "ack": Protocol.c_ack, "ping": Protocol.c_ping, "choose": Protocol.c_choose,
    "mem": Protocol.c_mem,
}
# commands that change the game: refused while service mode has the switches and LEDs
_GAME_CMDS = ("mrx", "choose", "setup", "reset", "reveal", "capture", "cornered", "guide", "undo", "place")
# the other commands: module sy.<name> has c_<cmd>(protocol, msg), imported when a command first needs
# it (a board that never sees a reveal or a dead reed never carries their code)
_HANDLERS = {"mrx": "play.mrxturn", "hello": "play.status", "status": "play.status", "record": "play.report",
         "setup": "play.newgame", "reset": "play.newgame", "reveal": "play.verify", "capture": "play.declare",
         "cornered": "play.declare", "guide": "play.declare", "undo": "play.undo", "reed": "play.deadreed",
         "place": "play.deadreed"}
# what comes at most once a game (the setup, the fair-play check, the record, reeds out of service): the
# handler's module and the rules' module it brings are dropped after each of these commands, not carried
# through the rest of the game (measured on the Pico: docs/memory.md)
_ONCE_A_GAME = {"play.newgame": ("play.newgame", "rules.gamestart"), "play.verify": ("play.verify", "rules.commit"),
                "play.report": ("play.report",), "play.deadreed": ("play.deadreed",)}
