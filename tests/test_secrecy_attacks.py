"""`yard bench reliability`'s secrecy part runs the attacks and counts their successes
(host/reliability/attacks.py); here the cheaper ones run, each count must be 0 (the forged
claims, the REPL and the browser view have tests of their own: test_capture_proof.py,
test_sim_sandbox.py, test_web_security.py)."""
import argparse
import shutil

import pytest

from host.benchmarks import reliability
from host.reliability import attacks


def test_randomness_and_timing_attacks_find_nothing():
    assert attacks.guessable_randomness() == {"secret_generators_guessable": 0}
    t = attacks.thinking_time(budget=0.15, n=3)
    assert t["thinking_time_telling"] == 0, t


def test_policy_aware_attacker_is_measured_on_the_default_level():
    # the leak is a diagnostic: strength against detectives who know the code is what counts
    # (yard bench ai's panel); the levels now play a formula or a search, which a replay reads
    r = attacks.policy_leak(games=8)
    assert 0 < r["policy_leak_bits_per_move"] < 7.6, r  # (log2 of 199 stations: everything)
    assert r["policy_public_top1_rate"] <= r["policy_attacker_top1_rate"] <= 1, r


@pytest.mark.skipif(not shutil.which("micropython") or not shutil.which("bwrap"),
                    reason="needs the MicroPython unix port and bubblewrap")
def test_bench_reliability_reports_the_attacks(monkeypatch):
    # the secrecy part, with the chaos games left out: the attacks' figures and their failures
    monkeypatch.setattr(reliability.chaos, "run_games",
                        lambda *a, **k: {"secret_leaks": 0, "problems": [], "_frames": [], "games": 1,
                                         "finished_games": 1})
    out = reliability.run_all(only=["secrecy"], seed=2, probing_games=20)  # the bench plays 200
    for k in ("forged_claims_accepted", "host_files_read", "web_attacks_accepted", "secret_generators_guessable"):
        assert out[k] == 0, (k, out)
    assert out["forged_claims_sent"] > 20 and out["web_attacks"] == 4 and out["host_files_tried"] == 2
    assert out["problems"] == 0, out
    p = argparse.ArgumentParser()
    reliability.add_arguments(p)
