"""Power-cut-safe storage of the board's game.

journal (game.jsonl): one JSON line per committed event; line N is event seq N. The standard
  lines (setup, mrx, move) form the game record (docs/game-record.md); the board never writes an
  unrevealed Mister X station into it. Its newest lines, the tail, live in the snapshot until
  they pass TAIL_BYTES and are appended to the file together (below).
state (state.bin): the Game snapshot plus the board's own header and the journal's tail, replaced
  whole. On littlefs (the Pico's and the ESP32's file system) a file written over keeps its old
  contents until it is closed (littlefs copies on write and commits the new contents in one step
  at close), so the snapshot is written over in place: one commit to the directory, where the
  copy-and-rename below takes four and fills the directory's log four times as fast (each filled
  log costs a 45 ms erase). Elsewhere (a POSIX folder: the simulator, the tests) it is written
  atomically: write state.tmp, rename state.bin -> state.bak, rename state.tmp -> state.bin. At
  boot the newest copy whose checksum holds wins. The header records the file's length, so lines
  appended to the file just before a power cut (and not yet covered by a snapshot) are cut off at
  resume: the snapshot before still holds them in its tail.
Why the tail: littlefs keeps a file of up to 512 bytes inside its directory's log; past that, its
  data lives in blocks of its own, and every append copies the last, partly filled block into a
  newly erased one (45 ms with the chip stalled, on every save). The snapshot (about 250 bytes)
  stays inside the log, so a save that only rewrites it programs a page or two and erases nothing
  until the log fills (docs/pico.md, "Saves").
Reading the newest good snapshot back is sy/storage/resume.py's (resume.load(store)): boot-only code, kept
off the heap during play.
"""
import json
import os
import sys
from binascii import crc32

# MicroPython writes and checksums a str as its bytes (the journal is ASCII); CPython needs bytes
_STR_IS_BYTES = sys.implementation.name == "micropython"

MAGIC = b"SY1\n"
# The journal's tail kept in the snapshot on littlefs, at most this many bytes: the snapshot file
# (13 bytes of magic and checksum, a header of about 80, the game's at most about 160) stays under
# littlefs's 512-byte limit for a file kept inside its directory's log (cache 1 KB, blocks 4 KB:
# the smallest of the cache, 1,022 and an eighth of a block). Elsewhere every line goes to the file.
TAIL_BYTES = 240


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def holds(text, marks):
    """Whether text holds one of marks (strings); any text, if marks is empty."""
    if not marks:
        return True
    for m in marks:
        if m in text:
            return True
    return False


