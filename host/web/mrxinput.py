"""Mister X's commands from two places at once: his terminal and his secret page.

The console (host/misterx/console.py) reads one line at a time through its `inp(prompt)`; PageInput is
that `inp`. A line typed at the terminal and a move clicked on the page go into one queue, so
both screens drive the same console, the same secret game and the same commitments. The page may
only send a command while the console is asking for one (his turn): a click that arrives while the
detectives move is refused, not kept for later. Everything the console prints is also kept (Said)
for the page to show.
"""
import collections
import queue
import sys
import threading
import time

from host.i18n import _


def _prompt_again(prompt):
    sys.stdout.write(prompt)
    sys.stdout.flush()


class PageBusy(Exception):
    """The console is not asking for a move now."""


class PageInput:
    def __init__(self, terminal=input, out=print, reprompt=_prompt_again):
        self.terminal = terminal  # None: the page alone
        self.out = out
        self.reprompt = reprompt  # shows the prompt again while the terminal's read is still under way
        self.q = queue.Queue()
        self.lock = threading.Lock()
        self.asking = None        # the prompt the console waits at, or None
        self.question = None      # what that prompt asks, for the page's own buttons (ask()), or None: a move
        self.reading = False      # a terminal read is under way (its line comes into the queue)

    def _read_terminal(self, prompt):
        try:
            text = self.terminal(prompt)
        except EOFError:
            self.q.put(("eof", None))
        except Exception as e:  # the terminal is gone (closed, interrupted): the page carries on
            self.q.put(("eof", repr(e)))
        else:
            self.q.put(("terminal", text))
        finally:
            self.reading = False

    def __call__(self, prompt):
        with self.lock:
            self.asking = prompt
        try:
            if self.terminal is not None and self.reading and prompt:
                self.reprompt(prompt)  # the console asks again (after a click, a take-back...)
            while True:
                if self.terminal is not None and not self.reading:
                    self.reading = True
                    threading.Thread(target=self._read_terminal, args=(prompt,), daemon=True,
                                     name="yard-terminal").start()
                src, text = self.q.get()
                if src == "eof":
                    self.terminal = None  # stdin closed: only the page is left
                    self.out(_("(the terminal's input is closed: Mister X plays on his secret page)"))
                    continue
                if src == "page":  # after the terminal's own prompt, or in its place without one
                    self.out((_("(secret page) %s") if self.terminal is not None else prompt + "%s") % text)
                return text
        finally:
            with self.lock:
                self.asking = None

    def ask(self, prompt, question):
        """A yes/no question (a dict, its "kind" first: {"kind": "consent", ...}) the page shows with
        its own buttons; the terminal reads it as any prompt. Returns the line answered."""
        with self.lock:
            self.question = question
        try:
            return self(prompt)
        finally:
            with self.lock:
                self.question = None

    def submit(self, text, answering=None):
        """A command from the page; `answering`: the kind of question it answers (None: a move).
        PageBusy unless the console is waiting for that: a click meant for one prompt never
        answers another (a move is no answer to a question, nor the reverse)."""
        with self.lock:
            if self.asking is None or not self.q.empty():
                raise PageBusy(_("wait: it is not your move now"))
            if answering != (self.question or {}).get("kind"):
                raise PageBusy(_("wait: the console asks something else now"))
            self.q.put(("page", text))
            self.asking = None  # one command per prompt

    @property
    def waiting(self):
        return self.asking is not None


class Said:
    """A tee of the console's output: printed as usual, and the latest lines kept for the page."""

    def __init__(self, out=print, keep=40):
        self.out = out
        self.lines = collections.deque(maxlen=keep)
        self.count = 0

    def __call__(self, text=""):
        self.out(text)
        for line in str(text).split("\n"):
            if line.strip():
                self.count += 1
                self.lines.append({"n": self.count, "text": line, "at": round(time.time(), 3)})

    def since(self, n=0):
        return [x for x in list(self.lines) if x["n"] > n]
