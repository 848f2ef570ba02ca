"""The bag of a Europe game on the host (docs/rules-europe.md, "The bag runs empty").

The host replaces the cloth bag: every draw takes tickets uniformly at random, without
replacement, from what the rules say is in the bag (and, when it runs empty, from the spent
tickets put back). The randomness is a seeded generator so a game can be replayed; by default the
seed comes from the OS's secure randomness and is written only into the host's secret record,
never into what the board or the detectives see (it would tell them Mister X's hand).
"""
import random
import secrets

from sy.europe.rules import KINDS, ticket_name


def new_seed():
    return secrets.randbits(64)


class Bag:
    def __init__(self, seed=None):
        self.seed = new_seed() if seed is None else seed
        self.rng = random.Random(self.seed)

    def draw(self, game, hand):
        """The ticket names hand `hand` draws now (the game is not changed: the record line does)."""
        need = game.hand_size[hand] - game.hand_count[hand]
        pool = [t for t in range(KINDS) for _ in range(game.bag[t])]
        if need <= len(pool):
            got = self.rng.sample(pool, need)
        else:  # the bag runs empty: all of it, then from the spent tickets put back
            spent = [t for t in range(KINDS) for _ in range(game.out[t])]
            got = pool + self.rng.sample(spent, min(need - len(pool), len(spent)))
        return sorted(ticket_name(t) for t in got)
