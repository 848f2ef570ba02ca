"""The page's public game comes from the board's journal and can never hold Mister X's secret."""
import json

from host.web.public import public_state, read_journal, JournalWatch

SETUP = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "two_player": True, "mrx": None}


def test_public_state_follows_the_journal(tmp_path):
    lines = [SETUP, {"type": "ready"}, {"type": "mrx", "ticket": "taxi"}]
    st = public_state(lines)
    assert st["stage"] == "play" and st["phase"] == "detectives" and st["round"] == 1
    assert st["log"] == [{"ticket": "taxi", "station": None, "double": False}]
    assert st["next_reveal"] == 3 and len(st["candidates"]) > 10
    st = public_state(lines + [{"type": "move", "piece": "D1", "to": 4, "ticket": "taxi"}])
    assert st["tickets"][0]["taxi"] == 21 and st["pieces"][0]["station"] == 4


def test_a_secret_in_the_journal_is_not_used(tmp_path):
    leaky = dict(SETUP, mrx=45)  # the board never writes this; if it did, the page must not use it
    st = public_state([leaky, {"type": "ready"}])
    assert "mrx" not in st and 45 in st["candidates"] and "caught_at" not in st
    assert all(p["station"] != 45 for p in st["pieces"])


def test_half_written_lines_wait(tmp_path):
    p = tmp_path / "game.jsonl"
    p.write_text(json.dumps(SETUP) + "\n" + '{"type": "rea')
    assert [line["type"] for line in read_journal(str(p))] == ["setup"]
    w = JournalWatch(str(p))
    assert w.poll() and w.state["stage"] == "setup"
    p.write_text(json.dumps(SETUP) + "\n" + '{"type": "ready"}\n')
    assert w.poll() and w.state["stage"] == "play"
