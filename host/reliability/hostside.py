"""The host's side of fair play (docs/fairplay.md §3), measured for `yard bench reliability`:

- `host_loops`: the real host, Mister X's console (`yard play` in a pty, the firmware on the unix
  port), meets a forged `mrx` line written by a second program on the board's port during his turn,
  and, in a game of its own, a lost event: the board's `undo` event dropped on the wire between
  them. Counted: every line of the console's printed twice for one state (its "Detectives' turn"
  lines, one per round, and its prompts while nothing changed), and a console that prints without
  end while nothing happens (busy). 0 expected: it resyncs from the board, once.
- `lan_bytes_readable`: Mister X's page on the local network (`--secret-page --lan`: TLS on the
  one address) loaded with its key by a real client (Chromium through Playwright where installed,
  else aiohttp's), through a relay inside the bench that records every byte both ways (the client
  uses it as its HTTP proxy: a CONNECT tunnel, or a plain request forwarded as it came). A passive
  observer on the Wi-Fi sees no more than that relay, and the model needs no CAP_NET_RAW. Counted:
  the captured bytes inside any occurrence of the page's key, Mister X's station or a salt as he
  holds them, or any plaintext of the page and its state (its HTML, its JSON messages). 0 expected.
"""
import asyncio
import json
import os
import pty
import re
import select
import socket
import tempfile
import threading
import time
import tty

from host.ptyterminal import PtyTerminal

START = "13,26,29,34:172"  # Mister X far from the detectives: the game cannot end in the first rounds
HEAP = "192k"
QUIET_S = 3.0          # how long the console is watched while nothing happens
BUSY_CHARS = 20000     # more than this printed in QUIET_S while nothing happens: a busy loop
PROMPT = "mister x> "
TURN_LINE = re.compile(r"^Detectives' turn[^\n]*$", re.M)


# --- the console and the wire ------------------------------------------------------------------------
def repeated_lines(text):
    """Lines printed twice for one state: a "Detectives' turn" line (one per round) seen again."""
    lines = TURN_LINE.findall(text)
    return len(lines) - len(set(lines))


class LossyWire:
    """A serial cable that loses one line: the host opens `port` (a pty), bytes are copied both
    ways, and the first line from the board that `drop(line)` picks never arrives."""

    def __init__(self, board_port, drop):
        self.board = os.open(board_port, os.O_RDWR | os.O_NOCTTY)
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.drop = drop
        self.dropped = []
        self.stopped = False
        self.thread = threading.Thread(target=self._run, daemon=True, name="lossy-wire")
        self.thread.start()

    def _run(self):
        pending = b""
        while not self.stopped:
            ready, _, _ = select.select([self.master, self.board], [], [], 0.1)
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    continue
                if fd == self.master:
                    os.write(self.board, data)
                    continue
                pending += data
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    if not self.dropped and self.drop(line):
                        self.dropped.append(line)
                        continue
                    os.write(self.master, line + b"\n")

    def close(self):
        self.stopped = True
        self.thread.join(2)
        for fd in (self.board, self.master, self.slave):
            os.close(fd)


# --- the game at the table ---------------------------------------------------------------------------
def _board_journal(sim):
    try:
        with open(os.path.join(sim.folder, "flash", "game.jsonl")) as f:
            return [json.loads(t) for t in f if t.strip()]
    except (OSError, ValueError):
        return []


def _wait(what, timeout=15, why="a condition"):
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise RuntimeError("waited %.0f s in vain for %s" % (timeout, why))
        time.sleep(0.05)


class Table:
    """The people at the table: the detectives' hands on the simulated board, Mister X at his
    console (his moves read from his secret log, as he reads his screen)."""

    def __init__(self, sim, folder, rng):
        self.sim, self.folder, self.rng = sim, folder, rng

    def secret(self):
        from host.misterx.secretgame import SecretGame
        names = [n for n in os.listdir(self.folder) if n.endswith(".jsonl")]
        return SecretGame.load(os.path.join(self.folder, names[0]))

    def place_start(self, console):
        console.expect([r"Put the pieces on their start stations"])
        for s in self.secret().game.pos:
            self.sim.place(s, settle=False)
        self.sim.settle()

    def mrx_move(self, console):
        """His move at the prompt (a single one): what he types."""
        s, t = self.rng.choice(sorted(self.secret().game.legal_mrx()))
        console.send("%s %d" % (("taxi", "bus", "ug", "black")[t], s))

    def detectives_move(self):
        """Every piece that has to move, moves (once the board has his move: its journal)."""
        from sy.rules.game import PHASE_DETECTIVES, TICKET_NAMES
        sg = self.secret()
        _wait(lambda: sum(1 for x in _board_journal(self.sim) if x.get("type") == "mrx") == len(sg.mrx_lines()),
              why="the board to take Mister X's move")
        time.sleep(0.3)  # the board lights the pieces that may move
        while True:
            sg = self.secret()
            g = sg.game
            mask = g.to_move()
            if g.phase != PHASE_DETECTIVES or g.result is not None or not mask:
                return
            piece = min(i for i in range(g.n_pieces) if mask & (1 << i))
            s, t = self.rng.choice(g.legal(piece))
            before = len(sg.lines)
            self.sim.lift(g.pos[piece])
            if not g.is_bobby(piece) and sum(1 for ss, _t in g.legal(piece) if ss == s) > 1:
                self.sim.press(TICKET_NAMES[t])
            self.sim.place(s)
            _wait(lambda: len(self.secret().lines) > before, why="the host to log a detective's move")


