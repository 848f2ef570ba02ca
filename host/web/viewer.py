"""Opening the simulated board's public view (`yard sim --open`) in a browser profile of its own.

The public view is the detectives' screen; Mister X's secret page is opened on his own device or
browser. A browser keeps what it opens (history, session restore): the public view gets a
Chromium profile (a --user-data-dir) made empty for this run and deleted after it, so that the
browser the table looks at never holds a link to his page, his key or anything he opened.
"""
import os
import shutil
import signal
import subprocess
import tempfile

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser():
    """A Chromium to open the view with: $YARD_BROWSER, else the first of BROWSERS on the PATH."""
    return os.environ.get("YARD_BROWSER") or next(filter(None, map(shutil.which, BROWSERS)), None)


def browser_command(exe, url, profile, extra=()):
    return [exe, "--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check",
            "--disable-session-crashed-bubble", *extra, "--new-window", url]


class PublicView:
    """A Chromium showing `url` from a fresh temporary profile; close() ends it and deletes the profile."""

    def __init__(self, url, exe=None, extra=()):
        self.exe = exe or find_browser()
        self.profile = None
        self.proc = None
        if self.exe is None:
            return
        self.profile = tempfile.mkdtemp(prefix="yard-public-view-")
        self.proc = subprocess.Popen(browser_command(self.exe, url, self.profile, extra), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    @property
    def opened(self):
        return self.proc is not None

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None
