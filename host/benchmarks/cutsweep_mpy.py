# Runs under the MicroPython unix port (host/benchmarks/cutsweep.py starts it): a power cut at every
# flash erase and program boundary of every kind of save, on MicroPython's own littlefs as the rp2
# port mounts it (os.VfsLfs2, program size 256 B, 4 KB blocks), over a flash chip modelled here.
# Prints one JSON line of figures.
#
# The game below (two rounds) makes each kind of save (a setup, the pieces ready, Mister X's move, a
# detective's move, a take-back, the end of the game, the reveal's verdict). For each save:
#   1. from the flash as it was before the save, boot the board, make the save, count the erases
#      and programs it made (n);
#   2. for every k < n, twice (power gone right before operation k; power gone half-way through
#      it: half the sector erased, half the page programmed): boot from the flash before the save
#      again, make the save with the power cut at that point, then boot from what the flash holds;
#   3. the board must mount its filesystem, resume either the game before the save or the game
#      after it (never anything else), have lost no event the host was told of, and, resumed before
#      the save, take the same save again to the same game after it.
import json
import os
import sys

from inprocess import InProcessBoard, MemInputs
from sy.hardware import boardconfig

BLOCK = 4096
BLOCKS = int(sys.argv[2]) if len(sys.argv) > 2 else 352  # MicroPython v1.28 RPI_PICO: 1,408 KB
MOUNT = "/flash"
FOLDER = MOUNT + "/game"
SALT = "ab" * 16


class PowerCut(Exception):
    pass


