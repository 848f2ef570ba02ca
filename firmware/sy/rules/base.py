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
    """A refused action: `code` from the game-record contract, `message` a sentence for a person.

    The sentence's %-fields are filled from args when the message is read, not when the error is
    raised (the host's planners try many moves and read few messages)."""

    def __init__(self, code, message, *args):
        super().__init__(code)
        self.code = code
        self._message = message
        self._args = args

    @property
    def message(self):
        return self._message % self._args if self._args else self._message

    def __str__(self):
        return self.message


def is_int(x):
    """An int that is not a bool (True is 1 to Python, never a station or a count here)."""
    return isinstance(x, int) and not isinstance(x, bool)


def check_mrx_turn(g):
    """Refuse a move or declaration of Mister X's outside his turn (the Game g, any module of the family)."""
    if g.phase == PHASE_OVER:
        raise RuleError("game_over", "the game is over")
    if g.phase != PHASE_MRX:
        raise RuleError("wrong_turn", "it is the detectives' turn")
