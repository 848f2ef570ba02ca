"""The board's game flow (sy/play/board.py) as the players see it: the LED frame at a given time in
every stage, the notes and events a lift, a placement and a button make, the refusals of a game not
ready, what a save and a resume keep. Plain functions: run by pytest (tests/test_firmware_units.py)
under CPython and, through tests/mpy_run.py, under the MicroPython unix port; `yard bench mutation`
runs them on every mutant of sy/play/ (host/benchmarks/mutation_check.py)."""
import sys

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from testkit import TestBoard, scratch
from sy.play.board import IDLE, SETUP, PLAY, OVER, HAND_TAKEN_BACK, PIECE_RGB, BOBBY_RGB, TRANSPORT_RGB, _ERROR

TMP = scratch("sy-fwtest-play")
DETECTIVES = (13, 26, 29, 34, 50)
DARK = (0, 0, 0)
WHITE = (255, 255, 255)


def _rgb(table, k):
    return (table[k], table[k + 1], table[k + 2])


def _scaled(rgb, lvl):
    return ((rgb[0] * lvl) >> 8, (rgb[1] * lvl) >> 8, (rgb[2] * lvl) >> 8)


# the firmware's colours, full scale (docs/protocol.md names them: taxi yellow, bus turquoise,
# underground red; D1 blue, D2 lime, D3 sky blue; bobbies pale cyan)
RED = _rgb(_ERROR, 0)
TAXI, BUS, UG = _rgb(TRANSPORT_RGB, 0), _rgb(TRANSPORT_RGB, 3), _rgb(TRANSPORT_RGB, 6)
D1, D2, D3 = _rgb(PIECE_RGB, 0), _rgb(PIECE_RGB, 3), _rgb(PIECE_RGB, 6)
LAVENDER = _rgb(PIECE_RGB, BOBBY_RGB)
LIT_D1, LIT_D2 = _scaled(D1, 255), _scaled(D2, 255)  # a piece lit at its full level (255 / 256)


def _ready(detectives=DETECTIVES, bobbies=()):
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    r = tb.command("setup", detectives=list(detectives), bobbies=list(bobbies))
    assert r["ok"], r
    return tb


def _start(detectives=DETECTIVES, bobbies=()):
    tb = _ready(detectives, bobbies)
    for s in list(detectives) + list(bobbies):
        tb.place(s)
    assert tb.board.stage == PLAY
    return tb


def _detectives_turn(detectives=DETECTIVES, bobbies=()):
    tb = _start(detectives, bobbies)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.messages()
    return tb


def _notes(tb, kind):
    tb.run(4)  # a lift's note goes in a cycle after the frame that answers it
    return [m for m in tb.messages() if m.get("note") == kind]


def _events(tb):
    return [m["ev"] for m in tb.messages() if "ev" in m]


def _frame(tb, now, stations):
    tb.board.render(now)
    return [tb.colour(s) for s in stations]


# --- the frame, stage by stage ---------------------------------------------------------------------
def test_an_idle_board_runs_a_fading_blue_comet_around_the_stations():
    tb = TestBoard(TMP)
    assert tb.board.stage == IDLE
    # at 400 ms the comet's head is on station 11 (one station every 40 ms), five fading behind it
    want = [DARK, (0, 1, 6), (0, 3, 12), (0, 6, 25), (0, 12, 50), (0, 25, 100), (0, 50, 200), DARK]
    assert _frame(tb, 400, range(5, 13)) == want
    # at 0 ms its head is on station 1 and its tail wraps round to 199 .. 195
    assert _frame(tb, 0, (1, 2, 199, 196, 195, 194)) == [(0, 50, 200), DARK, (0, 25, 100), (0, 3, 12), (0, 1, 6), DARK]
    assert _frame(tb, 40 * 199, (1, 199)) == [(0, 50, 200), (0, 25, 100)]  # once round the board
    tb.command("reset", confirm=True)
    assert _frame(tb, 400, (11, 12)) == [(0, 50, 200), DARK]  # after a reset too


def test_setup_blinks_the_start_stations_still_empty_and_lights_those_taken():
    tb = _ready()
    tb.place(13)
    # blinking every 500 ms: dark in the first half second, in the piece's colour in the next
    assert _frame(tb, 0, (13, 26)) == [LIT_D1, DARK]
    assert _frame(tb, 500, (13, 26)) == [LIT_D1, LIT_D2]
    assert _frame(tb, 1000, (13, 26)) == [LIT_D1, DARK]
    assert tb.board.stage == SETUP


