"""Mister X's commitments: proof that he played fair, without telling the board where he is.

With every secret move the host sends `commitment(station, salt)`; at the end of the game it
reveals each station with its salt, and anyone (the board, `yard verify`) recomputes the hashes.

    commitment = hex(SHA-256(b"sy-commit-1:" + salt_hex + b":" + decimal station))

The salt is fresh random bytes for every move, at least 16, as text: lower-case hex (32+ digits)
or base64url without padding (22+ characters; the host uses this, so that the end-of-game reveal of
25 salts fits the board's 1024-byte line). Without a salt the commitment could be brute-forced over
the 199 stations. The salt text itself is hashed, exactly as sent. The start station is
committed too (on setup). Pure: no I/O; runs on the board, under the unix port and in the host.
"""
import hashlib
from binascii import hexlify

MIN_SALT_BYTES = 16
_HEX = b"0123456789abcdef"
_B64URL = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_PREFIX = b"sy-commit-1:"


def valid_salt(salt):
    """True if salt carries at least MIN_SALT_BYTES random bytes: lower-case hex (32+ digits) or
    base64url without padding (22+ characters, what the host sends: it keeps the reveal line short)."""
    if not isinstance(salt, str):
        return False
    hexish = True
    for c in salt.encode():  # bytes, not 1-character strings: MicroPython interns each of those
        if c not in _HEX:
            hexish = False
            if c not in _B64URL:
                return False
    if hexish:
        return len(salt) >= 2 * MIN_SALT_BYTES
    return len(salt) >= (4 * MIN_SALT_BYTES + 2) // 3


def commitment(station, salt):
    """The hex SHA-256 commitment of `station` (int) with `salt` (hex str)."""
    if not valid_salt(salt):
        raise ValueError("salt", MIN_SALT_BYTES)
    h = hashlib.sha256(_PREFIX)
    h.update(salt.encode())
    h.update(b":")
    h.update(str(station).encode())
    return hexlify(h.digest()).decode()


def matches(station, salt, commit):
    """True if `commit` is the commitment of station with salt (False for a bad salt)."""
    if not isinstance(commit, str):
        return False
    try:
        return commitment(station, salt) == commit  # (commitment checks the salt once)
    except ValueError:  # a bad salt
        return False


def check_route(graph, start, log, reveals, first=1):
    """Check Mister X's revealed route against the map and the public log.

    start: his start station; log: [[ticket, shown], ...] as the board kept it (shown = the
    surfacing station or 0); reveals: [station, ...] one per log entry; first: the number of the
    first entry, for the refusal (the board checks one entry at a time). Returns None if the
    route is possible, else (why, values): the refusal's detail code and what it names. (Occupancy needs the detectives' history: a full replay
    of the record checks that, see host/commands/verify.py.)"""
    if len(reveals) != len(log):
        return "count_mismatch", (len(log), len(reveals))
    here = start
    for i in range(len(log)):
        ticket, shown = log[i][0], log[i][1]
        to = reveals[i]
        if not graph.is_station(to):
            return "move_not_station", (first + i, to)
        ok = False
        for t in (range(4) if ticket == 3 else (ticket,)):
            if graph.connected(here, to, t):
                ok = True
                break
        if not ok:
            return "move_unreachable", (first + i, to, here)
        if shown and shown != to:
            return "move_surfaced", (first + i, shown, to)
        here = to
    return None
