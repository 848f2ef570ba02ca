"""`yard --help` and every subcommand's `--help` in the pseudo-locale: every sentence went through
a catalog. What may stand outside the ⟦brackets⟧ is what the parser itself is made of: option
strings, metavars, choices, positional names and command names (a player types them as they are)."""
import argparse
import os
import re
import subprocess
import sys

import pytest

from host import ROOT, i18n
from host.commands import bench, cli
from pseudolocale import OPEN, outside

TOKEN = re.compile(r"-*[A-Za-z][A-Za-z0-9_\-]*")


def _parsers(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def _words_of(parser):
    """What a parser is made of, which no catalog translates."""
    words = {"yard"}
    for action in parser._actions:
        words.update(action.option_strings)
        words.add(action.dest)
        words.add(action.dest.upper())
        for metavar in (action.metavar if isinstance(action.metavar, tuple) else (action.metavar,)):
            if metavar:
                words.update(TOKEN.findall(metavar))
        if action.choices:
            words.update(str(c) for c in action.choices)
    return words


@pytest.fixture(scope="module")
def parser():
    i18n.use(i18n.PSEUDO)
    try:
        yield cli.build_parser()
    finally:
        i18n.use("en")


def leaks(text, allowed):
    return [(line, w) for line in text.splitlines() for w in TOKEN.findall(outside(line)) if w not in allowed]


def _help(*command):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env["COLUMNS"] = "3000"  # one line per option: a sentence is never cut across two lines
    return subprocess.run([sys.executable, "-m", "host", "--lang", "qps", *command, "--help"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60, env=env, stdin=subprocess.DEVNULL)


# the top level, each subcommand, and each of bench's kinds (options of their own, read by makers)
COMMANDS = [()] + [(name,) for name in cli.COMMANDS] + [("bench", kind) for kind in bench.BENCHES]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "yard")
def test_every_help_in_the_pseudo_locale_is_translated(parser, command):
    found = dict(_parsers(parser))
    allowed = set()
    for path, p in found.items():
        allowed |= _words_of(p) | set(path)
    r = _help(*command)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [line for line in r.stdout.splitlines() if line.strip()]
    # the command's own options are all there, each with a translated help
    own = found[command]
    for action in own._actions:
        if action.help and action.help is not argparse.SUPPRESS and action.option_strings:
            line = next((x for x in lines if action.option_strings[0] in outside(x).split(", ")[0].split()), None)
            assert line is not None, action.option_strings
    assert not leaks(r.stdout, allowed), leaks(r.stdout, allowed)[:10]
    assert sum(OPEN in line for line in lines) >= 3


def test_the_check_finds_an_untranslated_help():
    allowed = {"--quiet", "yard"}
    assert leaks("  --quiet   ⟦prîñt õñlý⟧", allowed) == []
    assert leaks("  --quiet   print only the final result line", allowed)[0][1] == "print"
