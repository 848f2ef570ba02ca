"""Scenarios of docs/rules-europe.md on the map made for the tests (tests/data/europe_testmap, NOT
the real board): each special action, the investigation, the position check, both endings.

Plain functions and asserts: pytest collects this file, and tests/mpy_run.py runs it under the
MicroPython unix port (tests/test_europe_micropython.py).
"""
from sy.europe import graph as europe_graph
from sy.europe.rules import (Game, RuleError, ticket_number, PH_MRX, PH_MRX_REFILL, PH_DET,
                             PH_OVER)

GREEN = 0
ORANGE = 2


def graph():
    return europe_graph.load("europe_testmap")


def T(*names):
    out = []
    for name in names:
        count = 1
        if "*" in name:
            name, _, n = name.partition("*")
            count = int(n)
        out += [ticket_number(name)] * count
    return out


X_HAND = ("car/footprints*3", "car/silhouettes*3", "train/lamp", "plane/magnifier")
P1_HAND = ("car/magnifier*4", "car/lamp*3")
P2_HAND = ("car/lamp*3", "car/magnifier*3")


def state(g):
    return (bytes(g.pos), [bytes(h) for h in g.hands], list(g.hand_count), bytes(g.bag), bytes(g.out),
            bytes(g.logged), g.moves, g.phase, bytes(g.log), g.moved, g.special, g.result, g.candidates())


def refused(code, g, method, *args):
    before = state(g)
    try:
        getattr(g, method)(*args)
    except RuleError as e:
        assert e.code == code, "expected %s, got %s: %s" % (code, e.code, e)
        assert str(e).startswith(code)
        assert state(g) == before, "a refused line changed the game"
        return e
    raise AssertionError("expected RuleError %s" % code)


def new(mrx=13, det=(8, 10, 16, 22, 23), level=GREEN, x=X_HAND, p1=P1_HAND, p2=P2_HAND, bag=None):
    g = Game(graph(), list(det), [3, 2], level, mrx, 8, bag)
    g.draw(0, T(*x))
    g.draw(1, T(*p1))
    g.draw(2, T(*p2))
    return g


def end_round(g, p1=(), p2=(), shown=None):
    """Refill both detective players with the given tickets, then the position check."""
    g.draw(1, T(*p1))
    g.draw(2, T(*p2))
    return g.position_check(shown)


def test_the_deal_fills_every_hand_and_mister_x_begins():
    g = Game(graph(), [8, 10, 16, 22, 23], [3, 2], GREEN, 13)
    assert g.hand_size == [8, 7, 6]
    refused("bad_draw", g, "draw", 0, T("car/lamp*5"))
    refused("wrong_turn", g, "mrx_turn", None, [], [(ticket_number("car/lamp"), 14)])
    g.draw(0, T(*X_HAND))
    refused("already_moved", g, "draw", 0, T("car/lamp*8"))
    g.draw(1, T(*P1_HAND))
    g.draw(2, T(*P2_HAND))
    assert g.phase == PH_MRX and g.bag_total == 120 - 21
    assert g.candidates() == [1, 7, 13, 19, 25]


def test_setup_refusals():
    for det, players, mrx in (([8, 8, 16, 22, 23], [3, 2], 13), ([8, 10, 16, 22, 23], [3, 3], 13),
                              ([8, 10, 16, 22, 23], [3, 2], 14), ([13, 10, 16, 22, 23], [3, 2], 13),
                              ([8, 10, 16, 22, 23, 5], [3, 3], 13), ([8, 10, 99, 22, 23], [3, 2], 13)):
        try:
            Game(graph(), det, players, GREEN, mrx)
        except RuleError as e:
            assert e.code == "bad_input"
        else:
            raise AssertionError("setup %r %r %r accepted" % (det, players, mrx))


