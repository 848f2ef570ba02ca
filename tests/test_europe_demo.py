"""The demo's order of lines (host/europe/sim.py `play`) against a board made of the public rules:
a Replayer of the public record stands in for the Europe board (it judges the same lines the
board's rules judge), so many games run in a second. The real board plays it in test_europe_sim.py.
The map is the one made for the tests, not the real board."""
import json
import random

import pytest

from europe_games import TESTMAP
from host.errors import BoardError
from host.europe.mapformat import load_graph
from host.europe.match import EuropeMatch
from host.europe.sim import play
from sy.europe.record import Replayer

GRAPH = load_graph(TESTMAP, "europe_testmap")


class PublicRulesBoard:
    """The link and the hands of `play`: lines, guides and reed moves judged by the public rules."""

    def __init__(self):
        self.rules = Replayer(lambda _name: GRAPH)
        self.guided = None
        self.events = []

    def request(self, cmd, **args):
        if cmd == "line":
            verdict = self.rules.feed(json.dumps(args["line"]))
            return dict(verdict, ok=verdict["ok"])
        if cmd == "guide":
            self.guided = {"type": "move", "piece": args["piece"], "ticket": args["ticket"], "to": args["to"]}
            return {"ok": True}
        if cmd == "capture":  # the host tells the board that the guided detective found Mister X
            g = self.rules.game
            g.capture(g.piece_index(args["piece"]))
            return {"ok": True}
        raise AssertionError(cmd)

    def lift(self, _city):
        pass

    def place(self, city):
        if self.guided and self.guided["to"] == city:
            verdict = self.rules.feed(json.dumps(self.guided))
            if not verdict["ok"]:
                raise BoardError("the board refused the guided move: %s" % verdict)
            self.events.append(self.guided)
            self.guided = None

    def event(self):
        return self.events.pop(0)


def demo(seed):
    rng = random.Random(seed)
    match = EuropeMatch(GRAPH, "europe_testmap", seed=rng.randrange(1 << 62))
    n = rng.randint(1, 5)
    det = rng.sample(sorted(GRAPH.d_cards), n)
    players, left = [], n
    while left:
        k = rng.randint(1, left)
        players.append(k)
        left -= k
    level = rng.randrange(3)
    match.setup(level, det, players, rng.choice([c for c in GRAPH.ring_cities(level) if c not in det]))
    board = PublicRulesBoard()
    assert board.request("line", line=match.public[0])["ok"]
    play(match, board, board, rng, print, max_rounds=40)
    return match, board


@pytest.mark.parametrize("chunk", range(4))
def test_the_demo_order_is_never_refused(chunk):
    for seed in range(chunk * 60, chunk * 60 + 60):
        match, board = demo(seed)
        g, seen = match.game, board.rules.game
        assert (seen.result, seen.reason, seen.round) == (g.result, g.reason, g.round), seed