def test_mister_x_turn_shimmers_over_his_possible_stations_and_dims_the_pieces():
    tb = _start()
    g = tb.board.game
    cand = g.candidates()
    for now in (0, 808, 1600):
        tb.board.render(now)
        for s in cand:
            v = ((now >> 3) + s * 37) & 127
            v = v if v < 64 else 127 - v
            assert tb.colour(s) == ((150 * v) >> 8, 0, (200 * v) >> 8), (now, s)
        for s in (1, 2, 100, 199):
            assert s in cand or tb.colour(s) == DARK, s
        assert tb.colour(13) == _scaled(D1, 24) and tb.colour(26) == _scaled(D2, 24)  # nobody may move


def test_the_pieces_that_may_move_pulse_the_others_glow_dim():
    tb = _detectives_turn()
    # the pulse: 96 at 0 ms, up to 253 at 512 ms, 175 half way
    assert _frame(tb, 0, (13, 26)) == [_scaled(D1, 96), _scaled(D2, 96)]
    assert _frame(tb, 4, (13,)) == [_scaled(D1, 97)]
    assert _frame(tb, 256, (13,)) == [_scaled(D1, 175)]
    assert _frame(tb, 512, (13,)) == [_scaled(D1, 253)]
    assert _frame(tb, 768, (13,)) == [_scaled(D1, 174)]
    for s in (22, 46, 89):  # his possible stations are dark while the detectives move
        assert tb.colour(s) == DARK
    tb.lift(13)
    tb.place(4)
    assert _frame(tb, 512, (4, 26)) == [_scaled(D1, 24), _scaled(D2, 253)]  # D1 has moved this round


def test_a_lifted_piece_shows_its_destinations_in_the_transports_colours():
    tb = _detectives_turn()
    tb.lift(13)
    # 23 is joined by taxi and bus: the two colours in turn, 600 ms each
    assert _frame(tb, 0, (13, 4, 14, 23, 46, 12)) == [LIT_D1, TAXI, BUS, TAXI, UG, DARK]
    assert _frame(tb, 600, (13, 23)) == [LIT_D1, BUS]
    assert _frame(tb, 1200, (23,)) == [TAXI]
    assert _frame(tb, 1800, (23,)) == [BUS]
    tb.press(1)  # the bus ticket chosen before the placement: only bus destinations stay lit
    assert _frame(tb, 0, (4, 14, 23, 46, 52)) == [DARK, BUS, BUS, DARK, BUS]
    tb.press(1)  # pressed again: the choice is dropped, every destination is lit again
    assert tb.board.chosen_ticket() == -1
    assert _frame(tb, 0, (4, 14, 46)) == [TAXI, BUS, UG]


def test_bobbies_share_one_colour_whatever_their_index():
    # a game's pieces are its detectives, then its bobbies: with two detectives the bobbies are
    # pieces 2 and 3, and still in the Bobbies' colour (not D3's and D4's)
    tb = _ready(detectives=(13, 26), bobbies=(29, 34))
    lit = _scaled(LAVENDER, 255)
    assert _frame(tb, 500, (13, 26, 29, 34)) == [LIT_D1, LIT_D2, lit, lit]
    for s in (13, 26, 29, 34):
        tb.place(s)
    assert tb.board.stage == PLAY
    assert tb.command("mrx", ticket="taxi")["ok"]
    got = _frame(tb, 500, (29, 34))
    assert got[0] == got[1] and got[0][0] < got[0][1] == got[0][2], got  # both the Bobbies' cyan, at the same level


def test_two_pieces_in_hand_blink_and_light_no_destination():
    tb = _detectives_turn()
    tb.lift(13)
    tb.lift(26)
    assert _frame(tb, 0, (13, 26, 4)) == [DARK, DARK, DARK]
    assert _frame(tb, 500, (13, 26, 4)) == [LIT_D1, LIT_D2, DARK]
    tb.place(26)
    assert _frame(tb, 0, (13, 4)) == [LIT_D1, TAXI]  # one in hand again: it is lit steadily


def test_a_placement_waiting_for_its_ticket_blinks_dark_first_then_its_two_colours():
    tb = _detectives_turn()
    tb.lift(13)
    assert _frame(tb, tb.board.now, (23, 4)) in ([TAXI, TAXI], [BUS, TAXI])  # destinations (23 both ways)
    tb.place(23)
    assert tb.board.asking_at() == 23
    t0 = tb.board._ask_since  # when the board answered the placement
    # dark at once (the placement answered even where 23 was the only destination), then taxi,
    # dark, bus, dark, taxi: 100 ms each; never the red of a stray; the other destinations dark
    got = [_frame(tb, t0 + dt, (23, 4)) for dt in (0, 99, 100, 199, 200, 300, 400, 500)]
    want = [DARK, DARK, TAXI, TAXI, DARK, BUS, DARK, TAXI]
    assert [g[0] for g in got] == want, got
    assert all(g[1] == DARK for g in got), got
    notes = [m for m in tb.messages() if m.get("note") == "choose"]
    assert notes == [{"note": "choose", "piece": "D1", "station": 23, "tickets": ["taxi", "bus"]}], notes


