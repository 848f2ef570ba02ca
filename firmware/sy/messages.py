"""The sentences of the refusals raised by the code the board keeps on its heap (rules, board,
protocol), loaded only while an error is being reported and dropped again.

That code raises RuleError(code, _KEY, *args) with `_KEY = const(n)`: n is the sentence's index
here, the args fill its %-fields. tests/test_messages.py checks every _KEY against this table.
Kept apart because the board's heap is small: 56 sentences as string objects cost about 4 KB.
"""
TEXT = (
    "there is no piece %r in this game",  # 0 _NO_SUCH_PIECE
    "no %s line joins station %d and station %d",  # 1 _NO_LINE
    "the two-player game has exactly 2 detectives",  # 2 _TWO_PLAYER_COUNT
    "a game has 2 to 5 detectives (one player runs 2 in the two-player game)",  # 3 _DETECTIVE_COUNT
    "%d detectives play with %d bobbies, not %d",  # 4 _BOBBY_COUNT
    "rounds must be a whole number from 1 to 99",  # 5 _ROUNDS_RANGE
    "Mister X's station is secret here",  # 6 _MRX_SECRET
    "the game is over",  # 7 _GAME_OVER
    "it is the detectives' turn",  # 8 _DETECTIVES_TURN
    "Mister X's ticket must be taxi, bus, underground or black",  # 9 _MRX_TICKET_KIND
    "the travel log is full",  # 10 _LOG_FULL
    "%r is not a station",  # 11 _NOT_A_STATION
    "Mister X cannot reach station %d by %s from where he may be",  # 12 _MRX_UNREACHABLE
    "station %d is not connected to station %d",  # 13 _NOT_CONNECTED
    "the ferry takes only a black ticket",  # 14 _FERRY_BLACK_ONLY
    "Mister X has no double-move ticket left",  # 15 _NO_DOUBLE_LEFT
    "it is Mister X's turn",  # 16 _MRX_TURN
    "%s has already moved this round",  # 17 _ALREADY_MOVED
    "a ticket is taxi, bus, underground or black",  # 18 _TICKET_KIND
    "detectives have no black tickets",  # 19 _NO_BLACK_FOR_DETECTIVES
    "%s has no %s ticket left",  # 20 _NO_TICKET_LEFT
    "station %d is held by %s",  # 21 _HELD_BY
    "only Mister X may take the ferry, with a black ticket",  # 22 _FERRY_MRX_ONLY
    "Mister X still has a legal move",  # 23 _MRX_NOT_STUCK
    "two pieces cannot both start on station %d",  # 24 _SHARED_START
    "Mister X cannot start on station %d: a piece stands there",  # 25 _MRX_START_HELD
    "surfacing moves must be whole numbers from 1 to 99",  # 26 _REVEALS_RANGE
    "ticket counts must be whole numbers from 0 to 255",  # 27 _TICKET_COUNT_RANGE
    "the box has only %d %s tickets",  # 28 _BOX_SHORT
    "Mister X has no black ticket left",  # 29 _NO_BLACK_LEFT
    "the general supply has no %s ticket left",  # 30 _SUPPLY_EMPTY
    "Mister X's move must name the station",  # 31 _MRX_NEEDS_STATION
    "bobbies travel by taxi, bus or underground",  # 32 _BOBBY_TICKETS
    "a detective's move must name its ticket",  # 33 _NEEDS_TICKET
    "Mister X is not on station %d",  # 34 _MRX_NOT_THERE
    "Mister X cannot be on station %d",  # 35 _MRX_NOT_POSSIBLE
    "the saved game is damaged",  # 36 _SAVE_DAMAGED
    "move %d is a surfacing move: it must name the station",  # 37 _SURFACING_NEEDS_STATION
    "the board must not learn Mister X's hidden station",  # 38 _HIDDEN_STATION
    "no game is set up",  # 39 _NO_GAME
    "the pieces are not on their start stations yet",  # 40 _NOT_SET_UP
    "pieces moved while the board was off: put them back first",  # 41 _RESTORE_FIRST
    "move %d is secret: the board must not learn Mister X's station",  # 42 _SECRET_MOVE
    "%s must be taxi, bus, underground or black, not %r",  # 43 _BAD_TICKET
    "%s must be a station number 1..199",  # 44 _BAD_STATION
    "commit must be a SHA-256 hex digest (64 characters)",  # 45 _BAD_COMMIT
    "seq must be an event number the board sent",  # 46 _BAD_SEQ
    "no piece is waiting for a ticket choice",  # 47 _NO_CHOICE_PENDING
    "the line is not valid JSON",  # 48 _NOT_JSON
    "a command is a JSON object",  # 49 _NOT_OBJECT
    "id must be an integer",  # 50 _BAD_ID
    "unknown command %r",  # 51 _UNKNOWN_COMMAND
    "the board is in service mode: end yard calibrate/selftest first",  # 52 _SERVICE_MODE
    "every command but ack needs an integer id",  # 53 _ID_NEEDED
    "double must be a list of two moves",  # 54 _BAD_DOUBLE
    "the line is longer than %d bytes",  # 55 _LINE_TOO_LONG
)
