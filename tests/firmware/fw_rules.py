"""The rules family (sy/rules/*.py) at the edges of what it allows, as plain functions:
tests/test_firmware_units.py runs them under CPython and under the MicroPython unix port.
tests/core/test_rules_core.py has every rule once (and must fit the unix port's 64 KB heap); this
file has the limits next to them: a setup's counts, a saved game read back, ... one refused code or
one changed state each."""
import sys

import os

if sys.implementation.name != "micropython":
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)

from rulekit import five, refused
from sy.rules.game import Game, RuleError, TAXI, BUS, UNDERGROUND, BLACK, PHASE_MRX, PHASE_DETECTIVES, PHASE_OVER


# --- a setup's limits, at their edges (sy/rules/gamestart.py) ---------------------------------------
def test_rounds_and_surfacing_moves_from_1_to_99():
    for rounds in (1, 99):
        assert five(45, rounds=rounds).rounds == rounds
    for rounds in (0, 100, -1, True, 5.0, "22", None):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, None, None, rounds)
    assert list(five(45, reveals=(99, 1)).reveals) == [1, 99]
    assert list(five(45, reveals=()).reveals) == []
    for bad in (0, 100, True, 3.0, "3", None):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, None, None, 22, (3, bad))


def test_ticket_counts_from_0_to_255():
    g = five(45, tickets=(0, 9, 0), mrx_tickets=(255, 0))
    assert list(g.tickets[4]) == [0, 9, 0] and (g.black, g.double) == (255, 0)
    for stock in ((11, -1, 4), (11, 8, 256), (True, 8, 4), (11, 8.0, 4)):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, stock)
    for mt in ((256, 2), (5, -1), (5, False), (None, 2)):
        refused("bad_input", Game, [13, 26, 29, 34, 50], [], 45, False, None, mt)


def test_the_box_holds_the_tickets_handed_out_to_its_last_one():
    g = five(45, tickets=(11, 9, 4))  # 5 x 9 = the box's 45 bus tickets
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
    # one detective for two players is refused for the same reason as three (not as 1 of 2..5 detectives)
    assert refused("bad_input", Game, [13], [26, 29], 45, True).why == \
        refused("bad_input", Game, [13, 26, 29], [34], 45, True).why == "two_player"


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
        assert five(s).mrx == s
    assert five(0).mrx == 0  # no station: a secret game
    refused("bad_input", Game, [13, 26, 29, 34, 200], [], 45)
    refused("bad_input", Game, [13, 26], [29, 0], 45)
    refused("bad_input", Game, [13, 26, 29, 34, True], [], 45)  # True is no station 1, on the host either
    refused("bad_input", Game, [13, 26, 29, 34, 50], [], True)


# --- a saved game read back (sy/rules/savedgame.py) ---------------------------------------------------
def _midgame(two_player=False):
    """A game in the detectives' turn with two of their moves made (a take-back can undo them)."""
    if two_player:
        g = Game([13, 26], [29, 34], 45, two_player=True)
    else:
        g = five(45)
    g.mrx_move(TAXI, 46)
    g.move(0, TAXI, 4)  # 13-4 taxi
    g.move(1, TAXI, 27)  # 26-27 taxi
    return g


def _over():
    g = five(45, rounds=1)
    g.mrx_move(TAXI, 46)
    while g.phase != PHASE_OVER:
        mask = g.to_move()
        i = 0
        while not mask & (1 << i):
            i += 1
        s, t = g.legal(i)[0]
        g.move(i, t, s)
    return g


def _after_mister_x():
    g = five(0, reveals=(2,))  # Mister X's station unknown, his move 2 a surfacing
    g.mrx_move(TAXI)
    return g


def _log_end(g, data):
    """Where a snapshot's log ends (a snapshot written before 0.1.2 ends there)."""
    return len(data) - 1 - 3 * g.n_turn


def _offset_of_counters(g):
    """Where black, double, round, moves, phase, moved, result, reason... begin in a snapshot."""
    return (2 + len(g.graph.name) + 5 + len(g.reveals) + g.n_pieces + 3 * (1 if g.two_player else g.n_detectives)
            + 6)