def test_single_move_refill_and_a_round():
    g = new()
    refused("kind", g, "mrx_turn", None, [], [(ticket_number("plane/magnifier"), 8)])
    refused("not_connected", g, "mrx_turn", None, [], [(ticket_number("car/footprints"), 20)])
    refused("no_ticket", g, "mrx_turn", None, [], [(ticket_number("car/lamp"), 14)])
    g.mrx_turn(None, [], [(ticket_number("train/lamp"), 20)])
    assert g.mrx == 20 and bytes(g.log) == bytes([13, 20]) and g.phase == PH_MRX_REFILL
    assert g.candidates() == [20]  # of the green rings only 13 has a train line
    refused("wrong_turn", g, "move", 0, ticket_number("car/lamp"), 9)
    refused("bad_draw", g, "draw", 0, T("car/lamp*2"))
    g.discard(0, T("car/footprints"))
    refused("already_moved", g, "discard", 0, T("car/footprints"))
    refused("bad_draw", g, "draw", 0, T("car/footprints*3"))
    g.draw(0, T("car/footprints", "plane/lamp"))
    assert g.phase == PH_DET and g.hand_count[0] == 8
    refused("wrong_turn", g, "position_check")
    g.move(0, ticket_number("car/lamp"), 9)
    assert g.bag[ticket_number("car/lamp")] == 10 - 3 - 3 + 1  # the moving ticket is back in the bag
    refused("already_moved", g, "move", 0, ticket_number("car/lamp"), 3)
    refused("occupied", g, "move", 1, ticket_number("car/lamp"), 9)
    g.move(1, ticket_number("car/lamp"), 4)
    g.move(2, ticket_number("car/lamp"), 17)
    g.move(3, ticket_number("car/magnifier"), 21)
    refused("wrong_turn", g, "draw", 1, T("car/lamp*3"))  # D5 can still move
    g.move(4, ticket_number("car/magnifier"), 29)
    assert end_round(g, ["car/lamp*3"], ["car/lamp", "car/magnifier"]) == []
    assert g.phase == PH_MRX and g.round == 2
    assert g.candidates() == [20]


def test_a_detective_may_not_leave_by_a_transport_its_city_forbids():
    g = new(x=("car/footprints*3", "car/silhouettes*3", "train/lamp", "car/lamp"),
            p1=("train/magnifier*4", "car/lamp*3"))
    g.mrx_turn(None, [], [(ticket_number("car/lamp"), 14)])
    g.draw(0, T("car/lamp"))
    e = refused("kind", g, "move", 1, ticket_number("train/magnifier"), 9)  # 10 is a car city
    assert (e.why, e.values) == ("leave_by", (10, 1))  # car only
    refused("not_connected", g, "move", 0, ticket_number("train/magnifier"), 14)


def test_double_move_spends_three_footprints_and_logs_two_tickets():
    g = new()
    refused("bad_special", g, "mrx_turn", "double", T("car/footprints*2", "car/silhouettes"),
            [(ticket_number("car/silhouettes"), 7), (ticket_number("car/lamp"), 1)])
    refused("bad_special", g, "mrx_turn", None, [], [(ticket_number("car/silhouettes"), 7), (ticket_number("train/lamp"), 1)])
    refused("occupied", g, "mrx_turn", "double", T("car/footprints*3"),
            [(ticket_number("car/silhouettes"), 7), (ticket_number("car/silhouettes"), 8)])
    g.mrx_turn("double", T("car/footprints*3"), [(ticket_number("car/silhouettes"), 7), (ticket_number("car/silhouettes"), 1)])
    assert bytes(g.log) == bytes([13, 7, 1]) and g.moves == 2 and g.hand_count[0] == 3
    assert g.out[ticket_number("car/footprints")] == 3 and g.out_total == 3
    assert g.logged[ticket_number("car/silhouettes")] == 2 and g.logged_total == 2
    # car, then car, from the five green rings, never through a detective's city
    assert g.candidates() == [1, 2, 3, 7, 13, 14, 15, 19, 20, 21, 25, 26, 27]


def test_only_one_special_operation_a_turn():
    g = new(x=("car/footprints*3", "car/silhouettes*3", "car/lamp*2"))
    refused("bad_special", g, "mrx_turn", "double", T("car/footprints*3", "car/silhouettes*3"),
            [(ticket_number("car/lamp"), 7), (ticket_number("car/lamp"), 1)])


