"""The MCTS Mister X's thinking time does not tell his station.

Found in the code, not measured: he answered at once when he had a single legal move. Now the
search always runs, stops on time and the answer waits for the end of the budget."""
import statistics
import time

import pytest

from sy.rules import game as rules
from host.ai import make_mrx_agent

BUDGET = 0.25


def cornered_to_one_move():
    """Mister X on 2 (neighbours 10 and 20), a detective on 10, no black or double tickets left:
    his only legal move is the taxi to 20."""
    g = rules.Game([13, 26, 29, 34, 50], [], 45)
    g.pos[0] = 10
    g.mrx = 2
    g.black = 0
    g.double = 0
    assert len(g.legal_mrx()) == 1
    return g


def open_board():
    g = rules.Game([13, 26, 29, 34, 50], [], 45)
    assert len(g.legal_mrx()) > 5
    return g


def timed(agent, make, n=3):
    out = []
    for _ in range(n):
        g = make()
        t0 = time.perf_counter()
        agent.choose(g)
        out.append(time.perf_counter() - t0)
    return out


def test_mcts_mrx_answers_after_the_same_time_with_one_move_or_many():
    agent = make_mrx_agent("normal", seconds=BUDGET)
    lone = timed(agent, cornered_to_one_move)
    many = timed(agent, open_board)
    for t in lone + many:
        assert BUDGET <= t < BUDGET + 0.25, (lone, many)  # (a loaded machine is slow to wake)
    assert abs(statistics.median(lone) - statistics.median(many)) < 0.04, (lone, many)


def one_public_position(moves, game=2):
    """A seeded game played until Mister X is to make his move number moves + 1, and the stations
    the public facts allow him there (each with a legal move): the same public position with a
    different hidden station each."""
    from host.ai import bench, make_detective_agent, public_view
    dets, bobbies, x = bench.game_setup(4, game, 5)
    g = rules.Game(dets, bobbies, x)
    mrx = make_mrx_agent("easy", 3, deadline=0, hidden="plan")  # (a game that reaches these moves)
    det = make_detective_agent("easy", 4)
    while not (g.phase == rules.PHASE_MRX and g.moves == moves):
        assert g.result is None
        if g.phase == rules.PHASE_MRX:
            a = mrx.choose(g)
            (g.mrx_move if a[0] == "move" else g.mrx_double)(*a[1:])
        else:
            p, t, to = det.choose(public_view(g))
            g.move(p, None if g.is_bobby(p) else t, to)
    stations = []
    for s in g.candidates():
        h = rules.Game.load(g.save(), g.graph)
        h.mrx = s
        if h.legal_mrx():
            stations.append(s)
    return g, stations


@pytest.mark.parametrize("level,moves,game,deadline", [
    ("easy", 11, 2, 0.4), ("easy", 7, 6, 0.4), ("random", 11, 2, 0.4), ("normal", 11, 2, 0.4), ("normal", 7, 6, 0.4)])
def test_thinking_time_is_the_same_from_every_station(level, moves, game, deadline):
    """In one public position (a hidden move; or a surfacing one, his 8th), his answer takes the
    level's deadline from every station he may be on: the work (which depends on the station)
    ends well before it, and the spread of the answer times is small against the deadline."""
    g, stations = one_public_position(moves, game)
    assert len(stations) >= 3, stations
    work = {}
    answer = {}
    for s in stations[:6]:
        def game(s=s):
            h = rules.Game.load(g.save(), g.graph)
            h.mrx = s
            return h
        kw = {"seconds": deadline} if level == "normal" else {"deadline": deadline}
        fast = make_mrx_agent(level, 1, **dict(kw, deadline=0)) if level != "normal" else None
        if fast:
            work[s] = statistics.median(timed(fast, game, 3))
        agent = make_mrx_agent(level, 1, **kw)
        answer[s] = statistics.median(timed(agent, game, 3))
        assert agent.overruns == 0, (s, answer)
    assert min(answer.values()) >= deadline, answer
    assert max(answer.values()) - min(answer.values()) < 0.25 * deadline, answer
    if work:
        assert max(work.values()) < 0.5 * deadline, work