def test_a_waiting_placement_asks_for_its_ticket_once():
    tb = _detectives_turn()
    tb.place(100)  # a stray magnet
    tb.lift(13)
    tb.place(23)
    tb.lift(100)  # the magnet taken away: the board looks again, the same placement still waits
    notes = _notes(tb, "choose")
    assert len(notes) == 1 and tb.board.asking_at() == 23, notes


def test_any_piece_in_hand_shows_its_destinations():
    tb = _detectives_turn()
    tb.lift(26)  # D2
    assert _frame(tb, 0, (26, 39, 15)) == [LIT_D2, TAXI, TAXI]
    tb.place(39)
    assert tb.board.game.pos[1] == 39


def test_a_stray_magnet_blinks_red():
    tb = _detectives_turn()
    tb.place(100)
    assert list(tb.board.extra[:tb.board.n_extra]) == [100]
    assert _frame(tb, 0, (100,)) + _frame(tb, 125, (100,)) + _frame(tb, 250, (100,)) == [DARK, RED, DARK]


def test_extra_stations_are_listed_in_order_and_at_most_eight():
    tb = _detectives_turn()
    for s in (60, 40, 51):
        tb.place(s)  # closed while no piece was in hand: strays
    tb.lift(13)
    tb.place(42)  # an illegal placement (blinks too)
    st = tb.command("status")
    assert st["extra"] == [40, 42, 51, 60], st["extra"]
    for s in (70, 80, 90, 110, 120):
        tb.place(s)
    st = tb.command("status")
    assert st["extra"] == [40, 42, 51, 60, 70, 80, 90, 110], st["extra"]  # the list holds eight
    assert st["missing"] == ["D1"]
    assert _frame(tb, 125, (40, 110, 120)) == [RED, RED, DARK]


def test_the_travel_log_view_after_a_short_press_of_the_confirm_button():
    tb = _detectives_turn()
    b = tb.board
    b.now = 5000
    b.button(3)
    b.release(3)  # a short press
    assert b.game.moves == 1 and b.game.next_reveal() == 3
    # for four seconds: the moves made grey, the ones to come blue, the next surfacing white
    assert _frame(tb, 5000, (1, 2, 3, 4)) == [(60, 60, 60), (0, 0, 80), WHITE, DARK]
    assert _frame(tb, 8999, (1, 2, 3, 4)) == [(60, 60, 60), (0, 0, 80), WHITE, DARK]
    assert _frame(tb, 9000, (1, 2, 3)) == [DARK, DARK, DARK]
    tb = _start()
    assert tb.command("mrx", double=[{"ticket": "taxi"}, {"ticket": "taxi"}])["ok"]
    tb.board.button(3)
    assert _frame(tb, tb.board.now, (1, 2, 3, 4)) == [(60, 60, 60), (60, 60, 60), WHITE, DARK]


def test_a_surfaced_mister_x_flashes_white_until_his_piece_stands_there():
    tb = _detectives_turn()
    g = tb.board.game
    tb.detectives_round()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.detectives_round()
    reach = [n for c in g.candidates() for n in g.graph.neighbours(c, 0) if g.holder_of(n) < 0]
    to = min(reach)
    assert tb.command("mrx", ticket="taxi", to=to)["reveal"] == to
    assert _frame(tb, 0, (to,)) + _frame(tb, 500, (to,)) == [DARK, WHITE]
    tb.messages()
    tb.place(to)
    assert tb.board.mrx_piece_on and _notes(tb, "mrx_piece") == [{"note": "mrx_piece", "station": to}]
    assert _frame(tb, 0, (to,)) == [WHITE] and tb.command("status")["mrx_piece"] is True
    tb.lift(to)
    assert not tb.board.mrx_piece_on
    assert _frame(tb, 0, (to,)) == [DARK]


def _mrx_taxi(tb):
    """Mister X's move by taxi; on a surfacing move to the lowest station he may reach by taxi."""
    g = tb.board.game
    if g.moves + 1 not in g.reveals:
        return tb.command("mrx", ticket="taxi")
    reach = [n for c in g.candidates() for n in g.graph.neighbours(c, 0) if g.holder_of(n) < 0]
    return tb.command("mrx", ticket="taxi", to=min(reach))


