"""yard bench mutation's plumbing (host/benchmarks/mutation.py), on a tiny module of a tiny tree:
every mutant of it run through cosmic-ray, a seeded sample, equivalents read from docs/testing.md,
bad arguments refused, and the content-keyed cache of compiled files the benchmark's test runs share."""
import json
import os
import subprocess
import sys

import pytest

from host.benchmarks import mutation
from host.device import mpy_build
from host.errors import UserError
from mpy import ROOT, needs_unix_port

TINY = "def small(x):\n    return x < 3\n"
# run in the copy's top folder, with the copy's firmware/ on PYTHONPATH (the benchmark sets it)
CHECK = "from sy.tiny import small\nassert small(2) and not small(5)\n"


def tiny_tree(tmp_path, equivalent=True):
    tree = tmp_path / "tree"
    (tree / "firmware" / "sy").mkdir(parents=True)
    (tree / "firmware" / "sy" / "__init__.py").write_text("")
    (tree / "firmware" / "sy" / "tiny.py").write_text(TINY)
    (tree / "tests").mkdir()
    (tree / "tests" / "check_tiny.py").write_text(CHECK)
    (tree / "docs").mkdir()
    if equivalent:  # not one in truth (3 is never tested): the list's plumbing only
        (tree / "docs" / "testing.md").write_text(
            "# Testing\n\n- `tiny.py`: `return x < 3` → `return x <= 3`: three is never asked for\n")
    return tree


def bench(tree, *extra):
    proc = subprocess.run([sys.executable, "-m", "host", "bench", "mutation", "--tree", str(tree),
                           "--modules", "tiny.py", "--test-command", "%s tests/check_tiny.py" % sys.executable,
                           *extra], capture_output=True, text=True, cwd=ROOT, timeout=300)
    return proc