def test_a_saved_game_reads_back_the_same():
    for g in (_midgame(), _midgame(two_player=True), _over(), _after_mister_x(), five(45)):
        data = g.save()
        back = Game.load(data)
        assert back.save() == data
        assert (list(back.pos), back.round, back.phase, back.result, back.reason, back.n_turn, back.log) == \
            (list(g.pos), g.round, g.phase, g.result, g.reason, g.n_turn, g.log)
        assert [list(t) for t in back.tickets] == [list(t) for t in g.tickets]
        assert (list(back.supply), list(back.mrx_used), back.black, back.double, back.mrx) == \
            (list(g.supply), list(g.mrx_used), g.black, g.double, g.mrx)
        if g.phase != PHASE_OVER:
            i = 0
            while not g.to_move() & (1 << i) and i < g.n_pieces:
                i += 1
            if i < g.n_pieces:
                assert back.legal(i) == g.legal(i)


def test_a_two_player_game_keeps_one_shared_stock():
    back = Game.load(_midgame(two_player=True).save())
    assert back.tickets[0] is back.tickets[1]
    assert list(back.tickets[0]) == [20, 16, 8]


def test_a_saved_game_takes_back_the_moves_of_its_turn():
    g = _midgame()
    back = Game.load(g.save())
    back.take_back()
    assert back.pos[1] == 26 and back.pos[0] == 4 and back.n_turn == 1
    old = Game.load(g.save()[:_log_end(g, g.save())])  # written before 0.1.2: no moves to take back
    assert old.n_turn == 0 and list(old.pos) == list(g.pos)
    refused("wrong_turn", old.take_back)


def test_a_game_read_back_takes_back_its_turn_ticket_by_ticket():
    g = five(45)
    g.mrx_move(TAXI, 46)
    g.move(1, TAXI, 27)
    saves = [g.save()]
    g.move(0, BUS, 14)  # 13-14 bus: a ticket that is not 0
    saves.append(g.save())
    g.move(2, BUS, 41)  # 29-41 bus: the snapshot's last byte is not 0 either
    back = Game.load(g.save())  # three moves of the turn in the snapshot
    assert back.take_back() == (2, BUS, 29, 41) and back.save() == saves[1]
    assert back.take_back() == (0, BUS, 13, 14) and back.save() == saves[0]
    assert back.take_back() == (1, TAXI, 26, 27)


def test_a_long_travel_log_reads_back():
    # a snapshot longer than 256 bytes (CPython's cached small ints end there)
    g = _midgame()
    data = g.save()
    k = _offset_of_counters(g) + 12 + 32  # the log's length
    n_log = data[k]
    log = bytes([TAXI, 0, BUS, 0, BLACK, 0, UNDERGROUND, 0]) * 30
    long = data[:k] + bytes([n_log + 120]) + data[k + 1:k + 1 + 2 * n_log] + log + data[k + 1 + 2 * n_log:]
    assert len(long) > 256
    back = Game.load(long)
    assert len(back.log) == n_log + 120 and back.log[-1] == (UNDERGROUND, 0) and back.save() == long


def test_a_snapshot_cut_short_anywhere_is_damaged():
    for g in (_midgame(), _over()):
        data = g.save()
        for k in range(len(data)):
            if k == _log_end(g, data):
                continue
            refused("bad_input", Game.load, data[:k])
        refused("bad_input", Game.load, data + b"\x00")


def test_a_snapshot_of_another_version_or_map_is_refused():
    from sy.rules import mapgraph
    data = _midgame().save()
    for v in (0, 2, 255):
        refused("bad_input", Game.load, bytes([v]) + data[1:])
    refused("bad_input", Game.load, data, mapgraph.load("london1983"))
    assert Game.load(data, mapgraph.load("london")).graph.name == "london"
    assert Game.load(data).graph.name == "london"
    renamed = data[:2] + b"lonxon" + data[8:]
    refused("bad_input", Game.load, renamed)


