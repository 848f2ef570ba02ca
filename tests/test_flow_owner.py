"""The Board owns the game flow (firmware/sy/play/board.py): the other modules of the board's code
call its methods and read its fields, and change none of them but its collaborators and the main
loop's interface. Checked from the source, so a new satellite that reaches in fails here."""
import ast
import os

from host import ROOT

SY = os.path.join(ROOT, "firmware", "sy")
# what others may set on a Board: its reeds-out-of-service table (sy/play/deadreed.py, sy/start.py),
# the main loop's interface (sy/app.py, service mode's hand-back in sy/link/service.py), and for the
# benchmarks' watcher (sy/cyclewatch.py) the longest save's time it resets and the notes it times
MAY_SET = {"blind", "now", "dirty", "save_max_us", "send_notes"}
BOARD_NAMES = {"b", "board", "game_board"}  # how the board's code names a Board it was handed


def _sources():
    for here, dirs, files in os.walk(SY):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "europe"))  # Europe has a board of its own
        for name in sorted(files):
            path = os.path.join(here, name)
            if name.endswith(".py") and path != os.path.join(SY, "play", "board.py"):
                yield os.path.relpath(path, SY), path


def _board_attributes(tree):
    """(attribute, line, set?) of every b.x / board.x / self.board.x / app.board.x in tree."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in BOARD_NAMES or \
                isinstance(owner, ast.Attribute) and owner.attr in ("board", "game_board"):
            yield node.attr, node.lineno, isinstance(node.ctx, ast.Store)


def _findings(check):
    found = []
    for rel, path in _sources():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for attr, line, stored in _board_attributes(tree):
            if check(attr, stored):
                found.append("%s:%d %s" % (rel, line, attr))
    return found


def test_no_module_reaches_into_the_boards_own_names():
    assert _findings(lambda attr, stored: attr.startswith("_")) == []


def test_no_module_changes_the_boards_fields():
    assert _findings(lambda attr, stored: stored and attr not in MAY_SET) == []


def test_the_check_sees_the_satellites():
    # the satellites do read the Board through these names: the check is not looking elsewhere
    seen = _findings(lambda attr, stored: True)
    assert any(s.startswith("play/undo.py") for s in seen) and any(s.startswith("link/service.py") for s in seen)
    assert any(s.startswith("play/deadreed.py") and s.endswith(" blind") for s in seen)
