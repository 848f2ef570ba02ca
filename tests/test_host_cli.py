"""The `yard` CLI: --help everywhere, exit codes, no tracebacks for user mistakes; yard monitor."""
import fnmatch
import os
import shutil
import subprocess
import sys
import time
import warnings

import pytest

from host import ROOT
from host.commands.cli import COMMANDS

MINE = ("play", "sim", "verify", "flash", "monitor")


def yard(*args, env=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "host", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("command", MINE)
def test_help(command):
    assert command in COMMANDS
    r = yard(command, "--help")
    assert r.returncode == 0 and "usage: yard " + command in r.stdout


def test_user_mistakes_exit_cleanly(tmp_path):
    env = dict(os.environ, YARD_HOME=str(tmp_path))
    cases = [
        (("play", "--port", str(tmp_path / "none"), "-n", "3", "--cards", "random"), 3, "no board at"),
        (("play", "--resume", "--port", "loop://"), 2, "no unfinished game"),
        (("play", "--port", "loop://", "-n", "7"), 2, "1 to 5"),
        (("play", "--port", "loop://", "-n", "2", "--start", "13,26:45"), 2, "start stations needed"),
        (("verify", str(tmp_path / "missing.jsonl")), 2, "cannot read"),
        (("sim", "--demo", "--players", "0"), 2, "1 to 5"),
        (("monitor", "--port", str(tmp_path / "none"), "--seconds", "1"), 3, "no board at"),
        (("selftest", "--port", str(tmp_path / "none")), 3, "no board at"),
        (("calibrate", "--port", str(tmp_path / "none")), 3, "no board at"),
    ]
    for args, code, text in cases:
        r = yard(*args, env=env)
        assert r.returncode == code, (args, r.stdout, r.stderr)
        assert text in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert os.listdir(tmp_path) == []  # no secret log left for a game that never started


def test_play_checks_the_port_before_any_question(tmp_path):
    env = dict(os.environ, YARD_HOME=str(tmp_path))
    missing = str(tmp_path / "ttyNONE")
    for extra in ((), ("--resume",), ("--cards", "hand")):
        r = subprocess.run([sys.executable, "-m", "host", "play", "--port", missing, *extra], capture_output=True,
                           text=True, cwd=ROOT, timeout=60, env=env, input="3\n13 26 29\n45\n")
        assert r.returncode == 3, (extra, r.stdout, r.stderr)
        assert "no board at %s: the port does not exist" % missing in r.stderr and "Traceback" not in r.stderr
        assert r.stdout == ""  # not one question asked
    assert os.listdir(tmp_path) == []  # no secret log for a game that never started


def test_flash_checks_the_config_before_looking_for_a_board(tmp_path):
    bad = tmp_path / "board.json"
    bad.write_text("not json")
    env = {k: v for k, v in os.environ.items() if k != "YARD_PORT"}
    r = yard("--lang", "en", "flash", "--config", str(bad), env=env)  # no --port: a maker fixing his config
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "%s is not valid JSON" % bad in r.stderr and "no board found" not in r.stderr
    assert "Traceback" not in r.stderr


def test_replay_says_game_in_progress_in_the_players_language(tmp_path):
    from host.i18n import translations
    fr = translations("fr").gettext
    cut = tmp_path / "cut.jsonl"
    with open(os.path.join(ROOT, "examples", "capture.jsonl"), encoding="utf-8") as f:
        cut.write_text("".join(f.readlines()[:3]))
    r = yard("--lang", "fr", "replay", "--quiet", str(cut))
    assert r.returncode == 4, (r.stdout, r.stderr)
    said = fr("yard %(command)s: %(error)s") % {"command": "replay", "error": fr(
        "game in progress: the record ends before the game does (a file cut short, or a game not yet over)")}
    assert said != "yard replay: " + fr("game in progress: the record ends before the game does (a file cut short, "
                                        "or a game not yet over)")  # French puts a space before the colon
    assert said in r.stderr.splitlines()


@pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")),
                    reason="needs the git checkout (its list of files)")
