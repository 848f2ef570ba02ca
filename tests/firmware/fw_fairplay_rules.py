"""A take-back never buys information (docs/fairplay.md): the rules' side, as plain functions
(tests/test_fairplay_firmware.py runs them under CPython and under the MicroPython unix port).

Round 1 after Mister X's taxi move from an X card, detectives on 13, 26, 29, 34, 50: D1 (13) may
go to 23 (he cannot be there) or 46 (he may be there); D2 (26) to 27 or 39 (he may)."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.rules.game import RuleError, TAXI, UNDERGROUND, PHASE_MRX
from sy.rules import takeback
from rulekit import five, refused


def _round_one():
    g = five(0)
    g.mrx_move(TAXI)
    return g


def test_a_move_where_he_cannot_be_is_taken_back_freely():
    g = _round_one()
    before = g.save()
    assert not g.is_candidate(23)
    g.move(0, TAXI, 23)
    assert g.check_take_back() == takeback.FREE
    assert g.take_back() == (0, TAXI, 13, 23)
    assert g.save() == before


def test_a_move_where_he_may_be_is_final_without_his_consent():
    g = _round_one()
    before = g.save()
    assert g.is_candidate(46)
    g.move(0, UNDERGROUND, 46)  # no capture: the players now know he is not on 46
    after = g.save()
    e = refused("needs_consent", g.check_take_back)
    assert (e.why, e.values) == ("final_landed", ("D1", 46))
    assert g.save() == after  # the refusal changed nothing
    assert g.check_take_back(True) == takeback.LANDED_WHERE_HE_MAY_BE
    g.take_back()
    assert g.save() == before


def test_the_move_that_hands_him_the_turn_is_final_without_his_consent():
    g = _round_one()
    for p, to, t in ((0, 23, TAXI), (1, 27, TAXI), (2, 16, TAXI), (3, 10, TAXI)):
        g.move(p, t, to)
        assert g.check_take_back() == takeback.FREE
    g.move(4, TAXI, 49)  # the round's last move: now he is cornered, or not, at once
    assert g.phase == PHASE_MRX
    refused("needs_consent", g.check_take_back)
    assert g.check_take_back(consent=True) == takeback.HANDED_HIM_THE_TURN
    g.take_back()
    assert g.check_take_back() == takeback.FREE  # D4's move to 10 told nothing
    g.take_back()


def test_an_earlier_final_move_stays_final_after_a_later_free_one_is_taken_back():
    g = _round_one()
    g.move(1, TAXI, 39)  # where he may be
    g.move(0, TAXI, 23)
    assert g.check_take_back() == takeback.FREE
    g.take_back()
    refused("needs_consent", g.check_take_back)


def test_nothing_to_take_back_and_the_game_over_come_first():
    g = _round_one()
    refused("wrong_turn", g.check_take_back, True)
    g2 = five(0)
    g2.mrx_move(TAXI)
    g2.move(0, TAXI, 23)
    g2._end("detectives", "capture")
    refused("game_over", g2.check_take_back, True)


def test_his_move_closes_the_take_backs():
    g = five(0)
    g.mrx_move(TAXI)
    for p, to in ((0, 23), (1, 27), (2, 16), (3, 10), (4, 49)):
        g.move(p, TAXI, to)
    g.mrx_move(TAXI)
    refused("wrong_turn", g.check_take_back, True)


def test_random_games_every_move_is_free_exactly_when_it_told_nothing():
    state = [7]

    def pick(options):  # a small LCG: the same games under CPython and MicroPython
        state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
        return options[state[0] % len(options)]
    checked = 0
    for _game in range(6):
        g = five(0, reveals=())  # he never surfaces: the board is never told
        while g.result is None and g.round < 8:
            if g.phase == PHASE_MRX:
                g.mrx_move(TAXI if g.supply[TAXI] else 3)
                continue
            mask = g.to_move()
            p = 0
            while not mask >> p & 1:
                p += 1
            to, t = pick(g.legal(p))
            possible = g.is_candidate(to)
            g.move(p, t, to)
            if g.result is not None:
                break
            told = possible or g.phase == PHASE_MRX
            try:
                g.check_take_back()
                assert not told
            except RuleError as e:
                assert told and e.code == "needs_consent"
            checked += 1
    assert checked > 100
