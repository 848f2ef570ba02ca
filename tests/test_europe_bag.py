"""The bag on the host (host/europe/bag.py): draws are fair (uniform over what is in the bag),
reproducible from the seed, recorded in the secret record only, and never show Mister X's hand
in the public record. The map is the one made for the tests, not the real board."""
import json
from collections import Counter

from host.europe.bag import Bag
from host.europe.match import EuropeMatch
from host.europe.mapformat import load_graph
import os

from sy.europe.rules import Game, ticket_number, KINDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")


_GRAPH = []


def graph():
    if not _GRAPH:
        _GRAPH.append(load_graph(TESTMAP, "europe_testmap"))
    return _GRAPH[0]


def fresh(bag=None):
    return Game(graph(), [8, 10, 16, 22, 23], [3, 2], 0, 13, 8, bag)


def test_draws_are_uniform_over_the_bag():
    # a bag of 60 car/lamp and 20 of each of three other kinds: a fair draw takes car/lamp 60/120
    counts = [0] * KINDS
    counts[ticket_number("car/lamp")] = 60
    for name in ("train/magnifier", "plane/footprints", "car/silhouettes"):
        counts[ticket_number(name)] = 20
    seen = Counter()
    bag = Bag(seed=12345)
    for _ in range(3000):
        seen.update(bag.draw(fresh(counts), 0))
    total = sum(seen.values())
    assert total == 3000 * 8
    assert abs(seen["car/lamp"] / total - 0.5) < 0.02, seen
    for name in ("train/magnifier", "plane/footprints", "car/silhouettes"):
        assert abs(seen[name] / total - 1 / 6) < 0.02, seen
    assert set(seen) == {"car/lamp", "train/magnifier", "plane/footprints", "car/silhouettes"}


def test_the_same_seed_deals_the_same_hands_and_another_does_not():
    a, b, c = Bag(seed=7), Bag(seed=7), Bag(seed=8)
    g = fresh()
    assert a.draw(g, 0) == b.draw(g, 0)
    assert [a.draw(g, 1) for _ in range(5)] == [b.draw(g, 1) for _ in range(5)]
    assert [a.draw(g, 1) for _ in range(5)] != [c.draw(g, 1) for _ in range(5)]
    assert Bag().seed != Bag().seed  # from the OS's secure randomness


def test_an_empty_bag_draws_the_spent_tickets():
    counts = [0] * KINDS
    counts[ticket_number("car/footprints")] = 3
    counts[ticket_number("car/lamp")] = 5 + 7 + 6
    counts[ticket_number("plane/lamp")] = 2
    g = Game(graph(), [8, 10, 16, 22, 23], [3, 2], 0, 13, 8, counts)
    g.draw(0, [ticket_number("car/footprints")] * 3 + [ticket_number("car/lamp")] * 5)
    g.draw(1, [ticket_number("car/lamp")] * 7)
    g.draw(2, [ticket_number("car/lamp")] * 6)
    g.mrx_turn("double", [ticket_number("car/footprints")] * 3, [(ticket_number("car/lamp"), 7), (ticket_number("car/lamp"), 1)])
    got = Bag(seed=1).draw(g, 0)
    assert sorted(got) == ["car/footprints"] * 3 + ["plane/lamp"] * 2
    g.draw(0, [ticket_number(t) for t in got])
    assert g.bag_total == 0 and g.out_total == 0


def test_the_match_records_the_deal_and_keeps_mister_x_hand_secret():
    m = EuropeMatch(graph(), "europe_testmap", seed=99)
    m.setup(0, [8, 10, 16, 22, 23], [3, 2], 13)
    for h in range(3):
        m.apply({"type": "draw", "hand": m.game.hand_name(h), "tickets": m.bag.draw(m.game, h)})
    full, public = m.full, m.public
    assert full[0]["bag_seed"] == 99 and full[0]["mrx"] == 13
    assert "bag_seed" not in public[0] and public[0]["mrx"] is None
    assert public[1] == {"type": "draw", "hand": "X", "count": 8} and len(full[1]["tickets"]) == 8
    assert public[2] == full[2] and len(full[2]["tickets"]) == 7
    text = "\n".join(json.dumps(line) for line in public)
    assert "13" not in json.dumps(public[0])
    # the same seed deals the same game again
    m2 = EuropeMatch(graph(), "europe_testmap", seed=99)
    m2.setup(0, [8, 10, 16, 22, 23], [3, 2], 13)
    for h in range(3):
        m2.apply({"type": "draw", "hand": m2.game.hand_name(h), "tickets": m2.bag.draw(m2.game, h)})
    assert m2.full == full and text
