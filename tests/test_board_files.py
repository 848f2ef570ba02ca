"""What goes onto a board: `yard flash` (host/device/flash.py build) and the maker's UF2 (host/device/uf2.py)
carry exactly the modules the board can import, and nothing only the host or the tests use.

Which modules the board can import is found here from the source, not from a list: starting at
its entry points (firmware/main.py, firmware/europe_main.py, boot.py), every `sy` module they
import is followed, and so is every `sy` module named by a string they hold as a value (the board
loads its maps by name:
boardconfig.MAPS for mapgraph.load, which looks in sy.maps). Importing a module of a sub-package
loads the package's __init__ too. Imports inside `except ImportError:` are CPython fallbacks,
which the board never runs, and are not followed. A module of firmware/sy outside that set is
host-only (a fixture of the tests, a backend of another platform) and must stay off the board; a
module inside it must be flashed."""
import ast
import json
import os
import shutil

import pytest

from host import ROOT
from host.device.flash import build
from host.device.mpy_build import NATIVE_MODULES, NOT_ON_BOARD, PICO_ARCH
from picoenv import PICO_DIR, UF2

FIRMWARE = os.path.join(ROOT, "firmware")
SY = os.path.join(FIRMWARE, "sy")
ENTRY_POINTS = (os.path.join(FIRMWARE, "main.py"), os.path.join(FIRMWARE, "europe_main.py"),
                os.path.join(ROOT, "boot.py"))
# moved off the board: the records' reader (host/misterx/record.py), the tests' in-process board
# (tests/testkit.py)
MOVED = ("record", "testkit")


def sy_modules():
    """The modules of firmware/sy by their names below sy ('rules.game'; a sub-package by its own
    name, 'rules', for its __init__.py; not sy's own __init__)."""
    out = set()
    for folder, dirs, files in os.walk(SY):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, SY)
        parts = [] if rel == "." else rel.split(os.sep)
        for n in files:
            if n.endswith(".py"):
                name = ".".join(parts + ([] if n == "__init__.py" else [n[:-3]]))
                if name:
                    out.add(name)
    return out


def module_path(name):
    path = os.path.join(SY, *name.split("."))
    return os.path.join(path, "__init__.py") if os.path.isdir(path) else path + ".py"


def _with_packages(name):
    """The module and the sub-packages above it ('rules.game' -> rules.game, rules)."""
    parts = name.split(".")
    return {".".join(parts[:k]) for k in range(1, len(parts) + 1)}