def _console(port, folder):
    """Mister X's console, `yard play` on the board at `port`, its home in `folder`, in English."""
    env = dict(os.environ)
    env["YARD_HOME"] = folder
    env["PYTHONUNBUFFERED"] = "1"
    env["LANGUAGE"] = "en"
    return PtyTerminal(["play", "--port", port, "--players", "2", "--start", START], env, name="console")


def forged_mrx_line(seed=3, heap=HEAP):
    """A second program writes one `mrx` line on the board's port during Mister X's turn; he then
    moves. {"forged_repeats", "forged_busy"}."""
    import random
    from host.simulator.board import SimBoard
    with tempfile.TemporaryDirectory(prefix="yard-hostside-") as folder, SimBoard(heapsize=heap, debounce_ms=10) as sim:
        console = _console(sim.port, folder)
        try:
            table = Table(sim, folder, random.Random(seed))
            table.place_start(console)
            console.expect([PROMPT])
            other = os.open(sim.port, os.O_WRONLY | os.O_NOCTTY)
            os.write(other, b'{"id":4242,"cmd":"mrx","ticket":"taxi","commit":"%s"}\n' % (b"0" * 64))
            os.close(other)
            time.sleep(1.0)
            table.mrx_move(console)
            console.expect([r"Detectives' turn"])
            busy = int(console.watch(QUIET_S, BUSY_CHARS) >= BUSY_CHARS)
            table.detectives_move()
            console.expect([PROMPT])
            busy += int(console.watch(QUIET_S, BUSY_CHARS) >= BUSY_CHARS)
            return {"forged_repeats": repeated_lines(console.text), "forged_busy": busy}
        finally:
            console.close()


def lost_undo_event(seed=5, heap=HEAP):
    """Mister X allows the detectives' last move to be taken back and the board's `undo` event is
    lost on the wire; the table plays on to his next prompt. {"lost_repeats", "lost_busy",
    "lost_events"}."""
    import random
    from host.simulator.board import SimBoard
    with tempfile.TemporaryDirectory(prefix="yard-hostside-") as folder, SimBoard(heapsize=heap, debounce_ms=10) as sim:
        wire = LossyWire(sim.port, drop=lambda line: b'"type":"undo"' in line.replace(b" ", b""))
        console = _console(wire.port, folder)
        try:
            table = Table(sim, folder, random.Random(seed))
            table.place_start(console)
            console.expect([PROMPT])
            table.mrx_move(console)
            console.expect([r"Detectives' turn"])
            table.detectives_move()
            console.expect([PROMPT])
            sg = table.secret()
            g = sg.game
            last = [x for x in sg.lines if x["type"] == "move"][-1]
            origin = g.turn[3 * g.n_turn - 2]
            console.send("undo")  # his own take-back: the board takes it, its event is lost
            _wait(lambda: wire.dropped, why="the undo event (to lose it)")
            table.sim.lift(last["to"])
            table.sim.place(origin)
            console.expect([r"taken back"])
            busy = int(console.watch(QUIET_S, BUSY_CHARS) >= BUSY_CHARS)
            table.detectives_move()
            console.expect([PROMPT])
            busy += int(console.watch(QUIET_S, BUSY_CHARS) >= BUSY_CHARS)
            return {"lost_repeats": repeated_lines(console.text), "lost_busy": busy, "lost_events": len(wire.dropped)}
        finally:
            console.close()
            wire.close()


