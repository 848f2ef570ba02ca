"""Every rule of docs/rules.md, one accepted and one refused case each.

Plain functions and asserts: pytest collects this file, and tests/mpy_run.py runs it under the
MicroPython unix port with a small heap (tests/test_core_micropython.py).
"""
from sy.rules.game import (Game, TAXI, BUS, UNDERGROUND, BLACK, PHASE_MRX, PHASE_DETECTIVES,
                      PHASE_OVER)
from sy.rules import mapgraph
from rulekit import five, refused

FAR = [103, 141, 174]  # start cards far from the north-west corner used below


def state(g):
    return g.save()


def next_piece(g):
    """The first piece that still has to move this round."""
    mask = g.to_move()
    i = 0
    while not mask & (1 << i):
        i += 1
    return i


def first_move(g):
    """The next piece to move takes its first legal move."""
    i = next_piece(g)
    s, t = g.legal(i)[0]
    g.move(i, None if g.is_bobby(i) else t, s)


def finish_round(g):
    """Every piece that still has to move takes its first legal move."""
    while g.phase == PHASE_DETECTIVES:
        first_move(g)


# --- setup -------------------------------------------------------------------------------
def test_bobbies_by_number_of_detectives():
    assert Game([13, 26], [29, 34], 45).n_pieces == 4
    assert Game([13, 26, 29], [34], 45).n_pieces == 4
    assert Game([13, 26, 29, 34], [], 45).n_pieces == 4
    assert Game([13, 26, 29, 34, 50], [], 45).n_pieces == 5
    refused("bad_input", Game, [13, 26], [29], 45)
    refused("bad_input", Game, [13, 26, 29, 34], [50], 45)
    refused("bad_input", Game, [13], [], 45)
    refused("bad_input", Game, [13, 26, 29, 34, 50, 53], [], 45)


def test_setup_stations_distinct_and_valid():
    refused("bad_input", Game, [13, 13, 29, 34], [], 45)
    refused("bad_input", Game, [13, 26, 29, 34], [], 34)
    refused("bad_input", Game, [13, 26, 29, 200], [], 45)
    refused("bad_input", Game, [13, 26, 29, 0], [], 45)


def test_detective_tickets_and_supply():
    g = five()
    assert list(g.tickets[0]) == [11, 8, 4]
    assert list(g.supply) == [57 - 55, 45 - 40, 23 - 20]
    g2 = Game([13, 26], [29, 34], 45)
    assert list(g2.supply) == [35, 29, 15]
    assert g.black == 5 and g.double == 2


def test_two_player_shared_stock_configurable():
    g = Game([13, 26], [29, 34], 45, two_player=True)
    assert list(g.tickets[0]) == [22, 16, 8]
    assert g.tickets[0] is g.tickets[1]
    assert list(g.supply) == [35, 29, 15]
    g.mrx_move(TAXI, 46)
    g.move(0, TAXI, 4)  # 13-4 taxi
    assert g.tickets[1][TAXI] == 21  # the shared stock
    g20 = Game([13, 26], [29, 34], 45, two_player=True, tickets=(20, 16, 8))
    assert list(g20.tickets[0]) == [20, 16, 8]
    refused("bad_input", Game, [13, 26, 29], [34], 45, True)


# --- movement ----------------------------------------------------------------------------
def test_detective_moves_along_connection_and_pays():
    g = five()
    g.mrx_move(TAXI, 46)
    before = g.supply[BUS]
    g.move(0, BUS, 14)  # 13-14 bus
    assert g.pos[0] == 14 and g.tickets[0][BUS] == 7 and g.supply[BUS] == before + 1
    refused("not_connected", g.move, 1, TAXI, 14)  # 26 is not next to 14
    refused("not_connected", g.move, 1, BUS, 27)   # 26-27 is taxi only


def test_detective_without_ticket_refused():
    g = five(tickets=(11, 0, 4))
    g.mrx_move(TAXI, 46)
    refused("no_ticket", g.move, 0, BUS, 14)
    refused("no_ticket", g.move, 0, BLACK, 14)
    g.move(0, TAXI, 4)


