"""At boot: the newest good snapshot read back (the journal cut to it) and the board's game taken
up from it. Used once at boot, then dropped, so this code is not on the heap during play."""
import json
import os
from binascii import crc32

from sy.storage.store import MAGIC, exists
from sy.storage.stages import IDLE, PLAY, OVER


def resume(b):
    """Take up the saved game; guide the players if the pieces no longer agree."""
    got = load(b.store)
    if got is None:
        return False
    header, data = got
    stage = header.get("stage", IDLE)
    game = None
    if stage != IDLE and data:
        from sy.rules.game import Game, PHASE_OVER
        game = Game.load(data, b.graph)
        if stage == PLAY and game.phase == PHASE_OVER:
            stage = OVER  # an ended game saved as in play (firmware before 0.1.1 saved its end twice)
    else:
        stage = IDLE
    # nothing is committed until the switches agree with the saved positions
    b.take_up(stage, game, bool(header.get("x_on")))
    return True


def replaced_whole(folder):
    """Whether a file written over in `folder` keeps its old contents until it is closed: on
    MicroPython's littlefs (VfsLfs1, VfsLfs2) yes; on a POSIX or FAT folder, or under CPython, no."""
    try:
        mounts = os.mount()  # MicroPython: [(vfs, mount point)]
    except (AttributeError, TypeError):  # CPython; a MicroPython that does not list its mounts
        return False
    path = folder if folder[:1] == "/" else os.getcwd().rstrip("/") + "/" + folder.lstrip(".")
    path = path.rstrip("/") + "/"
    best = ""
    whole = False
    for vfs, at in mounts:
        at = at.rstrip("/") + "/"
        if path.startswith(at) and len(at) > len(best):
            best = at
            whole = type(vfs).__name__.startswith("VfsLfs")
    return whole


def _read(path):
    try:
        f = open(path, "rb")
    except OSError:
        return None
    try:
        data = f.read()
    finally:
        f.close()
    if data[:4] != MAGIC or len(data) < 13:
        return None
    try:
        crc = int(data[4:12], 16)
    except ValueError:
        return None
    body = data[13:]
    if crc32(body) & 0xFFFFFFFF != crc:
        return None
    nl = body.find(b"\n")
    try:
        header = json.loads(body[:nl])
    except ValueError:
        return None
    return header, body[nl + 1:]


def load(store):
    """(header, game_bytes) of the newest good snapshot, or None. Trims the journal to it. First
    tells the store whether it is on littlefs (sy/storage/store.py: the snapshot written over in
    place)."""
    store.in_place = replaced_whole(store.state[:store.state.rfind("/") + 1] or ".")
    got = _read(store.state)
    if got is not None and store.in_place and exists(store.bak):
        os.remove(store.bak)  # a copy an earlier firmware rotated: older than state.bin, never needed
    got = got or _read(store.bak)
    if got is None:
        return None
    header = got[0]
    store.jlen = header.get("jlen", 0)
    store.seq = header.get("seq", 0)
    _trim(store)
    return got


def _trim(store):
    """Cut the journal back to jlen bytes (a line written after the last snapshot).

    Power-cut safe at every step, with rename never over an existing file (FAT cannot):
    copy to game.trim, rename game.jsonl -> game.old, game.trim -> game.jsonl, remove game.old.
    A cut between the renames leaves game.old, which the next boot takes back first."""
    journal = store.journal
    old = journal[:-6] + ".old"
    trimmed = journal[:-6] + ".trim"
    if not exists(journal):
        if not exists(old):
            return
        os.rename(old, journal)  # a cut landed between the two renames
    elif exists(old):
        os.remove(old)  # a cut landed after the second rename
    size = os.stat(journal)[6]
    if size <= store.jlen:
        return
    src = open(journal, "rb")
    dst = open(trimmed, "wb")
    try:
        left = store.jlen
        buf = bytearray(256)
        while left > 0:
            n = src.readinto(buf)
            if not n:
                break
            n = min(n, left)
            dst.write(buf[:n])
            left -= n
    finally:
        src.close()
        dst.close()
    os.rename(journal, old)
    os.rename(trimmed, journal)
    os.remove(old)
