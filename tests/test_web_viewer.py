"""`yard sim --open`: the public view opens in a Chromium profile made empty for the run and deleted
after it, so the table's browser never holds Mister X's secret link (host/web/viewer.py). Real
Chromium (headless here) loads the page from a loopback server."""
import http.server
import os
import threading
import time

from chromium import ARGS, CHROMIUM

from host.web.viewer import PublicView


class Recorder(http.server.BaseHTTPRequestHandler):
    paths = []

    def do_GET(self):
        Recorder.paths.append(self.path)
        body = b"<!doctype html><title>public view</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_the_public_view_opens_in_a_profile_of_its_own():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/view" % server.server_address[1]
    view = PublicView(url, exe=CHROMIUM, extra=ARGS + ["--headless=new"])
    try:
        assert view.opened
        profile = view.profile
        end = time.monotonic() + 30
        while "/view" not in Recorder.paths and time.monotonic() < end:
            time.sleep(0.1)
        assert "/view" in Recorder.paths
        assert os.path.basename(profile).startswith("yard-public-view-") and os.listdir(profile)
        with open("/proc/%d/cmdline" % view.proc.pid, "rb") as f:
            assert ("--user-data-dir=" + profile).encode() in f.read().split(b"\0")
    finally:
        view.close()
        server.shutdown()
    assert not os.path.exists(profile)  # nothing it opened is kept
