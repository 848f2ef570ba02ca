import atexit
import os
import shutil
import signal
import sys
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# the tests' helper modules (mpy, boardleds, yardplay, europe_games, pty_terminal, chromium...) are
# importable as top-level modules; a test module imports helpers, never another test module
sys.path.insert(0, HERE)

# --- scratch folders -----------------------------------------------------------------------------
# The plain firmware tests keep their files in fixed folders (tests/testkit.py `scratch`: NAME below
# $SY_TEST_TMP). Each pytest process (each xdist worker) gets a folder of its own below it, so two
# workers, or two test runs on one machine, never write into each other's boards; the MicroPython
# runs inherit it. Removed when the process ends.
_BASE = os.getenv("SY_TEST_TMP") or tempfile.gettempdir()
os.makedirs(_BASE, exist_ok=True)
_SCRATCH = tempfile.mkdtemp(prefix="sy-tests-", dir=_BASE)
os.environ["SY_TEST_TMP"] = _SCRATCH
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)

# --- stray MicroPython processes -------------------------------------------------------------
# SimBoard starts the firmware in a session of its own (start_new_session), so a test that never
# stops its board, or kills a `yard sim`/`yard play` child with SIGKILL
# (PtyTerminal.kill(hard=True)), leaves the firmware running: reparented to init, outside every
# process group the test knows. Every process this pytest run starts inherits a marker in its
# environment; after each test the micropython processes carrying this run's marker (or
# descending from this pytest process) are listed, new ones are put down to the test that was
# running, and at the end of the session every one still alive is killed and reported. Processes
# of other people (other runs, other shells) carry another marker or none, and are left alone.
MARKER = "SY_PYTEST_RUN"
_RUN = "%d-%d" % (os.getpid(), time.time_ns())
os.environ[MARKER] = _RUN
_STRAYS = {}  # (pid, start time) -> (command line, test that left it)
_REPORT = []


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _stat(pid):
    """(ppid, start time in clock ticks, state) of a process, or None."""
    raw = _read("/proc/%d/stat" % pid)
    if not raw:
        return None
    fields = raw[raw.rfind(b")") + 2:].split()  # after "pid (comm) "
    return int(fields[1]), int(fields[19]), fields[0].decode()


def _ours(pid):
    """pid is a descendant of this pytest process, or it or an ancestor carries this run's marker
    (the sandboxed board's environment is cleared, but bwrap, its parent, keeps the marker)."""
    me = os.getpid()
    seen = 0
    while pid > 1 and seen < 64:
        if (MARKER + "=" + _RUN).encode() in _read("/proc/%d/environ" % pid).split(b"\0"):
            return True
        st = _stat(pid)
        if st is None:
            return False
        pid = st[0]
        if pid == me:
            return True
        seen += 1
    return False


def _micropythons():
    """{(pid, start): command line} of the live micropython processes this run started (the
    MicroPython unix port, whether a binary or a Python entry point named micropython)."""
    out = {}
    if not os.path.isdir("/proc"):
        return out
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        cmd = _read("/proc/%d/cmdline" % pid).split(b"\0")
        comm = _read("/proc/%d/comm" % pid).strip()
        if comm != b"micropython" and not any(os.path.basename(a) == b"micropython" for a in cmd[:2]):
            continue
        st = _stat(pid)
        if st is None or st[2] == "Z" or not _ours(pid):
            continue
        out[(pid, st[1])] = b" ".join(a for a in cmd if a).decode("utf-8", "replace")[:200]
    return out


@pytest.fixture(autouse=True)
def _note_stray_micropython(request):
    """After each test: micropython processes of this run that were not there before it (a
    module- or session-scoped board may still legitimately run: it is only killed at the end)."""
    before = set(_micropythons())
    yield
    for key, cmd in _micropythons().items():
        if key not in before and key not in _STRAYS:
            _STRAYS[key] = (cmd, request.node.nodeid)


