"""`yard bench rules`: the rules core's size and speed, under MicroPython and CPython."""
import json
import random
import time

from host.device.mpy_build import run_script
from host.i18n import _
from sy.maps import london
from sy.rules import game as rules

# Runs under the unix port: heap of the map + a 5-detective game, and timings.
_MPY = r"""
import gc, time, json
gc.collect()
from sy.rules import mapgraph, mrxmoves, gamestart, game as rules  # the code first: the figures are data
gc.collect(); gc.collect()
a = gc.mem_alloc()
graph = mapgraph.load()
gc.collect()
b = gc.mem_alloc()
game = rules.Game([13, 26, 29, 34, 50], [], 45, graph=graph)
gc.collect()
c = gc.mem_alloc()
out = {"mpy_map_heap_bytes": b - a, "mpy_game_heap_bytes": c - b, "mpy_state_heap_bytes": c - a}
game.mrx_move(rules.TAXI, 46)

N = 200
t = time.ticks_us()
for _ in range(N):
    for p in range(game.n_pieces):
        game.legal(p)
    game.legal_mrx()
out["mpy_legal_all_us"] = time.ticks_diff(time.ticks_us(), t) // N

# one possible-stations update, worst of: a taxi move from the start cards, a black move from a
# wide set (three black moves in)
worst = 0
for ticket, spreads in ((rules.TAXI, 0), (rules.BLACK, 3)):
    g = rules.Game([13, 26, 29, 34, 50], [], 0, graph=graph)
    for _ in range(spreads):
        mrxmoves.spread(g, rules.BLACK)
    saved = bytes(g.cand)
    t = time.ticks_us()
    for _ in range(N):
        g.cand[:] = saved
        mrxmoves.spread(g, ticket)
    worst = max(worst, time.ticks_diff(time.ticks_us(), t) // N)
    out["mpy_candidates_set_size_%s" % rules.TICKET_NAMES[ticket]] = g.candidates_count()
out["mpy_candidates_us"] = worst
print(json.dumps(out))
"""


def add_arguments(parser):
    parser.add_argument("--seconds", type=float, default=3.0, help=_("how long to play random games under CPython"))


def random_game(rnd):
    cards = rnd.sample(list(london.D_CARDS), 5)
    n = rnd.randint(2, 5)
    g = rules.Game(cards[:n], cards[n:n + (2, 1, 0, 0)[n - 2]], rnd.choice(list(london.X_CARDS)))
    while g.result is None:
        if g.phase == rules.PHASE_MRX:
            s, t = rnd.choice(g.legal_mrx())
            g.mrx_move(t, s)
        else:
            mask = g.to_move()
            p = rnd.choice([i for i in range(g.n_pieces) if mask >> i & 1])
            s, t = rnd.choice(g.legal(p))
            g.move(p, None if g.is_bobby(p) else t, s)
    return g


def run(args):
    out = {"map_bytes": len(london.ADJ) + len(london.START) + len(london.COUNTS)
           + len(london.D_CARDS) + len(london.X_CARDS)}
    out.update(json.loads(run_script(_MPY, heapsize="64k").strip().splitlines()[-1]))
    rnd = random.Random(1)
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        random_game(rnd)
        games += 1
    out["cpy_playouts_per_s"] = round(games / (time.perf_counter() - start), 1)
    return out
