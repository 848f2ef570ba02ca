"""The host's side of fair play as `yard bench reliability` measures it (host/reliability/hostside.py):
the real console never prints a line twice for one state nor spins, after a forged `mrx` line or a
lost event; and a passive observer of Mister X's LAN page (a relay that records every byte) reads
nothing of it, while the same observer reads the page served in plain HTTP."""
import pytest

from host.reliability import hostside
from mpy import needs_unix_port


@needs_unix_port
def test_a_forged_mrx_line_makes_the_console_loop_nowhere():
    r = hostside.forged_mrx_line()
    assert r == {"forged_repeats": 0, "forged_busy": 0}, r


@needs_unix_port
def test_a_lost_undo_event_makes_the_console_loop_nowhere():
    r = hostside.lost_undo_event()
    assert r["lost_events"] == 1 and r["lost_repeats"] == 0 and r["lost_busy"] == 0, r


def test_the_loop_count_sees_a_line_printed_twice():
    text = "Detectives' turn (round 1): waiting for the board...\nD1 by taxi to 4\n"
    assert hostside.repeated_lines(text) == 0
    assert hostside.repeated_lines(text * 3) == 2
    assert hostside.repeated_lines(text + text.replace("round 1", "round 2")) == 0


@pytest.mark.parametrize("client", ["chromium", "aiohttp"])
def test_a_passive_observer_reads_nothing_of_the_lan_page(client):
    if client == "chromium" and hostside._chromium() is None:
        pytest.skip("no Playwright or no Chromium here")
    r = hostside.lan_observer("127.0.0.1", client)
    assert r["lan_client"] == client
    assert r["lan_bytes_captured"] > 20000, r  # the page, its scripts and the websocket went through
    assert r["lan_bytes_readable"] == 0 and r["lan_found"] == [], r


@pytest.mark.parametrize("client", ["chromium", "aiohttp"])
def test_the_observer_reads_a_plaintext_page(client):
    """The same page served without TLS (as the page of this computer alone is): the count sees it."""
    if client == "chromium" and hostside._chromium() is None:
        pytest.skip("no Playwright or no Chromium here")
    r = hostside.lan_observer(None, client)
    assert r["lan_bytes_readable"] > 100, r
    found = r["lan_found"]
    assert "his station" in found and "page HTML" in found and "state JSON" in found, found
    assert "key" in found, found  # sent inside the websocket (masked by the client, compressed by Chromium): decoded too
