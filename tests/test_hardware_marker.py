"""The chain's marker bit (the last reader board's D0, wired to GND) belongs to no station: the
firmware's validator refuses a map that gives it one, and the bring-up wizards neither hand it
out nor report it as a switch stuck closed."""
from host.device.calibrate import STATIONS, Calibration, Progress
from host.device.selftest import SelfTest
from sy.hardware import boardconfig

CHIPS = 25
MARKER = boardconfig.marker_bit(CHIPS)


class FakeService:
    """The board in service mode with nothing on it: only the marker reads closed."""

    def __init__(self, closed=()):
        self.closed = {MARKER} | set(closed)
        self.info = {"bits": list(range(STATIONS)), "index": list(range(STATIONS)), "count": STATIONS,
                     "chips": CHIPS}
        self.asked = []

    def ask(self, prompt):
        self.asked.append(prompt)

    def raw(self, clear=False):
        return {"raw": set(self.closed), "stable": set(self.closed), "ever": set(self.closed),
                "ever_stable": set(self.closed)}


def progress(tmp_path, data):
    p = Progress(str(tmp_path / "progress.json"))
    p.data = data
    return p


def test_the_marker_is_bit_199_of_25_chips():
    assert MARKER == 199
    assert MARKER not in boardconfig.default()["reeds"]["bits"]


def test_calibration_never_hands_out_the_marker(tmp_path):
    # a map made before the marker was reserved gives station 5 chain bit 199; its switch does not
    # react, so the wizard assigns it by elimination: a free bit, not the marker
    old = list(range(STATIONS))
    old[4] = MARKER
    defaults = {"index": list(range(STATIONS)), "bits": old}
    reeds = [[s, old[s - 1]] for s in range(1, STATIONS + 1) if s != 5] + [[5, -1]]
    cal = Calibration(FakeService(), progress(tmp_path, {"count": STATIONS, "chips": CHIPS, "reeds": reeds}),
                      defaults, lambda *a, **k: None)
    bits, warn = cal.bit_map()
    assert bits[4] == 4 and MARKER not in bits
    assert len(warn) == 1 and "station 5" in warn[0]
    cfg = boardconfig.default()
    cfg["reeds"]["bits"] = bits
    boardconfig.validate(cfg)


def test_selftest_does_not_call_the_marker_stuck(tmp_path):
    said = []
    svc = FakeService(closed={42})
    st = SelfTest(svc, progress(tmp_path, {}), lambda *a, **k: said.append(" ".join(map(str, a))), 0)
    st.empty()
    assert st.p.data["stuck"] == [42]          # a real stuck reed is still reported
    assert st.p.data["chatter"] == []
    assert not any("chain bit %d " % MARKER in line for line in said), said
