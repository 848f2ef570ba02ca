"""The maker's wizards (yard calibrate, yard selftest) in a pty, as he runs them from a folder of
his own: host/ptyterminal.py's terminal with yard's code on PYTHONPATH."""
import os

from host import ROOT
from host.ptyterminal import PtyTerminal


def PtyWizard(args, cwd):
    """`yard ARGS` in a pty, as the maker runs it (from the folder cwd): yard calibrate, yard
    selftest."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = ROOT + os.pathsep + os.path.join(ROOT, "firmware")
    return PtyTerminal(args, env, cwd, name="wizard", timeout=30)