def test_occupied_station_refused():
    g = Game([13, 4, 29, 34, 50], [], 45)
    g.mrx_move(TAXI, 46)
    e = refused("occupied", g.move, 0, TAXI, 4)
    assert (e.why, e.values) == ("held_by", (4, "D2"))
    g.move(0, TAXI, 23)


def test_mrx_cannot_move_onto_a_piece():
    g = Game([46, 26, 29, 34, 50], [], 45)
    refused("occupied", g.mrx_move, TAXI, 46)
    g.mrx_move(TAXI, 58)


def test_ferry_only_mrx_black():
    g = Game([13, 26, 29, 34, 50], [], 115)
    refused("ferry", g.mrx_move, TAXI, 108)
    g.mrx_move(BLACK, 108)
    assert g.black == 4
    g2 = Game([115, 26, 29, 34, 50], [], 45)
    g2.mrx_move(TAXI, 46)
    refused("ferry", g2.move, 0, TAXI, 108)
    refused("no_ticket", g2.move, 0, BLACK, 108)
    g2.move(0, TAXI, 114)


def test_bobby_moves_free_any_transport_never_ferry():
    g = Game([13, 26], [115, 1], 45)
    g.mrx_move(TAXI, 46)
    refused("ferry", g.move, 2, None, 108)
    refused("bad_input", g.move, 2, BLACK, 114)
    refused("not_connected", g.move, 3, TAXI, 46)  # 1-46 is bus/underground
    refused("not_connected", g.move, 3, UNDERGROUND, 58)
    supply = bytes(g.supply)
    g.move(3, None, 58)  # by bus, for free
    g.move(2, TAXI, 114)
    assert bytes(g.supply) == supply


def test_mrx_uses_supply_and_black_when_supply_empty():
    g = Game([13, 26, 29, 34, 50], [], 45)
    assert g.supply[UNDERGROUND] == 3
    g.supply[TAXI] = 0
    refused("no_ticket", g.mrx_move, TAXI, 46)
    g.mrx_move(BLACK, 46)
    assert g.mrx_used[TAXI] == 0 and g.supply[TAXI] == 0
    finish_round(g)  # the detectives' taxi tickets refill the supply
    g.black = 0
    refused("no_ticket", g.mrx_move, BLACK, 1)
    g.supply[UNDERGROUND] = 0
    refused("no_ticket", g.mrx_move, UNDERGROUND, 1)
    g.mrx_move(BUS, 1)
    assert g.mrx_used[BUS] == 1


def test_turn_order():
    g = five()
    refused("wrong_turn", g.move, 0, TAXI, 4)
    g.mrx_move(TAXI, 46)
    refused("wrong_turn", g.mrx_move, TAXI, 45)
    g.move(0, TAXI, 4)
    refused("already_moved", g.move, 0, TAXI, 3)
    g.move(1, TAXI, 27)


def test_way_back_allowed_next_round():
    g = five()
    g.mrx_move(TAXI, 46)
    g.move(0, TAXI, 4)
    finish_round(g)
    g.mrx_move(TAXI, 45)
    g.move(0, TAXI, 13)
    assert g.pos[0] == 13


# --- surfacing, double, black --------------------------------------------------------------
def test_surfacing_counted_in_moves():
    g = Game(list(FAR) + [29, 34], [], 45)
    shown = []
    for to in (46, 47, 62):  # 45-46, 46-47, 47-62 taxi
        shown.append(g.mrx_move(TAXI, to))
        if to == 46:
            assert g.surfaced == 0
        finish_round(g)
    assert shown == [0, 0, 62]
    assert g.candidates() == [62]
    g2 = Game(list(FAR) + [29, 34], [], 45)
    g2.mrx_move(TAXI, 46)
    finish_round(g2)
    assert g2.mrx_double(TAXI, 47, TAXI, 62) == 62  # moves 2 and 3: the second surfaces
    assert g2.moves == 3 and g2.round == 2 and g2.next_reveal() == 8


