"""`python -m host ARGS` with a pty as its terminal: what a user types and reads.

The reliability bench watches Mister X's console through it (host/reliability/hostside.py), and
the tests of the interactive commands (yard play, yard sim, yard calibrate, yard selftest) drive
them with it. What the program printed is kept in two parts: `seen`, read up to the end of the
last match of expect(), and `buf`, read since; `text` is both."""
import codecs
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

from host import ROOT


class NotPrinted(RuntimeError):
    """expect() waited in vain: the program ended, or the time ran out, without printing it."""


def _sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class PtyTerminal:
    def __init__(self, args, env=None, cwd=ROOT, name="host", timeout=60):
        """env: the environment (the caller's own by default); name: who speaks, in a failed
        expect's message; timeout: expect's default, in seconds."""
        self.master, slave = pty.openpty()
        # Ctrl-C (interrupt()) must reach the program as it does from a terminal: a run started in
        # the background of a shell without job control inherits SIGINT ignored, and Python keeps
        # an ignored SIGINT ignored (no KeyboardInterrupt): the child starts with it at its default
        self.proc = subprocess.Popen([sys.executable, "-m", "host", *args], stdin=slave, stdout=slave, stderr=slave,
                                     env=env, cwd=cwd, close_fds=True, start_new_session=True,
                                     preexec_fn=_sigint_default)
        os.close(slave)
        self.name = name
        self.timeout = timeout
        self.buf = ""   # read since the last match
        # a character's UTF-8 bytes may come in two reads (readline writes a prompt in pieces)
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.seen = ""  # read up to the end of the last match

    @property
    def text(self):
        """Everything the program printed so far (read from the pty)."""
        return self.seen + self.buf

    def expect(self, patterns, timeout=None):
        """The first of the regular expressions `patterns` (a list) found in the output not
        matched yet: (its index, the match). NotPrinted if none comes in time."""
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            for k, p in enumerate(patterns):
                m = re.search(p, self.buf)
                if m:
                    self.seen += self.buf[:m.end()]
                    self.buf = self.buf[m.end():]
                    return k, m
            left = end - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and not self.read(0.2):
                raise NotPrinted("no %r in the %s's output; it said:\n%s" % (patterns, self.name, self.text[-3000:]))
            self.read(min(left, 0.2))

    def read(self, wait):
        """What the program printed within `wait` seconds, added to `buf`: True if anything came."""
        r, _, _ = select.select([self.master], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        self.buf += self.decoder.decode(data).replace("\r", "")
        return bool(data)

    def watch(self, seconds, most):
        """Read for `seconds`, or until `most` characters came (a program that prints without end):
        how many came."""
        before = len(self.buf)
        end = time.monotonic() + seconds
        while time.monotonic() < end and len(self.buf) - before < most:
            self.read(0.1)
        return len(self.buf) - before

    def send(self, text):
        """A line typed, Enter included."""
        os.write(self.master, (text + "\n").encode())

    def finish(self, timeout=60):
        """Wait for the program to end, reading all it says; its exit code."""
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self.read(0.2)
        while self.read(0.1):
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