def test_a_snapshot_with_impossible_counters_is_refused():
    g = _midgame()
    data = bytearray(g.save())
    k = _offset_of_counters(g)
    for at, bad in ((4, PHASE_OVER + 1), (6, 3), (7, 5)):  # phase, result, reason
        d = bytearray(data)
        d[k + at] = bad
        refused("bad_input", Game.load, bytes(d))
    d = bytearray(data)
    d[k + 4] = PHASE_OVER
    assert Game.load(bytes(d)).phase == PHASE_OVER


def test_a_turn_of_every_piece_at_most():
    g = _midgame()
    data = g.save()
    head = data[:_log_end(g, data)]
    back = Game.load(head + bytes([g.n_pieces]) + bytes(3 * g.n_pieces))
    assert back.n_turn == g.n_pieces
    refused("bad_input", Game.load, head + bytes([g.n_pieces + 1]) + bytes(3 * (g.n_pieces + 1)))


# --- the map (sy/rules/mapgraph.py), against its source data/london/ ----------------------------------
def _data_path(name):
    if sys.implementation.name == "micropython":
        return "data/london/" + name  # tests/mpy.py runs this file from the project's root
    return os.path.join(_ROOT, "data", "london", name)


def _csv_rows(name):
    """The rows of a CSV file below data/london/ as lists of strings, one at a time (the heap)."""
    f = open(_data_path(name))
    try:
        f.readline()  # the header
        for line in f:
            if line.strip():
                yield line.strip().split(",")
    finally:
        f.close()


def test_the_map_has_every_line_of_its_source_data_and_no_other():
    from sy.rules import mapgraph
    g = mapgraph.load("london")
    names = mapgraph.TRANSPORT_NAMES
    lines = 0
    for a, b, transport in _csv_rows("edges.csv"):
        a, b, t = int(a), int(b), names.index(transport)
        assert g.connected(a, b, t) and g.connected(b, a, t), (a, b, transport)
        assert b in g.neighbours(a, t) and a in g.all_neighbours(b), (a, b, transport)
        lines += 1
    # and nothing more: the map holds each line twice (both ways), once per transport
    assert sum(len(g.neighbours(s, t)) for s in range(1, 200) for t in range(4)) == 2 * lines
    assert sum(len(g.all_neighbours(s)) for s in range(1, 200)) == 2 * lines == len(g.adj)
    stations = [int(r[0]) for r in _csv_rows("stations.csv")]
    assert g.stations == max(stations) == len(stations) == 199
    for s in (1, 13, 46, 108, 199):
        for t in range(4):
            lo, hi = g.span(s, t)
            assert list(g.adj[lo:hi]) == list(g.neighbours(s, t))
            for d in range(1, 200):
                assert g.connected(s, d, t) == (d in g.neighbours(s, t))


def test_stations_are_the_whole_numbers_1_to_199():
    from sy.rules import mapgraph
    g = mapgraph.load()
    assert [s for s in (0, 1, 199, 200, -1) if g.is_station(s)] == [1, 199]
    assert not g.is_station(True) and not g.is_station(5.0) and not g.is_station("5")
    starts = list(_csv_rows("start_cards.csv"))
    assert sorted(g.d_cards) == sorted(int(s) for s, side in starts if side == "D")
    assert sorted(g.x_cards) == sorted(int(s) for s, side in starts if side == "X")


def test_a_map_is_loaded_once_by_its_name_and_only_a_map():
    from sy.rules import mapgraph
    assert mapgraph.load() is mapgraph.load("london") and mapgraph.load().name == "london"
    g83 = mapgraph.load("london1983")
    assert g83.name == "london1983" and g83 is mapgraph.load("london1983")
    for bad in ("", "nowhere", "1london", "lon-don", "lon don", "../london", "london.py", "_loaded", None, 5):
        try:
            mapgraph.load(bad)
        except ValueError as e:
            assert "map" in str(e), e
            continue
        raise AssertionError("%r loaded as a map" % (bad,))



def test_a_map_name_is_a_module_name():
    """sy/rules/mapgraph.py and sy/europe/graph.py import sy.maps.<name> only for such a name."""
    from sy.rules.mapgraph import _is_module_name
    assert [n for n in ("london", "london1983", "a", "europe_testmap", "a_1") if not _is_module_name(n)] == []
    for bad in ("", "1london", "_x", "lon-don", "lon don", "../london", "london.py", "lon/don", "x\x00", None, 5, b"ab"):
        assert not _is_module_name(bad), bad


