"""`python -m host ARGS` with a pty as its terminal: what a user types and reads, for the tests of
the interactive commands (yard play, yard sim, yard calibrate, yard selftest)."""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

from host import ROOT


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class PtyTerminal:
    def __init__(self, args, env=None, cwd=ROOT, name="host", timeout=60):
        """env: the environment (the caller's own by default); name: who speaks, in a failed
        expect's message; timeout: expect's default, in seconds."""
        self.master, slave = pty.openpty()
        # Ctrl-C (interrupt()) must reach the program as it does from a terminal: a test run started
        # in the background of a shell without job control inherits SIGINT ignored, and Python keeps
        # an ignored SIGINT ignored (no KeyboardInterrupt): the child starts with it at its default
        self.proc = subprocess.Popen([sys.executable, "-m", "host", *args], stdin=slave, stdout=slave, stderr=slave,
                                     env=env, cwd=cwd, close_fds=True, start_new_session=True,
                                     preexec_fn=_sigint_default)
        os.close(slave)
        self.name = name
        self.timeout = timeout
        self.buf = ""
        self.seen = ""

    def expect(self, patterns, timeout=None):
        """The first pattern found in the output not read yet: (its index, the match)."""
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            for k, p in enumerate(patterns):
                m = re.search(p, self.buf)
                if m:
                    self.seen += self.buf[:m.end()]
                    self.buf = self.buf[m.end():]
                    return k, m
            left = end - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and not self._read(0.2):
                raise AssertionError("no %r in the %s's output; it said:\n%s" % (
                    patterns, self.name, (self.seen + self.buf)[-3000:]))
            self._read(min(left, 0.2))

    def _read(self, wait):
        r, _, _ = select.select([self.master], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        self.buf += data.decode("utf-8", "replace").replace("\r", "")
        return bool(data)

    def send(self, text):
        os.write(self.master, (text + "\n").encode())

    def finish(self, timeout=60):
        """Wait for the program to end, reading all it says; its exit code."""
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while self._read(0.1):
            pass
        self.seen += self.buf
        self.buf = ""
        return self.proc.returncode

    def interrupt(self):
        """Ctrl-C."""
        os.killpg(self.proc.pid, signal.SIGINT)

    def kill(self, hard=False):
        """SIGTERM first, as a user's kill or closed terminal: yard stops what it started (a
        simulated board's firmware runs in its own session); SIGKILL if it does not end, or at
        once with hard=True (a crash)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL if hard else signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def close(self):
        self.kill()
        os.close(self.master)


def PtyWizard(args, cwd):
    """`yard ARGS` in a pty, as the maker runs it (from the folder cwd): yard calibrate, yard
    selftest."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = ROOT + os.pathsep + os.path.join(ROOT, "firmware")
    return PtyTerminal(args, env, cwd, name="wizard", timeout=30)
