"""host/link/boardlink.py against a scripted board on a pty: one reader files every line for whoever
waits for it, so threads that send commands while another takes events each get exactly theirs."""
import json
import os
import pty
import threading
import time
import tty

from host.link.boardlink import PROTO, BoardLink, BoardCommandError
from sy.link import fields


class ScriptedBoard:
    """Answers every command with a reply; after each `status` also sends the next event; keeps what
    it was sent."""

    def __init__(self):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.got = []
        self.seq = 0
        self.lock = threading.Lock()
        self.running = True
        threading.Thread(target=self._run, daemon=True).start()

    def _write(self, msg):
        os.write(self.master, json.dumps(msg).encode() + b"\n")

    def _run(self):
        buf = b""
        while self.running:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                msg = json.loads(line)
                self.got.append(msg)
                if msg["cmd"] == "ack":
                    continue
                with self.lock:
                    if msg["cmd"] == "status":
                        self.seq += 1
                        self._write({"seq": self.seq, "ev": {"type": "move", "n": self.seq}})
                        self._write({"note": "lifted", "n": self.seq})
                    if msg["cmd"] == "nope":
                        self._write({"id": msg["id"], "ok": False, "error": "bad_input", "message": "no"})
                    else:
                        self._write({"id": msg["id"], "ok": True, "echo": msg.get("k"), "seq": self.seq})

    def close(self):
        self.running = False
        os.close(self.master)
        os.close(self.slave)


def test_threads_each_get_their_replies_and_every_event_comes_once():
    board = ScriptedBoard()
    link = BoardLink(board.port, timeout=5)
    try:
        assert link.open()["ok"]
        assert PROTO == fields.PROTO and board.got[0]["proto"] == PROTO
        errors, taken = [], []

        def asker(name):
            try:
                for k in range(40):
                    assert link.request("status", k="%s%d" % (name, k))["echo"] == "%s%d" % (name, k)
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        threads = [threading.Thread(target=asker, args=(n,)) for n in "ab"]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads) or len(taken) < 80:
            got = link.poll(2)
            if not got:
                break
            taken.extend(got)
        for t in threads:
            t.join(10)
        assert not errors, errors
        assert [seq for seq, _ev in taken] == list(range(1, 81))  # each once, in order
        # the scripted board reads the host's lines in a thread of its own: the last acks may still
        # be on the wire when the host has handed out the last event
        deadline = time.monotonic() + 5
        while True:
            acks = [m["seq"] for m in list(board.got) if m["cmd"] == "ack"]
            if len(acks) >= 80 or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert sorted(acks) == list(range(1, 81))
        assert len(link.take_notes()) == 80 and link.take_notes() == []
        try:
            link.request("nope")
        except BoardCommandError as e:
            assert e.code == "bad_input"
        else:
            raise AssertionError("a refusal raised nothing")
        ids = [m["id"] for m in board.got if "id" in m]
        assert len(ids) == len(set(ids))  # every command its own id
    finally:
        link.close()
        board.close()