def test_a_module_of_the_maps_that_is_not_a_map_is_refused_as_such():
    if sys.implementation.name == "micropython":
        return  # a module put into sys.modules by hand: CPython's import machinery
    import types
    import sy.maps
    from sy.rules import mapgraph
    fake = types.ModuleType("sy.maps.notamap")
    sys.modules["sy.maps.notamap"] = fake
    sy.maps.notamap = fake
    try:
        mapgraph.load("notamap")
    except ValueError as e:
        assert str(e) == "'notamap' is not a map", e
    else:
        raise AssertionError("a module without ADJ loaded as a map")
    finally:
        del sys.modules["sy.maps.notamap"]
        del sy.maps.notamap
    assert "notamap" not in mapgraph._loaded


def test_the_maps_transports_are_the_rules_tickets():
    """The rules pass a ticket's number as the transport of the map's lines (the black ticket's is
    the ferry's): the numbers agree, and name the same things."""
    from sy.rules import mapgraph, base
    assert (mapgraph.TAXI, mapgraph.BUS, mapgraph.UNDERGROUND, mapgraph.FERRY) == (TAXI, BUS, UNDERGROUND, BLACK) == (0, 1, 2, 3)
    assert mapgraph.TRANSPORT_NAMES[:3] == base.TICKET_NAMES[:3] == ("taxi", "bus", "underground")
    assert mapgraph.TRANSPORT_NAMES[3] == "ferry"


def test_the_rules_import_on_a_host_without_a_micropython_module():
    """CPython has no `micropython` module unless one is installed (Adafruit Blinka brings one):
    the rules then take const from sy/compat.py (the host's console runs without Blinka)."""
    if sys.implementation.name == "micropython":
        return
    from sy import compat
    from sy.rules import base
    saved = sys.modules.get("micropython")
    sys.modules["micropython"] = None  # import micropython raises ImportError
    try:
        ns = {"__name__": "base_without_micropython"}
        with open(base.__file__) as f:
            exec(compile(f.read(), base.__file__, "exec"), ns)
    finally:
        if saved is None:
            del sys.modules["micropython"]
        else:
            sys.modules["micropython"] = saved
    assert ns["const"] is compat.const and ns["TICKET_NAMES"] == base.TICKET_NAMES

# --- Mister X where his station is known (sy/rules/mrxknown.py) -------------------------------------
def _his_moves_from_the_map(g, here):
    """His legal single moves by the rules, from the map: a ticket of the supply along its own
    transport, a black ticket along any line (the ferry too), never onto a piece."""
    from sy.rules import mapgraph
    graph = mapgraph.load()
    held = list(g.pos)
    out = []
    for t in range(4):
        for s in graph.neighbours(here, t):
            if s in held:
                continue
            if t < 3 and g.supply[t]:
                out.append((s, t))
            if g.black and (s, BLACK) not in out:
                out.append((s, BLACK))
    return sorted(out)


def test_his_legal_moves_are_the_maps_lines_he_has_tickets_for():
    for mrx, at in ((45, [13, 26, 29, 34, 50]), (115, [13, 26, 29, 34, 50]), (46, [13, 26, 29, 34, 47])):
        g = Game(at, [], mrx)
        assert g.legal_mrx() == _his_moves_from_the_map(g, mrx), mrx
    g = five(46)
    g.supply[BUS] = 0
    g.black = 0
    moves = g.legal_mrx()
    assert moves == _his_moves_from_the_map(g, 46) and all(t in (TAXI, UNDERGROUND) for _s, t in moves), moves
    refused("bad_input", five(0).legal_mrx)  # secret: nobody knows where he is