def test_mister_x_piece_on_his_station_survives_a_power_cut():
    """His piece put on the station he surfaced on is part of the saved game: after a power cut the
    board takes it up as his, not as a stray to be removed before play goes on."""
    tb = _detectives_turn()
    tb.detectives_round()
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.detectives_round()
    to = _mrx_taxi(tb)["reveal"]
    tb.place(to)
    assert tb.board.mrx_piece_on
    tb.reboot()
    b = tb.board
    assert b.mrx_piece_on and b.n_extra == 0 and not b.restoring, (b.mrx_piece_on, b.n_extra, b.restoring)
    assert tb.command("status")["mrx_piece"] is True
    tb.lift(to)  # and taken off again: saved too
    tb.reboot()
    assert not tb.board.mrx_piece_on and not tb.board.restoring
    assert _frame(tb, 0, (to,)) + _frame(tb, 500, (to,)) == [DARK, WHITE]  # flashing again




def test_a_capture_strobes_the_pieces_and_flashes_mister_x_red_and_white():
    tb = _detectives_turn()
    tb.lift(13)
    tb.place(46)
    assert tb.command("capture", piece="D1")["ok"]
    assert tb.board.stage == OVER
    assert _frame(tb, 0, (46, 26, 29)) == [RED, DARK, DARK]
    assert _frame(tb, 100, (46, 26, 29, 34, 50)) == [WHITE, D2, D3, _rgb(PIECE_RGB, 9), _rgb(PIECE_RGB, 12)]
    assert _frame(tb, 200, (46,)) == [RED]
    # 100 ms each way, to the millisecond
    assert [_frame(tb, t, (46, 26)) for t in (99, 199, 299)] == [[RED, DARK], [WHITE, D2], [RED, DARK]]


def _escape(tb):
    """The last round's detectives' moves: Mister X escapes."""
    tb.board.game.rounds = 1
    for i in range(5):
        g = tb.board.game
        tb.lift(g.pos[i])
        tb.place(g.legal(i)[0][0])
    assert tb.board.game.result == "mrx" and tb.board.stage == OVER


def test_an_escape_runs_a_white_wave_over_the_board():
    tb = _detectives_turn()
    _escape(tb)
    pos = list(tb.board.game.pos)
    # the wave's front moves a station every 15 ms, 20 stations long, fading 12 a station
    tb.board.render(15 * 120)
    for s in range(95, 125):
        if s in pos:
            continue
        want = 255 - (120 - s) * 12 if 101 <= s <= 120 else 0
        assert tb.colour(s) == (want, want, want), (s, tb.colour(s), want)
    tb.board.render(15 * 5)  # at the board's start
    assert [tb.colour(s)[0] for s in (1, 5, 7) if s not in pos] == [207, 255, 0]
    tb.board.render(15 * 210)  # past the last station
    assert [tb.colour(s)[0] for s in (190, 191, 199)] == [0, 27, 123]
    tb.board.render(15 * 218)  # the tail's last station
    assert tb.colour(199) == (27, 27, 27) and tb.colour(198) == DARK
    tb.board.render(15 * 219)  # the wave has left the board: the detectives glow dim
    assert tb.colour(199) == DARK
    dim = [tuple(c >> 3 for c in rgb) for rgb in (D1, D2, D3)]
    assert [tb.colour(pos[k]) for k in range(3)] == dim
    tb.board.render(15 * 239)  # and it starts again
    assert tb.colour(1) == DARK
    tb.board.render(15 * 240)
    assert tb.colour(1) == WHITE


def test_the_game_over_note_and_the_events_of_an_escape():
    tb = _detectives_turn()
    tb.messages()
    _escape(tb)
    msgs = tb.messages()
    over = [m for m in msgs if m.get("note") == "game_over"]
    assert over == [{"note": "game_over", "result": "mrx", "reason": "rounds_done"}], over
    assert [m["ev"]["type"] for m in msgs if "ev" in m] == ["move"] * 5


# --- notes, events, refusals -------------------------------------------------------------------------
def test_the_lift_note_lists_every_destination_with_its_tickets():
    tb = _detectives_turn()
    tb.lift(13)
    notes = _notes(tb, "lifted")
    assert notes == [{"note": "lifted", "piece": "D1", "station": 13,
                      "legal": [[4, ["taxi"]], [14, ["bus"]], [23, ["taxi", "bus"]], [24, ["taxi"]], [46, ["underground"]],
                                [52, ["bus"]], [67, ["underground"]], [89, ["underground"]]]}], notes
    tb.place(13)  # put back: no move, no note
    tb.lift(13)
    assert len(_notes(tb, "lifted")) == 1  # lifted again: told again