def test_covert_move_hides_the_transport():
    g = new(x=("car/footprints*3", "car/silhouettes*3", "train/lamp", "plane/magnifier"))
    g.mrx_turn(None, [], [(ticket_number("train/lamp"), 20)])
    g.draw(0, T("car/lamp"))
    g.move(0, ticket_number("car/lamp"), 9)
    g.move(1, ticket_number("car/lamp"), 4)
    g.move(2, ticket_number("car/lamp"), 17)
    g.move(3, ticket_number("car/magnifier"), 28)
    g.move(4, ticket_number("car/magnifier"), 29)
    end_round(g, ["car/lamp*3"], ["car/lamp", "car/magnifier"])
    refused("bad_special", g, "mrx_turn", "covert", T("car/silhouettes*2", "car/footprints"),
            [(ticket_number("plane/magnifier"), 8)])
    g.mrx_turn("covert", T("car/silhouettes*3"), [(ticket_number("plane/magnifier"), 8)])
    assert g.mrx == 8 and g.logged_total == 2 and g.logged[ticket_number("plane/magnifier")] == 0
    assert g.out[ticket_number("car/silhouettes")] == 3
    # from 20 by any transport: car 14 19 21 26, train 13 27, plane 8 11 27
    assert g.candidates() == [8, 11, 13, 14, 19, 21, 26, 27]


def test_pass_only_when_no_ticket_fits():
    g = new(x=("plane/magnifier*4", "plane/lamp*4"))
    g.mrx_turn(None, [], [])  # 13 is a train city: no plane leaves it
    assert g.moves == 0 and g.phase == PH_MRX_REFILL
    g2 = new(x=("plane/magnifier*4", "plane/lamp*3", "car/lamp"))
    refused("must_move", g2, "mrx_turn", None, [], [])


def test_cornered_mister_x_loses():
    g = new(mrx=25, det=(19, 26, 5, 10, 16))
    assert g.phase == PH_OVER and g.result == "detectives" and g.reason == "mrx_stuck"


def play_double_then_round(g, d1_to=2, d2_to=9, d1_ticket="car/lamp"):
    g.mrx_turn("double", T("car/footprints*3"), [(ticket_number("car/silhouettes"), 7), (ticket_number("car/silhouettes"), 1)])
    g.draw(0, T("plane/lamp*3", "train/lamp*2"))
    g.move(0, ticket_number(d1_ticket), d1_to)
    if g.result:
        return
    g.move(1, ticket_number("car/lamp"), d2_to)
    g.move(2, ticket_number("car/lamp"), 17)
    g.move(3, ticket_number("car/lamp"), 21)
    g.move(4, ticket_number("car/lamp"), 29)


def test_capture_when_a_detective_lands_on_mister_x():
    g = new()
    play_double_then_round(g, d1_to=1)
    assert g.result == "detectives" and g.reason == "capture" and g.round == 1
    refused("game_over", g, "move", 1, ticket_number("car/lamp"), 9)


def test_investigation_shows_an_entry_and_pins_it():
    g = new()
    play_double_then_round(g, d1_to=7)
    refused("too_early", g, "investigate", [(1, t) for t in T("car/magnifier*4")])
    refused("bad_special", g, "investigate", [(1, t) for t in T("car/lamp*3")])
    refused("no_ticket", g, "investigate", [(1, t) for t in T("car/magnifier*5")])
    entry, city = g.investigate([(1, t) for t in T("car/magnifier*4")] + [(2, ticket_number("car/magnifier"))])
    assert (entry, city) == (0, 13)
    assert g.out[ticket_number("car/magnifier")] == 5 and g.hand_count[1] == 7 - 3 - 4
    refused("special_used", g, "extra_move", 0, [(2, t) for t in T("car/lamp*3")], 1)
    # entry 0 is 13; car to 7, 14 or 19; car again, not through 8 (held), not where they landed
    assert g.candidates() == [1, 13, 15, 20, 25, 26]


def test_investigation_with_three_and_four_magnifiers():
    g = new()
    play_double_then_round(g)
    end_round(g, ["car/lamp*3"], ["car/lamp*2"])
    g.mrx_turn(None, [], [(ticket_number("car/silhouettes"), 7)])
    g.draw(0, T("plane/lamp"))
    for i, to in ((0, 3), (1, 10), (2, 16), (3, 22), (4, 23)):
        g.move(i, ticket_number("car/lamp"), to)
    refused("too_early", g, "investigate", [(1, t) for t in T("car/magnifier*3")])
    assert g.investigate([(1, t) for t in T("car/magnifier*3")] + [(2, ticket_number("car/magnifier"))]) == (0, 13)


