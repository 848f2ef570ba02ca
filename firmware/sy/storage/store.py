"""Power-cut-safe storage of the board's game.

journal (game.jsonl): one JSON line per committed event, appended; line N is event seq N. The
  standard lines (setup, mrx, move) form the game record (docs/game-record.md); the board
  never writes an unrevealed Mister X station into it.
state (state.bin): the Game snapshot plus the board's own header, replaced whole. On littlefs
  (the Pico's and the ESP32's file system) a file written over keeps its old contents until it is
  closed (littlefs copies on write and commits the new contents in one step at close), so the
  snapshot is written over in place: one commit to the directory, where the copy-and-rename below
  takes four and fills the directory's log four times as fast (each filled log costs a 45 ms
  erase: docs/pico.md). Elsewhere (a POSIX folder: the simulator, the tests) it is written
  atomically: write state.tmp, rename state.bin -> state.bak, rename state.tmp -> state.bin. At
  boot the newest copy whose checksum holds wins. The header records the journal's length, so a
  line appended just before a power cut (and not yet covered by a snapshot) is cut off at resume.
Reading the newest good snapshot back is sy/storage/resume.py's (resume.load(store)): boot-only code, kept
off the heap during play.
"""
import json
import os
from binascii import crc32

MAGIC = b"SY1\n"


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
        self.jlen = 0  # bytes of journal covered by the last snapshot
        self.seq = 0   # lines in the journal
        self.writes = 0  # appends and snapshots written since boot
        # the snapshot written over in place: on littlefs only, which the boot's resume.load() tells
        # (sy/storage/resume.py replaced_whole: boot-only code, off the heap during play)
        self.in_place = False

    # --- journal ------------------------------------------------------------------------
    def append(self, text):
        """Append one event line (str without newline); returns its seq. Call save() after."""
        f = open(self.journal, "a")
        try:
            f.write(text)
            f.write("\n")
        finally:
            f.close()
        self.jlen += len(text) + 1  # ASCII only: MicroPython's json.dumps keeps other characters, so the
        # commands check what they journal (commitments hex, names from the rules': sy/link/fields.py)
        self.writes += 1
        self.seq += 1
        return self.seq

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
        back to it later without reading what came before (the reveal, sy/play/verify.py)."""
        if not exists(self.journal):
            return
        f = open(self.journal)
        try:
            f.seek(at)
            while at < self.jlen:
                line = f.readline()
                if not line:
                    break
                yield at, line
                at += len(line)  # the journal is ASCII (append): a character is a byte
        finally:
            f.close()

    # --- snapshot -----------------------------------------------------------------------
    def save(self, header, game_bytes):
        """game_bytes: any buffer (the board passes a view of its snapshot buffer). Written in
        pieces with a running checksum, so no copy of the whole state is made."""
        self.writes += 1
        header["jlen"] = self.jlen
        header["seq"] = self.seq
        h = json.dumps(header).encode()
        crc = crc32(b"\n", crc32(h))
        if game_bytes:
            crc = crc32(game_bytes, crc)
        f = open(self.state if self.in_place else self.tmp, "wb")
        try:
            f.write(MAGIC)
            f.write(b"%08x\n" % (crc & 0xFFFFFFFF))
            f.write(h)
            f.write(b"\n")
            if game_bytes:
                f.write(game_bytes)
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
