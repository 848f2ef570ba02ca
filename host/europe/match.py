"""A Europe game as the host keeps it: the whole truth (Mister X's city and hand, the bag) in a
full record, and the public record the board and the detectives see (docs/game-record.md,
Europe). Every line goes through the rules (sy/europe/record.py) before anyone sees it.
"""
import json

from host import refusals
from host.europe.bag import Bag
from sy.europe import record as europe_record
from sy.europe.rules import LEVEL_NAMES


class EuropeMatch:
    def __init__(self, graph, map_name, seed=None):
        self.graph = graph
        self.map_name = map_name
        self.bag = Bag(seed)
        self.replayer = europe_record.Replayer(lambda _name: graph)
        self.full = []  # the host's secret record (dicts)
        self.public = []  # what the board keeps (dicts)

    @property
    def game(self):
        return self.replayer.game

    def apply(self, line):
        """Feed one full line; returns (verdict, public line or None). A refused line raises."""
        verdict = self.replayer.feed(json.dumps(line))
        if not verdict["ok"]:
            raise ValueError("the rules refused %s: %s" % (json.dumps(line), refusals.of_reply(verdict)))
        self.full.append(line)
        pub = self.public_line(line, verdict)
        if pub is not None:
            self.public.append(pub)
        return verdict, pub

    def public_line(self, line, verdict):
        g = self.game
        kind = line["type"]
        if kind == "query":
            return None
        pub = json.loads(json.dumps(line))
        if kind == "setup":
            pub["mrx"] = None
            pub.pop("bag_seed", None)
        elif kind in ("draw", "discard") and line["hand"] == "X":
            pub = {"type": kind, "hand": "X", "count": len(line["tickets"])}
        elif kind == "mrx":
            dest = g.graph.destination(g.level)
            for mv in pub["moves"]:
                if mv["to"] != dest:
                    del mv["to"]
                if line.get("special") == "covert":
                    del mv["ticket"]
        elif kind == "investigate":
            pub["city"] = verdict["reveal"]["city"]
        elif kind == "check":
            pub["shown"] = verdict["shown"]
        elif kind in ("move", "extra") and g.reason == "capture":
            pub["capture"] = True
        return pub

    def declare_cornered(self):
        """The public line that tells the board Mister X could not move (he was cornered at the
        start of his turn): only the host, who knows his city, sees it."""
        line = {"type": "cornered"}
        self.public.append(line)
        return line

    # --- the steps of a game -----------------------------------------------------------------
    def setup(self, level, detectives, players, mrx):
        return self.apply({"type": "setup", "game": "europe", "version": 1, "map": self.map_name,
                           "level": LEVEL_NAMES[level], "detectives": list(detectives), "players": list(players),
                           "mrx": mrx, "bag_seed": self.bag.seed})

    def draw(self, hand):
        g = self.game
        return self.apply({"type": "draw", "hand": g.hand_name(hand), "tickets": self.bag.draw(g, hand)})