@pytest.fixture(autouse=True, scope="session")
def _kill_stray_micropython():
    """At the end of the session: kill every micropython process this run left running."""
    yield
    left = _micropythons()
    for (pid, start), cmd in sorted(left.items()):
        st = _stat(pid)
        if st is None or st[1] != start:
            continue  # gone meanwhile (or the pid was reused)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
        test = _STRAYS.get((pid, start), (cmd, "a module- or session-scoped fixture"))[1]
        _REPORT.append("killed stray micropython pid %d (left by %s): %s" % (pid, test, cmd))
    # reap those that are this process's own children (the others are init's)
    end = time.monotonic() + 2
    for pid, _start in left:
        while time.monotonic() < end:
            try:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                break
            if _stat(pid) is None:
                break
            time.sleep(0.01)


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("stray micropython processes")
        for line in _REPORT:
            terminalreporter.write_line(line)


# Files whose test functions each set up their own boards or runs, and are long one by one: under
# `--dist loadfile` each test function of theirs (with all its parameters: they may share a
# module-scoped fixture) is a work unit of its own, spread over the workers, instead of one file
# that bounds the whole run (`make test`).
SPREAD = (
    "test_pico.py",  # a boot of the emulated Pico for each test; the power cuts and the cut sweep minutes each
    "test_reliability.py",  # power cuts, link cuts, fuzzed lines: each its own games
    "test_firmware_e2e.py",  # a simulated board over a pty for each test
    "test_host_e2e.py",  # `yard play` and a simulated board for each test
    "test_capture_proof.py",  # a simulated board for each test
)


def work_unit(nodeid):
    """The work unit of a test under `make test`: its file, or for a SPREAD file its test function."""
    path, _, rest = nodeid.partition("::")
    if os.path.basename(path) not in SPREAD:
        return path
    return path + "::" + rest.split("[", 1)[0]


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's: a run without it (-p no:xdist) ignores it
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`, with each test function of a SPREAD file a work unit of its own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadLoadFile(LoadFileScheduling):
        def _split_scope(self, nodeid):
            return work_unit(nodeid)

    return SpreadLoadFile(config, log)


# --- the order of the work units ---------------------------------------------------------------
# `make test` spreads the work units over workers (pytest-xdist, --dist loadfile: a file's tests
# run in one worker, where they may share a board or a browser; SPREAD below; pytest-randomly
# shuffles the files and the tests in each first). The units below are handed out first, longest
# first (each a file, or a SPREAD file's test function), so that no worker is left with a long one
# at the end while the others idle; the rest keep their shuffled order. A worker is handed its next
# unit when two tests of its current one are left, so a long unit handed out last would wait
# behind another. Time them with `python -m pytest -q --durations=0 FILE` (docs/testing.md).
LONGEST_FIRST = (
    "test_pico.py::test_full_game_with_commitments_reveal_and_record",
    "test_pico.py::test_power_cuts_inside_flash_writes_lose_nothing",
    "test_hardware_bus.py",  # ngspice: the bus at every reader
    "test_pico.py::test_yard_flash_with_mpremote_then_machine_reset_and_resume",
    "test_firmware_e2e.py",
    "test_firmware_units.py",  # every plain firmware test, CPython and MicroPython
    "test_reliability.py::test_power_cuts_over_whole_games",
    "test_europe_pico.py",
    "test_pico.py::test_a_cut_at_every_flash_boundary_of_every_kind_of_save_loses_nothing",
    "test_host_modes.py",
    "test_ai.py",
    "test_host_e2e.py",
    "test_host_wire.py",
    "test_hardware_pcb.py",
    "test_capture_proof.py",
    "test_mrx_page.py",
    "test_reliability.py::test_link_cuts_over_a_whole_game",
    "test_reliability.py::test_fuzz_lines_in_every_state",
)


def pytest_collection_modifyitems(items):
    def rank(item):
        name = os.path.basename(str(item.path))
        func = name + "::" + item.name.split("[", 1)[0]
        for key in (func, name):
            if key in LONGEST_FIRST:
                return LONGEST_FIRST.index(key)
        return len(LONGEST_FIRST)
    items.sort(key=rank)  # stable: the other units, and the tests within a unit, keep their (shuffled) order


