"""Fair play on the emulated Pico (MicroPython's RPI_PICO firmware in rp2040js, as tests/test_pico.py
drives it): the link's authentication and the take-back rule on the board's own MicroPython
(docs/fairplay.md). A keyed game: a line that speaks for Mister X without his host's tag is refused
and changes nothing, his tagged line is taken once, the confirm button cannot take back a move that
landed where he could be, his consent can; after a restart the key must be given again.

Needs what tests/test_pico.py needs (skipped with its message where absent)."""
import json

from host.link.auth import Signer, new_key
from host.reliability.fairplay import LineClient
from picoenv import BOOTROM, UF2, needs_node, needs_pico

DETECTIVES = (13, 26, 29, 34, 50)


@needs_pico
@needs_node
def test_a_keyed_game_on_the_pico_refuses_forged_lines_and_take_back_probes():
    from sy.rules import commit as commitlib
    from host.pico.board import PicoBoard
    board = PicoBoard(micropython=UF2, bootrom=BOOTROM)
    board.start()
    host = LineClient(board.port, timeout=120)
    try:
        hello = host.request("hello", proto=1)
        assert hello["ok"] and "session" not in hello, hello  # no keyed game: the module is not even loaded
        key = new_key()
        salt = "5a" * 16
        r = host.request("setup", detectives=list(DETECTIVES), bobbies=[], key=key.hex(),
                         commit=commitlib.commitment(45, salt), replace=True)
        assert r["ok"] and len(r["session"]) == 16 and r["auth_n"] == 0, r
        session = r["session"]
        signer = Signer(key, session, 0)
        board.set_inputs(list(DETECTIVES))
        host.wait_event("ready", timeout=120)
        seq = host.request("status")["seq"]

        forged = host.body("mrx", ticket="taxi", commit="0" * 64)
        r = host.send(json.dumps(forged).encode(), forged["id"])
        assert r["error"] == "unauthenticated", r
        other = host.body("mrx", ticket="taxi", commit="0" * 64)
        r = host.send(Signer(new_key(), session, 50).line(other), other["id"])
        assert r["error"] == "unauthenticated", r
        assert host.request("status")["seq"] == seq  # nothing changed

        mine = host.body("mrx", ticket="taxi", commit=commitlib.commitment(58, salt))
        line = signer.line(mine)
        assert host.send(line, mine["id"])["ok"]
        assert host.send(line, mine["id"])["error"] == "replayed"

        board.lift(13)
        board.place(46)  # underground; he is on 58: no capture, so the players know he is not on 46
        assert host.wait_event("move", timeout=120)["to"] == 46
        board.press("confirm", hold=1.7)
        host.pump(1.0)
        refused = [n for n in host.notes if n.get("note") == "refused"]
        assert refused and refused[-1]["error"] == "needs_consent" and refused[-1]["to"] == 13, host.notes
        assert not any(ev.get("type") == "undo" for ev in host.events), host.events
        r = host.request("undo", consent=True)
        assert r["error"] == "unauthenticated", r
        r = host.signed(signer, "undo", consent=True)
        assert r["ok"], r
        assert host.wait_event("undo", timeout=120)["consent"] is True

        # a restart: a new session, and the key must be given again, the game's only
        board.power_cut()
        board.restart()
        host.close()
        host = LineClient(board.port, timeout=120)
        again = host.request("hello", proto=1)
        assert again["session"] != session and again["keyed"] and not again["key_ok"], again
        assert host.request("hello", proto=1, key=new_key().hex())["key_ok"] is False
        assert host.request("hello", proto=1, key=key.hex())["key_ok"] is True
        mem = host.request("mem")
        print("after the restart and the key: heap in use %d B, free %d B" % (mem["alloc"], mem["free"]))
    finally:
        host.close()
        board.stop()
