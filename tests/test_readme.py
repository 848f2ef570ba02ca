"""The README's promises: its two commands are the Makefile's and CI's, every row of its figures
table names a command `yard` accepts and the figures that command prints, and the project's own
text speaks of the project, not of its history."""
import os
import re
import shlex
import subprocess

import pytest

from host.commands.cli import build_parser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


README = _read("README.md")


def figure_rows():
    """(what, command, [figure keys]) of each row of the README's figures table."""
    section = README.split("## Current figures", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("what", "---"):
            continue
        code = re.findall(r"`([^`]+)`", cells[2])
        assert code, "the row %r names no command" % cells[0]
        rows.append((cells[0], code[0], code[1:]))
    return rows


def test_the_two_commands_are_the_makefiles_and_ci_runs_the_test_command():
    makefile = _read("Makefile")
    for target in ("demo", "test", "check"):
        assert "`make %s`" % target in README
        assert re.search(r"^%s:" % target, makefile, re.M), target
    ci = _read(".ci", "run")
    assert re.search(r"^make test$", ci, re.M), "CI must run the README's test command"
    assert re.search(r"ruff check", ci), "CI runs the linter too"


def test_every_figure_names_the_command_that_prints_it():
    rows = figure_rows()
    assert len(rows) >= 8
    parser = build_parser()
    sources = {}
    for what, command, keys in rows:
        argv = shlex.split(command)
        if argv[0] != "yard":
            assert argv[:2] in (["make", "check"], ["make", "test"]) or argv[:3] in (
                ["time", "make", "check"], ["time", "make", "test"]), (what, command)
            continue
        parser.parse_args(argv[1:])  # SystemExit (a failed test) on a command yard does not take
        kind = argv[2]
        if kind not in sources:
            folder = os.path.join(ROOT, "host", "ai" if kind == "ai" else "benchmarks")
            sources[kind] = "".join(_read(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py"))
        for key in keys:
            assert '"%s"' % key in sources[kind], "%s: `%s` does not print %s" % (what, command, key)


@pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")),
                    reason="not a git checkout")
def test_the_project_speaks_of_itself_not_of_its_history():
    """No tracker or process talk (an issue's or a session's number) and no commit hashes in what the
    project says of itself: its history is git's."""
    talk = subprocess.run(
        ["git", "grep", "-nIiE", r"\b(session|stop) [0-9]+|\bissue [0-9]+", "--",
         "README.md", "docs", "firmware", "host", "hardware", "tools", "tests"],
        cwd=ROOT, capture_output=True, text=True).stdout
    assert talk == "", talk
    hashes = subprocess.run(
        ["git", "grep", "-nIE", r"(^|[ (,;])[0-9a-f]{7,10}([ ),.;:]|$)", "--", "README.md", "docs"],
        cwd=ROOT, capture_output=True, text=True).stdout
    hashes = [h for h in hashes.splitlines() if re.search(r"[a-f]", h.split(":", 2)[2])
              and re.search(r"(^|[ (,;])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,10}([ ),.;:]|$)",
                            h.split(":", 2)[2])]
    assert hashes == [], "\n".join(hashes)
