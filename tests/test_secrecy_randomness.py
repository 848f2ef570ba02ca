"""Every secret choice comes from the OS's secure randomness; --seed is for
demos and tests and says so.

The attack this answers: one seeded generator drew the start cards and seeded the computer
players, with a 30-bit seed when none was given; all 2^30 seeds were searched in two minutes."""
import argparse
import random

import pytest

from host.commands import play, sim as simcmd
from host.ai import LEVELS, make_detective_agent, make_mrx_agent
from host.misterx.randomness import SEED_WARNING, fast_rng, secret_rng


def test_unseeded_generators_are_the_os():
    assert isinstance(secret_rng(), random.SystemRandom)
    assert type(secret_rng(5)) is random.Random
    assert secret_rng(5).random() == secret_rng(5).random()  # seeded: repeatable, for tests


@pytest.mark.parametrize("level", LEVELS)
def test_computer_players_draw_from_the_os_without_a_seed(level):
    assert isinstance(make_mrx_agent(level).rnd, random.SystemRandom)
    assert isinstance(make_detective_agent(level).rnd, random.SystemRandom)
    assert type(make_mrx_agent(level, seed=3).rnd) is random.Random


def test_search_generator_is_seeded_with_256_bits_from_the_source():
    class Counting(random.SystemRandom):
        bits = 0

        def getrandbits(self, k):
            Counting.bits += k
            return super().getrandbits(k)
    r = fast_rng(Counting())
    assert Counting.bits == 256 and type(r) is random.Random
    assert fast_rng(random.Random(1)).random() == fast_rng(random.Random(1)).random()


def _sim_args(extra):
    p = argparse.ArgumentParser()
    simcmd.add_arguments(p)
    return p.parse_args(extra)


def test_seed_option_says_it_is_not_for_real_games():
    p = argparse.ArgumentParser()
    simcmd.add_arguments(p)
    assert "not for real games" in p.format_help().replace("\n", " ").replace("  ", " ")
    assert "not for real games" in SEED_WARNING


class _Stop(Exception):
    pass


@pytest.mark.parametrize("seed", [None, 11])
def test_sim_draws_mister_x_start_from_the_os_unless_seeded(monkeypatch, tmp_path, seed):
    seen = {}

    def spy(args, inp=input, out=print, rng=None):
        seen["rng"] = rng
        raise _Stop()
    monkeypatch.setattr(simcmd, "new_setup", spy)
    printed = []
    extra = ["--demo", "--players", "2", "--dir", str(tmp_path)] + ([] if seed is None else ["--seed", str(seed)])
    with pytest.raises(_Stop):
        simcmd.run_sim(_sim_args(extra), out=printed.append)
    if seed is None:
        assert isinstance(seen["rng"], random.SystemRandom)
        assert not any("seed" in line for line in printed)
    else:
        assert type(seen["rng"]) is random.Random
        assert printed == [SEED_WARNING % seed]


def test_play_draws_from_the_os(monkeypatch):
    seen = {}

    def spy(n, rng=None, *a):
        seen["rng"] = rng
        return {}
    monkeypatch.setattr(play, "draw_setup", spy)
    play.new_setup(argparse.Namespace(players=2, start=None, cards="random"), inp=lambda p: "")
    # play passes no generator: draw_setup then uses random.SystemRandom (host/misterx/secretgame.py)
    assert seen["rng"] is None
