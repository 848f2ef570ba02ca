"""Every command-line tool of hardware/ answers --help with its usage (and exit status 0): a maker
who asks a tool how to call it gets an answer, not an error about a file named --help."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tools():
    folder = os.path.join(ROOT, "hardware")
    out = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                if 'if __name__ == "__main__":' in f.read():
                    out.append("hardware." + name[:-3])
    return out


def test_the_tools_are_found():
    assert {"hardware.power", "hardware.bom", "hardware.placement"} <= set(_tools())


@pytest.mark.parametrize("module", _tools())
def test_help_answers(module):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "firmware")]))
    p = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.startswith("usage:"), p.stdout
