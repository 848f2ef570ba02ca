"""The board side of the wizards (firmware/sy/link/service.py) in-process: service mode under CPython
and under the MicroPython unix port (compiled, small heap): no allocation in the scan loop while in
service mode, refused during a game, the game gets the switches back afterwards, and the module
is dropped again at svc_end."""
import json

from mpy import needs_unix_port, run_script

CASE = r'''
import gc, json, sys
from testkit import TestBoard

def cmd(tb, c, **a):
    tb.link.outbox.clear()
    a["cmd"] = c
    a["id"] = 1
    tb.link.inbox.append(json.dumps(a).encode())
    tb.run(2)
    return [json.loads(x) for x in tb.link.outbox if '"id": 1' in x or '"id":1' in x][-1]

tb = TestBoard(FOLDER)
assert cmd(tb, "svc_raw")["error"] == "wrong_turn"
assert cmd(tb, "svc_begin")["ok"]
tb.set(57, True)
tb.settle()
r = cmd(tb, "svc_raw", clear=True)
bit = tb.bit(57)
assert int(r["stable"][2 * (bit >> 3):2 * (bit >> 3) + 2], 16) & (0x80 >> (bit & 7)), r
assert tb.board.reed(57) == 0  # the game does not see switches in service mode
assert cmd(tb, "svc_led", index=5, rgb=[255, 0, 0])["ok"]
tb.run(1)
assert tb.strip.buf[16] and not tb.strip.buf[15] and not any(tb.strip.buf[:15]), bytes(tb.strip.buf[:24])
assert cmd(tb, "svc_led", index=999)["error"] == "bad_input"
info = cmd(tb, "svc_info")
r = cmd(tb, "svc_bus", baudrates=[250000])  # the simulated board has no SPI chain to sweep
assert (r["error"], r["why"]) == ("bad_input", "no_spi"), r
assert cmd(tb, "svc_bus", baudrates="fast")["error"] == "bad_input"
# game commands wait until service mode ends: nothing changes underneath the wizard
r = cmd(tb, "setup", detectives=[13, 26], bobbies=[29, 34])
assert (r["error"], r["why"]) == ("wrong_turn", "service_mode"), r
assert tb.board.game is None
assert info["bits"][56] == bit and info["index"][56] == 56
# the scan loop in service mode allocates nothing (a quick flicker latched meanwhile)
def loop(tb):  # a function: no new globals (a growing globals dict) while measuring
    tb.run(50)
    gc.collect()
    before = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0
    for i in range(1000):
        if i == 500:
            tb.set(60, True)
        if i == 501:
            tb.set(60, False)
        tb.now += tb.period
        tb.app.cycle(tb.now)
    return (gc.mem_alloc() - before) if hasattr(gc, "mem_alloc") else 0


alloc = loop(tb)
r = cmd(tb, "svc_raw")
b60 = tb.bit(60)
assert int(r["ever"][2 * (b60 >> 3):2 * (b60 >> 3) + 2], 16) & (0x80 >> (b60 & 7)), r
assert cmd(tb, "svc_end")["ok"]
assert "sy.link.service" not in sys.modules
tb.run(2)
assert tb.board.reed(57) == 1 and tb.app.board is tb.board  # the game reads the switches again
# during a game: refused, unless paused
tb.set(57, False)
tb.settle()
cmd(tb, "setup", detectives=[13, 26], bobbies=[29, 34])
assert cmd(tb, "svc_begin")["error"] == "wrong_turn"
assert cmd(tb, "svc_begin", pause=True)["paused"] is True
assert cmd(tb, "svc_end")["ok"]
print(json.dumps({"scan_alloc_bytes": alloc}))
'''


def test_cpython(tmp_path):
    code = CASE.replace("FOLDER", repr(str(tmp_path / "tb")))
    exec(compile(code, "service_case", "exec"), {})


@needs_unix_port
def test_micropython_no_allocation(tmp_path):
    out = run_script(CASE.replace("FOLDER", repr(str(tmp_path / "tb"))), heapsize="160k", timeout=120)
    assert json.loads(out.strip().splitlines()[-1])["scan_alloc_bytes"] == 0
