"""The browser view's `out of service` tool (host/web/server.py WebBoard.reed): the page takes a
station's reed out of service over the game's own link, while the game's thread polls that link;
bad input is refused and changes nothing."""
import json
import threading

import pytest

from host.link.boardlink import BoardLink
from host.simulator.board import SimBoard
from host.web.board import ActionError
from host.web.server import WebBoard
from mpy import needs_unix_port

pytestmark = needs_unix_port


def test_the_page_takes_a_reed_out_of_service_and_back():
    sim = SimBoard(heapsize="112k", debounce_ms=5)
    sim.start()
    link = BoardLink(sim.port, timeout=5)
    stop = threading.Event()
    errors = []

    def game_thread():  # Mister X's console polls the same link meanwhile
        try:
            while not stop.is_set():
                link.poll(0.02)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    try:
        link.open()
        wb = WebBoard(sim)
        with pytest.raises(ActionError, match="Mister X's console"):
            wb.act({"do": "reed", "station": 45, "out": True})  # no game link yet
        wb.commander = link.request
        t = threading.Thread(target=game_thread)
        t.start()
        wb.act({"do": "reed", "station": 45, "out": True})
        assert json.loads(wb.make_state())["dead"] == [45]
        for bad in ({"station": 0, "out": True}, {"station": "45", "out": True}, {"station": 45, "out": "yes"}):
            with pytest.raises(ActionError):
                wb.act(dict(bad, do="reed"))
        assert json.loads(wb.make_state())["dead"] == [45]
        assert link.request("status")["dead"] == [45]
        with open(sim.folder + "/board.json") as f:
            assert json.load(f)["reeds"]["dead"] == [45]
        wb.act({"do": "reed", "station": 45, "out": False})
        assert json.loads(wb.make_state())["dead"] == []
        assert "dead" not in link.request("status")
        stop.set()
        t.join(5)
        assert not errors, errors
    finally:
        stop.set()
        link.close()
        sim.stop()


def test_the_simulators_hands_press_confirm_on_a_station_out_of_service(tmp_path):
    """yard sim's computer detectives carry out their moves like people: on a station whose reed
    is out of service (the board's config says which) they press the confirm button."""
    from host.commands.sim import Hands

    class FakeSim:
        folder = str(tmp_path)

        def __init__(self):
            self.did = []

        def lift(self, s):
            self.did.append(("lift", s))

        def place(self, s):
            self.did.append(("place", s))

        def press(self, button):
            self.did.append(("press", button))

    sim = FakeSim()
    hands = Hands(sim)
    hands("D1", 13, 14)  # no board.json: every reed in service
    with open(str(tmp_path / "board.json"), "w") as f:
        json.dump({"reeds": {"dead": [4]}}, f)
    hands("D1", 14, 13)
    hands("D1", 13, 4)
    assert sim.did == [("lift", 13), ("place", 14), ("lift", 14), ("place", 13), ("lift", 13), ("place", 4),
                       ("press", "confirm")]
