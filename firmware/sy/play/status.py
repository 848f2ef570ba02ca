"""The game as the board sees it, for the host: the reply to `status` and to the `hello` that opens
a session (sy/link/handlers.py loads this module at the first of them)."""
from sy.rules.game import TICKET_NAMES
from sy.play.board import ticket_mask_names, STAGE_NAMES
_PHASES = ("mrx", "detectives", "over")


def status(b):
    """The game as the host sees it."""
    g = b.game
    st = {"stage": STAGE_NAMES[b.stage], "restoring": b.restoring, "seq": b.store.seq}
    if b.chain_pause is not None:  # the reader chain lies: the game is paused (sy/play/chainpause.py)
        st["chain"] = b.chain_pause.code()
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
    st["mrx_piece"] = b.mrx_piece_on
    st["pieces"] = {name(i): g.pos[i] for i in range(n)}
    st["to_move"] = [name(i) for i in range(n) if b.to_move & (1 << i)]
    st["tickets"] = {name(i): list(g.tickets[i]) for i in range(g.n_detectives)}
    st["mrx_tickets"] = {"black": g.black, "double": g.double, "supply": list(g.supply)}
    st["log"] = [TICKET_NAMES[t] for t, _s in g.log]
    st["result"] = g.result
    st["reason"] = g.reason
    st["missing"] = [name(b.missing[i]) for i in range(b.n_missing)]
    st["extra"] = list(b.extra[:b.n_extra])
    lifted = b.piece_in_hand()
    st["lifted"] = name(lifted) if lifted >= 0 else None
    ask_at = b.asking_at()
    st["pending"] = {"station": ask_at, "tickets": ticket_mask_names(b.asked_tickets())} if ask_at else None
    return st