def test_double_move():
    g = Game(list(FAR) + [29, 34], [], 45)
    assert g.mrx_double(TAXI, 46, BUS, 58) == 0
    assert g.double == 1 and g.moves == 2 and len(g.log) == 2
    finish_round(g)
    snap = state(g)
    refused("not_connected", g.mrx_double, TAXI, 45, TAXI, 199)  # second half impossible
    assert state(g) == snap  # a refused double changes nothing
    g.mrx_double(TAXI, 45, TAXI, 46)
    finish_round(g)
    refused("double_used", g.mrx_double, TAXI, 45, TAXI, 46)


def test_double_first_half_surfaces_then_hides():
    g = Game(list(FAR) + [29, 34], [], 45)
    g.mrx_move(TAXI, 46)
    finish_round(g)
    g.mrx_move(TAXI, 47)
    finish_round(g)
    assert g.mrx_double(TAXI, 62, TAXI, 79) == 62  # move 3 surfaces, move 4 hides
    assert g.surfaced == 0
    assert 79 in g.candidates() and len(g.candidates()) > 1


def test_black_hides_transport_and_spreads():
    g = five(mrx=45)
    g.mrx_move(BLACK, 46)
    c = g.candidates()
    assert 46 in c
    g2 = five(mrx=45)
    g2.mrx_move(TAXI, 46)
    assert set(g2.candidates()) < set(c)  # black reveals less than taxi


# --- sitting out and round closing --------------------------------------------------------
def test_detective_without_usable_ticket_sits_out():
    # no taxi tickets: D1 (2), D2 (26) and D5 (50) stand on taxi-only stations
    g = Game([2, 26, 29, 34, 50], [], 45, tickets=(0, 8, 4))
    g.mrx_move(TAXI, 46)
    assert g.to_move() == (1 << 2) | (1 << 3)
    refused("no_ticket", g.move, 0, TAXI, 10)
    g.move(2, BUS, 15)
    g.move(3, BUS, 63)
    assert g.phase == PHASE_MRX and g.result is None


def test_blocked_piece_freed_by_another_move():
    # bobby B1 on 2 (neighbours 10, 20): blocked while D on 10 and B2 on 20
    g = Game([10, 141], [2, 20], 45)
    g.mrx_move(TAXI, 46)
    assert not g.can_move(2)
    g.move(0, TAXI, 11)  # frees 10
    assert g.can_move(2)
    g.move(2, None, 10)
    g.move(3, None, 9)
    assert g.phase == PHASE_DETECTIVES  # D2 still has to move
    g.move(1, TAXI, 133)
    assert g.phase == PHASE_MRX


def test_round_closes_when_all_moved():
    g = five()
    g.mrx_move(TAXI, 46)
    finish_round(g)
    assert g.phase == PHASE_MRX and g.round == 1


# --- end of the game ---------------------------------------------------------------------
def test_capture_by_detective_and_bobby():
    g = Game([13, 26, 29, 34, 50], [], 45)
    g.mrx_move(TAXI, 46)
    g.move(3, BUS, 46)  # 34-46 bus
    assert (g.result, g.reason) == ("detectives", "capture")
    refused("game_over", g.move, 0, TAXI, 4)
    refused("game_over", g.mrx_move, TAXI, 45)
    g2 = Game([13, 26], [29, 34], 45)
    g2.mrx_move(TAXI, 46)
    g2.move(3, None, 46)
    assert (g2.result, g2.reason) == ("detectives", "capture")
    g3 = Game([13, 26, 29, 34, 50], [], 45)
    g3.mrx_move(TAXI, 46)
    g3.move(3, TAXI, 22)
    assert g3.result is None


def trap(d1_to):
    # Mister X on 20 runs to 2 (neighbours 10, 20); D1 21->d1_to, D2 9->20.
    g = Game([21, 9, 32, 103, 141], [], 20)
    g.mrx_move(TAXI, 2)
    g.move(0, TAXI, d1_to)
    g.move(1, TAXI, 20)
    finish_round(g)
    return g