def test_a_move_is_an_event_with_its_ticket_and_mister_x_turn_follows_the_round():
    tb = _detectives_turn(detectives=(13, 26), bobbies=(29, 34))
    tb.lift(13)
    tb.place(4)
    tb.lift(29)
    tb.place(41)  # a bobby pays no ticket
    tb.lift(26)
    tb.place(39)
    tb.lift(34)
    tb.place(22)
    msgs = tb.messages()
    evs = [m["ev"] for m in msgs if "ev" in m]
    assert evs == [{"type": "move", "piece": "D1", "to": 4, "ticket": "taxi"}, {"type": "move", "piece": "B1", "to": 41},
                   {"type": "move", "piece": "D2", "to": 39, "ticket": "taxi"}, {"type": "move", "piece": "B2", "to": 22}], evs
    assert [m for m in msgs if m.get("note") == "mrx_turn"] == [{"note": "mrx_turn", "round": 2}]
    assert [m["seq"] for m in msgs if "ev" in m] == [4, 5, 6, 7]  # setup, ready, mrx, then these


def test_an_illegal_placement_is_told_with_its_reason_and_a_guided_move_with_the_guide():
    tb = _detectives_turn()
    tb.lift(13)
    tb.place(100)
    note = _notes(tb, "illegal")
    assert [(n["piece"], n["station"], n["error"]) for n in note] == [("D1", 100, "not_connected")], note
    tb.lift(100)
    tb.place(13)
    assert tb.command("guide", piece="D1", to=23, ticket="bus")["ok"]
    tb.lift(13)
    tb.place(4)  # legal, but not the guided move
    note = _notes(tb, "illegal")
    assert note == [{"note": "illegal", "piece": "D1", "station": 4, "error": "guided", "why": "guided_to", "args": ["D1", 23]}], note
    assert tb.board.game.pos[0] == 13
    assert _frame(tb, 0, (23,)) + _frame(tb, 500, (23,)) == [BUS, D1]  # the guided station
    tb.lift(4)
    tb.place(23)  # the guided move, its ticket known: no choice asked
    assert tb.board.game.pos[0] == 23 and list(tb.board.game.tickets[0]) == [11, 7, 4]


def test_a_guided_move_by_underground():
    tb = _detectives_turn()
    assert tb.command("guide", piece="D1", to=46, ticket="underground")["ok"]
    tb.lift(13)
    tb.place(46)
    assert tb.board.game.pos[0] == 46 and list(tb.board.game.tickets[0]) == [11, 8, 3]


def test_only_the_guided_piece_may_take_the_guided_station():
    tb = _detectives_turn(detectives=(123, 138, 13, 26, 29))  # 124 is a taxi ride from 123 and from 138
    assert tb.command("guide", piece="D1", to=124, ticket="taxi")["ok"]
    tb.lift(138)
    tb.place(124)  # D2 on D1's guided station
    notes = _notes(tb, "illegal")
    assert [(n["piece"], n["error"]) for n in notes] == [("D2", "guided")], notes
    assert tb.board.game.pos[1] == 138


def test_a_piece_lifted_in_mister_x_turn_stays_out_of_place_whichever_it_is():
    tb = _start()
    tb.lift(26)  # D2, in Mister X's turn
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.place(39)  # a taxi ride from 26, but D2 was lifted out of turn
    g = tb.board.game
    assert g.moved == 0 and g.pos[1] == 26 and tb.command("status")["extra"] == [39]


def test_two_pieces_lifted_in_mister_x_turn_one_put_back_the_other_stays_out_of_place():
    tb = _start()
    tb.lift(13)
    tb.lift(26)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.place(13)  # D1 back: in place again
    tb.place(39)  # D2, lifted out of turn, put on one of its destinations: no move
    g = tb.board.game
    assert g.pos[1] == 26 and g.moved == 0 and tb.command("status")["extra"] == [39]
    tb.lift(13)  # D1 may move as usual
    assert tb.board.piece_in_hand() == -1  # (not while D2 is out of place: two pieces missing)
    tb.lift(39)
    tb.place(26)
    assert tb.board.piece_in_hand() == 0
    tb.place(4)
    assert g.pos[0] == 4


def test_a_guided_move_lights_its_destination_in_the_piece_and_the_ticket_colours():
    tb = _detectives_turn()
    assert tb.command("guide", piece="D2", to=39, ticket="taxi")["ok"]
    # only the guided piece pulses; its destination: the piece's colour, then the ticket's
    assert _frame(tb, 0, (26, 13, 39)) == [_scaled(D2, 96), _scaled(D1, 24), TAXI]
    assert _frame(tb, 500, (39,)) == [D2]
    tb.lift(13)  # another piece lifted: the guided destination stays what is lit
    assert _frame(tb, 0, (39, 4)) == [TAXI, DARK]