# --- the LAN page and a passive observer ---------------------------------------------------------------
class RecordingRelay:
    """An HTTP proxy on 127.0.0.1 that records every byte it relays, both ways: a CONNECT request
    opens a tunnel (TLS passes through it untouched), any other request is forwarded as it came to
    the host its absolute URL names. What it records is what a passive observer on the path reads."""

    def __init__(self):
        self.bytes = bytearray()
        self.streams = []  # each direction of each connection, in order
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stopped = False
        self.threads = [threading.Thread(target=self._accept, daemon=True, name="relay")]
        self.threads[0].start()

    def _keep(self, data, stream=None):
        with self.lock:
            self.bytes.extend(data)
            if stream is not None:
                stream.extend(data)

    def _stream(self):
        """A new direction of a connection, recorded apart too (the observer reads each stream)."""
        with self.lock:
            self.streams.append(bytearray())
            return self.streams[-1]

    def _accept(self):
        self.listener.settimeout(0.2)
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                continue
            t = threading.Thread(target=self._serve, args=(client,), daemon=True, name="relay-conn")
            t.start()

    def _serve(self, client):
        head = b""
        try:
            while b"\r\n\r\n" not in head:
                data = client.recv(65536)
                if not data:
                    client.close()
                    return
                head += data
            first = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            if first[0] == "CONNECT":
                host, port = first[1].rsplit(":", 1)
                self._keep(head)
                server = socket.create_connection((host.strip("[]"), int(port)))
                reply = b"HTTP/1.1 200 Connection established\r\n\r\n"
                self._keep(reply)
                client.sendall(reply)
                rest = head.split(b"\r\n\r\n", 1)[1]
            else:
                m = re.match(r"https?://([^/:]+):(\d+)", first[1])
                server = socket.create_connection((m.group(1), int(m.group(2))))
                rest = head
        except (OSError, IndexError, ValueError, AttributeError):
            client.close()
            return
        up, down = self._stream(), self._stream()
        if rest:
            self._keep(rest, up)
            server.sendall(rest)
        self._pipe(client, server, up, down)

    def _pipe(self, a, b, up, down):
        socks = [a, b]
        try:
            while not self.stopped:
                ready, _, _ = select.select(socks, [], [], 0.2)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    self._keep(data, up if s is a else down)
                    (b if s is a else a).sendall(data)
        except OSError:
            pass
        finally:
            a.close()
            b.close()

    def stop(self):
        self.stopped = True
        self.threads[0].join(2)
        self.listener.close()
        with self.lock:
            return bytes(self.bytes)


def websocket_payloads(stream):
    """What an observer reads of a plaintext websocket in one direction of a recorded connection:
    the frames after the HTTP upgrade, unmasked (a client's mask is in its frame) and inflated
    (permessage-deflate, its context kept from message to message). b"" when the stream holds
    none (TLS, plain HTTP alone)."""
    import zlib
    stream = bytes(stream)
    upgrade = stream.lower().find(b"upgrade: websocket")  # the upgrade's request or its 101 answer,
    head = stream.find(b"\r\n\r\n", upgrade) if upgrade >= 0 else -1  # after requests kept alive
    if head < 0:
        return b""
    pos, out, inflate, message, deflated = head + 4, bytearray(), zlib.decompressobj(-15), bytearray(), False
    while pos + 2 <= len(stream):
        b0, b1 = stream[pos], stream[pos + 1]
        n, pos = b1 & 127, pos + 2
        if n == 126:
            n, pos = int.from_bytes(stream[pos:pos + 2], "big"), pos + 2
        elif n == 127:
            n, pos = int.from_bytes(stream[pos:pos + 8], "big"), pos + 8
        mask = stream[pos:pos + 4] if b1 & 128 else None
        pos += 4 if mask else 0
        data = bytearray(stream[pos:pos + n])
        pos += n
        if mask:
            for i in range(len(data)):
                data[i] ^= mask[i & 3]
        if b0 & 15 in (1, 2):
            message, deflated = data, bool(b0 & 64)
        elif b0 & 15 == 0:
            message += data
        else:
            continue  # control frames: ping, pong, close
        if b0 & 128:  # the message's last frame
            try:
                out += inflate.decompress(bytes(message) + b"\x00\x00\xff\xff") if deflated else message
            except zlib.error:
                out += message
            message = bytearray()
    return bytes(out)


def readable_bytes(seen, needles):
    """The captured bytes inside an occurrence of any needle (overlaps counted once), and the
    needles' names found."""
    covered = bytearray(len(seen))
    found = []
    for name, needle in needles:
        start = seen.find(needle)
        if start >= 0 and name not in found:
            found.append(name)
        while start >= 0:
            covered[start:start + len(needle)] = b"\x01" * len(needle)
            start = seen.find(needle, start + 1)
    return sum(covered), found


def secret_needles(key, sg):
    """What the observer must not read, by name: the key, his stations and salts as the page holds
    them, and any plaintext of the page or of its messages."""
    salts = [sg.setup["salt"]] + [e[4] for e in sg.entries()]
    stations = [sg.setup["mrx"]] + [e[1] for e in sg.entries()]
    out = [("key", key.encode())] + [("salt", s.encode()) for s in salts]
    out += [("his station", b'"mrx": %d' % s) for s in stations] + [("his station", b'"mrx":%d' % s) for s in stations]
    out += [("message JSON", b'{"t": "'), ("message JSON", b'{"t":"'), ("state JSON", b'"game": {'),
            ("action JSON", b'"do": "'), ("action JSON", b'"do":"'), ("page HTML", b"<!doctype html"),
            ("page text", b"Mister X"), ("request path", b"/i18n.json"), ("request path", b"/static/")]
    return out


