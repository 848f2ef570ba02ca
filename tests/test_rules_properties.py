"""Property tests over random games (hypothesis chooses the seeds and the setups)."""
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from sy.maps import london
from sy.rules import game as rules
from host.misterx.record import Replayer, mrx_line, move_line, public_lines, record_setup, replay

BOBBIES = {2: 2, 3: 1, 4: 0, 5: 0}


def random_record(seed, n_det, two_player):
    """Play a random legal game, checking the invariants at every step; returns the record."""
    rnd = random.Random(seed)
    cards = rnd.sample(list(london.D_CARDS), n_det + BOBBIES[n_det])
    g = rules.Game(cards[:n_det], cards[n_det:], rnd.choice(list(london.X_CARDS)), two_player=two_player)
    holders = 1 if two_player else n_det
    total = [g.supply[t] + g.mrx_used[t] + sum(g.tickets[i][t] for i in range(holders)) for t in range(3)]
    lines = [record_setup(g, g.mrx)]
    while g.result is None:
        if g.phase == rules.PHASE_MRX:
            opts = g.legal_mrx()
            assert opts, "Mister X has no move but the game goes on"
            s, t = rnd.choice(opts)
            if g.double and rnd.random() < 0.1:
                ahead = rules.Game.load(g.save())
                ahead.mrx = s
                second = ahead.legal_mrx()
                s2, t2 = rnd.choice(second)
                try:
                    g.mrx_double(t, s, t2, s2)
                    lines.append({"type": "mrx", "double": [{"ticket": rules.TICKET_NAMES[t], "to": s},
                                                            {"ticket": rules.TICKET_NAMES[t2], "to": s2}]})
                except rules.RuleError as e:
                    assert e.code in ("no_ticket",), e  # the supply ran out for the 2nd half
                    continue
            else:
                g.mrx_move(t, s)
                lines.append(mrx_line(t, s))
        else:
            mask = g.to_move()
            assert mask
            p = rnd.choice([i for i in range(g.n_pieces) if mask >> i & 1])
            s, t = rnd.choice(g.legal(p))
            t = None if g.is_bobby(p) else t
            g.move(p, t, s)
            lines.append(move_line(g, p, t, s))
        # invariants
        assert len(set(g.pos)) == g.n_pieces, "two pieces share a station"
        assert g.mrx not in g.pos or g.reason == "capture"
        for t in range(3):
            assert g.supply[t] >= 0 and all(g.tickets[i][t] >= 0 for i in range(holders))
            now = g.supply[t] + g.mrx_used[t] + sum(g.tickets[i][t] for i in range(holders))
            assert now == total[t], "tickets appeared or vanished"
        assert g.reason == "capture" or g.is_candidate(g.mrx), "Mister X is not where he may be"
        assert g.round <= g.rounds and g.moves <= g.rounds + 2
    return g, [json.dumps(line) for line in lines]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), n_det=st.integers(2, 5), two=st.booleans())
def test_random_games_keep_invariants(seed, n_det, two):
    random_record(seed, n_det, two and n_det == 2)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), n_det=st.integers(2, 5))
def test_replay_is_deterministic_and_agrees(seed, n_det):
    g, lines = random_record(seed, n_det, False)
    first = list(replay(lines))
    assert first == list(replay(lines))
    assert all(v.get("ok") for v in first[:-1])
    assert first[-1]["result"] == g.result and first[-1]["reason"] == g.reason


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), n_det=st.integers(2, 5))
def test_board_record_tracks_same_candidates(seed, n_det):
    """The public record (as the board keeps it) gives the same possible stations at every line."""
    g, lines = random_record(seed, n_det, False)
    full, public = Replayer(), Replayer()
    for a, b in zip(lines, public_lines([json.loads(line) for line in lines])):
        assert full.feed(a)["ok"]
        v = public.feed(json.dumps(b))
        assert v["ok"], v
        assert full.game.candidates() == public.game.candidates() or full.game.reason == "capture"
    assert public.result()["result"] == g.result


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), junk=st.one_of(
    st.text(max_size=60), st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.dictionaries(st.sampled_from(["type", "piece", "ticket", "to", "double", "what"]),
                    st.one_of(st.none(), st.integers(-5, 300), st.text(max_size=5), st.booleans(),
                              st.lists(st.integers(0, 200), max_size=3)), max_size=5).map(json.dumps)))