def test_his_move_must_follow_a_line_of_its_ticket():
    g = five(115)
    refused("ferry", g.mrx_move, TAXI, 108)  # 115-108 is the ferry
    refused("not_connected", g.mrx_move, BUS, 126)  # 115-126 is a taxi line
    refused("not_connected", g.mrx_move, BLACK, 1)  # no line at all
    assert (g.moves, g.mrx, g.black) == (0, 115, 5)
    g.mrx_move(BLACK, 157)  # the ferry, with a black ticket
    assert (g.mrx, g.black) == (157, 4)
    g = five(46)
    g.mrx_move(BLACK, 1)  # a black ticket on a bus line
    assert g.mrx == 1


def test_a_capture_needs_a_piece_of_the_game_on_his_station():
    g = five(45)
    g.mrx_move(TAXI, 46)
    for piece in (-1, 5, 6, True, "D1", None, 1.0):
        refused("bad_input", g.capture, piece)
    refused("bad_input", g.capture, 0)  # D1 on 13: he is on 46
    refused("bad_input", g.capture, 4)  # D5 on 50: above his station, not on it either
    assert g.result is None and g.phase == PHASE_DETECTIVES
    g.move(3, BUS, 46)  # 34-46: the move itself ends the game
    refused("game_over", g.capture, 3)
    g = Game([13, 26], [29, 34], 45)
    g.mrx_move(TAXI, 46)
    refused("bad_input", g.capture, 3)  # the last piece (a bobby), on 34


def _last_round_onto(station_wanted, last_first=False):
    """A secret game of one round, its last move onto one of his possible stations (or not); the
    detectives move D1 first (or D5 first)."""
    g = five(0, rounds=1, reveals=())
    g.mrx_move(TAXI)
    last = None
    while g.phase != PHASE_OVER:
        i = 4 if last_first else 0
        while not g.to_move() & (1 << i):
            i += -1 if last_first else 1
        moves = g.legal(i)
        if g.to_move() == 1 << i:  # the round's last move (onto an odd station, if it can)
            moves = [m for m in moves if g.is_candidate(m[0]) == station_wanted] or moves
            moves = [m for m in moves if m[0] & 1] or moves
        s, t = moves[0]
        g.move(i, t, s)
        last = i
    return g, last


def test_a_capture_after_the_last_round_counts_for_the_last_move_only():
    # the board commits the round's last move before the host says it was onto him
    g, last = _last_round_onto(True)
    assert g.reason == "rounds_done"
    for p in range(5):
        if p != last:
            refused("game_over", g.capture, p)  # an earlier move: the game was over before the host spoke
    g.capture(last)
    assert (g.result, g.reason, g.mrx) == ("detectives", "capture", g.pos[last])
    for piece in (-1, 5):
        refused("bad_input", g.capture, piece)  # no such piece, over or not
    g, last = _last_round_onto(False)
    assert g.pos[last] & 1
    refused("bad_input", g.capture, last)  # not one of his possible stations
    assert (g.result, g.reason) == ("mrx", "rounds_done")
    g, last = _last_round_onto(True, last_first=True)  # D1 moved last: the others' moves came before
    assert last == 0
    for p in range(1, 5):
        refused("game_over", g.capture, p)
    g.capture(0)
    assert (g.result, g.reason) == ("detectives", "capture")


def test_no_capture_after_a_game_he_lost_cornered():
    # a secret game: he surfaced on 36, and the round's last move closed his last way out
    g = Game([22, 23, 50, 141], [], 0, reveals=(1, 3))
    g.mrx_move(TAXI, 36)
    g.move(0, TAXI, 35)
    g.move(1, TAXI, 37)
    g.move(3, g.legal(3)[0][1], g.legal(3)[0][0])
    g.move(2, TAXI, 49)
    assert (g.phase, g.reason) == (PHASE_OVER, "mrx_stuck")
    refused("game_over", g.capture, 2)  # the last move, but the game did not end by the rounds
    assert g.reason == "mrx_stuck"


def test_cornered_is_his_turn_and_only_when_he_cannot_move():
    g = five(45)
    refused("bad_input", g.mrx_cornered)  # he can move
    assert g.phase == PHASE_MRX and g.result is None
    g.mrx_move(TAXI, 46)
    refused("wrong_turn", g.mrx_cornered)
    g = five(0)
    g.mrx_cornered()  # secret: the host knows
    assert (g.phase, g.result, g.reason) == (PHASE_OVER, "detectives", "mrx_stuck")
    refused("game_over", g.mrx_cornered)


