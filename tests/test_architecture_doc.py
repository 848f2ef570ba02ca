"""docs/architecture.md is true to the tree: every module its map names exists, and every module of
the board's code (firmware/, boot.py) and of the host (host/) is named there.

The map is the doc's first code block, an indented tree: a line that starts with `folder/` opens
that folder for the lines indented below it; a file name on a line is read in the folder the line
is in, or after a path on the same line (`host/europe/bag.py europe_sim.py`) in that path's folder;
a name with a folder in it is read below the line's folder, else from the top
(`host/device/mpy_build.py`).
Continuation lines (indented to the descriptions' column) stay in their entry's folder."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
DESCRIPTION_COLUMN = 20  # an entry's name starts left of it; a line indented further continues one
PY = re.compile(r"[\w][\w/.-]*\.py\b")


def the_map(text):
    """The lines of the doc's first code block."""
    block = text.split("```", 2)[1]
    return block.split("\n")[1:]


def named_modules(lines, exists=lambda path: os.path.isfile(os.path.join(ROOT, path))):
    """{path from the top: line number} of every .py file the map names. A name is read in the
    first of its readings that exists (else the first reading is reported): a bare name after a
    path on its line in that path's folder, then in the line's folder; a name with a folder in
    it in the line's folder, then from the top."""
    folders = []  # (indent, folder path ending in "/") of the open entries
    context = ""
    named = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent < DESCRIPTION_COLUMN:  # an entry: a folder, a file, or a heading
            while folders and folders[-1][0] >= indent:
                folders.pop()
            parent = folders[-1][1] if folders else ""
            first = line.split()[0]
            if first.endswith("/") and "(" not in first:
                context = parent + first
                folders.append((indent, context))
            else:
                context = parent
        here = context
        for name in PY.findall(line):
            if "/" in name:
                readings = [context + name, name]
            else:
                readings = [here + name, context + name]
            path = next((r for r in readings if exists(r)), readings[0])
            here = path.rpartition("/")[0] + "/" if "/" in path else ""
            named.setdefault(path, number)
    return named


def tree_modules():
    """Every module of the board's code and of the host, from the top (package files aside)."""
    out = {"boot.py"}
    for top in ("firmware", "host"):
        for here, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "node_modules") and not d.startswith(".")]
            for name in files:
                if name.endswith(".py") and not (name.startswith("__") and name.endswith("__.py")):
                    out.add(os.path.relpath(os.path.join(here, name), ROOT).replace(os.sep, "/"))
    return out


def _doc_map():
    with open(DOC, encoding="utf-8") as f:
        return named_modules(the_map(f.read()))


def test_every_module_the_architecture_names_exists():
    missing = sorted("%s (line %d of the map)" % (p, n) for p, n in _doc_map().items()
                     if not os.path.isfile(os.path.join(ROOT, p)))
    assert not missing, "docs/architecture.md names modules that are not in the tree: %s" % ", ".join(missing)


def test_every_module_of_the_board_and_the_host_is_in_the_architecture():
    unnamed = sorted(tree_modules() - set(_doc_map()))
    assert not unnamed, "docs/architecture.md does not name: %s" % ", ".join(unnamed)


def test_the_reading_of_the_map():
    lines = [
        "firmware/                 the board's code (not sy/compat.py, host/device/mpy_build.py: NOT_ON_BOARD)",
        "  main.py                 entry point",
        "  sy/                     the package; __init__.py: forget",
        "    rules/                the rules",
        "      game.py             the Game (ledsfast.py its twin)",
        "      mrxturn.py status.py   loaded when",
        "                          first needed: savedgame.py",
        "    app.py                the main loop",
        "boot.py                   the boot file",
        "Mister X - Flight through Europe, in new files:",
        "  firmware/sy/europe/app.py board.py   the Europe loop",
    ]
    tree = {"firmware/sy/compat.py", "host/device/mpy_build.py", "firmware/main.py", "firmware/sy/__init__.py",
            "firmware/sy/rules/game.py", "firmware/sy/rules/ledsfast.py", "firmware/sy/rules/mrxturn.py",
            "firmware/sy/rules/status.py", "firmware/sy/rules/savedgame.py", "firmware/sy/app.py", "boot.py",
            "firmware/sy/europe/app.py", "firmware/sy/europe/board.py"}
    assert named_modules(lines, tree.__contains__) == {
        "firmware/sy/compat.py": 1, "host/device/mpy_build.py": 1, "firmware/main.py": 2,
        "firmware/sy/__init__.py": 3, "firmware/sy/rules/game.py": 5, "firmware/sy/rules/ledsfast.py": 5,
        "firmware/sy/rules/mrxturn.py": 6, "firmware/sy/rules/status.py": 6, "firmware/sy/rules/savedgame.py": 7,
        "firmware/sy/app.py": 8, "boot.py": 9, "firmware/sy/europe/app.py": 11, "firmware/sy/europe/board.py": 11}
    # a name that is nowhere is reported in its first reading
    assert named_modules(["host/", "  web/    the view: gone.py"], tree.__contains__) == {"host/web/gone.py": 2}
