"""The board's refusals in the player's language.

The board sends codes and values, never a sentence (docs/protocol.md, "Error codes"): `error`, the
refusal's code; `why`, its detail's code, where there is one; `args`, the values the detail names
(stations, pieces, tickets, counts), in the order DETAILS lists their names. Every refusal the host
shows is worded here: the detail's sentence where the host knows it, else the code's, else (a newer
board's code) the codes and values themselves, never a traceback. The shared rules' RuleError
(the host's own game, records) carries the same codes and is worded the same way."""
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
    "guided": N_("that is not the guided move"),
    "needs_consent": N_("that move is final: only Mister X can allow taking it back"),
    "unauthenticated": N_("only Mister X's host may send that: its tag is missing or wrong"),
    "replayed": N_("the board has taken that line already (a line sent twice)"),
    "no_key": N_("the board restarted: Mister X's host must give it the game's key again"),
    "already_verified": N_("the game is verified already"),
    # the link (host/link/boardlink.py)
    "timeout": N_("the board did not answer in time"),
    "closed": N_("the link to the board is closed"),
}

# why: (the sentence, the names of its values in the order of `args`)
DETAILS = {
    # the line and its fields
    "field": (N_("the field %(field)s is missing or not valid"), ("field",)),
    "not_json": (N_("the line is not valid JSON"), ()),
    "not_object": (N_("a line must be a JSON object"), ()),
    "unknown_command": (N_("the board does not know that command"), ()),
    "protocol": (N_("the board speaks protocol version %(version)s: update the board or yard"), ("version",)),
    "service_mode": (N_("the board is in service mode: end yard calibrate or yard selftest first"), ()),
    "not_service": (N_("the board is not in service mode"), ()),
    "game_on": (N_("a game is in progress: finish it or reset it first"), ()),
    "no_spi": (N_("this board has no SPI reed chain to test (a simulated board)"), ()),
    "counter": (N_("the line's counter is not above the last one taken (%(n)s)"), ("n",)),
    "untagged": (N_("%(cmd)s speaks for Mister X: only his host can send it"), ("cmd",)),
    # the game's stage
    "no_game": (N_("no game is set up"), ()),
    "not_placed": (N_("the pieces are not on their start stations yet"), ()),
    "not_playing": (N_("no game is being played"), ()),
    "restoring": (N_("pieces moved while the board was off: put them back first"), ()),
    "put_back": (N_("a move was taken back: put %(piece)s back on station %(station)s first"), ("piece", "station")),
    "in_progress": (N_("a game is in progress: abandon it first"), ()),
    "not_over": (N_("Mister X's moves are revealed only after the game"), ()),
    "next_chunk": (N_("the next part of the reveal starts at move %(offset)s"), ("offset",)),
    "no_choice": (N_("no piece is waiting for a ticket choice"), ()),
    "damaged": (N_("the saved game is damaged"), ()),
    # setting up
    "two_player": (N_("the two-player game has exactly 2 detectives"), ()),
    "detectives_count": (N_("a game has 2 to 5 detectives"), ()),
    "bobbies_count": (N_("%(detectives)s detectives play with %(want)s Bobbies, not %(got)s"), ("detectives", "want", "got")),
    "not_station": (N_("%(station)s is not a station"), ("station",)),
    "same_start": (N_("two pieces cannot both start on station %(station)s"), ("station",)),
    "mrx_start_taken": (N_("Mister X cannot start on station %(station)s: a piece stands there"), ("station",)),
    "box_only": (N_("the box has only %(count)s %(ticket)s tickets"), ("count", "ticket")),
    "other_map": (N_("this board holds the map %(map)s"), ("map",)),
    "secret_station": (N_("the board must never learn Mister X's hidden station"), ()),
    "secret_move": (N_("move %(move)s is secret: the board must not learn Mister X's station"), ("move",)),
    # moves
    "no_piece": (N_("there is no piece %(piece)s in this game"), ("piece",)),
    "mrx_turn": (N_("it is Mister X's turn"), ()),
    "detectives_turn": (N_("it is the detectives' turn"), ()),
    "moved_already": (N_("%(piece)s has moved already this round"), ("piece",)),
    "bobby_ticket": (N_("Bobbies travel by taxi, bus or underground"), ()),
    "detective_black": (N_("detectives have no black tickets"), ()),
    "name_ticket": (N_("a move must name its ticket"), ()),
    "name_station": (N_("Mister X's move must name the station"), ()),
    "no_ticket_left": (N_("%(piece)s has no %(ticket)s ticket left"), ("piece", "ticket")),
    "held_by": (N_("station %(station)s is held by %(piece)s"), ("station", "piece")),
    "no_link": (N_("station %(to)s is not connected to station %(here)s"), ("to", "here")),
    "no_line": (N_("no %(ticket)s line joins station %(here)s and station %(to)s"), ("ticket", "here", "to")),
    "ferry_black": (N_("only Mister X may take the ferry, with a black ticket"), ()),
    "cannot_go": (N_("%(piece)s cannot go to %(station)s now"), ("piece", "station")),
    "guided_to": (N_("%(piece)s goes to %(station)s"), ("piece", "station")),  # the guided move
    "not_in_hand": (N_("%(piece)s is not in hand"), ("piece",)),
    "mrx_unreachable": (N_("Mister X cannot reach station %(station)s by %(ticket)s from where he may be"),
                        ("station", "ticket")),
    "no_black": (N_("Mister X has no black ticket left"), ()),
    "supply_empty": (N_("the general supply has no %(ticket)s ticket left"), ("ticket",)),
    "log_full": (N_("the travel log is full"), ()),
    "surfacing": (N_("move %(move)s is a surfacing move: it must name the station"), ("move",)),
    "mrx_secret": (N_("Mister X's station is secret here"), ()),
    # take-backs
    "nothing_to_take_back": (N_("no move of this turn is left to take back"), ()),
    "not_last": (N_("%(piece)s's move is not the last of this turn: take back the later ones first"), ("piece",)),
    "not_moved": (N_("%(piece)s has not moved this turn"), ("piece",)),
    "final_landed": (N_("%(piece)s's move to %(station)s landed where Mister X could have been: only he can allow "
                        "taking it back"), ("piece", "station")),
    "final_turn": (N_("%(piece)s's move ended the detectives' turn: only Mister X can allow taking it back"),
                   ("piece",)),
    # captures and a cornered Mister X (proved)
    "mrx_not_on": (N_("Mister X is not on station %(station)s"), ("station",)),
    "mrx_cannot_be": (N_("Mister X cannot be on station %(station)s"), ("station",)),
    "mrx_can_move": (N_("Mister X still has a legal move"), ()),
    "no_proof": (N_("prove it: reveal the salt and station of Mister X's current commitment"), ()),
    "surfaced_on": (N_("Mister X surfaced on %(shown)s, not %(station)s"), ("shown", "station")),
    "proof_mismatch": (N_("the revealed station does not match Mister X's commitment"), ()),
    "not_on_mrx": (N_("%(piece)s stands on %(station)s, Mister X on another station"), ("piece", "station")),
    # the fair-play check after the game (move 0: his start)
    "route_ok": (N_("Mister X's %(moves)s moves match the commitments and the map"), ("moves",)),
    "malformed": (N_("the revealed move %(move)s is malformed"), ("move",)),
    "move_commit": (N_("move %(move)s does not match its commitment"), ("move",)),
    "move_uncommitted": (N_("move %(move)s was secret but came without a commitment"), ("move",)),
    "move_not_station": (N_("move %(move)s: %(station)s is not a station"), ("move", "station")),
    "move_unreachable": (N_("move %(move)s: station %(station)s cannot be reached from %(here)s with that ticket"),
                         ("move", "station", "here")),
    "move_surfaced": (N_("move %(move)s: he surfaced on %(shown)s but reveals %(station)s"), ("move", "shown", "station")),
    "count_mismatch": (N_("the board logged %(logged)s moves of Mister X; %(revealed)s were revealed"),
                       ("logged", "revealed")),
    # reeds out of service
    "no_config": (N_("this board has no config file to remember it in"), ()),
    "config_bad": (N_("board.json is not a JSON object"), ()),
    "config_write": (N_("board.json could not be rewritten: nothing changed"), ()),
    "too_many_dead": (N_("at most %(max)s reeds can be out of service: repair the board"), ("max",)),
    "in_service": (N_("the reed of station %(station)s is in service: put the piece there"), ("station",)),
    # the Europe game
    "unknown_ticket": (N_("%(ticket)s is not a ticket (transport/symbol, e.g. car/footprints)"), ("ticket",)),
    "no_hand": (N_("there is no hand %(hand)s in this game"), ("hand",)),
    "bag_short": (N_("the bag holds fewer tickets than the hands need"), ()),
    "mrx_start_ring": (N_("Mister X starts on one of the %(level)s rings"), ("level",)),
    "hand_holds": (N_("%(hand)s holds %(count)s %(ticket)s"), ("hand", "count", "ticket")),
    "mrx_refills_first": (N_("Mister X refills his hand first"), ()),
    "mrx_own_turn": (N_("Mister X does that in his own turn"), ()),
    "drawn_already": (N_("%(hand)s has drawn already this turn"), ("hand",)),
    "secret_hand": (N_("Mister X's hand is secret: only counts are given"), ()),
    "draw_count": (N_("%(hand)s must draw %(want)s tickets, not %(got)s"), ("hand", "want", "got")),
    "bag_lacks": (N_("the bag cannot give %(count)s %(ticket)s"), ("count", "ticket")),
    "no_discards": (N_("no discards now"), ()),
    "discard_once": (N_("%(hand)s discards once, before drawing"), ("hand",)),
    "mrx_holds": (N_("Mister X holds %(count)s tickets"), ("count",)),
    "not_dealt": (N_("the hands are not dealt yet"), ()),
    "two_moves_double": (N_("two moves are a double move"), ()),
    "special_cost": (N_("a %(special)s move spends %(count)s %(symbol)s tickets"), ("special", "count", "symbol")),
    "special_moves": (N_("a double move is two moves, a covert move one"), ()),
    "mrx_cannot_hold": (N_("Mister X cannot hold %(count)s %(ticket)s: the others are known to be elsewhere"),
                        ("count", "ticket")),
    "ends_at_destination": (N_("the first move reaches the destination: the game ends there"), ()),
    "covert_face_down": (N_("a covert move's ticket is face down"), ()),
    "mrx_unreachable_eu": (N_("Mister X cannot be there after these moves"), ()),
    "leave_by": (N_("city %(city)s may be left only by its %(kinds)s lowest transports"), ("city", "kinds")),
    "can_still_move": (N_("%(piece)s can still move"), ("piece",)),
    "detectives_after_mrx": (N_("the detectives move after Mister X's turn, before the refills"), ()),
    "after_special": (N_("the detectives' moves ended with their special operation"), ()),
    "began_on": (N_("%(piece)s began this round on %(city)s: it may not return there"), ("piece", "city")),
    "spend_count": (N_("the detectives spend 3, 4 or 5 tickets"), ()),
    "own_hands": (N_("the detectives spend from their own hands"), ()),
    "wrong_symbol": (N_("%(ticket)s is not a %(symbol)s ticket"), ("ticket", "symbol")),
    "special_when": (N_("the detectives' operation comes after their moves, before the refills"), ()),
    "moves_back": (N_("Mister X has made %(moves)s moves: nothing to show %(back)s moves back"), ("moves", "back")),
    "not_at_entry": (N_("Mister X cannot have been on %(city)s at entry %(entry)s"), ("city", "entry")),
    "capture_seen": (N_("the rules see a capture themselves"), ()),
    "stuck_by_host": (N_("only the host of a secret game declares it, at his turn"), ()),
    "check_ends_turn": (N_("the position check ends the detectives' turn"), ()),
    "not_refilled": (N_("%(hand)s has not refilled"), ("hand",)),
    "not_visited": (N_("no detective visited %(city)s this round"), ("city",)),
    "shown_twice": (N_("city %(city)s is shown twice"), ("city",)),
    "not_in_window": (N_("Mister X cannot have been on %(city)s in his last %(count)s cities"), ("city", "count")),
    "record_version": (N_("this reader knows Europe records of version %(version)s"), ("version",)),
    "line_long": (N_("the line is longer than %(max)s characters"), ("max",)),
    "set_up_already": (N_("the game is set up already"), ()),
    "setup_first": (N_("the first line must be the setup"), ()),
    "moves_on_board": (N_("the detectives move their pieces on the board"), ()),
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

_TICKET_VALUES = ("ticket",)  # values that are ticket names: worded in the player's language


# the board's pauses: its status `chain`, the `chain` note, svc_bus's `chain` ({"code", "fault",
# "after_module"}, docs/protocol.md); after_module -1: before the first module
PAUSES = {
    "chain_broken": N_("reader chain broken or mis-clocked after module %(module)d"),
}
CHAIN_AT_CONTROLLER = N_("reader chain broken or mis-clocked between the controller and module 0")
CHAIN_WHOLE = N_("reader chain whole again: the game goes on once the pieces stand where it has them")
UNKNOWN_PAUSE = N_("the board paused the game (%(code)s)")


def detail(why, args=()):
    """The detail's sentence with its values, or None where the host does not know it (a newer
    board's) or its values do not fit."""
    entry = DETAILS.get(why) if isinstance(why, str) else None
    if entry is None or not isinstance(args, (list, tuple)) or len(args) != len(entry[1]):
        return None
    from host.words import ticket_name
    values = {}
    for name, v in zip(entry[1], args):
        values[name] = ticket_name(v) if name in _TICKET_VALUES and isinstance(v, str) else v
    return _(entry[0]) % values


def refusal(code, piece=None, ticket=None, to=None, why=None, args=()):
    """The sentence for a refusal: naming the move where it is given, else the detail's, else the
    code's; a code the host does not know (a newer board) is shown as it came."""
    if piece is not None and code in MOVE_REFUSALS:
        from host.words import ticket_name
        return _(MOVE_REFUSALS[code]) % {"piece": piece, "to": to if to is not None else "?",
                                         "ticket": ticket_name(ticket) if ticket else "?"}
    said = detail(why, args)
    if said is not None:
        return said
    if code in REFUSALS:
        return _(REFUSALS[code])
    return _(UNKNOWN) % {"code": raw(code, why, args)}


def raw(code, why=None, args=()):
    """The codes and values as they came (for a code the host does not know): `code why: 1, 2`."""
    text = " ".join(str(c) for c in (code, why) if c)
    if isinstance(args, (list, tuple)) and args:
        text += ": " + ", ".join(str(a) for a in args)
    return text or "?"


def of_reply(reply, **move):
    """The sentence for an error reply or a note ({"error", "why", "args"})."""
    return refusal(reply.get("error") or "internal", why=reply.get("why"), args=reply.get("args") or (), **move)


def _parts(error):
    """(why, args) of a RuleError (the shared rules') or a BoardCommandError."""
    why = getattr(error, "why", None)
    args = getattr(error, "values", None)
    if args is None:
        args = getattr(error, "fields", ())
    return why, args or ()


def of(error, **move):
    """The sentence for a refused action: a BoardCommandError/LinkError or a RuleError (anything
    with a `code`)."""
    why, args = _parts(error)
    return refusal(getattr(error, "code", None) or "internal", why=why, args=args, **move)


def shown(error, **move):
    """What a player reads for an error: a refusal with a code in its sentence from the tables,
    anything else (an error the host made, already in the player's language) as it is."""
    code = getattr(error, "code", None)
    why, _args = _parts(error)
    if code in REFUSALS or code in MOVE_REFUSALS or why in DETAILS:
        return of(error, **move)
    if code and (why or not str(error)):
        return refusal(code, why=why, args=_args)
    return str(error)


def page_table():
    """The tables the pages word refusals with (served in /i18n.json): code -> msgid, and why ->
    [msgid, [value names]]."""
    return {"codes": REFUSALS, "details": {k: [v[0], list(v[1])] for k, v in DETAILS.items()}}


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


def chain_note(note):
    """The sentence for the board's `chain` note: the pause (pause()), or the chain whole again."""
    return pause(note) or _(CHAIN_WHOLE)