def test_mrx_stuck():
    g = trap(10)
    assert (g.result, g.reason) == ("detectives", "mrx_stuck")
    g2 = trap(33)
    assert g2.result is None and g2.phase == PHASE_MRX
    assert Game([10, 20, 29, 34, 50], [], 2).reason == "mrx_stuck"


def test_detectives_stuck_bobbies_not_counted():
    g = Game([13, 26], [29, 34], 45, tickets=(0, 0, 0))
    g.mrx_move(TAXI, 46)
    assert (g.result, g.reason) == ("mrx", "detectives_stuck")
    g2 = Game([13, 26], [29, 34], 45, tickets=(1, 0, 0))
    g2.mrx_move(TAXI, 46)
    assert g2.result is None


def test_rounds_done():
    g = Game([13, 26, 29, 34, 50], [], 45, rounds=2)
    g.mrx_move(TAXI, 46)
    finish_round(g)
    assert g.result is None
    g.mrx_move(TAXI, 45 if g.holder_of(45) < 0 else 47)
    finish_round(g)
    assert (g.result, g.reason, g.round) == ("mrx", "rounds_done", 2)


# --- public information --------------------------------------------------------------------
def test_candidates_exact():
    g = Game([13, 26, 29, 34, 50], [], 45)
    assert g.candidates() == [35, 45, 51, 71, 78, 104, 106, 127, 132, 146, 166, 170, 172]
    g.mrx_move(TAXI, 46)
    graph = mapgraph.load()
    expect = set()
    for s in [35, 45, 51, 71, 78, 104, 106, 127, 132, 146, 166, 170, 172]:
        expect.update(graph.neighbours(s, TAXI))
    expect -= set(g.pos)
    assert g.candidates() == sorted(expect)
    g.move(3, TAXI, 22)  # 34-22: lands on a candidate, no capture
    assert 22 not in g.candidates() and 46 in g.candidates()


def test_secret_mode_never_takes_hidden_station():
    g = Game([13, 26, 29, 34, 50], [], 0)
    refused("bad_input", g.mrx_move, TAXI, 46)
    g.mrx_move(TAXI)
    assert g.mrx == 0
    finish_round(g)
    g.mrx_move(TAXI)
    finish_round(g)
    refused("bad_input", g.mrx_move, TAXI)  # move 3 surfaces: the station is public
    graph = mapgraph.load()
    reach = set()
    for c in g.candidates():
        reach.update(graph.neighbours(c, TAXI))
    reach = sorted(s for s in reach if g.holder_of(s) < 0)
    unreachable = [s for s in range(1, 200) if s not in reach and g.holder_of(s) < 0]
    snap = g.save()
    refused("not_connected", g.mrx_move, TAXI, unreachable[0])
    assert g.save() == snap
    assert g.mrx_move(TAXI, reach[0]) == reach[0] and g.candidates() == [reach[0]]


def test_secret_capture_on_surfacing_station():
    g = Game([13, 26, 29, 34, 50], [], 0, reveals=(1, 3))
    assert g.mrx_move(TAXI, 46) == 46
    g.move(0, TAXI, 4)
    assert g.result is None
    g.move(3, BUS, 46)  # 34-46 bus: he is shown there
    assert (g.result, g.reason, g.mrx) == ("detectives", "capture", 46)


def test_secret_capture_declared_by_host():
    g = Game([13, 26, 29, 34, 50], [], 0)
    g.mrx_move(TAXI)
    refused("bad_input", g.capture, 0)  # 13 is not a possible station
    g.move(3, TAXI, 22)
    g.capture(3)
    assert (g.result, g.reason, g.mrx) == ("detectives", "capture", 22)


def test_legal_sorted():
    g = five()
    g.mrx_move(TAXI, 46)
    legal = g.legal(0)
    assert legal == sorted(legal)
    assert (14, BUS) in legal and (4, TAXI) in legal and (46, UNDERGROUND) in legal
    x = Game([13, 26, 29, 34, 50], [], 46).legal_mrx()
    assert x == sorted(x) and (1, BLACK) in x and (1, BUS) in x and (34, BUS) not in x
    assert not [s for s, _t in x if s in (13, 26, 29, 34, 50)]  # D1's 13 (46-13 underground) too