def _fallbacks(tree):
    """The nodes inside `except ImportError:` handlers (CPython fallbacks)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Name) and node.type.id == "ImportError":
            for stmt in node.body:
                out.update(id(n) for n in ast.walk(stmt))
    return out


def _names(tree):
    """The string constants that may name a module to load: a value held (a dict's value, an
    element of a tuple or list, an assigned or default value, a branch of a conditional), not a
    key looked up or compared (msg["record"], cmd == "status", forget("play.undo"), docstrings)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            held = node.values
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            held = node.elts
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)):
            held = [node.value]
        elif isinstance(node, ast.arguments):
            held = node.defaults + node.kw_defaults
        elif isinstance(node, ast.IfExp):
            held = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            held = node.values
        else:
            continue
        out += [n for n in held if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return out


def references(path, modules):
    """The sy modules a file imports (outside CPython fallbacks) or names in a string it holds
    (_names)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    skip = _fallbacks(tree)
    out = set()
    for n in _names(tree):
        if id(n) not in skip:
            for name in (n.value, "maps." + n.value):  # a map by its name: mapgraph.load('london')
                if name in modules:
                    out |= _with_packages(name)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "sy" and len(parts) > 1:
                    out |= _with_packages(".".join(parts[1:]))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "sy":
                continue
            base = ".".join(parts[1:])
            if base:
                out |= _with_packages(base)
            for a in node.names:
                sub = (base + "." if base else "") + a.name
                if sub in modules:
                    out |= _with_packages(sub)
    return out


def board_modules():
    """The sy modules the board can import, followed from its entry points."""
    modules = sy_modules()
    seen = set()
    todo = set()
    for path in ENTRY_POINTS:
        todo |= references(path, modules)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in modules:
            raise AssertionError("the board imports sy.%s, which is not in firmware/sy" % name)
        seen.add(name)
        todo |= references(module_path(name), modules) - seen
    return seen


def flashed_modules(files):
    """{module below sy} of the sy/**/*.mpy in a build's {board path: local file} (a sub-package by its
    __init__.mpy; the package's own sy/__init__.mpy aside)."""
    out = set()
    for p in files:
        if p.startswith("sy/") and p.endswith(".mpy") and p != "sy/__init__.mpy":
            name = p[3:-4].replace("/", ".")
            out.add(name[:-len(".__init__")] if name.endswith(".__init__") else name)
    return out


def test_the_import_walk_sees_the_boards_dynamic_loads(tmp_path):
    """The walk itself: the modules the board loads only by name are found, the CPython fallbacks
    and the docstrings are not followed."""
    got = board_modules()
    assert {"play." + n for n in ("mrxturn", "status", "report", "newgame", "verify", "declare", "undo",
                                  "deadreed")} <= got  # imported by link/handlers.py's handlers
    assert {"link.handlers", "link.service", "storage.resume", "maps.london", "maps.london1983", "hardware.ledsfast", "hardware.ledspio", "rules.movesfast",
            "hardware.simhw", "rules.gamestart", "rules.mrxknown"} <= got
    assert {"europe.app", "europe.board", "europe.rules", "europe.record", "europe.graph"} <= got
    assert {"rules", "maps", "hardware", "play", "link", "storage", "europe"} <= got  # the packages' __init__
    assert "maps.europe_testmap" not in got  # named in europe/app.py's docstring only
    probe = tmp_path / "probe.py"
    probe.write_text('"""app"""\ntry:\n    from time import ticks_ms\nexcept ImportError:\n    from sy.rules import x\n'
                     'import sy.play.board\nfrom sy.hardware import leds, gc\nNAMES = ("storage.store", "host")\n'
                     'RARE = {"undo": "link.lines"}\nMAP = "london"\n'
                     'if cmd == "link.proto" or msg["resume"]:\n    forget("rules.commit")\n')
    assert references(str(probe), sy_modules()) == {"play", "play.board", "hardware", "hardware.leds", "storage",
                                                    "storage.store", "link", "link.lines", "maps", "maps.london"}


def test_nothing_host_only_stays_in_the_firmware_folder():
    names = sy_modules()
    for name in MOVED:
        assert name not in names, "firmware/sy/%s.py is host-only: it belongs to the host or the tests" % name
    for name in NOT_ON_BOARD:  # the list of what is kept off the board names real files
        assert os.path.isfile(os.path.join(SY, name)), name


@pytest.mark.skipif(not shutil.which("mpy-cross"), reason="mpy-cross not installed")
@pytest.mark.parametrize("arch", (PICO_ARCH, None))
def test_yard_flash_copies_exactly_what_the_board_imports(tmp_path, arch):
    files = build(str(tmp_path), arch)
    want = board_modules()
    if arch is None:  # no native code: the Python twins run
        want -= {n[:-3].replace("/", ".") for n in NATIVE_MODULES}
    got = flashed_modules(files)
    assert not got - want, "flashed, but no board imports them: %s" % sorted(got - want)
    assert not want - got, "the board imports them, but they are not flashed: %s" % sorted(want - got)
    assert not got & set(MOVED)
    assert {"main.py", "boot.py", "sy/__init__.mpy", "sy/rules/__init__.mpy"} <= set(files)
    assert set(files) - {"main.py", "boot.py"} == {p for p in files if p.startswith("sy/")}


@pytest.mark.skipif(not shutil.which("mpy-cross"), reason="mpy-cross not installed")
def test_the_uf2_filesystem_holds_the_same_files(tmp_path):
    """host/device/uf2.py's files, and (when MicroPython's RPI_PICO UF2 is here) the littlefs the maker's
    UF2 really holds: the flashed files and board.json, nothing else."""
    from host.device.uf2 import board_files, make_board_uf2
    want = set(build(str(tmp_path / "build"), PICO_ARCH)) | {"board.json"}
    files = board_files()
    assert set(files) == want
    if not os.path.isfile(UF2):
        pytest.skip("MicroPython's RPI_PICO UF2 is not in %s (set YARD_PICO_DIR)" % PICO_DIR)
    from host.pico.flashfs import mount
    from host.device.uf2 import read_uf2
    out = tmp_path / "board.uf2"
    make_board_uf2(UF2, str(out))
    flash = tmp_path / "flash.bin"
    flash.write_bytes(read_uf2(str(out)).flash())
    fs = mount(str(flash))
    assert fs is not None
    held = set()
    for folder, _dirs, names in fs.walk("/"):
        held.update((folder.strip("/") + "/" + n).lstrip("/") for n in names)
    assert held == want, (sorted(held - want), sorted(want - held))


@pytest.mark.skipif(not all(shutil.which(t) for t in ("micropython", "mpy-cross")),
                    reason="needs the MicroPython unix port and mpy-cross")
def test_the_board_plays_a_game_from_the_flashed_files_alone(tmp_path):
    """A simulated board whose module path holds only what `yard flash` copies (as on a board)
    boots and plays a full game with commitments, the reveal and the record."""
    from host.link.boardlink import BoardLink
    from host.device.mpy_build import host_arch
    from host.misterx.record import replay
    from host.simulator.board import SimBoard
    from host.simulator.scripted import play_game

    class FlashedBoard(SimBoard):
        def _build(self):
            lib = os.path.join(self.folder, "lib")
            for path, local in build(lib, host_arch()).items():
                dest = os.path.join(lib, path)
                if os.path.abspath(local) != os.path.abspath(dest):
                    shutil.copyfile(local, dest)
            shutil.copyfile(os.path.join(lib, "main.py"), os.path.join(self.folder, "main.py"))
            on_disk = [os.path.relpath(os.path.join(d, n), lib).replace(os.sep, "/")
                       for d, _dirs, names in os.walk(os.path.join(lib, "sy")) for n in names]
            self.flashed = flashed_modules(on_disk)
            return lib

    sim = FlashedBoard(folder=str(tmp_path / "board"), heapsize="256k", debounce_ms=10)
    sim.start()
    try:
        link = BoardLink(sim.port, timeout=5)
        link.open()
        assert not sim.flashed & set(MOVED)
        assert not sim.flashed & {n[:-3].replace("/", ".") for n in NOT_ON_BOARD}
        st = play_game(sim, link, seed=5, timeout=5, commit=True)
        assert st["stage"] == "over" and st["verified"] is True
        verdicts = list(replay(json.dumps(x) for x in link.record()))
        assert verdicts and all(v.get("ok") for v in verdicts[:-1]), verdicts
        link.close()
    finally:
        sim.stop()
