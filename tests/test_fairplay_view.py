"""Every take-back is announced on the public view (host/web/public.py, static/app.js), from the
board's journal alone: the piece, the station its move had reached, and whether Mister X had to
consent (docs/fairplay.md); and Mister X's page answers a consent only while his console asks for
one. The pages themselves, in Chromium: tests/test_fairplay_pages.py."""
import json

import pytest


from host.web.public import public_state

SETUP = {"type": "setup", "detectives": [13, 26], "bobbies": [29, 34], "two_player": True, "mrx": None}
# Mister X moved; D1 went to 4 and took it back freely; D1 went to 14 again and took it back with
# his consent; then D1's move to 23 stands
JOURNAL = [SETUP, {"type": "ready"}, {"type": "mrx", "ticket": "taxi"},
           {"type": "move", "piece": "D1", "to": 4, "ticket": "taxi"},
           {"type": "undo", "piece": "D1", "from": 4, "to": 13},
           {"type": "move", "piece": "D1", "to": 14, "ticket": "bus"},
           {"type": "undo", "piece": "D1", "from": 14, "to": 13, "consent": True},
           {"type": "move", "piece": "D1", "to": 23, "ticket": "taxi"}]


def test_every_take_back_is_in_the_public_state():
    st = public_state(JOURNAL)
    assert st["take_backs"] == [{"piece": "D1", "station": 4, "round": 1, "consent": False},
                                {"piece": "D1", "station": 14, "round": 1, "consent": True}]
    assert st["pieces"][0]["station"] == 23 and st["problem"] is None
    assert (st["tickets"][0]["taxi"], st["tickets"][0]["bus"]) == (21, 16)  # the tickets taken back came back
    assert public_state(JOURNAL[:4])["take_backs"] == []


def test_a_take_back_announces_nothing_but_the_public_line():
    # a journal line with more in it than the board writes: the announcement keeps its public fields only
    leaky = [dict(x, mrx=46, salt="ab" * 16) if x.get("type") == "undo" else x for x in JOURNAL]
    st = public_state(leaky)
    text = json.dumps(st["take_backs"])
    assert "46" not in text and "salt" not in text and "mrx" not in text
    assert st["take_backs"] == public_state(JOURNAL)["take_backs"]
    # "consent" is a yes only when the board wrote true
    odd = [dict(x, consent="yes") if x.get("type") == "undo" else x for x in JOURNAL]
    assert [b["consent"] for b in public_state(odd)["take_backs"]] == [False, False]


def test_his_page_answers_a_consent_only_while_it_is_asked():
    """The secret page's buttons become the console's own answer, only to the question asked
    (host/web/mrxinput.py, host/web/mrxpage.py)."""
    import threading
    from host.web.mrxinput import PageBusy, PageInput
    from host.web.mrxpage import ANSWERS, command
    assert command({"do": "consent", "allow": True}) == "y" and command({"do": "consent", "allow": False}) == "n"
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError):
            command({"do": "consent", "allow": bad})
    pin = PageInput(terminal=None, out=lambda text: None)
    got = []
    question = {"kind": "consent", "piece": "D1", "station": 46}
    asker = threading.Thread(target=lambda: got.append(pin.ask("Allow it? [y/N] ", question)))
    asker.start()
    for _ in range(200):
        if pin.waiting:
            break
        threading.Event().wait(0.01)
    assert pin.question == question
    with pytest.raises(PageBusy):
        pin.submit(command({"do": "move", "ticket": "taxi", "station": 47}), answering=ANSWERS.get("move"))
    pin.submit(command({"do": "consent", "allow": True}), answering=ANSWERS["consent"])
    asker.join(5)
    assert got == ["y"] and pin.question is None and not pin.waiting
    # at a move prompt, a consent is no answer
    mover = threading.Thread(target=lambda: got.append(pin("mister x> ")))
    mover.start()
    for _ in range(200):
        if pin.waiting:
            break
        threading.Event().wait(0.01)
    with pytest.raises(PageBusy):
        pin.submit("y", answering="consent")
    pin.submit(command({"do": "move", "ticket": "taxi", "station": 47}))
    mover.join(5)
    assert got == ["y", "taxi 47"]