def test_bad_lines_change_nothing(seed, junk):
    g, lines = random_record(seed, 4, False)
    r = Replayer()
    for line in lines[: len(lines) // 2]:
        r.feed(line)
    before = r.game.save()
    v = r.feed(junk)
    if not v["ok"]:
        assert r.game.save() == before
        assert v["error"] in ("bad_input", "wrong_turn", "already_moved", "not_connected", "no_ticket",
                              "occupied", "ferry", "double_used", "game_over")
        assert isinstance(v["message"], str) and v["message"] and not v["message"].startswith("the board refused (")


def _state(g):
    """Everything a take-back must restore, compared as values."""
    return (g.save(), [bytes(t) for t in g.tickets], bytes(g.supply), bytes(g.pos), g.candidates(),
            g.to_move(), g.moved, g.round, g.phase, g._landing, g.n_turn,
            [g.legal(p) for p in range(g.n_pieces)])


def _take_back_refused(game, code):
    """A take-back that must be refused: the refusal's code, and nothing changed."""
    before = _state(game)
    with pytest.raises(rules.RuleError) as e:
        game.take_back()
    assert e.value.code == code
    assert _state(game) == before


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), n_det=st.integers(2, 5), two=st.booleans(), secret=st.booleans())
def test_move_then_take_back_is_never_moved(seed, n_det, two, secret):
    """On random games, in the host's game (Mister X known) and the board's (secret): each
    detective move, taken back (and, for a turn's later moves, the earlier ones too), leaves the
    game exactly as if it had never been made; a take-back at any other time changes nothing."""
    two = two and n_det == 2
    rnd = random.Random(seed)
    cards = rnd.sample(list(london.D_CARDS), n_det + BOBBIES[n_det])
    mrx = rnd.choice(list(london.X_CARDS))
    g = rules.Game(cards[:n_det], cards[n_det:], mrx, two_player=two)
    board = rules.Game(cards[:n_det], cards[n_det:], 0, two_player=two)  # the board's secret game
    checked = 0
    turn = []
    while g.result is None:
        if g.phase == rules.PHASE_MRX:
            for game in (g, board):
                if game.n_turn == 0:  # at the start, or a turn that closed and came back
                    _take_back_refused(game, "wrong_turn")
            s, t = rnd.choice(g.legal_mrx())
            surfacing = (g.moves + 1) in g.reveals
            g.mrx_move(t, s)
            board.mrx_move(t, s if surfacing else 0)
            turn = []
            continue
        mask = g.to_move()
        p = rnd.choice([i for i in range(g.n_pieces) if mask >> i & 1])
        s, t = rnd.choice(g.legal(p))
        t = None if g.is_bobby(p) else t
        history = []
        for game in (g, board):
            history.append(_state(game))
            game.move(p, t, s)
        if g.result is not None or board.result is not None:
            for game in (g, board):  # the move that ended the game stays
                if game.result is not None:
                    _take_back_refused(game, "game_over")
            break
        if rnd.random() < 0.5:
            for game, before in zip((g, board), history):
                assert game.take_back() == (p, t, before[3][p], s)
                assert _state(game) == before
                checked += 1
                game.move(p, t, s)  # and played again: the same game as before
        turn.append((p, t, s))
        if g.phase == rules.PHASE_MRX and rnd.random() < 0.3:
            # the turn closed: every one of its moves can still be taken back, last first
            saved = [_state(game) for game in (g, board)]
            assert g.n_turn == len(turn)
            for game in (g, board):
                for _ in turn:
                    game.take_back()
                    assert game.phase == rules.PHASE_DETECTIVES
                assert game.moved == 0 and game.n_turn == 0
            assert bytes(g.pos) == bytes(board.pos) and g.candidates() == board.candidates()
            board = rules.Game.load(board.save())  # a take-back survives a save (the board's resume)
            for game, before in zip((g, board), saved):  # played again in order: the closed turn
                for p, t, s in turn:
                    game.move(p, t, s)
                assert _state(game) == before
    assert checked or g.moves < 3
