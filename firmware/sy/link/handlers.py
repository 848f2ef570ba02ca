"""The handlers of the game's commands (docs/protocol.md): each reads and checks the command's fields
(sy/link/fields.py), calls the game flow (sy/play/) and returns the reply's fields. sy/link/proto.py's
command table names the handler of each command, the stage it needs, whether it changes the game
or reads the journal, and the modules dropped after it; it loads this module at the first of them.
The game flow a handler calls is imported when the handler first runs and kept (Mister X's move,
the status, a take-back, a capture...: a game that takes nothing back never carries sy/play/undo.py),
and what comes at most once a game is dropped again after its command (the setup, the reveal,
the record, reeds out of service). Why, measured: docs/memory.md."""
from sy import forget
from sy.rules.base import TICKET_NAMES
from sy.storage.stages import SETUP, PLAY
from sy.link.fields import COLLECT_FIRST, ProtoError, commit_arg, station_arg, ticket_arg
from sy.play.board import ticket_mask_names


# --- the game as it stands -----------------------------------------------------------------------
def handle_status(p, msg):
    from sy.play.status import status
    return status(p.board)


# --- the turns ---------------------------------------------------------------------------------
def handle_mrx(p, msg):
    from sy.play import mrxturn
    b = p.board
    if "double" in msg:
        d = msg["double"]
        if not isinstance(d, list) or len(d) != 2 or not isinstance(d[0], dict) or not isinstance(d[1], dict):
            raise ProtoError("bad_input", "field", "double")
        seq, reveal = mrxturn.double(b, ticket_arg(d[0].get("ticket")), station_arg(d[0].get("to")),
                                     commit_arg(d[0].get("commit")), ticket_arg(d[1].get("ticket")),
                                     station_arg(d[1].get("to")), commit_arg(d[1].get("commit")))
    else:
        seq, reveal = mrxturn.single(b, ticket_arg(msg.get("ticket")), station_arg(msg.get("to")),
                                     commit_arg(msg.get("commit")))
    return {"seq": seq, "reveal": reveal, "round": b.game.round}


def handle_choose(p, msg):
    t = ticket_arg(msg.get("ticket"))
    if t > 2 or not p.board.choose(t):
        raise ProtoError("wrong_turn", "no_choice")
    return {"seq": p.board.store.seq}


def handle_undo(p, msg):
    """{piece?, consent?}: take back the turn's last move; `consent: true` (Mister X's, a tagged
    line: sy/link/auth.py) for a final move."""
    consent = msg.get("consent", False)
    if consent is not True and consent is not False:
        raise ProtoError("bad_input", "field", "consent")
    from sy.play import undo
    return {"seq": undo.take_back(p.board, msg.get("piece"), consent)}


def handle_capture(p, msg):
    from sy.play import declare
    return {"seq": declare.capture(p.board, msg.get("piece"), msg.get("reveal"))}


def handle_cornered(p, msg):
    from sy.play import declare
    return {"seq": declare.cornered(p.board, msg.get("reveal"))}


def handle_guide(p, msg):
    """The host's move for a piece (computer detectives): lit, and the only placement taken."""
    to = station_arg(msg.get("to"))
    t = ticket_arg(msg.get("ticket"))
    from sy.play import declare
    declare.guide(p.board, msg.get("piece"), to, t)


# --- what comes at most once a game ------------------------------------------------------------
def handle_record(p, msg):
    """Stream the game record, a line a message (all: true: every journal line): answered in steps,
    a journal line a scan cycle (sy/link/proto.py step()), the reply after the last."""
    from sy.play.report import record_lines  # loaded here, in the command's cycle, not in a step's
    return _record_steps(p, msg["id"], record_lines(p.board.store, bool(msg.get("all"))))


def _record_steps(p, rid, lines):
    n = 0
    for line in lines:
        if line is not None:
            p.link.send_json({"id": rid, "line": line})
            n += 1
        yield
    return {"lines": n}


def handle_setup(p, msg):
    b = p.board
    if b.stage in (SETUP, PLAY) and not msg.get("replace"):
        raise ProtoError("wrong_turn", "in_progress")
    commit_arg(msg.get("commit"))
    key = None
    if msg.get("key") is not None:  # never journalled: only its hash is kept (sy/link/auth.py)
        from sy.link.auth import key_arg
        try:
            key = key_arg(msg.get("key"))
        except ValueError:
            raise ProtoError("bad_input", "field", "key")
    from sy.play import newgame
    p.revealed = None  # a reveal under way read the old game's journal: its offsets mean nothing now
    seq = newgame.new_game(b, msg)  # reads only the setup's own keys
    out = {"seq": seq}
    if key is not None:
        p.auth.begin(key)
        out["session"] = p.auth.session.decode()  # the host tags its lines for this game from here
        out["auth_n"] = 0
    else:
        auth = p.keyed_auth()
        if auth is not None:
            auth.forget_game()  # the old game's key goes with it
    return out


