"""The handlers of the game's commands (docs/protocol.md): handle_<cmd>(proto, msg) reads and checks
the command's fields (sy/link/fields.py), calls the game flow (sy/play/) and returns the reply's
fields. sy/link/proto.py loads this module at the first such command and keeps it. Each handler
imports the game flow it needs when it first runs: a game without a take-back never carries
sy/play/undo.py, a board that never sees a dead reed never carries sy/play/deadreed.py; the game
flow of what comes at most once a game (the setup, the reveal, the record, reeds out of service)
is dropped again after its command (proto.py's _ONCE_A_GAME). Measured on the Pico:
docs/memory.md."""
from sy.rules.base import TICKET_NAMES
from sy.storage.stages import SETUP, PLAY
from sy.link.fields import ProtoError, commit_arg, station_arg, ticket_arg


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
            raise ProtoError("bad_input", "double must be a list of two moves")
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
        raise ProtoError("wrong_turn", "no piece is waiting for a ticket choice")
    return {"seq": p.board.store.seq}


def handle_undo(p, msg):
    from sy.play import undo
    return {"seq": undo.take_back(p.board, msg.get("piece"))}


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
        raise ProtoError("wrong_turn", "a game is in progress; send replace: true to abandon it")
    commit_arg(msg.get("commit"))
    from sy.play import newgame
    p.revealed = None  # a reveal under way read the old game's journal: its offsets mean nothing now
    return {"seq": newgame.new_game(b, msg)}  # reads only the setup's own keys


def handle_reset(p, msg):
    if msg.get("confirm") is not True:  # not any truthy value: "no", 1 and [0] do not abandon a game
        raise ProtoError("bad_input", "reset abandons the game: send confirm: true")
    from sy.play import newgame
    newgame.reset(p.board)
    p.revealed = None
    return {"seq": 0}


def handle_reveal(p, msg):
    """Mister X's route after the game, in chunks that fit a line: offset 0 carries start,
    every chunk but the last says more: true; the verdict comes with the last one. Answered in
    steps (a generator: sy/link/proto.py step()), a journal line a scan cycle."""
    b = p.board
    if b.game is None or b.game.result is None:
        raise ProtoError("wrong_turn", "Mister X's moves are revealed only after the game")
    moves = msg.get("moves")
    offset = msg.get("offset", 0)
    if not isinstance(moves, list):
        raise ProtoError("bad_input", "moves must be a list of [salt, station]")
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise ProtoError("bad_input", "offset must be the index of the chunk's first move")
    from sy.play import verify  # loaded here, in the command's cycle, not in a step's
    if offset == 0:
        p.revealed = verify.new_state()
    state = p.revealed
    if state is None or offset != state[0]:
        raise ProtoError("bad_input", "the next chunk starts at offset %d" % (state[0] if state else 0))
    return _reveal_steps(p, verify, state, msg.get("start"), moves, bool(msg.get("more")))


def _reveal_steps(p, verify, state, start, moves, more):
    b = p.board
    if state[2] is None:  # a journal line a scan cycle (sy/play/verify.py)
        yield from verify.check_chunk(b.store, b.game.graph, state, start, moves, not more)
    state[0] += len(moves)
    if more:
        return {"received": state[0]}
    p.revealed = None
    seq, ok, message = verify.verdict(b, state)
    return {"seq": seq, "verified": ok, "message": message, "received": state[0]}


# --- reeds out of service (docs/protocol.md, "Reeds out of service") ----------------------------
def handle_reed(p, msg):
    """{station, out}: take station's reed out of service (out: true) or back in (out: false)."""
    s = station_arg(msg.get("station"), "station", True)
    out = msg.get("out")
    if out is not True and out is not False:
        raise ProtoError("bad_input", "out must be true (take the reed out of service) or false (back in)")
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
        raise ProtoError("bad_input", "ticket must be taxi, bus or underground")
    from sy.play import deadreed
    seq = deadreed.place(b, msg.get("piece"), s, t)
    if seq:
        return {"seq": seq}
    from sy.play.board import ticket_mask_names
    return {"pending": ticket_mask_names(b.pend_mask)}