class Store:
    def __init__(self, folder):
        if folder and not exists(folder):
            os.mkdir(folder)
        p = (folder + "/") if folder else ""
        self.journal = p + "game.jsonl"
        self.state = p + "state.bin"
        self.bak = p + "state.bak"
        self.tmp = p + "state.tmp"
        self.jlen = 0  # bytes of the journal in its file (covered by the last snapshot)
        self.seq = 0   # lines in the journal: its file's and its tail's
        self.tail = ""  # the journal's newest lines (each with its newline), kept in the snapshot
        self.writes = 0  # appends and snapshots written since boot
        # the snapshot written over in place, the journal's tail kept in it: on littlefs only, which
        # the boot's resume.load() tells (sy/storage/resume.py on_littlefs: boot-only code)
        self.in_place = False
        self.tail_bytes = 0

    # --- journal ------------------------------------------------------------------------
    def append(self, text):
        """Add one event line (str without newline) to the journal; returns its seq. Call save()
        after: the line is in the tail (the snapshot's) until the tail passes tail_bytes, and then
        the whole tail goes to the file at once."""
        self.tail = "".join((self.tail, text, "\n"))  # one string made, not two; ASCII only: MicroPython's json.dumps keeps other characters, so the
        # commands check what they journal (commitments hex, names from the rules': sy/link/fields.py)
        self.writes += 1
        self.seq += 1
        if len(self.tail) > self.tail_bytes:
            self.flush()
        return self.seq

    def flush(self):
        """Append the tail to the journal's file. A power cut before the next save leaves lines past
        the snapshot's count in the file: resume cuts them off and takes them from the snapshot."""
        if not self.tail:
            return
        f = open(self.journal, "a")
        try:
            f.write(self.tail)
        finally:
            f.close()
        self.jlen += len(self.tail)  # the journal is ASCII: a character is a byte
        self.tail = ""

    def last_line(self, within):
        """The journal's last line (bytes, no newline), read from its last `within` bytes only;
        b"" if the journal is empty."""
        if self.tail:
            t = self.tail.encode()
        elif self.jlen:
            f = open(self.journal, "rb")
            try:
                start = max(0, self.jlen - within)
                f.seek(start)
                t = f.read(self.jlen - start)
            finally:
                f.close()
        else:
            return b""
        t = t[:len(t) - 1] if t.endswith(b"\n") else t
        return t[t.rfind(b"\n") + 1:]

    def lines(self, first=1, marks=()):
        """Yield (seq, text) for journal lines from seq `first` on (allocates: events only).
        marks: only the lines that hold one of these strings (the others are read, not copied)."""
        seq = 0
        lines = self.lines_at(0)
        try:
            for _at, line in lines:
                seq += 1
                if seq >= first and holds(line, marks):
                    yield seq, line.rstrip("\n")
        finally:
            lines.close()  # the file, when a reader drops this early (MicroPython closes no generator it drops)

    def lines_at(self, at):
        """Yield (offset, line) for the journal's lines from byte offset `at` (a line's start) on,
        each with the offset it starts at and its newline: a reader that stops at a line comes
        back to it later without reading what came before (the reveal, sy/play/verify.py).
        The file's lines, then the tail's; a save between two lines (a reader in steps) moves
        the tail into the file at the same offsets, so the reader goes on where it was."""
        while True:
            end = self.jlen
            if at < end:
                if not exists(self.journal):
                    return
                f = open(self.journal)
                try:
                    f.seek(at)
                    while at < end:
                        line = f.readline()
                        if not line:
                            break
                        yield at, line
                        at += len(line)  # the journal is ASCII: a character is a byte
                finally:
                    f.close()
                if at != end:
                    return  # the file is shorter than counted, or a line runs past the count
                continue  # a save may have moved the tail into the file meanwhile
            tail = self.tail
            k = at - end
            while k < len(tail):
                e = tail.find("\n", k) + 1
                yield end + k, tail[k:e]
                k = e
            at = end + k
            if self.jlen + len(self.tail) <= at:
                return  # no line added meanwhile

    # --- snapshot -----------------------------------------------------------------------
    def save(self, header, game_bytes):
        """game_bytes: any buffer (the board passes a view of its snapshot buffer). Written in
        pieces with a running checksum, so no copy of the whole state is made."""
        self.writes += 1
        header["jlen"] = self.jlen
        header["seq"] = self.seq
        tail = self.tail if _STR_IS_BYTES else self.tail.encode()  # no copy on the board
        if tail:
            header["tail"] = len(tail)  # after the game's bytes
        h = json.dumps(header).encode()
        crc = crc32(b"\n", crc32(h))
        if game_bytes:
            crc = crc32(game_bytes, crc)
        if tail:
            crc = crc32(tail, crc)
        f = open(self.state if self.in_place else self.tmp, "wb")
        try:
            f.write(MAGIC)
            f.write(b"%08x\n" % (crc & 0xFFFFFFFF))
            f.write(h)
            f.write(b"\n")
            if game_bytes:
                f.write(game_bytes)
            if tail:
                f.write(tail)
        finally:
            f.close()
        if self.in_place:
            return
        if exists(self.state):
            if exists(self.bak):
                os.remove(self.bak)
            os.rename(self.state, self.bak)
        os.rename(self.tmp, self.state)

    def reset(self):
        base = self.journal[:-6]
        for p in (self.journal, self.state, self.bak, self.tmp, base + ".old", base + ".trim"):
            if exists(p):
                os.remove(p)
        self.jlen = 0
        self.seq = 0
        self.tail = ""
