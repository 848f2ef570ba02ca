"""Debian's Chromium, driven by Playwright, for the browser tests: a test module imports what it
uses from here (`browser` is a module-scoped fixture) and is skipped where either is missing."""
import os

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
CHROMIUM = os.environ.get("YARD_CHROMIUM", "/usr/bin/chromium")
if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium at %s (apt-get install chromium)" % CHROMIUM, allow_module_level=True)

# on a machine without internet, Chromium's background connections are refused many at a time
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser(request):
    """One Chromium for the test module; its EXTRA_CHROMIUM_ARGS, if any, added to ARGS."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + getattr(request.module, "EXTRA_CHROMIUM_ARGS", []))
        yield b
        b.close()
