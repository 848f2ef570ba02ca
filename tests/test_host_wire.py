"""Every byte the host sends the board over whole games: no unrevealed Mister X station in it.

Runs `yard sim --demo` in-process (firmware on the unix port, detectives through the simulated
switches) with the link's write recorded, then checks each command line by line: the setup has
no Mister X station, each Mister X command names a station only on a surfacing move, no salt
leaves the host before the game is over, and the revealed salts come only after it.
"""
import argparse
import json

import pytest

from host.link import boardlink
from host.commands import sim as simcmd
from host.misterx.secretgame import SecretGame
from mpy import needs_unix_port

pytestmark = needs_unix_port


def demo_args(tmp_path, seed, players):
    p = argparse.ArgumentParser()
    simcmd.add_arguments(p)
    return p.parse_args(["--demo", "--seed", str(seed), "--players", str(players), "--dir", str(tmp_path),
                         "--heap", "192k"])


def ints(obj):
    if isinstance(obj, bool):
        return
    if isinstance(obj, int):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from ints(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from ints(v)


@pytest.mark.parametrize("seed,players", [(1, 1), (2, 3), (3, 5)])
def test_no_hidden_station_on_the_wire(tmp_path, monkeypatch, seed, players):
    sent = bytearray()
    real_write = boardlink.BoardLink._transmit

    def recording_write(self, data):
        sent.extend(data)
        return real_write(self, data)

    monkeypatch.setattr(boardlink.BoardLink, "_transmit", recording_write)
    printed = []
    assert simcmd.run_sim(demo_args(tmp_path, seed, players), out=printed.append) == 0
    assert any("GAME OVER" in line for line in printed)
    (path,) = [p for p in tmp_path.iterdir() if p.name.startswith("game-")]
    sg = SecretGame.load(str(path))
    entries = sg.entries()
    shown = {to for _t, to, sh, _c, _s in entries if sh}
    hidden = {to for _t, to, sh, _c, _s in entries if not sh} | {sg.setup["mrx"]}
    salts = [sg.setup["salt"]] + [s for *_x, s in entries]
    commands = [json.loads(line) for line in bytes(sent).decode().splitlines() if line.strip()]
    assert commands, "nothing was sent"
    revealed = False
    n_mrx = 0
    guides = []
    for cmd in commands:
        kind = cmd.get("cmd")
        text = json.dumps(cmd)
        if kind == "reveal":
            revealed = True
            continue
        if kind in ("capture", "cornered"):
            # the proof that ends the game: the opening of his latest commitment, nothing else
            assert set(cmd) <= {"cmd", "id", "piece", "reveal", "n", "mac"}, cmd  # (n, mac: his host's tag)
            assert cmd["reveal"] == sg.current_proof(), cmd
            revealed = True
            continue
        assert not revealed or kind in ("ack", "status", "ping", "record"), cmd
        for salt in salts:
            assert salt not in text, "a salt left the host before the reveal: %s" % text
        if kind == "setup":
            assert cmd.get("mrx") is None
            assert set(cmd["detectives"] + cmd.get("bobbies", [])).isdisjoint({sg.setup["mrx"]})
        elif kind == "mrx":
            n_mrx += 1
            for step in cmd.get("double", [cmd]):
                assert set(step) <= {"ticket", "to", "commit", "cmd", "id", "n", "mac"}
                if "to" in step:
                    assert step["to"] in shown
        elif kind == "guide":
            # the computer detectives' move, lit on the board: public (it becomes a move event)
            assert set(cmd) <= {"cmd", "id", "piece", "to", "ticket"}, cmd
            guides.append((cmd["piece"], cmd["to"]))
        else:
            # acks, hellos, status: only sequence numbers and ids (and the game's key, his consent, the tag)
            assert set(cmd) <= {"cmd", "id", "seq", "acked", "proto", "piece", "all", "key", "consent", "n", "mac"}, cmd
            assert not set(ints({k: v for k, v in cmd.items() if k not in ("id", "seq", "acked", "proto", "n")})) & hidden
    assert revealed, "the salts were never revealed to the board"
    assert n_mrx == len(sg.mrx_lines())
    assert guides == [(x["piece"], x["to"]) for x in sg.lines if x.get("type") == "move"]
