"""The public safety filter (host/ai/safety.py): no computer Mister X but the random one ends a
move where a piece can step next when he had a move out of every piece's reach; and the
posterior that informed detectives follow (host/ai/belief.py) never rules out his real station."""
import math
import random

import pytest

from host.ai import bench, belief, make_detective_agent, make_mrx_agent, public_view, safety
from host.ai.model import BLACK, Sim
from sy.rules import game as rules


def _games(mrx_level, det_level, seeds, iterations=None, on_mrx=None, on_detectives=None, hidden=None, model="easy"):
    """Seeded games (bench start cards); on_mrx(game, action) before each of his moves is applied,
    on_detectives(view, agent, game) before each detective move."""
    for k in seeds:
        dets, bobbies, x = bench.game_setup(11, k, 5 if k % 3 else 2)
        ref = rules.Game(dets, bobbies, x)
        pub = rules.Game(dets, bobbies, 0)
        mrx = make_mrx_agent(mrx_level, k, iterations=iterations, deadline=0, hidden=hidden)
        det = make_detective_agent(det_level, k + 1000, iterations=iterations, model=model)
        while ref.result is None:
            if ref.phase == rules.PHASE_MRX:
                a = mrx.choose(ref)
                if on_mrx:
                    on_mrx(ref, a)
                if a[0] == "move":
                    shows = (ref.moves + 1) in ref.reveals
                    ref.mrx_move(a[1], a[2])
                    pub.mrx_move(a[1], a[2] if shows else 0)
                else:
                    s1, s2 = (ref.moves + 1) in ref.reveals, (ref.moves + 2) in ref.reveals
                    ref.mrx_double(*a[1:])
                    pub.mrx_double(a[1], a[2] if s1 else 0, a[3], a[4] if s2 else 0)
            else:
                if on_detectives:
                    on_detectives(pub, det, ref)
                p, t, to = det.choose(pub)
                bobby = ref.is_bobby(p)
                ref.move(p, None if bobby else t, to)
                if ref.result is None:
                    pub.move(p, None if bobby else t, to)


class Tally:
    def __init__(self):
        self.moves = self.blunders = self.danger = self.hidden_danger = self.only_special = 0

    def __call__(self, game, action):
        sim = Sim.from_game(game, game.mrx)
        one = safety.reach(sim)
        self.moves += 1
        if any((one >> to) & 1 for to, _t in game.legal_mrx()):
            self.danger += 1  # a move into reach was on offer
            self.hidden_danger += (game.moves + 1) not in game.reveals
        safe = safety.safe_actions(sim)
        plain = [a for a in safe if a[0] == "move" and a[1] != BLACK]
        if safe and not plain:
            self.only_special += 1  # only a black ticket or a double move was safe
        self.blunders += safety.is_blunder(sim, action)


@pytest.mark.parametrize("mrx_level,det_level,seeds,iterations", [
    ("easy", "easy", range(40), None),
    ("easy", "normal", range(40, 70), None),
    ("normal", "easy", range(6), 30),
    ("hard", "normal", range(6, 9), 20),
])
def test_no_blunder_where_a_safe_move_existed(mrx_level, det_level, seeds, iterations):
    tally = Tally()
    _games(mrx_level, det_level, seeds, iterations, on_mrx=tally)
    assert tally.blunders == 0, vars(tally)
    # the games put him in reach's way, on hidden moves too (else the check checks nothing)
    assert tally.danger > tally.moves / 4 and tally.hidden_danger > tally.danger / 2, vars(tally)
    if mrx_level == "easy":
        assert tally.only_special > 0, vars(tally)  # a black ticket or a double was his only way out


def test_the_random_level_blunders_and_the_check_sees_it():
    tally = Tally()
    _games("random", "easy", range(10), on_mrx=tally)
    assert tally.blunders > 5, vars(tally)


def test_guard_finds_the_only_way_out():
    """The guard replaces a blunder by a safe move, a double move if nothing single is safe; and
    keeps a safe move as it is."""
    rnd = random.Random(1)
    seen = {"kept": 0, "single": 0, "double": 0}
    for k in range(60):
        dets, bobbies, x = bench.game_setup(5, k, 5)
        g = rules.Game(dets, bobbies, x)
        det = make_detective_agent("easy", k)
        while g.result is None:
            if g.phase == rules.PHASE_MRX:
                sim = Sim.from_game(g, g.mrx)
                one = safety.reach(sim)
                opts = g.legal_mrx()
                worst = [(to, t) for to, t in opts if (one >> to) & 1]
                if worst:
                    to, t = worst[0]
                    a = safety.guard(sim, ("move", t, to), rnd)
                    safe = safety.safe_actions(sim)
                    if not safe:
                        assert a == ("move", t, to)
                    else:
                        assert not (one >> safety.final(a)) & 1
                        seen["double" if a[0] == "double" else "single"] += 1
                        if a[0] == "double":
                            assert all((one >> s) & 1 for s, _t in opts)
                            rules.Game.load(g.save(), g.graph).mrx_double(*a[1:])  # legal
                safe_one = [(to, t) for to, t in opts if not (one >> to) & 1]
                if safe_one:
                    to, t = safe_one[0]
                    assert safety.guard(sim, ("move", t, to), rnd) == ("move", t, to)
                    seen["kept"] += 1
                to, t = rnd.choice(opts)  # a careless Mister X, so that he meets trouble
                g.mrx_move(t, to)
            else:
                p, t, to = det.choose(public_view(g))
                g.move(p, None if g.is_bobby(p) else t, to)
    assert seen["single"] > 20 and seen["double"] > 0 and seen["kept"] > 100, seen


