"""The attacks of docs/fairplay.md on the simulated board (the firmware on the MicroPython unix
port, a real pty) and in the rules core, as `yard bench reliability` runs them
(host/reliability/fairplay.py, host/reliability/probing.py)."""
import pytest

from host.reliability import fairplay, probing
from mpy import needs_unix_port


@needs_unix_port
def test_a_second_program_on_the_port_cannot_speak_for_mister_x():
    r = fairplay.forged_lines()
    assert r["forged_lines_sent"] >= 12 and r["forged_lines_accepted"] == 0, r
    assert r["board_probes_tried"] == 1 and r["board_probes_accepted"] == 0, r
    assert r["consented_take_backs"] == 1, r  # his own consent is taken
    if "shared_ports_tried" not in r:
        pytest.skip("the second program runs as user nobody: needs root to start it")
    assert r["second_opens_refused"] == r["second_opens_tried"] == 1, r
    assert r["shared_ports_missed"] == 0, r


def test_take_back_probing_is_refused_and_wins_nothing():
    r = probing.run(games=30, seed=3)
    assert r["probing_probes_tried"] > 100 and r["probing_probes_accepted"] == 0, r
    assert r["unguarded_probes_accepted"] > 100, r  # the same cheat where every take-back is taken
    # the refused probes stand as the cheater's moves: his win rate stays at or under the honest
    # one's 95 % interval, the bench's own criterion (a fixed margin at 30 games is below the noise)
    assert r["probing_gains_nothing"], r


def test_the_other_program_sees_a_port_held_by_the_host_as_busy(tmp_path):
    import os
    import serial
    from host.link.auth import claim_port
    master, slave = os.openpty()
    port = os.ttyname(slave)
    try:
        ser = serial.Serial(port, 115200, timeout=0)
        claim_port(ser, port)
        other = fairplay.other_program(port)
        if other is None:
            pytest.skip("the second program runs as user nobody: needs root to start it")
        other[0].wait()
        assert other[1] == "refused 16", other  # EBUSY
        ser.close()
    finally:
        os.close(master)
        os.close(slave)