def test_every_mutant_of_a_tiny_module(tmp_path):
    tree = tiny_tree(tmp_path)
    proc = bench(tree, "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    # x < 3 as ==, !=, <=, >, >= (cosmic-ray puts `is` only where None is compared)
    # and 3 -> 2, 3 -> 4; small(2) and small(5) tell all apart but <= and 4
    assert got["tiny.py mutants"] == got["tiny.py tested"] == 7
    assert got["tiny.py killed"] == 5 and got["tiny.py survived"] == 2
    assert got["tiny.py score"] == 71.4 and got["tiny.py equivalent"] == 1 and got["tiny.py adjusted"] == 85.7
    survivors = sorted((s["where"], s["line"], s["mutant"], bool(s["equivalent"])) for s in got["tiny.py survivors"])
    assert survivors == [("tiny.py:2", "return x < 3", "return x < 4", False),
                         ("tiny.py:2", "return x < 3", "return x <= 3", True)]
    assert (tree / "firmware" / "sy" / "tiny.py").read_text() == TINY  # the copy was mutated, never the tree


def test_a_seeded_sample_and_the_report(tmp_path):
    tree = tiny_tree(tmp_path, equivalent=False)
    runs = [bench(tree, "--max-per-module", "3", "--seed", "5") for _ in range(2)]
    assert all(p.returncode == 0 for p in runs), runs[0].stderr + runs[1].stderr
    first, again = (p.stdout.splitlines() for p in runs)
    assert any(ln.startswith("tiny.py: 3 of 7 mutants") for ln in first)
    assert ["tiny.py", "tested", "3"] in [ln.split() for ln in first]  # the figures, as yard bench prints them
    # the same mutants, the same verdicts: the survivors' lines and the counts
    def verdicts(lines):
        return [ln for ln in lines if ln.startswith("  survived")] + [ln.split(",")[0] for ln in lines if " killed " in ln]
    assert verdicts(first) == verdicts(again) and len(verdicts(first)) >= 1


def test_sample_is_seeded_and_bounded():
    class M:
        def __init__(self, op, k):
            self.module_path, self.operator_name, self.occurrence = "m.py", op, k

    class Item:
        def __init__(self, op, k):
            self.mutations = (M(op, k),)

    items = [Item("op%d" % (k % 3), k) for k in range(40)]
    a = mutation.sample(items, 10, 1)
    assert len(a) == 10 and len(set(map(id, a))) == 10
    assert a == mutation.sample(list(reversed(items)), 10, 1)  # whatever order the database gives
    assert a != mutation.sample(items, 10, 2)
    assert len(mutation.sample(items, 50, 1)) == 40


def test_mutated_lines_of_a_diff():
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x < 3\n+    return x <= 3\n"
    assert mutation.mutated_lines(diff) == ("return x < 3", "return x <= 3")
    assert mutation.mutated_lines("") is None
    with_comment = "-        if nxt == self.tail:  # full: drop the `oldest`\n+        if nxt is self.tail:  # full: drop the `oldest`\n"
    assert mutation.mutated_lines(with_comment) == ("if nxt == self.tail:", "if nxt is self.tail:")


@pytest.mark.parametrize("args, says", [
    (("--max-per-module", "0"), "--max-per-module"),
    (("--modules", "nothere.py"), "no such module"),
    (("--modules", "../host/errors.py"), "below firmware/sy"),
    (("--modules", "tiny.py", "tiny.py"), "twice"),
    (("--modules", "tiny.py", "--test-command", ""), "no fast tests are known for tiny.py"),
])
def test_bad_arguments_are_refused_before_anything_runs(tmp_path, args, says):
    tree = tiny_tree(tmp_path)
    before = sorted(os.listdir("/tmp"))
    proc = subprocess.run([sys.executable, "-m", "host", "bench", "mutation", "--tree", str(tree),
                           "--test-command", "true", *(args if "--modules" in args else ("--modules", "tiny.py") + args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode != 0 and says in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not [n for n in sorted(os.listdir("/tmp")) if n not in before and n.startswith("yard-mutation-")]


def test_the_check_knows_the_board_modules_only():
    proc = subprocess.run([sys.executable, "-m", "host.benchmarks.mutation_check", "tiny.py"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "hardware/debounce.py" in proc.stderr
    assert set(mutation.DEFAULT_MODULES) <= set(mutation.STAGES)


def test_every_module_of_the_game_flow_and_the_link_is_measured_by_default():
    """play/ (the board's game flow) and link/ (the host's link) are the modules a change to the board
    touches most: every one of them is in the benchmark's default list, with its tests."""
    for folder in ("play", "link"):
        for name in sorted(os.listdir(os.path.join(ROOT, "firmware", "sy", folder))):
            if name.endswith(".py") and name != "__init__.py":
                assert "%s/%s" % (folder, name) in mutation.DEFAULT_MODULES, name
                assert "%s/%s" % (folder, name) in mutation.STAGES, name


def test_the_check_runs_each_file_at_the_heap_the_tests_give_it():
    """The unix port's heap of each plain-test file in the stages is the one the test suite runs it
    with (tests/test_firmware_units.py HEAP and HEAPS, tests/test_core_micropython.py): a smaller one
    fails the benchmark's baseline, a larger one hides a heap the board does not have."""
    import ast
    with open(os.path.join(ROOT, "tests", "test_firmware_units.py"), encoding="utf-8") as f:
        units = {node.targets[0].id: ast.literal_eval(node.value) for node in ast.parse(f.read()).body
                 if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                 and node.targets[0].id in ("HEAP", "HEAPS")}
    with open(os.path.join(ROOT, "tests", "test_core_micropython.py"), encoding="utf-8") as f:
        core = f.read()
    elsewhere = {}  # plain-test files test_firmware_units.py does not run: the test file that does
    for stem, runner in (("fw_fairplay", "test_fairplay_firmware.py"), ("hardware_chain_cases", "test_hardware_chain.py")):
        with open(os.path.join(ROOT, "tests", runner), encoding="utf-8") as f:
            elsewhere[stem] = f.read()
    for plain, _pytest_files in mutation.STAGES.values():
        for name, heap in plain:
            stem = os.path.basename(name)[:-3]
            if stem in elsewhere:
                runner = elsewhere[stem]  # run_plain_tests(..."fw_x.py"), heap) or a {"fw_x": (heap, ...)} table
                assert '"%s.py"), "%s"' % (stem, heap) in runner or '"%s": ("%s"' % (stem, heap) in runner, name
            elif name.startswith("firmware/"):
                assert heap == units["HEAPS"].get(stem, units["HEAP"]), name
            else:
                assert '"%s"), "%s")' % (os.path.basename(name), heap) in core, name


def test_not_a_checkout_is_refused(tmp_path):
    with pytest.raises(UserError, match="firmware/sy"):
        mutation.mutation_run(str(tmp_path), ["tiny.py"], 3, out=None)


@needs_unix_port
def test_compiled_files_are_served_by_content(tmp_path, monkeypatch):
    src = tmp_path / "firmware_like.py"
    src.write_text("X = 1\n")
    calls = []
    real = mpy_build.compile_file

    def counted(s, o, arch=None):
        calls.append(s)
        return real(s, o, arch)

    monkeypatch.setattr(mpy_build, "compile_file", counted)
    monkeypatch.setenv(mpy_build.CACHE_ENV, str(tmp_path / "cache"))
    out1, out2, out3 = (str(tmp_path / ("out%d.mpy" % k)) for k in (1, 2, 3))
    assert mpy_build.compile_cached(str(src), out1).returncode == 0
    assert mpy_build.compile_cached(str(src), out2).returncode == 0
    assert len(calls) == 1 and open(out1, "rb").read() == open(out2, "rb").read()
    src.write_text("X = 2\n")  # a mutant: same name and size, other content
    assert mpy_build.compile_cached(str(src), out3).returncode == 0
    assert len(calls) == 2 and open(out3, "rb").read() != open(out1, "rb").read()
    monkeypatch.delenv(mpy_build.CACHE_ENV)
    assert mpy_build.compile_cached(str(src), out3).returncode == 0 and len(calls) == 3  # no cache: always compiled
