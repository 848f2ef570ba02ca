"""What every module of the rules shares: the tickets, the phases, the box's counts, the game's
results, and RuleError, a refused action. The bottom of the rules family: it imports none of it.

sy/rules/game.py (the Game) and the modules it hands parts of its work to (sy/rules/gamestart.py, sy/rules/mrxmoves.py,
sy/rules/mrxknown.py, sy/rules/takeback.py, sy/rules/savedgame.py) import this; none of them imports the Game's
module, so the family's imports go one way (tests/test_architecture.py).
"""
try:
    from micropython import const
except ImportError:  # CPython
    from sy.compat import const  # noqa: F401 (re-exported: sy/rules/game.py takes it from here)

TAXI = 0
BUS = 1
UNDERGROUND = 2
BLACK = 3
TICKET_NAMES = ("taxi", "bus", "underground", "black")

PHASE_MRX = 0
PHASE_DETECTIVES = 1
PHASE_OVER = 2

BOX = (57, 45, 23)  # taxi, bus, underground tickets in the box
DETECTIVE_TICKETS = (11, 8, 4)
TWO_PLAYER_STOCK = (22, 16, 8)
MRX_TICKETS = (5, 2)  # black, double
ROUNDS = 22
REVEALS = (3, 8, 13, 18, 24)
BOBBIES = (None, None, 2, 1, 0, 0)  # bobbies for 2..5 detectives

RESULTS = (None, "detectives", "mrx")
REASONS = (None, "capture", "mrx_stuck", "rounds_done", "detectives_stuck")
SAVE_VERSION = 1  # the first byte of a Game's snapshot (sy/rules/savedgame.py)


class RuleError(Exception):
    """A refused action: `code` from the game-record contract, `why` the detail's code (or None:
    the code says it all) and `values` what the detail names (stations, pieces, tickets, counts).

    The board sends codes and values, never a sentence: the host words them in the player's
    language (host/refusals.py, docs/protocol.md "Error codes")."""

    def __init__(self, code, why=None, *values):
        super().__init__(code)
        self.code = code
        self.why = why
        self.values = values

    def reply(self, obj):
        """obj with the refusal's `error`, and `why` and `args` where there are some."""
        obj["error"] = self.code
        if self.why:
            obj["why"] = self.why
        if self.values:
            obj["args"] = list(self.values)
        return obj

    def __str__(self):  # for a log: the codes and values, never a sentence
        return " ".join([self.code] + ([self.why] if self.why else []) + [str(v) for v in self.values])


def is_int(x):
    """An int that is not a bool (True is 1 to Python, never a station or a count here)."""
    return isinstance(x, int) and not isinstance(x, bool)


def check_mrx_turn(g):
    """Refuse a move or declaration of Mister X's outside his turn (the Game g, any module of the family)."""
    if g.phase == PHASE_OVER:
        raise RuleError("game_over")
    if g.phase != PHASE_MRX:
        raise RuleError("wrong_turn", "detectives_turn")
