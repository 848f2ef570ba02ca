"""The board's refusals in the player's language.

The board sends a code and its fields, never a sentence to show (docs/protocol.md: the error
line's `message` is the board's own English for a maker's log). Every refusal the host shows is
rendered here from its code. One table: code -> sentence, and where the host knows the move it
asked for, a sentence that names it."""
from host.i18n import N_, _

# code: the sentence a player reads
REFUSALS = {
    # the rules (the game-record contract, docs/game-record.md)
    "bad_input": N_("the board did not understand the command (a wrong station, piece or field)"),
    "wrong_turn": N_("it is not that piece's turn"),
    "already_moved": N_("that detective has moved already this round"),
    "not_connected": N_("those stations are not connected by that transport"),
    "no_ticket": N_("there is no ticket left for that transport"),
    "occupied": N_("a detective or a Bobby stands on that station"),
    "ferry": N_("only Mister X may take the ferry, and only with a black ticket"),
    "double_used": N_("Mister X has no double move left for this"),
    "game_over": N_("the game is over"),
    # the Europe game's rules (docs/game-record.md)
    "kind": N_("that city cannot be left by that transport"),
    "returned": N_("a detective may not go back to the city where the round began"),
    "must_move": N_("a piece that can move must move"),
    "bad_special": N_("the special move does not match the tickets spent"),
    "special_used": N_("the detectives have used their operation this round"),
    "too_early": N_("an investigation is not allowed yet"),
    "bad_draw": N_("the wrong number of tickets was drawn"),
    "not_in_bag": N_("the bag does not hold those tickets"),
    "fewer_moves": N_("another move lets more detectives move: as many as possible must move"),
    # the board's own (docs/protocol.md)
    "version": N_("the board speaks another protocol version: update its firmware (yard flash)"),
    "too_long": N_("the command was too long for the board"),
    "no_memory": N_("the board ran out of memory for this command; nothing changed"),
    "internal": N_("the board hit a fault in its firmware; it keeps running, nothing changed"),
    "unproved": N_("the claim does not match Mister X's sealed move"),
    "unfair": N_("Mister X's revealed moves do not match what he sealed"),
    "illegal": N_("that piece cannot go there now"),
    # the link (host/link/boardlink.py)
    "timeout": N_("the board did not answer in time"),
    "closed": N_("the link to the board is closed"),
}

# the same refusals naming the move the host asked for (piece, ticket, station)
MOVE_REFUSALS = {
    "not_connected": N_("%(piece)s cannot reach %(to)s by %(ticket)s"),
    "no_ticket": N_("%(piece)s has no %(ticket)s ticket left"),
    "occupied": N_("%(piece)s cannot go to %(to)s: it is occupied"),
    "wrong_turn": N_("it is not %(piece)s's turn"),
    "already_moved": N_("%(piece)s has moved already this round"),
    "illegal": N_("%(piece)s cannot go to %(to)s now"),
}

UNKNOWN = N_("the board refused (%(code)s)")

# the board's pauses: its status `chain`, the `chain` note, svc_bus's `chain` ({"code", "fault",
# "after_module"}, docs/protocol.md); after_module -1: before the first module
PAUSES = {
    "chain_broken": N_("reader chain broken or mis-clocked after module %(module)d"),
}
CHAIN_AT_CONTROLLER = N_("reader chain broken or mis-clocked between the controller and module 0")
CHAIN_WHOLE = N_("reader chain whole again: the game goes on once the pieces stand where it has them")
UNKNOWN_PAUSE = N_("the board paused the game (%(code)s)")


def refusal(code, piece=None, ticket=None, to=None):
    """The sentence for a refusal code, naming the move where it is given."""
    if piece is not None and code in MOVE_REFUSALS:
        from host.words import ticket_name
        return _(MOVE_REFUSALS[code]) % {"piece": piece, "to": to if to is not None else "?",
                                         "ticket": ticket_name(ticket) if ticket else "?"}
    if code in REFUSALS:
        return _(REFUSALS[code])
    return _(UNKNOWN) % {"code": code}


def of(error, **move):
    """The sentence for a refused action: a BoardCommandError/LinkError or a RuleError (anything
    with a `code`)."""
    return refusal(getattr(error, "code", None) or "internal", **move)


def shown(error, **move):
    """What a player reads for an error: a refusal with a code in its sentence from the table,
    anything else (an error the host made, already in the player's language) as it is."""
    code = getattr(error, "code", None)
    if code in REFUSALS or code in MOVE_REFUSALS:
        return refusal(code, **move)
    return str(error)


def pause(code):
    """The sentence for a pause code from the board ({"code": ..., fields}), None when it is None
    or its code is null (the chain whole again)."""
    if not code or not code.get("code"):
        return None
    name = code["code"]
    if name == "chain_broken":
        k = code.get("after_module")
        if not isinstance(k, int) or k < 0:
            return _(CHAIN_AT_CONTROLLER)
        return _(PAUSES[name]) % {"module": k}
    if name in PAUSES:
        return _(PAUSES[name])
    return _(UNKNOWN_PAUSE) % {"code": name}
