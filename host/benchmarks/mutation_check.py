"""The test command `yard bench mutation` runs on each mutant of a module: the fast tests that reach
the module, in stages, stopping at the first failure (exit status 1: the mutant is caught).

    python -m host.benchmarks.mutation_check rules/game.py      (in the top folder of a checkout)

1. the module's files of plain tests (tests/core, tests/firmware) under CPython, in this process:
   no pytest start-up for the mutants most tests catch at once;
2. the same files under the MicroPython unix port, compiled from the (mutated) source with
   mpy-cross by tests/mpy.py, with the heap and folder tests/ gives them;
3. the pytest files that check the module some other way (the refusal sentences, Hypothesis's
   random games), with a fixed Hypothesis seed.
A file the tree does not have is left out (and said so): the same command runs on an older
checkout, to measure its tests before new ones were written.
"""
import importlib.util
import os
import subprocess
import sys
import traceback

# plain-test files (below tests/) and the unix port's heap for each: the heaps tests/ runs them with
_RULES_CORE = ("core/test_rules_core.py", "80k")
_CASES = ("firmware/fw_cases.py", "192k")
_TAKEBACK = ("firmware/fw_takeback.py", "192k")
_DEADREED = ("firmware/fw_deadreed.py", "192k")
# the link's own units, the commands' replies (hello's version, every command's fields), then
# whole games; the refusals' sentence numbers
_LINK = ((("firmware/fw_link.py", "192k"), ("firmware/fw_commands.py", "224k"), _CASES), ("tests/test_messages.py",))
_RULES_EDGES = ("firmware/fw_rules.py", "192k")
_RULES = ((_RULES_CORE, _RULES_EDGES, _CASES, _TAKEBACK), ("tests/test_messages.py", "tests/test_rules_properties.py"))
STAGES = {  # module below firmware/sy -> (plain-test files, pytest files)
    "rules/game.py": _RULES,
    "rules/mrxmoves.py": _RULES,
    "rules/mrxknown.py": _RULES,
    "rules/takeback.py": _RULES,
    "rules/gamestart.py": _RULES,
    "rules/savedgame.py": _RULES,
    "rules/base.py": _RULES,
    "rules/mapgraph.py": _RULES,
    "rules/commit.py": ((("firmware/fw_commit.py", "192k"), _CASES), ("tests/test_host_commit.py",)),
    "hardware/debounce.py": ((("firmware/fw_debounce.py", "192k"), _CASES, _DEADREED), ()),
    "hardware/leds.py": ((("firmware/fw_leds.py", "192k"), _CASES), ()),
    "storage/store.py": ((("firmware/fw_store.py", "192k"), _CASES, _TAKEBACK), ()),
    "storage/resume.py": ((("firmware/fw_resume.py", "192k"), ("firmware/fw_store.py", "192k"), _CASES, _TAKEBACK), ()),
    "link/proto.py": _LINK,
    "link/lines.py": _LINK,
    "link/fields.py": _LINK,
}
# the board's game flow: its own tests first (tests/firmware/fw_play.py, fw_commands.py), then the in-process games
_PLAY_FILES = (("firmware/fw_play.py", "224k"), ("firmware/fw_commands.py", "224k"), _CASES, _TAKEBACK, _DEADREED)
_PLAY = (_PLAY_FILES, ())
_PLAY_KEYED = (_PLAY_FILES, ("tests/test_messages.py",))  # modules whose refusals test_messages reads
STAGES.update({
    "play/board.py": _PLAY_KEYED,
    "play/newgame.py": _PLAY,
    "play/mrxturn.py": _PLAY_KEYED,
    "play/declare.py": _PLAY,
    "play/undo.py": _PLAY,
    "play/status.py": _PLAY,
    "play/report.py": _PLAY,
    # the reveal after the game: its own tests are fw_commands.py's, in the game flow's files
    "play/verify.py": _PLAY,
    # reeds out of service: their own tests first (fw_deadreed), then the rest of the game flow
    "play/deadreed.py": ((_DEADREED,) + _PLAY_FILES[:-1], ()),
    "play/blind.py": ((_DEADREED,) + _PLAY_FILES[:-1], ()),
    # the link's command handlers: the link's own units, then the game flow's tests, which send commands
    "link/handlers.py": (((("firmware/fw_link.py", "192k"),) + _PLAY_FILES), ("tests/test_messages.py",)),
    # service mode: the host's commands (fw_commands, fw_link's svc_* replies, fw_cases' bus sweep),
    # then the wizards' in-process runs (tests/test_selftest_service.py)
    "link/service.py": ((("firmware/fw_commands.py", "224k"), ("firmware/fw_link.py", "192k"), _CASES),
                        ("tests/test_selftest_service.py",)),
    # the link's tags: the board's fair-play games (signed lines, restarts), then the HMAC against
    # RFC 4231 and the host's tags under both Pythons
    "link/auth.py": ((("firmware/fw_fairplay.py", "224k"), _CASES), ("tests/test_link_auth.py",)),
    # the game paused while the reader chain lies: the chain's own cases (a lying chain pauses the
    # game, says where, resumes when whole)
    "play/chainpause.py": ((("hardware_chain_cases.py", "192k"),), ()),
    # the LEDs' second channel (board.json leds.patterns, off by default, so the game flow's files
    # never light it): the rhythms' shapes, then whole boards with the setting on and off
    "play/rhythm.py": ((), ("tests/test_colour_vision.py", "tests/test_led_rhythms.py")),
})


def _cpython(path):
    """Run a file's test_* functions here; the name of the first that fails, or None."""
    spec = importlib.util.spec_from_file_location("mutation_check_" + os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in sorted(n for n in dir(module) if n.startswith("test_")):
        try:
            getattr(module, name)()
        except Exception:  # noqa: BLE001 - any failure catches the mutant; say which
            traceback.print_exc()
            return name
    return None


def run(module, root):
    """0 if every stage passes, else 1 (what failed is printed)."""
    plain, pytest_files = STAGES[module]
    tests = os.path.join(root, "tests")
    have = [(name, heap) for name, heap in plain if os.path.exists(os.path.join(tests, name))]
    for name, _heap in plain:
        if (name, _heap) not in have:
            print("not in this tree: tests/%s" % name)
    plain = have
    pytest_files = [f for f in pytest_files if os.path.exists(os.path.join(root, f))]
    for p in (tests, os.path.join(root, "firmware")):
        if p not in sys.path:
            sys.path.insert(0, p)
    for name, _heap in plain:
        failed = _cpython(os.path.join(tests, name))
        if failed:
            print("CPython: %s %s failed" % (name, failed))
            return 1
    from mpy import run_plain_tests  # tests/mpy.py: the tests' one way to run MicroPython
    for name, heap in plain:
        try:
            run_plain_tests(os.path.join(tests, name), heap, cwd=root)
        except AssertionError as e:
            print("MicroPython: %s failed:\n%s" % (name, e))
            return 1
    if pytest_files:
        return 1 if subprocess.call([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                     "--hypothesis-seed=0", *pytest_files], cwd=root) else 0
    return 0


def main(argv):
    if len(argv) != 2 or argv[1] not in STAGES:
        print("usage: python -m host.benchmarks.mutation_check MODULE (one of %s)" % ", ".join(sorted(STAGES)),
              file=sys.stderr)
        return 2
    return run(argv[1], os.getcwd())


if __name__ == "__main__":
    sys.exit(main(sys.argv))