# --- a detective's move taken back (sy/rules/takeback.py) -----------------------------------------
def _turn_moves(g, n):
    """The next n moves of the detectives' turn (each piece's first legal move); the snapshot
    before each."""
    before = []
    for _ in range(n):
        i = 0
        while not g.to_move() & (1 << i):
            i += 1
        s, t = g.legal(i)[0]
        before.append((g.save(), i, None if g.is_bobby(i) else t, g.pos[i], s))
        g.move(i, None if g.is_bobby(i) else t, s)
    return before


def test_each_move_of_the_turn_taken_back_leaves_the_game_as_before_it():
    for g in (five(45), Game([13, 26], [29, 34], 45), five(0)):
        g.mrx_move(TAXI, 46 if g.mrx else 0)
        n = g.n_pieces
        before = _turn_moves(g, n)  # the whole turn: the last move handed the game to Mister X
        assert g.phase == PHASE_MRX
        for saved, piece, ticket, was, to in reversed(before):
            assert g.take_back() == (piece, ticket, was, to)
            assert g.save() == saved
            assert g.phase == PHASE_DETECTIVES and g.to_move() & (1 << piece)
        refused("wrong_turn", g.take_back)  # nothing left of this turn
        assert g.save() == before[0][0]


def test_a_move_onto_one_of_his_possible_stations_taken_back_makes_it_possible_again():
    g = five(0)
    g.mrx_move(TAXI)
    i, (s, t) = 0, (0, 0)
    for i in range(5):
        hits = [m for m in g.legal(i) if g.is_candidate(m[0])]
        if hits:
            s, t = hits[0]
            break
    assert s, "no detective can reach one of his possible stations"
    g.move(i, t, s)
    assert not g.is_candidate(s)
    g.take_back()
    assert g.is_candidate(s) and g.pos[i] != s


def test_the_landing_before_a_take_back_is_the_one_a_capture_counts():
    g = five(0)
    g.mrx_move(TAXI)
    first = None
    for i in range(5):
        hits = [m for m in g.legal(i) if g.is_candidate(m[0])]
        if hits:
            first = i
            g.move(i, hits[0][1], hits[0][0])
            break
    assert first is not None
    other = [p for p in range(5) if p != first and g.legal(p)][0]
    s, t = [m for m in g.legal(other) if not g.is_candidate(m[0])][0]
    g.move(other, t, s)
    g.take_back()
    g.capture(first)  # his landing counts again: it was onto one of the possible stations
    assert (g.result, g.reason, g.mrx) == ("detectives", "capture", g.pos[first])


def test_no_take_back_once_the_game_is_over_or_mister_x_moved():
    g = five(45)
    g.mrx_move(TAXI, 46)
    _turn_moves(g, 5)
    g.mrx_move(TAXI, 45)  # his move clears the turn
    refused("wrong_turn", g.take_back)
    g = five(45)
    g.mrx_move(TAXI, 46)
    g.move(3, BUS, 46)  # onto him: the move ended the game
    refused("game_over", g.take_back)
    assert g.pos[3] == 46


# --- what the family shares (sy/rules/base.py) ----------------------------------------------------
def test_a_refusal_carries_codes_and_values_never_a_sentence():
    e = RuleError("bad_input", "held_by", 7, "D2")
    assert (e.code, e.why, e.values) == ("bad_input", "held_by", (7, "D2"))
    assert e.reply({"id": 3, "ok": False}) == {"id": 3, "ok": False, "error": "bad_input", "why": "held_by",
                                               "args": [7, "D2"]}
    assert str(e) == "bad_input held_by 7 D2"  # for a log
    e = RuleError("game_over")
    assert e.why is None and e.reply({}) == {"error": "game_over"} and str(e) == "game_over"
    assert e.args == ("game_over",)


def test_a_whole_number_is_an_int_but_not_a_bool():
    from sy.rules.base import is_int
    assert [x for x in (0, 1, -5, 199, True, False, 1.0, "1", None, [1]) if is_int(x)] == [0, 1, -5, 199]


