"""The agents' fast playout model (host/ai/model.py) agrees with the rules core, move by move."""
import random

from sy.maps import london
from sy.rules import mapgraph, game as rules
from host.ai.model import Sim, cand_mask, tables, bits


def _setup(rnd):
    cards = rnd.sample(list(london.D_CARDS), 5)
    n = rnd.randint(2, 5)
    two = n == 2 and rnd.random() < 0.5
    kw = {}
    if rnd.random() < 0.3:  # scarce supply and few black tickets: exercise the edges
        kw["tickets"] = (rnd.randint(1, 11), rnd.randint(0, 8), rnd.randint(0, 4))
        kw["mrx_tickets"] = (rnd.randint(0, 5), rnd.randint(0, 2))
        if two:
            kw["tickets"] = tuple(2 * x for x in kw["tickets"])
    mrx = rnd.choice(list(london.X_CARDS))
    return rules.Game(cards[:n], cards[n:n + (2, 1, 0, 0)[n - 2]], mrx, two_player=two, **kw)


def _same(g, s):
    assert list(g.pos) == s.pos
    assert cand_mask(g) == s.cand, (g.candidates(), bits(s.cand))
    assert (g.phase, g.round, g.moves, g.result, g.reason, g.mrx) == \
        (s.phase, s.round, s.moves, s.result, s.reason, s.mrx)
    assert list(g.supply) == s.supply and (g.black, g.double) == (s.black, s.double)
    assert [list(t) for t in g.tickets] == s.tickets
    if g.phase == rules.PHASE_DETECTIVES:
        assert g.to_move() == s.to_move()
        for p in range(g.n_pieces):
            assert sorted(g.legal(p)) == sorted(s.legal(p)), p
            assert g.can_move(p) == s.can_move(p)
    elif g.phase == rules.PHASE_MRX:
        assert g.legal_mrx() == sorted(s.mrx_options_from(s.mrx))


def test_model_agrees_with_rules_core_on_random_games():
    rnd = random.Random(7)
    games = 0
    doubles = 0
    reasons = set()
    for _ in range(300):
        g = _setup(rnd)
        s = Sim.from_game(g, g.mrx)
        _same(g, s)
        while g.result is None:
            if g.phase == rules.PHASE_MRX:
                opts = g.legal_mrx()
                t1 = rnd.choice(opts)
                if g.double and rnd.random() < 0.2:
                    probe = s.copy()
                    probe.mrx_step(t1[1], t1[0])
                    second = probe.mrx_options_from(t1[0])
                    if second:
                        t2 = rnd.choice(second)
                        g.mrx_double(t1[1], t1[0], t2[1], t2[0])
                        s.mrx_double(t1[1], t1[0], t2[1], t2[0])
                        doubles += 1
                        _same(g, s)
                        continue
                g.mrx_move(t1[1], t1[0])
                s.mrx_move(t1[1], t1[0])
            else:
                mask = g.to_move()
                p = rnd.choice([i for i in range(g.n_pieces) if mask >> i & 1])
                # sometimes chase Mister X to get captures
                opts = g.legal(p)
                hit = [m for m in opts if m[0] == g.mrx]
                to, t = hit[0] if hit and rnd.random() < 0.5 else rnd.choice(opts)
                g.move(p, None if g.is_bobby(p) else t, to)
                s.move(p, t, to)
            _same(g, s)
        reasons.add(g.reason)
        games += 1
    assert doubles > 50
    assert {"capture", "rounds_done"} <= reasons


def test_tables_come_from_the_map():
    tb = tables()
    g = mapgraph.load()
    assert tb.n == g.stations
    for s in (1, 46, 108, 199):
        for t in range(4):
            assert tb.nbr[t][s] == tuple(g.neighbours(s, t))
    # distances are symmetric and triangle-consistent along edges
    for a in range(1, g.stations + 1):
        for b, _t in tb.det_moves[a]:
            assert tb.dist[a][b] == 1 and tb.dist[b][a] == 1
    assert tb.dist[1][1] == 0