def test_extra_move_by_car_train_and_plane_and_no_return():
    g = new(p1=("car/lamp*6", "car/magnifier"), p2=("train/lamp*4", "car/lamp*2"))
    play_double_then_round(g, d1_to=14, d2_to=9)
    refused("returned", g, "extra_move", 1, [(1, t) for t in T("car/lamp*3")], 10)
    refused("not_connected", g, "extra_move", 1, [(1, t) for t in T("car/lamp*3")], 5)  # 9-5 is a train line
    refused("bad_special", g, "extra_move", 1, [(1, t) for t in T("car/magnifier*3")], 3)
    g.extra_move(1, [(2, t) for t in T("train/lamp*4")], 5)
    assert g.pos[1] == 5 and g.out[ticket_number("train/lamp")] == 4 and g.hand_count[2] == 0


def test_an_extra_move_captures():
    g = new(p1=("car/lamp*3", "car/magnifier*4"), p2=("car/lamp*5", "car/magnifier"))
    play_double_then_round(g, d1_to=2, d2_to=9)
    g.extra_move(0, [(2, t) for t in T("car/lamp*3")], 1)
    assert g.result == "detectives" and g.reason == "capture"


def test_position_check_shows_visited_cities_of_the_last_five_entries():
    g = new()
    play_double_then_round(g, d1_to=7, d2_to=9)  # 7 is entry 1 of his log; 9 none
    g.draw(1, T("car/lamp*3"))
    g.draw(2, T("car/lamp*2"))
    assert g.position_check() == [7]
    assert g.shown == [7]
    # 9 was visited and not shown; 7, 9, 17, 21, 29 are not where he is now
    for c in (7, 9, 17, 21, 29):
        assert c not in g.candidates()
    assert g.candidates() == [1, 2, 3, 13, 14, 15, 19, 20, 25, 26, 27]


def test_position_check_needs_every_refill():
    g = new()
    play_double_then_round(g, d1_to=7)
    g.draw(1, T("car/lamp*3"))
    refused("wrong_turn", g, "position_check")


def test_mister_x_wins_at_his_destination():
    g = new(mrx=28, det=(8, 10, 16, 23, 5), level=ORANGE,
            x=("car/footprints*3", "car/silhouettes*3", "car/lamp*2"))
    g.mrx_turn(None, [], [(ticket_number("car/lamp"), 27)])
    g.draw(0, T("car/lamp"))
    for i, to in ((0, 9), (1, 4), (2, 17), (3, 24), (4, 6)):
        g.move(i, ticket_number("car/lamp"), to)
    end_round(g, ["car/lamp*3"], ["car/lamp*2"])
    refused("bad_special", g, "mrx_turn", "double", T("car/footprints*3"),
            [(ticket_number("car/lamp"), 21), (ticket_number("car/lamp"), 22)])
    g.mrx_turn(None, [], [(ticket_number("car/lamp"), 21)])
    assert g.result == "mrx" and g.reason == "destination" and g.phase == PH_OVER


def test_an_empty_bag_takes_back_the_spent_tickets():
    bag = [0] * 12
    for name, n in (("car/footprints", 3), ("car/silhouettes", 3), ("car/lamp", 2), ("car/magnifier", 7),
                    ("train/magnifier", 6), ("plane/lamp", 2)):
        bag[ticket_number(name)] = n
    g = new(x=("car/footprints*3", "car/silhouettes*3", "car/lamp*2"), p1=("car/magnifier*7",),
            p2=("train/magnifier*6",), bag=bag)
    g.mrx_turn("double", T("car/footprints*3"), [(ticket_number("car/lamp"), 7), (ticket_number("car/lamp"), 1)])
    refused("not_in_bag", g, "draw", 0, T("car/footprints*5"))
    refused("bad_draw", g, "draw", 0, T("plane/lamp*2"))
    g.draw(0, T("plane/lamp*2", "car/footprints*3"))
    assert g.bag_total == 0 and g.out_total == 0 and g.hand_count[0] == 8