# --- Mister X's moves (sy/rules/mrxmoves.py) --------------------------------------------------------
def test_his_ticket_is_one_of_the_four_kinds():
    g = five(45)
    for ticket in (-1, 4, True, 1.0, "taxi", None):
        refused("bad_input", g.mrx_move, ticket, 46)
    assert g.moves == 0 and g.mrx == 45


def test_a_station_that_is_not_on_the_map_is_refused_before_its_line():
    g = five(45)
    for to in (-1, 200, 256):
        refused("bad_input", g.mrx_move, TAXI, to)  # not "not connected": there is no such station
    assert g.moves == 0


def test_his_travel_log_holds_255_moves():
    g = five(45)
    data = bytearray(g.save())
    k = _offset_of_counters(g)
    for moves, ok in ((254, True), (255, False)):
        data[k + 3] = moves  # a game read back with that many moves made
        back = Game.load(bytes(data))
        if ok:
            back.mrx_move(TAXI, 46)
            assert back.moves == 255
        else:
            refused("bad_input", back.mrx_move, TAXI, 46)
            assert back.moves == 255 and back.mrx == 45


def test_a_surfacing_move_without_its_station_names_the_move():
    for reveal in (1, 2, 3, 8):
        g = five(0, reveals=(reveal,))
        while g.moves + 1 < reveal:
            g.mrx_move(TAXI)
            while g.phase == PHASE_DETECTIVES:
                i = 0
                while not g.to_move() & (1 << i):
                    i += 1
                s, t = g.legal(i)[0]
                g.move(i, t, s)
        e = refused("bad_input", g.mrx_move, TAXI)
        assert (e.why, e.values) == ("surfacing", (reveal,)), (reveal, e)


def test_no_piece_is_where_he_may_be_after_his_move():
    from sy.rules import mapgraph
    graph = mapgraph.load()
    # detectives on a taxi neighbour of five of his start cards: his move could reach them
    at = []
    for x in graph.x_cards:
        for s in graph.neighbours(x, TAXI):
            if s not in at and s not in graph.x_cards:
                at.append(s)
                break
        if len(at) == 5:
            break
    g = Game(at, [], 0)
    g.mrx_move(TAXI)
    assert [p for p in g.pos if g.is_candidate(p)] == []
    assert g.candidates() and all(s not in at for s in g.candidates())


# --- to_move in machine code (sy/rules/movesfast.py) and in Python agree --------------------------
def test_to_move_in_machine_code_agrees_with_the_python_one():
    from sy.rules import game as rules_game
    if sys.implementation.name == "micropython":
        assert rules_game.NATIVE  # the unix port compiles the native twin, as a Pico's build does
    seed = 12345
    # crowded corners of the map (stations and their neighbours), so pieces get stuck as well
    spots = (1, 8, 9, 18, 19, 20, 32, 33, 43, 46, 57, 58, 59, 74, 75, 189, 190, 191, 192, 194, 195, 197)
    stuck = 0
    for case in range(400):
        g = Game([13, 26, 29], [34], 45) if case & 1 else five(45)
        n = g.n_pieces
        g.phase = PHASE_DETECTIVES
        taken = []
        while len(taken) < n:
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            s = spots[(seed >> 8) % len(spots)]
            if s not in taken:
                taken.append(s)
        for i in range(n):
            g.pos[i] = taken[i]
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        g.moved = (seed >> 8) & ((1 << n) - 1)
        for i in range(g.n_detectives):
            for t in range(3):
                seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
                g.tickets[i][t] = (0, 0, 1, 4)[(seed >> 8) & 3]
        want = rules_game.PYTHON_TO_MOVE(g)
        assert g.to_move() == want, (case, list(g.pos), g.moved, [list(t) for t in g.tickets])
        for i in range(n):
            if not g.moved & (1 << i) and not want & (1 << i):
                stuck += 1
        g.phase = PHASE_MRX
        assert g.to_move() == 0
    assert stuck > 20  # the cases do hold pieces that cannot move
