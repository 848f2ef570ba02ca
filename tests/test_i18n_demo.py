"""A whole demo game (`yard sim --demo`) in the pseudo-locale: every line it prints went through
a catalog, and no English word slipped in through a value put into a sentence."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from host import ROOT
from pseudolocale import outside as _outside

# an English word that the pseudo-locale would have accented: three letters or more, a vowel
ENGLISH_WORD = re.compile(r"\b[a-z]*[aeiouy][a-z]*\b")


def _leaks(line):
    # paths (the secret log's, the simulated port's) and options (--lang) are not words
    words = [w for w in line.replace("(", " ").split() if "/" not in w and not w.startswith("-")]
    return [w for w in ENGLISH_WORD.findall(" ".join(words)) if len(w) >= 3]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the demo's sandbox (bubblewrap) is not installed")
def test_the_demo_in_the_pseudo_locale_shows_no_untranslated_string():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    r = subprocess.run([sys.executable, "-m", "host", "--lang", "qps", "sim", "--demo", "--seed", "7"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert len(lines) > 20 and any("GÀMÉ ÕVÉR" in line or "GAME OVER" in line.upper() for line in lines)
    untranslated = [line for line in lines if _outside(line).strip()]
    assert not untranslated, untranslated[:10]
    leaks = [(line, _leaks(line)) for line in lines if _leaks(line)]
    assert not leaks, leaks[:10]


def test_the_check_finds_a_leak():
    assert _outside("⟦Àbc ⟦d⟧⟧ plain") == " plain"
    assert _leaks("⟦Ýõü štàrt õñ 71, level easy⟧") == ["level", "easy"]
    assert _leaks("⟦Šéçrét lõg: /tmp/yard-sim/game.jsonl⟧") == []


TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")


def test_the_europe_demo_in_the_pseudo_locale_shows_no_untranslated_string(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    r = subprocess.run([sys.executable, "-m", "host", "--lang", "qps", "sim", "--game", "europe", "--map", TESTMAP,
                        "--demo", "--seed", "6", "--heap", "96k", "--keep", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert len(lines) >= 6 and any("Réšült" in line for line in lines), lines
    untranslated = [line for line in lines if _outside(line).strip()]
    assert not untranslated, untranslated[:10]
    leaks = [(line, _leaks(line)) for line in lines if _leaks(line)]
    assert not leaks, leaks[:10]
