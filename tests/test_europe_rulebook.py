"""The points of the Russian rulebook (seed 004) that docs/rules-europe.md reads, each played as a
short record on the map made for the tests (not the real board), judged by sy/europe/record.py
and by the project's second reading (tests/europe_reference.py): both must give the same verdicts."""
import json

from europe_games import TESTMAP
from europe_reference import Reference
from sy.europe.record import replay


def verdicts(lines):
    """The core's verdicts, after checking that the reference agrees on them (the reference judges
    by codes: the core's refusal details, `why` and `args`, are for the host's wording)."""
    texts = [json.dumps(line) for line in lines]
    core = [{k: v for k, v in d.items() if k not in ("message", "why", "args")} for d in replay(texts)]
    ref = Reference(TESTMAP)
    expected = [ref.feed(t) for t in texts] + [ref.final()]
    assert core == expected
    return core


def setup(detectives, players=None, mrx=1, level="green", **extra):
    line = {"type": "setup", "game": "europe", "version": 1, "map": "europe_testmap", "level": level,
            "detectives": detectives, "mrx": mrx}
    if players:
        line["players"] = players
    line.update(extra)
    return line


def draw(hand, tickets):
    return {"type": "draw", "hand": hand, "tickets": tickets}


def test_the_special_operation_ends_the_detectives_moves():
    # D2 on train city 13 with five plane tickets cannot move; the train extra move (4 lamps) takes
    # it to plane city 20, from where its last plane ticket could fly: the moves are over by then
    lines = [setup([10, 13], [1, 1], mrx=1),
             draw("X", ["car/silhouettes"] * 8), draw("P1", ["car/footprints"] * 5),
             draw("P2", ["plane/lamp"] * 5),
             {"type": "mrx", "moves": [{"ticket": "car/silhouettes", "to": 2}]},
             draw("X", ["car/silhouettes"]),
             {"type": "move", "piece": "D1", "ticket": "car/footprints", "to": 9},
             {"type": "query", "what": "legal", "piece": "D2"},
             {"type": "extra", "piece": "D2", "spend": {"P2": ["plane/lamp"] * 4}, "to": 20},
             {"type": "query", "what": "legal", "piece": "D2"},
             {"type": "move", "piece": "D2", "ticket": "plane/lamp", "to": 27},
             draw("P1", ["car/footprints"]),
             draw("P2", ["plane/lamp"] * 4),
             {"type": "check"}]
    v = verdicts(lines)
    assert v[7]["legal"] == []  # D2 is stranded on 13 before the operation
    assert v[8]["ok"]
    assert v[9]["legal"] == []  # and stays put after it
    assert (v[10]["ok"], v[10].get("error")) == (False, "wrong_turn")
    assert all(x["ok"] for x in v[11:14]), v[11:14]


def public_verdicts(lines):
    """The core's verdicts on a public record (the board's: the reference reads full records)."""
    return list(replay([json.dumps(line) for line in lines]))


def test_a_position_check_covers_the_five_cities_before_his_current_one():
    # «последних пяти городов, в которых он был»: after five moves, his start (entry 0) is one of
    # them, and D1 lands there in the fifth round
    x_path, d_path = [7, 13, 14, 15, 21], [10, 9, 8, 2, 1]
    lines = [setup([16], mrx=1), draw("X", ["car/silhouettes"] * 8), draw("P1", ["car/footprints"] * 5)]
    for x, d in zip(x_path, d_path):
        lines += [{"type": "mrx", "moves": [{"ticket": "car/silhouettes" if x != 21 else "car/magnifier", "to": x}]},
                  draw("X", ["car/magnifier"]),
                  {"type": "move", "piece": "D1", "ticket": "car/footprints", "to": d},
                  draw("P1", ["car/footprints"]), {"type": "check"}]
    v = verdicts(lines)
    assert all(x["ok"] for x in v[:-1]), [x for x in v if not x.get("ok", True)]
    assert [x["shown"] for x in v if "shown" in x] == [[], [], [], [], [1]]