def _belief_check(counts, sharper):
    def check(view, det, ref):
        if view.moved:
            return
        det.tracker.update(view)
        b = det.tracker.belief
        if b is None:
            return
        counts["held" if b.get(ref.mrx, 0) > 0 else "lost"] += 1
        total = sum(b.values())
        entropy = -sum(p / total * math.log2(p / total) for p in b.values() if p > 0)
        sharper.append(math.log2(view.candidates_count()) - entropy)  # bits beyond the public set
    return check


def test_posterior_never_rules_out_his_station():
    """Against a Mister X who hides by the plan, the informed detectives' belief (before its
    floor) is exact: it always holds his real station, and it is sharper than the public set."""
    counts = {"held": 0, "lost": 0}
    sharper = []

    def plan(seed):
        return make_mrx_agent("easy", seed, deadline=0, hidden="plan")
    _games("easy", "normal", range(12), on_detectives=_belief_check(counts, sharper), hidden="plan", model=plan)
    assert counts["lost"] == 0 and counts["held"] > 100, counts
    assert sum(sharper) / len(sharper) > 0.3, sum(sharper) / len(sharper)


def test_replayed_posterior_mostly_holds_his_station():
    """Against the formula (no plan), the detectives replay his code from a few stations: the
    belief is sampled, sharp, and holds his real station nearly always (the floor covers the rest)."""
    counts = {"held": 0, "lost": 0}
    sharper = []
    _games("easy", "normal", range(12), on_detectives=_belief_check(counts, sharper))
    total = counts["held"] + counts["lost"]
    assert total > 100 and counts["lost"] <= 0.1 * total, counts
    assert sum(sharper) / len(sharper) > 1.0, sum(sharper) / len(sharper)


def test_tracker_restarts_from_the_public_set_when_it_missed_a_turn():
    model = make_mrx_agent("easy", 0, deadline=0)
    tracker = belief.Tracker(model)
    g = rules.Game([13, 26, 29, 34, 50], [], 45)
    g.mrx_move(rules.TAXI, 46)
    view = rules.Game.load(g.save(), g.graph)
    view.mrx = 0
    view.round = 3  # joined midway: nothing to start from
    b = tracker.update(view)
    assert abs(sum(b.values()) - 1) < 1e-9 and set(b) == set(view.candidates())


def _trap_position():
    """Mister X on 2 (exits 10 and 20); two detectives one step from 10 and from 20, none in
    reach of 2 itself."""
    g = rules.Game([13, 26, 29, 34, 50], [], 45)
    sim = Sim.from_game(g, g.mrx)
    tb = sim.tb
    assert sorted(tb.any_nbr[2]) == [10, 20]
    near = set(tb.any_nbr[2]) | {2} | set(tb.any_nbr[10]) & set(tb.any_nbr[20])
    a = next(s for s in sorted(tb.any_nbr[10]) if s not in near and 2 not in tb.any_nbr[s])
    b = next(s for s in sorted(tb.any_nbr[20]) if s not in near | {a} and 2 not in tb.any_nbr[s])
    return sim, a, b


def test_trappable_when_the_pieces_can_close_every_exit():
    sim, a, b = _trap_position()
    far = [s for s in (100, 150, 190, 170) if s not in (a, b)]
    sim.pos[:sim.n_pieces] = [a, b] + far[:sim.n_pieces - 2]
    assert safety.Safety(sim).safe(2)
    assert safety.trappable(sim, 2, 0, [4, 3, 3])
    sim.pos[1] = 180  # nobody can reach 20 any more
    assert not safety.trappable(sim, 2, 0, [4, 3, 3])
    sim.pos[1] = b
    assert safety.trappable(sim, 2, 0, [0, 0, 0])  # no ticket: no exit to close, he is stuck anyway


def test_the_easy_level_ends_where_he_can_be_shut_in_only_when_nothing_safer_existed():
    """safety.Safety.tier: safe for two moves, then not trappable, then safe for one move. The easy
    level's last check (safety.guard, two moves) takes the highest tier among his single moves, and
    among his double moves where no single move is better than the last tier (a double whose
    first half surfaces aside: its hidden second half is drawn from the plan, host/ai/hiding.py)."""
    seen = {"moves": 0, "shut_in": 0, "escaped_by_double": 0}

    def check(game, action):
        sim = Sim.from_game(game, game.mrx)
        sf = safety.Safety(sim)
        mine = sf.tier(safety.final(action), *safety._tickets(action))
        acts = safety.safe_actions(sim)
        if not acts or (action[0] == "double" and (game.moves + 1) in game.reveals):
            return  # (a double whose first half surfaces: its hidden second half is the plan's draw)
        seen["moves"] += 1
        best_single = max(sf.tier(safety.final(a), *safety._tickets(a)) for a in acts)
        assert mine >= best_single, (action, mine, best_single)
        if action[0] == "double" and any(a[0] == "move" for a in acts):
            seen["escaped_by_double"] += 1
        seen["shut_in"] += mine == safety.WEIGHT_ONE_MOVE
    _games("easy", "normal", range(70, 100), on_mrx=check)
    assert seen["moves"] > 300 and seen["escaped_by_double"] > 0, seen