def test_the_install_holds_every_package_and_data_file():
    """pyproject.toml's packages, found as pip finds them, against the files in git: every folder of
    host/, hardware/ and firmware/sy/ with a file in it is an installed package, and every file in it
    that is not Python matches a package-data pattern (pip install once left out host.reliability)."""
    from setuptools.config.pyprojecttoml import read_configuration
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # older setuptools call [tool.setuptools] a beta
        config = read_configuration(os.path.join(ROOT, "pyproject.toml"), expand=True)["tool"]["setuptools"]
    packages, data = set(config["packages"]), config.get("package-data", {})
    files = subprocess.run(["git", "ls-files", "host", "hardware", "firmware/sy"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    assert len(files) > 50
    not_installed = {"hardware/README.md"}  # the maker's guide, read in the repository
    for path in files:
        folder, name = os.path.split(path)
        package = folder.replace("firmware/", "", 1).replace("/", ".")
        assert package in packages, path
        if not name.endswith(".py") and path not in not_installed:
            patterns = data.get("", []) + data.get("*", []) + data.get(package, [])
            assert any(fnmatch.fnmatch(name, p) for p in patterns), path


def test_verify_rejects_garbage(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "setup", "detectives": [13, 26, 29], "bobbies": [34], "mrx": 45}\nnot json\n')
    r = yard("verify", str(bad))
    assert r.returncode == 2 and "not JSON" in r.stderr
    bad.write_text('{"type": "setup", "detectives": [13, 26, 29], "bobbies": [34], "mrx": 45}\n'
                   '{"type": "mrx", "ticket": "taxi", "to": 46}\n')
    r = yard("verify", str(bad))
    assert r.returncode == 1 and "no commitment" in r.stdout


@pytest.mark.skipif(not shutil.which("micropython") or not shutil.which("mpy-cross"), reason="needs the unix port")
def test_monitor_shows_the_boards_lines():
    from host.simulator.board import SimBoard
    from host.link.boardlink import BoardLink
    with SimBoard(heapsize="192k") as sim:
        link = BoardLink(sim.port)
        for _ in range(50):
            try:
                link.open()
                break
            except Exception:
                link.close()
                time.sleep(0.2)
        link.request("setup", detectives=[13, 26, 29], bobbies=[34], replace=True)
        link.close()
        r = yard("monitor", "--port", sim.port, "--hello", "0", "--status", "--seconds", "2")
    assert r.returncode == 0, r.stderr
    assert "event 1" in r.stdout and '"setup"' in r.stdout and "reply" in r.stdout


_MISSED_SIGNAL = r"""
import os, signal, sys, threading, time
from host.commands import cli
cli._exit_on_signals()
wait_here, _ = os.pipe()

def elsewhere():
    time.sleep(0.3)
    # the signal's C-level handler runs in this thread: the main thread's wait is not interrupted,
    # as when a signal lands after input() wrote its prompt and before it waits for a key
    signal.pthread_kill(threading.get_ident(), signal.%s)

threading.Thread(target=elsewhere).start()
try:
    os.read(wait_here, 1)  # nobody ever writes: only the signal can end this wait
finally:
    print("cleaned up", flush=True)
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_exit_signal_that_misses_the_wait_still_ends_yard(sig):
    """A closed terminal's SIGHUP or a kill's SIGTERM that does not interrupt the main thread's wait
    (it landed just before the wait began) still ends yard, through its clean-up."""
    r = subprocess.run([sys.executable, "-c", _MISSED_SIGNAL % sig], capture_output=True, text=True, cwd=ROOT,
                       timeout=20, stdin=subprocess.DEVNULL)
    assert r.returncode == 128 + getattr(__import__("signal"), sig), r.stderr
    assert r.stdout == "cleaned up\n"