class Flash:
    """A NOR flash chip behind MicroPython's block-device protocol (the extended one littlefs
    uses: programs at an offset, erases by ioctl 6). Counts erases and programs; at operation
    `cut_at` the power goes: that operation done not at all or half-way (`half`), and nothing after."""

    def __init__(self, image=None):
        self.buf = bytearray(image) if image is not None else bytearray(b"\xff" * (BLOCKS * BLOCK))
        self.ops = 0
        self.erases = 0
        self.programs = 0
        self.cut_at = -1
        self.half = False
        self.dead = False
        self.cut_kind = None  # what the power cut stopped: "erase" or "program"

    def _go(self):
        """True if the next operation is done whole; raises PowerCut after doing part of it."""
        if self.dead:
            raise PowerCut()
        k = self.ops
        self.ops += 1
        return k != self.cut_at

    def readblocks(self, block, buf, off=0):
        a = block * BLOCK + off
        buf[:] = self.buf[a:a + len(buf)]

    def writeblocks(self, block, buf, off=None):
        if off is None:  # the simple protocol: erase, then program the whole block
            self.ioctl(6, block)
            off = 0
        self.programs += 1
        a = block * BLOCK + off
        # littlefs programs only bytes it erased: a copy is what the chip's AND would make
        if self._go():
            self.buf[a:a + len(buf)] = buf
            return
        if self.half:
            n = len(buf) // 2
            self.buf[a:a + n] = buf[:n]
        self.dead = True
        self.cut_kind = "program"
        raise PowerCut()

    def ioctl(self, op, arg):
        if op == 4:
            return BLOCKS
        if op == 5:
            return BLOCK
        if op == 6:
            self.erases += 1
            a = arg * BLOCK
            if self._go():
                self.buf[a:a + BLOCK] = b"\xff" * BLOCK
                return 0
            if self.half:
                self.buf[a:a + BLOCK // 2] = b"\xff" * (BLOCK // 2)
            self.dead = True
            self.cut_kind = "erase"
            raise PowerCut()
        return 0


def mount(flash):
    try:
        os.umount(MOUNT)
    except OSError:
        pass
    os.mount(os.VfsLfs2(flash, progsize=256), MOUNT)


_config = {}


def _load_config(path):
    """boardconfig.load for the sweep's boards: the file read back from the flash each boot, its
    validation (a tenth of a second on the unix port) made once for the same text."""
    f = open(path)
    try:
        text = f.read()
    finally:
        f.close()
    if text not in _config:
        _config.clear()
        _config[text] = _validate(json.loads(text))
    return _config[text]


_validate = boardconfig.validate
boardconfig.load = _load_config


def boot(flash, inputs):
    """A board powered on with this flash and these switches."""
    mount(flash)
    return InProcessBoard(FOLDER, fresh=False, inputs=inputs)


def state(tb):
    """What a save keeps: the stage, the game's snapshot bytes, the journal's lines."""
    b = tb.board
    g = b.game
    data = None
    if g is not None:
        buf = bytearray(g.save_size())
        g.save_into(buf)
        data = bytes(buf)
    return b.stage, data, [text for _seq, text in b.store.lines(1)]


def told(tb):
    """The events the host was sent: {seq: text}."""
    out = {}
    for line in tb.link.outbox:
        if line.startswith('{"seq":'):
            msg = json.loads(line)
            out[msg["seq"]] = json.dumps(msg["ev"])
    return out


def ok(r):
    assert r["ok"], r


def _move(tb, a, b):
    tb.lift(a)
    tb.place(b)


def scenario():
    """(kind, what the players and the host do) for each save of a short game with commitments:
    two rounds, so the journal's file passes the 512 bytes littlefs keeps inside the directory and
    the later saves append to a block of its own (a new block erased and the last one copied)."""
    from sy.rules import commit as commitlib
    c45, c46, c13 = (commitlib.commitment(s, SALT) for s in (45, 46, 13))

    def setup(tb):
        ok(tb.command("setup", detectives=[13, 26], bobbies=[29, 34], commit=c45, replace=True))

    def ready(tb):
        for s in (13, 26, 29, 34):
            tb.place(s)
        assert tb.board.stage == 2

    def mrx(tb):
        ok(tb.command("mrx", ticket="taxi", commit=c46))

    def move(tb):
        _move(tb, 13, 4)
        assert tb.board.game.pos[0] == 4

    def take_back(tb):
        ok(tb.command("undo"))

    def put_back(tb):
        _move(tb, 4, 13)

    def moves(a, b):  # taxi only: no ticket to ask
        return lambda tb: _move(tb, a, b)

    def mrx2(tb):
        ok(tb.command("mrx", ticket="underground", commit=c13))

    def capture_move(tb):
        _move(tb, 4, 13)

    def end(tb):
        ok(tb.command("capture", piece="D1", reveal=[SALT, 13]))
        assert tb.board.stage == 3

    def reveal(tb):
        r = tb.command("reveal", offset=0, start=[SALT, 45], moves=[[SALT, 46], [SALT, 13]])
        assert r["ok"] and r["verified"], r

    return (("setup", setup), ("ready", ready), ("mrx", mrx), ("move", move), ("take_back", take_back),
            ("put_back", put_back), ("move", moves(26, 27)), ("move", moves(29, 6)), ("move", moves(34, 10)),
            ("move", move), ("mrx", mrx2), ("move", capture_move), ("end", end), ("reveal", reveal))


def copy_inputs(inputs):
    m = MemInputs(len(inputs.bits))
    m.bits[:] = inputs.bits
    return m


def sweep():
    flash = Flash()
    os.VfsLfs2.mkfs(flash, progsize=256)
    mount(flash)
    tb = InProcessBoard(FOLDER)  # a fresh board: its config written, an empty store
    tb.command("hello", proto=1)
    figures = {"saves": {}, "power_cuts": 0, "cuts_in_erase": 0, "cuts_in_program": 0, "cuts_before_op": 0,
               "lost_events": 0, "wrong_resumes": 0, "unmountable": 0, "redo_failed": 0, "problems": []}
    for kind, act in scenario():
        image = bytes(flash.buf)
        inputs = copy_inputs(tb.inputs)
        before = state(tb)
        ops, erases, programs = flash.ops, flash.erases, flash.programs
        act(tb)
        after = state(tb)
        n = flash.ops - ops
        if not n:
            continue  # no flash written (the players only)
        row = figures["saves"].setdefault(kind, {"boundaries": 0, "erases": 0, "programs": 0, "cuts": 0})
        row["boundaries"] += n
        row["erases"] += flash.erases - erases
        row["programs"] += flash.programs - programs
        for k in range(n):
            for half in (False, True):
                figures["power_cuts"] += 1
                row["cuts"] += 1
                problem = cut_once(kind, act, image, inputs, before, after, k, half, figures)
                if problem:
                    figures["problems"].append("%s, operation %d of %d%s: %s" % (
                        kind, k, n, " (half done)" if half else "", problem))
        # the next save starts from the flash this one left, on a board booted from it
        flash = Flash(bytes(flash.buf))
        tb = boot(flash, copy_inputs(tb.inputs))
        assert state(tb) == after, kind
    figures["problems"] = figures["problems"][:20]
    return figures


def cut_once(kind, act, image, inputs, before, after, k, half, figures):
    """One power cut; the problem found (a sentence) or None."""
    flash = Flash(image)
    tb = boot(flash, copy_inputs(inputs))
    start = flash.ops
    flash.cut_at = start + k
    flash.half = half
    try:
        act(tb)
        return "the power cut never came"
    except PowerCut:
        pass
    except Exception:  # the firmware's own error handling met the dead chip (an error reply)
        if not flash.dead:
            raise
    figures["cuts_in_erase" if flash.cut_kind == "erase" else "cuts_in_program"] += 1
    if not half:
        figures["cuts_before_op"] += 1
    sent = told(tb)
    # power back on: the flash as the cut left it, the switches as the hands left them
    again = Flash(bytes(flash.buf))
    try:
        tb2 = boot(again, copy_inputs(tb.inputs))
    except Exception as e:  # the filesystem does not mount, or the board does not start
        figures["unmountable"] += 1
        return "no boot after the cut: %r" % e
    got = state(tb2)
    if got != before and got != after:
        figures["wrong_resumes"] += 1
        return "resumed neither the game before the save nor the one after it"
    journal = got[2]
    for seq in sent:
        if seq > len(journal) or json.loads(journal[seq - 1]) != json.loads(sent[seq]):
            figures["lost_events"] += 1
            return "event %d was sent to the host and is not in the resumed journal" % seq
    if got == before:  # the players put the pieces back where the game says, and play the save again
        tb2.inputs.bits[:] = inputs.bits
        tb2.settle()
        try:
            act(tb2)
        except Exception as e:
            figures["redo_failed"] += 1
            return "the save made again after the cut failed: %r" % e
        if state(tb2) != after:
            figures["redo_failed"] += 1
            return "the save made again after the cut left another game"
    return None


print(json.dumps(sweep()))