def _to_46_then_1(tb):
    """D1 from 13 to 46 by underground, a round, Mister X; then D1 in hand at 46, where bus and
    underground both go to station 1."""
    tb.lift(13)
    tb.place(46)
    tb.detectives_round()
    assert _mrx_taxi(tb)["ok"]
    tb.lift(46)


def test_a_ticket_button_that_is_not_one_of_the_waiting_placement_choices():
    tb = _detectives_turn()
    _to_46_then_1(tb)
    assert _frame(tb, 0, (1,)) + _frame(tb, 600, (1,)) == [BUS, UG]  # bus and underground in turn
    tb.place(1)
    assert tb.board.asking_at() == 1 and tb.board.asked_tickets() == 6
    t0 = tb.board._ask_since  # when the board answered the placement
    assert _frame(tb, t0, (1,)) + _frame(tb, t0 + 100, (1,)) + _frame(tb, t0 + 300, (1,)) == [DARK, BUS, UG]
    tb.messages()
    tb.press(0)  # taxi: no taxi line joins 46 and 1
    notes = _notes(tb, "illegal")
    assert [(n["station"], n["error"]) for n in notes] == [(1, "not_connected")], notes
    assert tb.board.game.pos[0] == 46
    tb.press(0)  # taxi pressed again: the choice is dropped, both tickets are offered again
    tb.press(2)
    assert tb.board.game.pos[0] == 1 and list(tb.board.game.tickets[0]) == [11, 8, 2]


def test_a_placement_by_the_host_on_a_station_out_of_service_waits_for_its_ticket():
    from sy.hardware import boardconfig
    cfg = boardconfig.validate({"board": "pico", "debounce_ms": 30, "scan_hz": 200, "reeds": {"dead": [1]}})
    tb = TestBoard(TMP, cfg)
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=list(DETECTIVES), bobbies=[])["ok"]
    for s in DETECTIVES:
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    _to_46_then_1(tb)
    assert tb.command("status")["dead"] == [1]
    r = tb.command("place", piece="D1", station=1)
    assert r["ok"] and r["pending"] == ["bus", "underground"], r
    assert tb.command("choose", ticket="bus")["ok"] and tb.board.game.pos[0] == 1


def test_choose_without_a_piece_in_hand_is_refused():
    tb = _detectives_turn()
    r = tb.command("choose", ticket="taxi")
    assert not r["ok"] and r["error"] == "wrong_turn", r
    tb.lift(13)
    assert tb.command("choose", ticket="bus")["ok"] and tb.board.chosen_ticket() == 1
    tb.place(23)
    assert tb.board.game.pos[0] == 23 and list(tb.board.game.tickets[0]) == [11, 7, 4]  # no choice asked


def test_commands_refused_while_the_game_is_not_ready():
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    codes = []
    r = tb.command("mrx", ticket="taxi")  # no game
    codes.append(r["error"])
    tb.command("setup", detectives=list(DETECTIVES), bobbies=[])
    r2 = tb.command("mrx", ticket="taxi")  # pieces not set up
    codes.append(r2["error"])
    assert (r["why"], r2["why"]) == ("no_game", "not_placed"), (r, r2)
    for s in DETECTIVES:
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)
    tb.place(4)
    assert tb.command("undo")["ok"]
    r = tb.command("cornered")  # a move taken back: the piece must go back first
    codes.append(r["error"])
    assert (r["why"], r["args"]) == ("put_back", ["D1", 13]), r
    tb.lift(4)
    tb.place(13)
    tb.set(26, False)
    tb.reboot()
    assert tb.board.restoring
    r = tb.command("cornered")  # a resumed board whose pieces do not agree
    codes.append(r["error"])
    tb.place(26)
    assert not tb.board.restoring
    _escape_from_here(tb)
    r = tb.command("mrx", ticket="taxi")  # over
    codes.append(r["error"])
    r = tb.command("guide", piece="D1", to=4, ticket="taxi")
    codes.append(r["error"])
    assert codes == ["wrong_turn", "wrong_turn", "wrong_turn", "wrong_turn", "game_over", "game_over"], codes


def _escape_from_here(tb):
    g = tb.board.game
    g.rounds = g.round
    for i in range(5):
        if g.to_move() & (1 << i):
            tb.lift(g.pos[i])
            tb.place(g.legal(i)[0][0])
    assert tb.board.stage == OVER


