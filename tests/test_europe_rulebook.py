"""The points of the Russian rulebook (seed 004) that docs/rules-europe.md reads, each played as a
short record on the map made for the tests (not the real board), judged by sy/europe/record.py
and by the project's second reading (tests/europe_reference.py): both must give the same verdicts."""
import json

from europe_games import TESTMAP
from europe_reference import Reference
from sy.europe.record import replay


def verdicts(lines):
    """The core's verdicts (without messages), after checking that the reference agrees."""
    texts = [json.dumps(line) for line in lines]
    core = [{k: v for k, v in d.items() if k != "message"} for d in replay(texts)]
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
