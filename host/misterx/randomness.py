"""Where the host's randomness comes from.

Everything that decides something the detectives must not learn (Mister X's start card, his
computer player's choices, the salts of his commitments) comes from the operating system's secure
source. A seeded generator makes a game repeatable: that is for demos and tests only, because
whoever knows (or guesses) the seed replays every secret choice. A 30-bit seed is searched
exhaustively in two minutes, and `--seed` is visible in the process list.
"""
import random
import secrets

from host.i18n import N_

SEED_WARNING = N_("seed %d: for demos and tests, not for real games (whoever knows the seed replays every secret choice)")


def secret_rng(seed=None):
    """A random.Random-like generator for secret choices: the OS's (random.SystemRandom) unless a
    seed is given, then a repeatable random.Random(seed) (demos and tests only)."""
    if seed is None:
        return random.SystemRandom()
    return random.Random(seed)


def fast_rng(rng):
    """A fast generator for the many draws of a search (MCTS playouts), drawn from `rng`.

    SystemRandom costs ~0.7 µs a draw against ~0.03 µs for the Mersenne Twister, which would cost
    the MCTS player a third of its playouts. So each search gets its own Twister seeded with 256
    bits from `rng` (the OS when rng is SystemRandom): no seed to search, and no state carried
    from one move to the next. With a seeded rng the result stays repeatable."""
    return random.Random(rng.getrandbits(256))


def token(nbytes=16):
    """An unguessable URL-safe token (the browser view's page token)."""
    return secrets.token_urlsafe(nbytes)


__all__ = ["SEED_WARNING", "secret_rng", "fast_rng", "token"]