def test_a_resumed_board_says_when_its_pieces_agree_again():
    tb = _detectives_turn()
    tb.set(26, False)
    tb.reboot()
    tb.messages()
    assert _frame(tb, 0, (13, 26)) == [LIT_D1, DARK] and _frame(tb, 500, (26,)) == [LIT_D2]
    tb.place(26)
    assert _notes(tb, "restored") == [{"note": "restored"}]
    assert _frame(tb, 0, (13, 22)) == [_scaled(D1, 96), DARK]


# --- the confirm button held: a take-back ---------------------------------------------------------------
def _hold(tb, ms):
    b = tb.board
    b.now = 20000
    b.button(3)
    b.now = 20000 + ms
    b.release(3)


def test_the_confirm_button_takes_back_when_held_long_enough():
    tb = _detectives_turn()
    tb.lift(13)
    tb.place(4)
    tb.messages()
    _hold(tb, 1499)  # held 1.5 s and longer: a take-back
    assert tb.board.game.pos[0] == 4 and _events(tb) == []
    _hold(tb, 1500)
    assert tb.board.game.pos[0] == 13
    assert _events(tb) == [{"type": "undo", "piece": "D1", "from": 4, "to": 13}]
    _hold(tb, 1500)  # nothing left to take back: the host is told why
    notes = _notes(tb, "refused")
    assert [n["error"] for n in notes] == ["wrong_turn"], notes


def test_a_press_at_the_clock_s_zero_counts():
    tb = _detectives_turn()
    tb.lift(13)
    tb.place(4)
    b = tb.board
    b.now = 0  # the millisecond clock may read 0 (it wraps)
    b.button(3)
    b.now = 1500
    b.release(3)
    assert b.game.pos[0] == 13


def test_a_release_without_its_press_takes_nothing_back():
    tb = _detectives_turn()
    tb.lift(13)
    tb.place(4)
    tb.messages()
    b = tb.board
    b.now = 90000
    b.release(3)  # (the press came before a reboot, say)
    assert b.game.pos[0] == 4 and tb.messages() == []


def test_a_station_closed_while_a_piece_taken_back_is_in_hand_is_a_stray():
    tb = _detectives_turn()
    tb.lift(26)
    tb.place(27)
    assert tb.command("undo")["ok"]  # D2 must go back to 26: nothing may move meanwhile
    tb.lift(27)
    tb.place(4)  # a magnet on a destination of D1, put down while D2 is in hand
    tb.place(26)
    assert tb.board.hand != HAND_TAKEN_BACK
    tb.lift(13)  # D1 in hand: 4 closed before, so it is no placement
    g = tb.board.game
    assert g.pos[0] == 13 and tb.board.piece_in_hand() == 0 and tb.command("status")["extra"] == [4]


def test_a_station_closed_while_the_taken_back_piece_itself_is_in_hand_is_a_stray():
    tb = _detectives_turn()
    tb.lift(13)
    tb.place(4)
    assert tb.command("undo")["ok"]  # D1 must go back to 13
    tb.lift(4)
    tb.place(24)  # a magnet on a destination of D1, put down while D1 is in hand
    tb.place(13)
    tb.lift(13)  # D1 in hand again: 24 closed before, so it is no placement
    g = tb.board.game
    assert g.pos[0] == 13 and tb.board.piece_in_hand() == 0 and tb.command("status")["extra"] == [24]


def test_the_confirm_button_held_outside_a_game_in_play_does_nothing():
    tb = _ready()
    tb.messages()
    _hold(tb, 2000)
    assert tb.messages() == [] and tb.board.stage == SETUP
    tb.board.release(3)  # a release with no press before it
    tb.board.release(0)
    assert tb.messages() == []


# --- one thing a scan cycle ---------------------------------------------------------------------------------
def test_the_cycle_that_takes_a_reed_change_draws_no_frame():
    """On a Pico a change's evaluation and a frame each take milliseconds: the frame that answers a
    change comes in the next cycle, and a host's line that waits meanwhile in the one after."""
    tb = _detectives_turn()
    tb.set(13, False)
    changes = tb.app.changes
    while tb.app.changes == changes:
        shown = tb.strip.seq
        if not tb.link.inbox:  # (a line waits while the change is about to settle: sy/app.py)
            tb.link.inbox.append(b'{"cmd": "ping", "id": 99}')
        tb.run(1)
        if tb.app.changes == changes:
            tb.messages()
    assert tb.strip.seq == shown and tb.board.piece_in_hand() == 0
    assert [m for m in tb.messages() if m.get("id") == 99] == []  # the line waits too
    tb.run(1)
    assert tb.strip.seq == shown + 1 and tb.colour(4) == TAXI
    assert [m for m in tb.messages() if m.get("id") == 99] == []  # the players' answer first
    tb.run(1)
    assert [m["id"] for m in tb.messages() if "ok" in m] == [99]


