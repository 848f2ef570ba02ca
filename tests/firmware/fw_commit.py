"""Mister X's commitments (sy/rules/commit.py) as plain functions: tests/test_firmware_units.py runs
them under CPython and under the MicroPython unix port. The salts a commitment takes, the hash as
docs/protocol.md spells it, and the check of his revealed route against the map and his log.
tests/test_host_commit.py checks that both Pythons give the same hashes."""
import hashlib
import sys
from binascii import hexlify

if sys.implementation.name != "micropython":
    import os
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)

from sy.rules import commit, mapgraph
from sy.rules.base import TICKET_NAMES

TAXI, BUS, UNDERGROUND, BLACK = (TICKET_NAMES.index(n) for n in ("taxi", "bus", "underground", "black"))
B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _spelled_out(station, salt):
    """The commitment as the protocol's documentation writes it: hex(SHA-256(b"sy-commit-1:" +
    salt + b":" + decimal station))."""
    return hexlify(hashlib.sha256(b"sy-commit-1:" + salt.encode() + b":" + str(station).encode()).digest()).decode()


def test_a_salt_is_sixteen_bytes_or_more_in_hex_or_base64url():
    assert commit.MIN_SALT_BYTES == 16
    assert commit.valid_salt("0123456789abcdef" * 2) and commit.valid_salt("f" * 33)
    assert not commit.valid_salt("a" * 31)
    assert commit.valid_salt("G" * 22) and commit.valid_salt("a" * 21 + "-")
    assert not commit.valid_salt("G" * 21) and not commit.valid_salt("a" * 20 + "_")
    for c in B64URL:  # every base64url character, anywhere in the salt
        assert commit.valid_salt("A" * 21 + c) and commit.valid_salt(c + "A" * 21), c
        assert commit.valid_salt(c * 32) and (c in "0123456789abcdef" or commit.valid_salt(c * 22)), c
    for bad in ("A" * 21 + "=", "A" * 21 + "+", "A" * 21 + "/", "a" * 31 + " ", "a" * 32 + ".", "é" * 22, ""):
        assert not commit.valid_salt(bad), bad
    for bad in (None, 5, b"a" * 32, ["a" * 32]):
        assert not commit.valid_salt(bad), bad


def test_a_hex_salt_needs_thirty_two_digits_even_where_base64url_would_need_fewer():
    # 22..31 hex digits are too short as hex: they are not read as base64url instead
    for n in (22, 30, 31):
        assert not commit.valid_salt("a" * n), n
    assert commit.valid_salt("a" * 32)
    assert commit.valid_salt("a" * 21 + "G")  # one letter past f: base64url, 22 characters are enough


def test_the_commitment_is_the_documented_hash():
    for station, salt in ((45, "AbCdEfGhIjKlMnOpQrStUv"), (199, "00112233445566778899aabbccddeeff"), (1, "-_" * 11),
                          (8, "A" * 40)):
        c = commit.commitment(station, salt)
        assert c == _spelled_out(station, salt) and len(c) == 64, (station, salt)
    assert commit.commitment(45, "A" * 22) != commit.commitment(46, "A" * 22)
    assert commit.commitment(45, "A" * 22) != commit.commitment(45, "A" * 23)


def test_a_commitment_refuses_a_weak_salt():
    for salt in ("a" * 31, "A" * 21, None, "A" * 21 + "="):
        try:
            commit.commitment(45, salt)
        except ValueError as e:
            assert "16" in str(e), e
            continue
        raise AssertionError("salt %r accepted" % (salt,))


def test_matches_only_the_committed_station_and_salt():
    salt = "AbCdEfGhIjKlMnOpQrStUv"
    c = commit.commitment(45, salt)
    assert commit.matches(45, salt, c) is True
    assert commit.matches(46, salt, c) is False
    assert commit.matches(45, salt[:-1] + "w", c) is False
    assert commit.matches(45, salt, c.upper()) is False
    assert commit.matches(45, salt, "f" * 64) is False and commit.matches(45, salt, "0" * 64) is False
    assert commit.matches(45, "short", commit.commitment(45, salt)) is False  # a bad salt: no, never an error
    for bad in (None, 5, c.encode(), [c]):
        assert commit.matches(45, salt, bad) is False, bad


def test_a_possible_route_passes():
    g = mapgraph.load()
    assert commit.check_route(g, 1, [], []) is None
    assert commit.check_route(g, 1, [[TAXI, 0], [BLACK, 0]], [8, 1]) is None  # 1 -taxi- 8, back by black
    assert commit.check_route(g, 1, [[BUS, 0], [UNDERGROUND, 13]], [46, 13]) is None  # 1 -bus- 46 -ug- 13, surfaced
    assert commit.check_route(g, 1, [[TAXI, 0], [TAXI, 18], [TAXI, 0]], [8, 18, 31]) is None
    assert commit.check_route(g, 108, [[BLACK, 0], [BLACK, 0]], [115, 157]) is None  # the river: black only


def test_a_route_the_map_does_not_have_is_refused_at_its_move():
    g = mapgraph.load()
    assert commit.check_route(g, 108, [[TAXI, 0]], [115]) == ("move_unreachable", (1, 115, 108))
    assert commit.check_route(g, 1, [[UNDERGROUND, 0]], [8]) == ("move_unreachable", (1, 8, 1))
    assert commit.check_route(g, 1, [[TAXI, 0], [TAXI, 0]], [8, 46]) == \
        ("move_unreachable", (2, 46, 8))  # from where the route got to, not the start
    assert commit.check_route(g, 1, [[TAXI, 0], [BLACK, 0]], [8, 100]) == \
        ("move_unreachable", (2, 100, 8))
    assert commit.check_route(g, 1, [[TAXI, 0], [TAXI, 0]], [8, 9], first=7) == \
        ("move_unreachable", (8, 9, 8))


def test_a_revealed_station_off_the_map_is_refused():
    g = mapgraph.load()
    for bad in (0, 200, -1):
        assert commit.check_route(g, 1, [[TAXI, 0]], [bad]) == ("move_not_station", (1, bad))
    assert commit.check_route(g, 1, [[TAXI, 0], [TAXI, 0]], [8, 0], first=3) == ("move_not_station", (4, 0))


def test_a_reveal_that_contradicts_a_surfacing_is_refused():
    g = mapgraph.load()
    assert commit.check_route(g, 1, [[TAXI, 9]], [8]) == ("move_surfaced", (1, 9, 8))
    assert commit.check_route(g, 1, [[TAXI, 0], [TAXI, 1]], [8, 18], first=12) == \
        ("move_surfaced", (13, 1, 18))
    assert commit.check_route(g, 1, [[TAXI, 0], [TAXI, 1]], [8, 18]) == \
        ("move_surfaced", (2, 1, 18))  # counted from the first entry: 1 + 1, not 1 ^ 1


def test_a_reveal_of_the_wrong_length_is_refused():
    g = mapgraph.load()
    assert commit.check_route(g, 1, [[TAXI, 0]], []) == ("count_mismatch", (1, 0))
    assert commit.check_route(g, 1, [], [8]) == ("count_mismatch", (0, 1))