def test_no_piece_moves_onto_another_not_even_onto_d1():
    g = Game([13, 14, 29, 34, 50], [], 45)
    g.mrx_move(TAXI, 46)
    assert not [s for s, _t in g.legal(1) if s == 13]  # 14-13 by bus: D1 stands there
    refused("occupied", g.move, 1, BUS, 13)
    assert g.can_move(1)


def test_a_custom_start_leaves_every_free_station_possible():
    g = Game([13, 26, 29, 34, 50], [], 1)  # 1 is no start card: the detectives know nothing
    assert g.candidates_count() == 199 - 5 == len(g.candidates())
    assert g.candidates()[0] == 1 and g.candidates()[-1] == 199 and 13 not in g.candidates()


def test_save_load_roundtrip():
    g = Game([13, 26], [29, 34], 0, two_player=True)
    g.mrx_move(TAXI)
    g.move(0, TAXI, 4)
    data = g.save()
    h = Game.load(data)
    assert h.save() == data
    assert h.tickets[0] is h.tickets[1]
    refused("bad_input", Game.load, data[:-3])
    refused("bad_input", Game.load, b"\x07" + data[1:])


# --- what the mutation benchmark found untested (docs/testing.md) ------------------------------
def test_detective_move_without_a_ticket_refused_and_changes_nothing():
    g = five()
    g.mrx_move(TAXI, 46)
    snap = g.save()
    e = refused("bad_input", g.move, 0, None, 14)  # 13-14 is a bus line: still a ticket to name
    assert e.why == "name_ticket"
    assert g.save() == snap and g.tickets[0][BUS] == 8


def test_bobby_along_no_connection_refused():
    g = Game([13, 26], [115, 1], 45)
    g.mrx_move(TAXI, 46)
    snap = g.save()
    e = refused("not_connected", g.move, 3, None, 100)  # 1 and 100: no line at all
    assert (e.why, e.values) == ("no_link", (100, 1))
    e = refused("not_connected", g.move, 3, TAXI, 100)
    assert (e.why, e.values) == ("no_line", ("taxi", 1, 100))
    assert g.save() == snap


def _surfaced_at_36(reveals=(1, 3)):
    """A secret game: Mister X surfaces on 36 (neighbours 35, 37, 49 by any transport) at move 1;
    D1 22, D2 23, D3 50 one taxi ride from those, D4 far away."""
    g = Game([22, 23, 50, 141], [], 0, reveals=reveals)
    assert g.mrx_move(TAXI, 36) == 36
    return g


def test_mrx_stuck_at_the_end_of_a_round_in_secret_mode():
    g = _surfaced_at_36()
    g.move(0, TAXI, 35)
    g.move(1, TAXI, 37)
    g.move(3, g.legal(3)[0][1], g.legal(3)[0][0])
    assert g.result is None  # the round is not over yet
    g.move(2, TAXI, 49)  # every way out of 36 is held
    assert (g.phase, g.result, g.reason) == (PHASE_OVER, "detectives", "mrx_stuck")


def test_mrx_not_stuck_while_one_way_out_is_free_in_secret_mode():
    g = _surfaced_at_36()
    g.move(0, TAXI, 35)
    g.move(1, TAXI, 37)
    g.move(3, g.legal(3)[0][1], g.legal(3)[0][0])
    g.move(2, TAXI, 38)  # 49 stays free
    assert g.result is None and g.phase == PHASE_MRX and g.candidates() == [36]


def test_mrx_not_stuck_while_one_possible_station_has_a_way_out():
    # two possible stations: one boxed in (36), the other not: he is not certainly stuck
    g = Game([22, 23, 50, 141], [], 0, reveals=(3,))
    g.mrx_move(TAXI)
    g.cand[:] = bytes(32)
    for s in (36, 8):  # the public facts narrowed to two stations (what spread() keeps up to date)
        g.cand[s >> 3] |= 1 << (s & 7)
    g.move(0, TAXI, 35)
    g.move(1, TAXI, 37)
    g.move(3, g.legal(3)[0][1], g.legal(3)[0][0])
    g.move(2, TAXI, 49)
    assert g.result is None and g.phase == PHASE_MRX and g.candidates() == [8, 36]


