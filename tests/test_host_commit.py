"""sy/rules/commit.py, the commitment shared by host and board: same answers under CPython and on the
MicroPython unix port (compiled with mpy-cross, as on the board)."""
from mpy import needs_unix_port, run_script
from sy.rules import commit, mapgraph

CASES = [(45, "AbCdEfGhIjKlMnOpQrStUv"), (199, "00112233445566778899aabbccddeeff"), (1, "-_" * 11)]


def test_salts_must_resist_brute_force():
    assert commit.valid_salt("A" * 22) and commit.valid_salt("a0" * 16)
    assert not commit.valid_salt("a0" * 15)       # hex: 15 bytes
    assert not commit.valid_salt("A" * 21)        # base64url: under 16 bytes
    assert not commit.valid_salt("A+" * 12)       # not base64url
    assert not commit.valid_salt(None)
    assert not commit.matches(45, "short", commit.commitment(45, CASES[0][1]))


def test_check_route():
    g = mapgraph.load()
    assert commit.check_route(g, 1, [[0, 0], [3, 0]], [8, 1]) is None     # 1 -taxi- 8, back by black
    # a refusal is a detail code and the values it names (the host words it: host/refusals.py)
    assert commit.check_route(g, 1, [[2, 0]], [8]) == ("move_unreachable", (1, 8, 1))  # no underground 1-8
    assert commit.check_route(g, 1, [[0, 9]], [8]) == ("move_surfaced", (1, 9, 8))
    assert commit.check_route(g, 1, [[0, 0]], []) == ("count_mismatch", (1, 0))
    assert commit.check_route(g, 1, [[0, 0]], [200]) == ("move_not_station", (1, 200))


@needs_unix_port
def test_same_commitments_under_micropython():
    script = "from sy.rules import commit\n" + "".join(
        "print(commit.commitment(%d, %r))\n" % case for case in CASES)
    got = run_script(script, heapsize="64k").split()
    assert got == [commit.commitment(s, salt) for s, salt in CASES]


@needs_unix_port
def test_checking_salts_interns_no_names_on_the_board():
    """Iterating a str makes each character a name MicroPython keeps for good: a base64url reveal
    once interned up to 64 of them and pushed the board over its names budget (docs/memory.md)."""
    salts = ["%s%s" % (c * 11, "AbCdEfGhIjK") for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_"] + ["a0" * 16]
    script = ("import micropython\nfrom sy.rules import commit\nmicropython.qstr_info()\n"
              "assert all(commit.valid_salt(s) for s in %r)\nmicropython.qstr_info()\n" % salts)
    counts = [int(line.split("n_qstr=")[1].split(",")[0]) for line in run_script(script).splitlines()
              if "n_qstr=" in line]
    assert len(counts) == 2 and counts[1] == counts[0], counts
