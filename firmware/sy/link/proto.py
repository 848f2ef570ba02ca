"""The board's side of the line protocol (docs/protocol.md): JSON lines, commands with ids and
replies, sequenced events the host acknowledges, unsequenced notes. A line is checked here and
handed to its command's handler by one table (COMMANDS, at the end): the session's own (hello,
ack, ping, mem) below, the game's in sy/link/handlers.py, service mode's in sy/link/service.py.
Nothing here may crash the board: every failure becomes an error reply."""
import json
import sys

from sy import forget
from sy.rules.base import RuleError
from sy.link.fields import ProtoError, PROTO, FIRMWARE
from sy.storage.stages import SETUP, PLAY

try:
    from micropython import const
except ImportError:  # CPython
    from sy.compat import const

# the stage a command needs (the command table's second column)
_ANY_STAGE = const(0)  # any: it reads, or it checks the stage itself
_IN_PLAY = const(1)  # the game in play with nothing to put back (Board.require_play says what is in the way)


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
        self.board = None  # attach() (the board needs us as its output first)
        self.revealed = None  # how far a reveal arriving in chunks got (sy/play/verify.py's new_state())
        self.board_name = board_name
        self.job = None  # an answer made in steps, a step a scan cycle (sy/app.py): (id, generator)
        # the game's key and the session (sy/link/auth.py): loaded once a game has a key (its hash
        # on flash, or a setup or hello with one); a board whose games have none never carries it
        self._auth = None
        self._keyless = False  # known: no key on this board (until a setup brings one)

    def attach(self, board):
        """The board whose game the commands play (made after us: we are its output)."""
        self.board = board

    @property
    def auth(self):
        if self._auth is None:
            from sy.link.auth import LinkAuth
            self._auth = LinkAuth(_folder(self.board.store.journal))
        return self._auth

    def stopped(self):
        """The game loop stopped for the REPL (Ctrl-C): the game's key leaves RAM; the host gives it
        again (hello with key) when the game runs again."""
        if self._auth is not None:
            self._auth.wipe()

    def keyed_auth(self):
        """The link's authentication if this board's game has a key; else None, without loading it."""
        if self._auth is None:
            if self._keyless:
                return None
            from sy.storage.store import exists
            if not exists(_folder(self.board.store.journal, KEY_FILE)):
                self._keyless = True
                return None
        self._keyless = False
        return self.auth

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

    def _error(self, rid, code, why=None, *values):
        """An error reply: codes and values, the host words them (docs/protocol.md, "Error codes")."""
        obj = {"id": rid, "ok": False, "error": code}
        if why:
            obj["why"] = why
        if values:
            obj["args"] = list(values)
        self.link.send_json(obj)

    # --- input --------------------------------------------------------------------------------
    def too_long(self):
        self._error(None, "too_long", "line_long", len(self.link.buf))

    def handle(self, raw):
        rid = cmd = None
        reading = False
        drops = ()
        try:
            try:
                valid = well_formed(raw)
                msg = json.loads(raw) if valid else None
            except (ValueError, UnicodeError):
                valid = False
            if not valid:
                raise ProtoError("bad_input", "not_json")
            if not isinstance(msg, dict):
                raise ProtoError("bad_input", "not_object")
            rid = msg.get("id")
            if rid is not None and (not isinstance(rid, int) or isinstance(rid, bool)):
                rid = None
                raise ProtoError("bad_input", "field", "id")
            name = msg.get("cmd")
            if not isinstance(name, str):
                raise ProtoError("bad_input", "field", "cmd")
            cmd = name
            entry = COMMANDS.get(cmd) or (_SERVICE if cmd[:4] == "svc_" else None)
            if entry is None:
                raise ProtoError("bad_input", "unknown_command")
            fn, stage, changes_game, reads_journal, drops = entry
            if isinstance(fn, str):  # the game's: loaded at the first of them, kept (docs/memory.md)
                from sy.link import handlers
                fn = getattr(handlers, fn)
            if changes_game and self.app is not None and self.app.board is not self.board:
                raise ProtoError("wrong_turn", "service_mode")
            if rid is None and cmd != "ack":
                raise ProtoError("bad_input", "field", "id")
            if stage == _IN_PLAY:
                self.board.require_play()
            # a line that speaks for Mister X: his host's tag, or refused here, before anything changes
            if cmd in _MAY_SPEAK_FOR_MRX:
                auth = self.keyed_auth()
                if auth is not None:
                    auth.check(cmd, msg, raw, self.board.stage in _GAME_ON)
            reading = reads_journal and self.app is not None
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
            for name in drops:
                forget(name)

    def step(self):
        """The next step of the answer in hand (self.job: the main loop calls this, a step a cycle,
        while it is there); the reply after the last step, or the error that ended it. Returns what
        the step yielded: COLLECT_FIRST asks the loop to collect the garbage before the next."""
        rid, job = self.job
        try:
            try:
                return next(job)  # COLLECT_FIRST: the next step is to come after a collection
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
            self.link.send_json(e.reply({"id": rid, "ok": False}))
        elif isinstance(e, MemoryError):
            self._error(rid, "no_memory")
        else:  # a bug: report it, keep the board alive
            self._error(rid, "internal", type(e).__name__)  # the exception's class; the REPL shows the rest
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
            raise ProtoError("version", "protocol", PROTO)
        acked = msg.get("acked", 0)
        if not isinstance(acked, int) or acked < 0:
            raise ProtoError("bad_input", "field", "acked")
        from sy.play.status import status  # with the first hello, not at boot (the handlers' reason, below)
        b = self.board
        st = status(b)
        st["proto"] = PROTO
        st["firmware"] = FIRMWARE
        st["board"] = self.board_name
        st["map"] = b.game.graph.name if b.game else "london"
        auth = self.auth if msg.get("key") is not None else self.keyed_auth()
        if auth is not None:
            auth.hello_fields(msg, st)  # a key given is taken only if it is the game's
        return st

    def handle_ack(self, msg):
        """An event the host has (the board keeps no count: the host's hello says what it has)."""
        seq = msg.get("seq")
        if not isinstance(seq, int) or seq < 0 or seq > self.board.store.seq:
            raise ProtoError("bad_input", "field", "seq")
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