def test_the_last_possible_station_taken_is_a_capture_there():
    g = Game([11, 12, 38, 141], [], 0, reveals=(1, 5))
    assert g.mrx_move(TAXI, 36) == 36
    for i, to in ((0, 22), (1, 23), (2, 50)):
        g.move(i, TAXI, to)
    g.move(3, g.legal(3)[0][1], g.legal(3)[0][0])
    g.mrx_move(BLACK)  # hidden: 35, 37 or 49
    assert g.candidates() == [35, 37, 49] and g.candidates_count() == 3
    g.move(0, TAXI, 35)  # one of three: he may be elsewhere
    assert g.result is None and g.candidates_count() == 2 and g.mrx == 0
    g.move(1, TAXI, 37)
    assert g.result is None and g.candidates() == [49] and g.candidates_count() == 1
    g.move(2, TAXI, 49)  # the only station left: he is certainly there
    assert (g.result, g.reason, g.mrx) == ("detectives", "capture", 49)
    refused("game_over", g.move, 3, TAXI, g.legal(3)[0][0])


def test_candidates_count_is_the_number_of_possible_stations():
    g = Game([13, 26, 29, 34, 50], [], 0)
    counts = []
    for _ in range(2):  # two hidden moves: the possible stations spread
        counts.append(g.candidates_count())
        assert counts[-1] == len(g.candidates())
        g.mrx_move(BLACK)
        finish_round(g)
    assert g.candidates_count() == len(g.candidates()) and counts[0] < counts[1] < g.candidates_count()


def _reachable_by_taxi(g):
    """A free station one taxi ride from one of Mister X's possible stations."""
    graph = g.graph
    for c in range(1, 200):
        if g.is_candidate(c):
            for s in graph.neighbours(c, TAXI):
                if g.holder_of(s) < 0:
                    return s
    raise AssertionError("no station to surface on")


def test_the_reveal_schedule():
    # docs/rules.md: he surfaces on moves 3, 8, 13, 18 and 24
    g = Game([13, 26], [29, 34], 0, rounds=24, tickets=(15, 10, 6))  # tickets for 24 rounds
    want = {3: 3, 8: 8, 13: 13, 18: 18, 24: 24}
    for move in range(1, 25):
        nxt = min(r for r in want if r >= move)
        assert g.next_reveal() == nxt, (move, g.next_reveal())
        if move in want:
            refused("bad_input", g.mrx_move, TAXI)  # a surfacing move must name the station
            to = _reachable_by_taxi(g)
            assert g.mrx_move(TAXI, to) == to
            assert g.candidates() == [to]
        else:
            refused("bad_input", g.mrx_move, TAXI, 1 if g.holder_of(1) < 0 else 2)  # a hidden one must not
            assert g.mrx_move(TAXI) == 0
        assert g.next_reveal() == min([r for r in want if r > move] or [0])
        while g.phase == PHASE_DETECTIVES:  # the detectives keep off his possible stations
            i = next_piece(g)
            moves = g.legal(i)
            quiet = [m for m in moves if not g.is_candidate(m[0]) and m[0] != g.surfaced]
            s, t = (quiet or moves)[0]
            g.move(i, None if g.is_bobby(i) else t, s)
        assert g.result is None or move == 24, (move, g.reason)
    assert (g.result, g.reason) == ("mrx", "rounds_done")


def test_piece_names_and_indexes():
    g = Game([13, 26, 29], [34], 45)
    assert [g.piece_name(i) for i in range(4)] == ["D1", "D2", "D3", "B1"]
    assert [g.piece_index(n) for n in ("D1", "D2", "D3", "B1")] == [0, 1, 2, 3]
    assert [g.is_bobby(i) for i in range(4)] == [False, False, False, True]
    for bad in ("D4", "B2", "D0", "B0", "X1", "D", "D10", "d1", 1, None):
        refused("bad_input", g.piece_index, bad)
    g5 = five()
    assert g5.piece_index("D5") == 4 and g5.piece_name(4) == "D5"
    refused("bad_input", g5.piece_index, "B1")


