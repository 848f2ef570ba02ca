"""What the board tells the host about the game: its status, and the hello that opens a session
(the status, then every event the host missed). sy/link/proto.py loads this module when one of these
commands first comes."""
from sy.rules.game import TICKET_NAMES
from sy.link.fields import ProtoError, PROTO, FIRMWARE
from sy.play.board import ticket_mask_names, STAGE_NAMES
_PHASES = ("mrx", "detectives", "over")


def status(b):
    """The game as the host sees it."""
    g = b.game
    st = {"stage": STAGE_NAMES[b.stage], "restoring": b.restoring, "seq": b.store.seq}
    if b.blind is not None:  # reeds out of service (none: no key, the heap is fullest at the end)
        st["dead"] = b.blind.stations()
    if g is None:
        return st
    n = g.n_pieces
    name = g.piece_name
    st["phase"] = _PHASES[g.phase]
    st["round"] = g.round
    st["moves"] = g.moves
    st["next_reveal"] = g.next_reveal()
    st["surfaced"] = g.surfaced
    st["mrx_piece"] = b.x_on
    st["pieces"] = {name(i): g.pos[i] for i in range(n)}
    st["to_move"] = [name(i) for i in range(n) if b.tomove & (1 << i)]
    st["tickets"] = {name(i): list(g.tickets[i]) for i in range(g.n_detectives)}
    st["mrx_tickets"] = {"black": g.black, "double": g.double, "supply": list(g.supply)}
    st["log"] = [TICKET_NAMES[t] for t, _s in g.log]
    st["result"] = g.result
    st["reason"] = g.reason
    st["missing"] = [name(b.missing[i]) for i in range(b.n_missing)]
    st["extra"] = list(b.extra[:b.n_extra])
    st["lifted"] = name(b.lifted) if b.lifted >= 0 else None
    st["pending"] = {"station": b.pend_to, "tickets": ticket_mask_names(b.pend_mask)} if b.pend_to else None
    return st


def c_status(p, msg):
    return status(p.board)


def c_hello(p, msg):
    v = msg.get("proto")
    if not isinstance(v, int) or isinstance(v, bool) or v != PROTO:  # 1.0 and true are not the version 1
        raise ProtoError("version", "the board speaks protocol %d, the host %r" % (PROTO, v))
    acked = msg.get("acked", 0)
    if not isinstance(acked, int) or acked < 0:
        raise ProtoError("bad_input", "acked must be a whole number")
    p.acked = acked
    p.hello_seen = True
    b = p.board
    st = status(b)
    st["proto"] = PROTO
    st["firmware"] = FIRMWARE
    st["board"] = p.board_name
    st["map"] = b.game.graph.name if b.game else "london"
    return st


def after_hello(p):
    """Resend every event the host has not acknowledged (after the hello reply)."""
    for seq, text in p.board.store.lines(p.acked + 1):
        p.event(seq, text)