# --- saving ------------------------------------------------------------------------------------------------
def test_every_event_saves_the_game_and_a_long_game_outgrows_the_buffer():
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    # Mister X surfaces on every move from the ninth on: 90 surfacing moves make a long snapshot
    assert tb.command("setup", detectives=list(DETECTIVES), bobbies=[], reveals=list(range(9, 99)))["ok"]
    for s in DETECTIVES:
        tb.place(s)
    b = tb.board
    snap = b._snap  # the board's snapshot buffer: made once, a save allocates none
    for _ in range(10):
        assert _mrx_taxi(tb)["ok"]
        tb.detectives_round()
        assert b._snap is snap or b.game.save_size() > 192
    assert b.save_max_us > 0
    assert b.game.save_size() > 192
    from sy.storage import resume
    from sy.storage.store import Store
    header, data = resume.load(Store(TMP))
    assert header["v"] == 1 and header["stage"] == PLAY and len(data) == b.game.save_size()
    st = tb.command("status")
    tb.reboot()
    st2 = tb.command("status")
    for k in ("pieces", "round", "moves", "log", "tickets", "mrx_tickets", "stage"):
        assert st[k] == st2[k], k


def test_nothing_long_starts_while_a_change_is_about_to_settle():
    """An animation frame or a host's line holds a Pico's scan loop up to 10 ms: in the cycles just
    before a reed change settles neither starts, so the scan that takes the change is on time."""
    from sy.app import SETTLE_GUARD_MS
    tb = _detectives_turn()
    tb.run(20)
    tb.set(13, False)
    deb = tb.app.debouncer
    tb.run(1)
    while not 0 <= deb.due_in(tb.now + tb.period) < SETTLE_GUARD_MS:
        tb.run(1)
    shown = tb.strip.seq
    tb.app.last_frame = tb.now - 1000  # an animation frame is due
    tb.link.inbox.append(b'{"cmd": "ping", "id": 98}')
    changes = tb.app.changes
    tb.run(1)
    assert tb.app.changes == changes and deb.due_in(tb.now) >= 0
    assert tb.strip.seq == shown and tb.link.inbox  # neither the frame nor the line started
    while tb.app.changes == changes:
        tb.run(1)
    tb.run(1)
    assert tb.strip.seq > shown and tb.board.piece_in_hand() == 0  # the players' answer first,
    assert tb.link.inbox and not [m for m in tb.messages() if "ok" in m]
    tb.run(1)
    assert [m["id"] for m in tb.messages() if "ok" in m] == [98]  # then the host's line


def _placed_where_two_tickets_fit():
    """D1 lifted from 13 and put on 23 (taxi or bus): returned in the cycle that took the placement."""
    tb = _detectives_turn()
    tb.run(20)
    tb.set(13, False)
    tb.run(20)
    tb.messages()
    tb.set(23, True)
    changes = tb.app.changes
    while tb.app.changes == changes:
        tb.run(1)
    assert tb.board.asking_at() == 23 and tb.board.dirty
    return tb


def test_a_ticket_question_is_shown_then_told():
    """A placement where two tickets fit: the frame that asks the players comes in the next
    cycle, the host's `choose` note in the one after (a note holds a Pico's loop 3-5 ms)."""
    tb = _placed_where_two_tickets_fit()
    shown = tb.strip.seq
    assert tb.messages() == []
    tb.run(1)
    assert tb.strip.seq == shown + 1 and tb.messages() == []
    tb.run(1)
    assert tb.messages() == [{"note": "choose", "piece": "D1", "station": 23, "tickets": ["taxi", "bus"]}]
    tb.run(20)
    assert _notes(tb, "choose") == []  # told once


def test_the_answer_to_a_placement_goes_before_a_waiting_host_line():
    """A placement the board asks a ticket for: the host answers the `choose` note at once, and its
    line may save to flash (100 ms on a Pico); the frame that answers the players comes first."""
    tb = _placed_where_two_tickets_fit()
    shown = tb.strip.seq
    tb.link.inbox.append(b'{"cmd": "choose", "ticket": "bus", "id": 97}')
    tb.run(1)
    assert tb.strip.seq == shown + 1 and tb.link.inbox  # the question shown, the line still waiting
    assert tb.board.game.pos[0] == 13
    tb.run(1)
    assert [m["id"] for m in tb.messages() if "ok" in m] == [97] and tb.board.game.pos[0] == 23
