"""The simulated board's sandbox: the unix-port firmware sees its own flash and nothing of the host.

Why: a unix-port board run as the host's user would, after Ctrl-C on its serial port, `open()`
at its REPL Mister X's secret log, every station and salt. A real Pico cannot reach the laptop's
files; the simulated one cannot either. It runs under
bubblewrap (`bwrap`, Debian's `bubblewrap`) in new namespaces (no network, its own process
table), with a file system of: the system's programs and libraries and the Python that runs the
unix port, read-only; the board's own folder (flash, switch and LED files), writable; and
nothing else (no home folders, no /tmp, no /etc). `tests/test_sim_sandbox.py` makes the attempt.

The board also must not outlive the host. bwrap's `--die-with-parent` is the kernel's parent-death
signal, armed by bwrap once it runs, and it belongs to the *thread* that started bwrap
(board.py starts every board from one long-lived thread for that reason). A host that died in the
few milliseconds before bwrap armed it left its board scanning for good (1 run in 5 of a host
killed right after start()). So the sandbox also holds a lifeline: the read end of a pipe whose
write end only the host holds; a watcher beside the firmware waits on it and, at the end of the
file (the host closed it, or died and the kernel closed it), kills the firmware, and bwrap ends
with it. `tests/test_sim_sandbox.py` kills such hosts.
"""
import os
import shutil
import sys

from host.errors import UserError
from host.i18n import _

# top-level names that merged-/usr systems keep as symlinks into /usr
_USR_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def bwrap():
    path = shutil.which("bwrap")
    if not path:
        raise UserError(_("the simulated board runs in a sandbox: install bubblewrap (apt-get install bubblewrap)"))
    return path


# run by /bin/sh in the sandbox with $0 the lifeline's descriptor and "$@" the command: the watcher
# (a background subshell) waits for the end of the lifeline, then kills the command, which has
# taken the shell's process ID ($$) by exec
_WATCH = '(read never <&"$0"; kill -9 $$) >/dev/null 2>&1 & exec "$@"'


def confine(argv, writable, readable=(), env=None, cwd=None, lifeline=None):
    """argv wrapped so that it runs in the sandbox: `writable` folders read-write, `readable`
    files or folders read-only (besides /usr and the Python running this process), `env` the
    whole environment it gets, `cwd` its working folder. lifeline: the read end of a pipe (pass
    it to the process: Popen's pass_fds) whose write end the caller keeps; argv is killed when
    that end closes (the caller closed it, or exited in any way)."""
    out = [bwrap(), "--unshare-all", "--die-with-parent", "--new-session",
           "--ro-bind", "/usr", "/usr", "--dev", "/dev", "--proc", "/proc"]
    for top in _USR_LINKS:
        if os.path.islink(top):
            out += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            out += ["--ro-bind", top, top]
    ro = {os.path.realpath(p) for p in readable}
    ro |= {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    for path in sorted(ro):
        if os.path.exists(path) and not path.startswith("/usr/"):
            out += ["--ro-bind", path, path]
    for path in writable:
        path = os.path.realpath(path)
        out += ["--bind", path, path]
    out += ["--clearenv"]
    for k, v in sorted((env or {}).items()):
        out += ["--setenv", k, v]
    if cwd:
        out += ["--chdir", os.path.realpath(cwd)]
    if lifeline is not None:
        argv = ["/bin/sh", "-c", _WATCH, str(lifeline)] + list(argv)
    return out + ["--"] + list(argv)


__all__ = ["confine", "bwrap"]