def cornered_start():
    # green ring 25 (a car city) has two car lines, to 19 and 26, where the detectives stand
    return [setup([19, 26], [1, 1], mrx=None), {"type": "draw", "hand": "X", "count": 8},
            draw("P1", ["car/footprints"] * 5), draw("P2", ["car/footprints"] * 5)]


def test_the_possible_cities_drop_those_where_he_would_have_been_cornered():
    v = public_verdicts(cornered_start() + [{"type": "query", "what": "candidates"},
                                            {"type": "mrx", "moves": []},
                                            {"type": "query", "what": "candidates"}])
    assert v[4]["candidates"] == [1, 7, 13, 25]  # before his turn: he may yet be cornered on 25
    assert v[5]["ok"]
    assert v[6]["candidates"] == [1, 7, 13]  # he was not: the game went on


def test_the_possible_cities_never_hold_his_destination_while_the_game_goes_on():
    # orange mission: rings 2, 3, 4, 26, 28, destination 21, a car move away from 26 and 27
    lines = [setup([9, 16], [1, 1], mrx=None, level="orange"), {"type": "draw", "hand": "X", "count": 8},
             draw("P1", ["car/footprints"] * 5), draw("P2", ["car/footprints"] * 5),
             {"type": "mrx", "special": "double", "spend": ["train/footprints"] * 3,
              "moves": [{"ticket": "car/silhouettes"}, {"ticket": "car/silhouettes"}]},
             {"type": "draw", "hand": "X", "count": 5}, {"type": "query", "what": "candidates"}]
    v = public_verdicts(lines)
    assert v[4]["ok"] and v[5]["ok"]
    assert 21 not in v[6]["candidates"] and {15, 20, 22} & set(v[6]["candidates"])


def check_round(shown, to=13):
    """A public record: D1 lands on ring 13 in the first round, then the check shows `shown`."""
    return public_verdicts([setup([14, 16], [1, 1], mrx=None), {"type": "draw", "hand": "X", "count": 8},
                            draw("P1", ["car/footprints"] * 5), draw("P2", ["car/footprints"] * 5),
                            {"type": "mrx", "moves": [{"ticket": "car/silhouettes"}]},
                            {"type": "draw", "hand": "X", "count": 1},
                            {"type": "move", "piece": "D1", "ticket": "car/footprints", "to": to},
                            {"type": "move", "piece": "D2", "ticket": "car/footprints", "to": 22},
                            draw("P1", ["car/footprints"]), draw("P2", ["car/footprints"]),
                            {"type": "check", "shown": shown}])[10]


def test_a_public_position_check_shows_each_city_once_and_only_where_he_can_have_been():
    assert check_round([13])["ok"]  # his start may have been ring 13
    assert check_round([])["ok"]
    for shown in ([13, 13], [22], [13, 22]):  # 22: a detective landed there, but it is no ring
        v = check_round(shown)
        assert (v["ok"], v["error"]) == (False, "bad_input"), shown


def test_as_many_detectives_as_possible_move():
    # «перемещает как можно больше детективов»: P1 runs D1 (train city 9) and D2 (car city 14) with
    # one car and one train ticket; D1 taking the car ticket would strand D2
    bag = {"car/silhouettes": 9, "car/footprints": 1, "train/footprints": 1, "plane/footprints": 4}
    lines = [setup([9, 14], [2], mrx=1, bag=bag), draw("X", ["car/silhouettes"] * 8),
             draw("P1", ["car/footprints", "train/footprints"] + ["plane/footprints"] * 4),
             {"type": "mrx", "moves": [{"ticket": "car/silhouettes", "to": 7}]}, draw("X", ["car/silhouettes"]),
             {"type": "query", "what": "legal", "piece": "D1"},
             {"type": "move", "piece": "D1", "ticket": "car/footprints", "to": 10},
             {"type": "move", "piece": "D1", "ticket": "train/footprints", "to": 15},
             {"type": "move", "piece": "D2", "ticket": "car/footprints", "to": 13}]
    v = verdicts(lines)
    assert v[5]["legal"] == [[5, "train"], [8, "train"], [15, "train"]]
    assert (v[6]["ok"], v[6]["error"]) == (False, "fewer_moves")
    assert v[7]["ok"] and v[8]["ok"]