def handle_reset(p, msg):
    if msg.get("confirm") is not True:  # not any truthy value: "no", 1 and [0] do not abandon a game
        raise ProtoError("bad_input", "field", "confirm")
    from sy.play import newgame
    newgame.reset(p.board)
    auth = p.keyed_auth()
    if auth is not None:
        auth.forget_game()
    p.revealed = None
    return {"seq": 0}


def _verified(store):
    """The journal ends with a verdict that verified the game. Nothing is journalled after it (the
    game is over), so its last line tells: read from the journal's last bytes only."""
    if not store.seq:
        return False
    f = open(store.journal, "rb")
    try:
        start = max(0, store.jlen - 320)  # a verdict line is shorter: its message is one of verify.py's
        f.seek(start)
        tail = f.read(store.jlen - start)
    finally:
        f.close()
    tail = tail[:len(tail) - 1] if tail.endswith(b"\n") else tail
    last = tail[tail.rfind(b"\n") + 1:]
    return b'"verified"' in last and (b'"ok": true' in last or b'"ok":true' in last)


def handle_reveal(p, msg):
    """Mister X's route after the game, in chunks that fit a line: offset 0 carries start,
    every chunk but the last says more: true; the verdict comes with the last one. Answered in
    steps (a generator: sy/link/proto.py step()), a journal line a scan cycle."""
    b = p.board
    if b.game is None or b.game.result is None:
        raise ProtoError("wrong_turn", "not_over")
    moves = msg.get("moves")
    offset = msg.get("offset", 0)
    if not isinstance(moves, list):
        raise ProtoError("bad_input", "field", "moves")
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise ProtoError("bad_input", "field", "offset")
    if offset == 0:
        if _verified(b.store):  # a route that did not match may be sent again; one that did is the last word
            raise ProtoError("already_verified")
        # the game is over: what only play needs goes, collected before the check's modules load
        # (the reveal's start was the game's heap peak with both: docs/memory.md)
        for name in _PLAY_ONLY:
            forget(name)
        if p.app is not None:
            p.app.collect()
    from sy.play import verify  # loaded here, in the command's cycle, not in a step's
    if offset == 0:
        p.revealed = verify.new_state()
    state = p.revealed
    if state is None or offset != state[0]:
        raise ProtoError("bad_input", "next_chunk", state[0] if state else 0)
    return _reveal_steps(p, verify, state, msg.get("start"), moves, bool(msg.get("more")))


# the game flow's modules that a game over no longer calls (Mister X's moves, his claims, a
# take-back): dropped at the reveal, loaded again at a new game's first use
_PLAY_ONLY = ("play.mrxturn", "rules.mrxmoves", "rules.mrxknown", "play.declare", "play.undo", "rules.takeback")


def _reveal_steps(p, verify, state, start, moves, more):
    b = p.board
    if state[2] is None:  # a journal line a scan cycle (sy/play/verify.py)
        yield from verify.check_chunk(b.store, b.game.graph, state, start, moves, not more)
    state[0] += len(moves)
    if more:
        return {"received": state[0]}
    p.revealed = None
    line = verify.verdict(state)
    # the verdict saves to flash: the check's garbage and code (this chunk's modules, out of
    # sys.modules since its command: proto.py's table) collected first; that save was the game's peak
    verify = moves = None
    yield COLLECT_FIRST
    seq = b.commit_line(line)
    return {"seq": seq, "verified": line["ok"], "why": line["why"], "args": line["args"], "received": state[0]}


# --- reeds out of service (docs/protocol.md, "Reeds out of service") ----------------------------
def handle_reed(p, msg):
    """{station, out}: take station's reed out of service (out: true) or back in (out: false)."""
    s = station_arg(msg.get("station"), "station", True)
    out = msg.get("out")
    if out is not True and out is not False:
        raise ProtoError("bad_input", "field", "out")
    from sy.play import deadreed
    return {"dead": deadreed.set_reed(p.board, p.app, s, out)}


def handle_place(p, msg):
    """{piece, station, ticket?}: put piece (in hand, or standing on a station out of service) on
    station, whose reed is out of service."""
    b = p.board
    s = station_arg(msg.get("station"), "station", True)
    t = msg.get("ticket")
    if t is None:
        t = -1
    elif t in TICKET_NAMES[:3]:
        t = TICKET_NAMES.index(t)
    else:
        raise ProtoError("bad_input", "field", "ticket")
    from sy.play import deadreed
    seq = deadreed.place(b, msg.get("piece"), s, t)
    if seq:
        return {"seq": seq}
    return {"pending": ticket_mask_names(b.asked_tickets())}
