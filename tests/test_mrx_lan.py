"""Mister X's page on the local network (`--secret-page --lan`), as a bystander on the Wi-Fi sees it.

The server runs on one address (127.0.0.1 here, the phone's way in on a real table) and real
Chromium opens the printed link. Every byte between them is captured off the loopback interface
(an AF_PACKET socket, which sees what a sniffer on the network would: it needs CAP_NET_RAW, as
root in CI has): no station of his, no salt, no key and nothing of the game may be in it. The key
reaches no request line and no address the browser keeps, and the server answers on its one
address only.
"""
import json
import re
import socket
import struct
import threading

import pytest

from chromium import browser  # noqa: F401 (a fixture; skips the module without Playwright or Chromium)

from host.misterx.secretgame import SecretGame
from host.web.mrxinput import PageInput, Said
from host.web.mrxpage import start_secret_page

ETH_P_ALL = 0x0003
SETUP = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}


class LoopbackCapture:
    """The TCP payload bytes to and from `port` on the loopback interface, as a sniffer gets them."""

    def __init__(self, port):
        self.port = port
        self.bytes = bytearray()
        self.packets = 0
        try:
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        except (PermissionError, AttributeError, OSError) as e:
            pytest.skip("no packet capture here (%s): needs Linux and CAP_NET_RAW" % e)
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.1)
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True, name="capture")
        self.thread.start()

    def _run(self):
        while self.running:
            try:
                frame = self.sock.recv(262144)
            except socket.timeout:
                continue
            payload = self._tcp_payload(frame)
            if payload is not None:
                self.packets += 1
                self.bytes.extend(payload)

    def _tcp_payload(self, frame):
        ethertype = struct.unpack("!H", frame[12:14])[0]
        ip = frame[14:]
        if ethertype == 0x0800:
            if ip[9] != 6:
                return None
            header = (ip[0] & 15) * 4
            tcp = ip[header:struct.unpack("!H", ip[2:4])[0]]
        elif ethertype == 0x86DD:
            if ip[6] != 6:
                return None
            tcp = ip[40:40 + struct.unpack("!H", ip[4:6])[0]]
        else:
            return None
        src, dst = struct.unpack("!HH", tcp[:4])
        if self.port not in (src, dst):
            return None
        return bytes(tcp[(tcp[12] >> 4) * 4:])

    def stop(self):
        self.running = False
        self.thread.join(2)
        self.sock.close()
        return bytes(self.bytes)


@pytest.fixture
def lan_page(tmp_path):
    sg = SecretGame.create(dict(SETUP), folder=str(tmp_path))
    said = Said(out=lambda text: None)
    pin = PageInput(terminal=None, out=said)
    url, stop = start_secret_page(sg.path, pin, said, lan="127.0.0.1")
    yield {"url": url, "stop": stop, "sg": sg, "pin": pin}
    stop()


def _port(url):
    return int(re.search(r":(\d+)/", url).group(1))


def test_a_bystander_reads_nothing_and_the_key_stays_out_of_every_address(lan_page, browser):
    url, sg, pin = lan_page["url"], lan_page["sg"], lan_page["pin"]
    key = lan_page["stop"].page.key
    capture = LoopbackCapture(_port(url))
    ctx = browser.new_context(ignore_https_errors=True)  # the phone's owner accepted the fingerprint
    asked = []
    answered = threading.Thread(target=lambda: asked.append(pin("mister x> ")), daemon=True)
    try:
        page = ctx.new_page()
        requested, sockets = [], []
        page.on("request", lambda r: requested.append(r.url))
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(url)
        page.wait_for_function("window.yard && yard.state && yard.map", timeout=15000)
        assert page.evaluate("yard.state.game.mrx") == 45
        answered.start()  # the console asks for his move: the page sends one over the same socket
        page.wait_for_function("yard.state.asking !== null", timeout=10000)
        page.evaluate("yard.send({do: 'move', ticket: 'taxi', station: 46})")
        answered.join(10)
        assert asked == ["taxi 46"]
        addresses = requested + sockets + [page.evaluate("location.href")]
        page.goto("about:blank")
        page.go_back()
        addresses.append(page.url)  # the history entry
    finally:
        ctx.close()
        seen = capture.stop()
    assert capture.packets > 10 and len(seen) > 2000, (capture.packets, len(seen))
    print("captured %d TCP segments, %d payload bytes" % (capture.packets, len(seen)))
    secret_words = [key, sg.setup["salt"], '"mrx"', '"start"', "taxi 46", '"station"', "GET /", "Mister X"]
    found = [w for w in secret_words if w.encode() in seen]
    assert not found, "readable on the network: %s" % found
    assert seen[:2] == b"\x16\x03"  # a TLS handshake starts the stream
    # the key: in no request, no websocket URL, not in the address the page has nor in its history
    assert requested and sockets
    assert not [u for u in addresses if key in u], addresses
    assert url.startswith("https://127.0.0.1:") and url.endswith("/#k=" + key)


def test_the_lan_page_answers_on_its_one_address(lan_page):
    port = _port(lan_page["url"])
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    with pytest.raises(OSError):  # another address of this computer: nobody listens there
        socket.create_connection(("127.0.0.2", port), timeout=5).close()


def test_the_lan_page_speaks_tls_only(lan_page):
    port = _port(lan_page["url"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
        s.settimeout(5)
        try:
            got = s.recv(4096)
        except (ConnectionError, socket.timeout):
            got = b""
    assert b"HTTP/1.1 200" not in got and b"<html" not in got.lower()


def test_the_websocket_says_nothing_without_the_key(tmp_path):
    """The page's shell holds nothing secret; the websocket closes on anything but the key first."""
    import asyncio
    import aiohttp
    sg = SecretGame.create(dict(SETUP), folder=str(tmp_path))
    said = Said(out=lambda text: None)
    url, stop = start_secret_page(sg.path, PageInput(terminal=None, out=said), said)
    key = stop.page.key
    base = url.split("#")[0]

    async def attempt(first):
        async with aiohttp.ClientSession() as s:
            async with s.get(base) as r:
                shell = await r.text()
            async with s.ws_connect(base.replace("http", "ws") + "ws") as ws:
                await ws.send_str(json.dumps(first))
                got = []
                while True:
                    m = await ws.receive(timeout=5)
                    if m.type != aiohttp.WSMsgType.TEXT:
                        return shell, got
                    got.append(json.loads(m.data))
                    if got[-1].get("t") == "state":
                        return shell, got

    def run(coro):
        """asyncio.run in a thread of its own: Playwright's sync API may hold this thread's loop."""
        box = []
        t = threading.Thread(target=lambda: box.append(asyncio.run(coro)))
        t.start()
        t.join(30)
        return box[0]

    try:
        shell, got = run(attempt({"t": "key", "k": "wrong" + key[5:]}))
        assert got == [] and key not in shell and "45" not in shell
        _shell, got = run(attempt({"do": "move", "ticket": "taxi", "station": 46}))
        assert got == []
        _shell, got = run(attempt({"t": "key", "k": key}))
        assert got[0]["t"] == "hello" and got[-1]["game"]["mrx"] == 45
    finally:
        stop()
