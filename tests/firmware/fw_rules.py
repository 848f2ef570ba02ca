"""The rules family (sy/rules/*.py) at the edges of what it allows, as plain functions:
tests/test_firmware_units.py runs them under CPython and under the MicroPython unix port.
tests/core/test_rules_core.py has every rule once (and must fit the unix port's 64 KB heap); this
file has the limits next to them: a setup's counts, a saved game read back, ... one refused code or
one changed state each."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.rules.game import Game, RuleError


def refused(code, fn, *args):
    try:
        fn(*args)
    except RuleError as e:
        assert e.code == code, "expected %s, got %s: %s" % (code, e.code, e.message)
        assert e.message
        return e
    raise AssertionError("expected RuleError %s from %r" % (code, args))


# --- a setup's limits, at their edges (sy/rules/gamestart.py) ---------------------------------------
def test_rounds_and_surfacing_moves_from_1_to_99():
    for rounds in (1, 99):
        assert Game([13, 26, 29, 34, 50], [], 45, rounds=rounds).rounds == rounds
    for rounds in (0, 100, -1, True, 5.0, "22", None):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, None, None, rounds)
    assert list(Game([13, 26, 29, 34, 50], [], 45, reveals=(99, 1)).reveals) == [1, 99]
    assert list(Game([13, 26, 29, 34, 50], [], 45, reveals=()).reveals) == []
    for bad in (0, 100, True, 3.0, "3", None):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, None, None, 22, (3, bad))


def test_ticket_counts_from_0_to_255():
    g = Game([13, 26, 29, 34, 50], [], 45, tickets=(0, 9, 0), mrx_tickets=(255, 0))
    assert list(g.tickets[4]) == [0, 9, 0] and (g.black, g.double) == (255, 0)
    for stock in ((11, -1, 4), (11, 8, 256), (True, 8, 4), (11, 8.0, 4)):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, stock)
    for mt in ((256, 2), (5, -1), (5, False), (None, 2)):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, None, mt)


def test_the_box_holds_the_tickets_handed_out_to_its_last_one():
    g = Game([13, 26, 29, 34, 50], [], 45, tickets=(11, 9, 4))  # 5 x 9 = the box's 45 bus tickets
    assert list(g.supply) == [57 - 55, 0, 23 - 20]
    refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, (11, 10, 4))
    refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, (12, 8, 4))
    refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, (11, 8, 5))
    g = Game([13, 26], [29, 34], 45, two_player=True, tickets=(57, 45, 23))  # one stock for both
    assert list(g.supply) == [0, 0, 0]
    refused("bad_input", Game, [13, 26], [29, 34], 45, True, (57, 45, 24))
    g = Game([13, 26], [29, 34], 45, tickets=(28, 22, 11))  # two detectives, two stocks
    assert list(g.supply) == [1, 1, 1]
    refused("bad_input", Game, [13, 26], [29, 34], 45, False, (29, 22, 11))


def test_two_to_five_detectives_and_their_bobbies():
    for det, bob in (([13, 26], [29, 34]), ([13, 26, 29], [34]), ([13, 26, 29, 34], []), ([13, 26, 29, 34, 50], [])):
        g = Game(det, bob, 45)
        assert g.n_detectives == len(det) and list(g.pos) == det + bob
    for det, bob in (([13, 26], [29]), ([13, 26], [29, 34, 50]), ([13, 26, 29], []), ([13, 26, 29, 34, 50], [53]),
                     ([], []), ([13], [26, 29]), ([13, 26, 29, 34, 50, 53], [])):
        refused("bad_input", Game, det, bob, 45)
    refused("bad_input", Game, [13, 26, 29], [34], 45, True)  # two players: exactly two detectives
    refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, True)


def test_no_two_pieces_and_not_mister_x_share_a_start():
    refused("bad_input", Game, [13, 26], [29, 13], 45)  # a bobby on a detective's station
    refused("bad_input", Game, [13, 26], [29, 29], 45)
    refused("bad_input", Game, [13, 26, 29, 34, 13], [], 45)  # the last on the first's
    refused("bad_input", Game, [13, 26], [29, 34], 34)  # Mister X on a bobby's
    refused("bad_input", Game, [13, 26, 29, 34, 50], [], 13)
    for mrx in (200, -1, 255):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], mrx)
    for s in (1, 199):
        assert Game([13, 26, 29, 34, s], [], 45).pos[4] == s
        assert Game([13, 26, 29, 34, 50], [], s).mrx == s
    assert Game([13, 26, 29, 34, 50], [], 0).mrx == 0  # no station: a secret game
    refused("bad_input", Game, [13, 26, 29, 34, 200], [], 45)
    refused("bad_input", Game, [13, 26], [29, 0], 45)