def _service(proto, msg):
    from sy.link import service  # yard calibrate / selftest: loaded only for these, dropped at svc_end
    return service.handle(proto, msg)


# a game being set up or played: a setup that replaces it, or a reset, speaks for Mister X too
_GAME_ON = (SETUP, PLAY)
# the commands that may speak for Mister X (sy/link/auth.py's speaks_for_mrx decides), and the file
# beside the journal that holds the hash of a game's key (sy/link/auth.py's KEY_FILE)
_MAY_SPEAK_FOR_MRX = ("mrx", "capture", "cornered", "reveal", "undo", "setup", "reset")
KEY_FILE = "link.key"


def _folder(journal, name=""):
    """The folder of the journal's path, or a file `name` in it."""
    i = journal.rfind("/")
    folder = journal[:i] if i > 0 else ""
    return (folder + "/" + name if folder else name) if name else folder

# What comes at most once a game (the setup, the fair-play check, the record, reeds out of service):
# the game flow's module and the rules' module its command brought are dropped after it, not
# carried through the rest of the game (docs/memory.md)
_NEW_GAME = ("play.newgame", "rules.gamestart")

# The command table: name -> (handler, the stage it needs, it changes the game (refused while service
# mode has the switches and LEDs), it reads the whole journal (collected as it goes: sy/app.py's
# reading_journal), the modules dropped after it). A handler is handler(proto, msg) -> the reply's
# fields or None: a function, or the name of one in sy/link/handlers.py (the game's commands).
# docs/protocol.md lists the commands.
COMMANDS = {
    # name: (handler, stage, changes the game, reads the journal, dropped after)
    # the session's own
    "hello": (Protocol.handle_hello, _ANY_STAGE, False, True, ()),
    "ack": (Protocol.handle_ack, _ANY_STAGE, False, False, ()),
    "ping": (Protocol.handle_ping, _ANY_STAGE, False, False, ()),
    "mem": (Protocol.handle_mem, _ANY_STAGE, False, False, ()),
    # the game's (sy/link/handlers.py, loaded at the first of them: at boot it would not fit beside the map
    # on the unix port's smallest heap)
    "status": ("handle_status", _ANY_STAGE, False, False, ()),
    "mrx": ("handle_mrx", _IN_PLAY, True, False, ()),
    "choose": ("handle_choose", _ANY_STAGE, True, False, ()),
    "undo": ("handle_undo", _IN_PLAY, True, False, ()),
    "capture": ("handle_capture", _ANY_STAGE, True, True, ()),
    "cornered": ("handle_cornered", _IN_PLAY, True, True, ()),
    "guide": ("handle_guide", _IN_PLAY, True, False, ()),
    "setup": ("handle_setup", _ANY_STAGE, True, False, _NEW_GAME),
    "reset": ("handle_reset", _ANY_STAGE, True, False, _NEW_GAME),
    "reveal": ("handle_reveal", _ANY_STAGE, True, True, ("play.verify", "rules.commit")),
    "record": ("handle_record", _ANY_STAGE, False, True, ("play.report",)),
    "reed": ("handle_reed", _ANY_STAGE, False, False, ("play.deadreed",)),
    "place": ("handle_place", _IN_PLAY, True, False, ("play.deadreed",)),
}
# service mode's commands, svc_*: sy/link/service.py (loaded only for them) dispatches them itself
_SERVICE = (_service, _ANY_STAGE, False, False, ())