def _chromium():
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        return None
    exe = os.environ.get("YARD_CHROMIUM", "/usr/bin/chromium")
    return exe if os.path.exists(exe) else None


def _load_with_chromium(exe, url, relay_port):
    """Chromium, its HTTP proxy the relay (loopback too: `<-loopback>`), loads the page and waits
    for the game from the websocket; the move it then sends is answered by the caller."""
    from playwright.sync_api import sync_playwright
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run", "--proxy-server=http://127.0.0.1:%d" % relay_port,
            "--proxy-bypass-list=<-loopback>"]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=args)
        try:
            ctx = b.new_context(ignore_https_errors=True)  # the phone's owner accepted the fingerprint
            page = ctx.new_page()
            page.goto(url)
            page.wait_for_function("window.yard && yard.state && yard.map && yard.state.asking !== null", timeout=20000)
            page.evaluate("yard.send({do: 'move', ticket: 'taxi', station: 46})")
            page.wait_for_function("yard.replies.length > 0", timeout=10000)
            ctx.close()
        finally:
            b.close()


def _load_with_aiohttp(url, relay_port):
    """aiohttp's client, its proxy the relay: the page, its scripts and catalog, the websocket with
    the key, and one move."""
    import aiohttp
    base, key = url.split("#k=")

    async def go():
        proxy = "http://127.0.0.1:%d" % relay_port
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=False)) as s:
            for path in ("", "static/i18n.js", "static/map.js", "static/mrx.js", "i18n.json"):
                async with s.get(base + path, proxy=proxy) as r:
                    await r.read()
            ws_url = base.replace("https://", "wss://").replace("http://", "ws://") + "ws"
            async with s.ws_connect(ws_url, proxy=proxy) as ws:
                await ws.send_str(json.dumps({"t": "key", "k": key}))
                asking = False
                while not asking:
                    msg = json.loads((await ws.receive(timeout=10)).data)
                    asking = msg.get("t") == "state" and msg.get("asking") is not None
                await ws.send_str(json.dumps({"do": "move", "ticket": "taxi", "station": 46, "id": 1}))
                while json.loads((await ws.receive(timeout=10)).data).get("t") != "done":
                    pass
    asyncio.run(go())


SETUP = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "mrx": 45, "two_player": True}


def lan_observer(lan="127.0.0.1", client=None):
    """Mister X's page served as `--secret-page --lan` serves it (lan=None: the plain page of this
    computer alone, the observer's check of itself), loaded through the recording relay.
    {"lan_bytes_readable", "lan_bytes_captured", "lan_client", "lan_found"}."""
    from host.misterx.secretgame import SecretGame
    from host.web.mrxinput import PageInput, Said
    from host.web.mrxpage import start_secret_page
    with tempfile.TemporaryDirectory(prefix="yard-hostside-") as folder:
        sg = SecretGame.create(dict(SETUP), folder=folder)
        said = Said(out=lambda text: None)
        pin = PageInput(terminal=None, out=said)
        url, stop = start_secret_page(sg.path, pin, said, lan=lan)
        relay = RecordingRelay()
        asked = []
        console = threading.Thread(target=lambda: asked.append(pin(PROMPT)), daemon=True)
        console.start()  # the console asks for his move: the client answers it over the websocket
        exe = _chromium() if client in (None, "chromium") else None
        try:
            if exe:
                _load_with_chromium(exe, url, relay.port)
            else:
                _load_with_aiohttp(url, relay.port)
            console.join(10)
        finally:
            seen = relay.stop()
            stop()
    if asked != ["taxi 46"]:
        raise RuntimeError("the page's move never reached the console (%r)" % asked)
    captured = len(seen)
    seen += b"".join(websocket_payloads(x) for x in relay.streams)  # what the observer decodes, read as well
    count, found = readable_bytes(seen, secret_needles(stop.page.key, sg))
    return {"lan_bytes_readable": count, "lan_bytes_captured": captured, "lan_client": "chromium" if exe else "aiohttp",
            "lan_found": found}


def run(log=None):
    out = {}
    t0 = time.monotonic()
    out.update(forged_mrx_line())
    out.update(lost_undo_event())
    out["host_loops"] = out["forged_repeats"] + out["forged_busy"] + out["lost_repeats"] + out["lost_busy"]
    if log:
        log("fair play: host loops %.1f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    out.update(lan_observer())
    if log:
        log("fair play: LAN observer %.1f s" % (time.monotonic() - t0))
    return out