def test_holder_of_any_value():
    g = five()
    assert [g.holder_of(s) for s in (13, 26, 29, 34, 50)] == [0, 1, 2, 3, 4]
    for s in (14, 0, 199, 255, 256, 300, -1, "13", None):
        assert g.holder_of(s) == -1, s


def test_move_refuses_bad_pieces_and_tickets_and_changes_nothing():
    g = five()
    g.mrx_move(TAXI, 46)
    snap = g.save()
    for piece in (5, -1, True, "D1", None):
        refused("bad_input", g.move, piece, TAXI, 4)
    for ticket in (4, -1, True, "taxi", 1.0):
        refused("bad_input", g.move, 0, ticket, 4)
    for to in (0, 200, "4", None):
        refused("bad_input", g.move, 0, TAXI, to)
    assert g.save() == snap
    g.move(0, TAXI, 4)  # still D1's move to make


def test_bobby_takes_any_line_but_the_ferry():
    g = Game([20, 26], [115, 13], 45)
    g.mrx_move(TAXI, 46)
    assert all(s != 108 for s, _t in g.legal(2))  # 115-108 is the ferry: not a bobby's
    assert (114, TAXI) in g.legal(2) and (67, UNDERGROUND) in g.legal(3)
    g.move(3, None, 67)  # 13-67 underground only, for free
    g.move(2, None, 102)  # 115-102 taxi
    assert g.pos[2] == 102 and g.pos[3] == 67
    g2 = Game([20, 26], [115, 13], 45)
    g2.mrx_move(TAXI, 46)
    g2.move(3, None, 14)  # 13-14 bus only
    assert g2.pos[3] == 14


def test_candidates_reads_every_station_of_the_bitmap():
    g = Game([13, 26, 29, 34, 50], [], 0)
    g.cand[:] = bytes(32)
    for s in (1, 8, 199):
        g.cand[s >> 3] |= 1 << (s & 7)
    assert g.candidates() == [1, 8, 199] and g.candidates_count() == 3
    assert [g.is_candidate(s) for s in (1, 2, 8, 198, 199)] == [True, False, True, False, True]


def test_mrx_possibly_on_the_last_station_is_not_stuck():
    # the secret stuck check looks at every possible station, 199 too
    g = Game([171, 188, 128, 161], [], 0)
    g.mrx_move(TAXI)
    g.cand[:] = bytes(32)
    g.cand[199 >> 3] |= 1 << (199 & 7)
    g.move(0, TAXI, g.legal(0)[0][0])
    g.move(1, TAXI, g.legal(1)[0][0])
    g.move(2, g.legal(2)[0][1], g.legal(2)[0][0])
    g.move(3, g.legal(3)[0][1], g.legal(3)[0][0])
    assert g.result is None and g.phase == PHASE_MRX


def test_save_into_returns_the_snapshot_length():
    g = Game([13, 26], [29, 34], 0)
    for _ in range(4):  # states of odd and even length
        buf = bytearray(g.save_size() + 5)
        n = g.save_into(buf)
        assert n == g.save_size() == len(g.save())
        assert bytes(buf[:n]) == g.save()
        if g.phase == PHASE_MRX and g.next_reveal() == g.moves + 1:
            g.mrx_move(TAXI, _reachable_by_taxi(g))
        elif g.phase == PHASE_MRX:
            g.mrx_move(TAXI)
        else:
            first_move(g)


def test_a_capture_declared_after_a_resume():
    # the board saved after the landing and restarted before the host declared the capture: the
    # landing (who, where, and that it was a possible station) comes back with the game
    g = Game([13, 26, 29, 34, 50], [], 0)
    g.mrx_move(TAXI)
    g.move(3, TAXI, 22)  # 22 was possible; the landing clears it
    h = Game.load(g.save())
    assert h._landing == g._landing
    h.capture(3)
    assert (h.result, h.reason, h.mrx) == ("detectives", "capture", 22)
