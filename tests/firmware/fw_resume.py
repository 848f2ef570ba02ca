"""The board's restart (sy/storage/resume.py) as plain functions (tests/test_firmware_units.py runs
them under CPython and under the MicroPython unix port): which snapshot a restart reads back, the
journal cut to it whatever a power cut left, and the board's game and stage after the restart.
tests/firmware/fw_store.py tests the store's own writing; tests/firmware/fw_cases.py whole games."""
import json
import os
import sys

if sys.implementation.name != "micropython":
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests"), os.path.join(_ROOT, "tests", "fakes")):
        if p not in sys.path:
            sys.path.insert(0, p)

from binascii import crc32

from sy.storage.store import Store, MAGIC, exists
from sy.storage import resume
from sy.play.board import IDLE, SETUP, PLAY, OVER
from testkit import TestBoard, scratch, fresh_store, read_file, write_file

TMP = scratch("sy-fwtest-resume")


def _snapshot(body):
    """A snapshot file's bytes around body (header line + game bytes), as the store writes it."""
    return MAGIC + b"%08x\n" % (crc32(body) & 0xFFFFFFFF) + body


def _lines(n, width=40):
    return ['{"k": %d, "pad": "%s"}' % (k, "x" * (width + k % 7)) for k in range(n)]


# --- which snapshot is read back -----------------------------------------------------------------
def test_a_damaged_snapshot_falls_back_to_the_previous_copy():
    good = b'{"stage": 1, "jlen": 0, "seq": 0}\n\x07'
    body = b'{"stage": 2, "jlen": 0, "seq": 0}\n\x08'
    for damaged in (b"", b"SY1", b"XY1\n" + _snapshot(body)[4:],  # wrong magic
                    MAGIC + b"0000000g\n" + body,  # a checksum that is not hex
                    b"AY1\n" + _snapshot(body)[4:],  # a magic that sorts before the right one
                    MAGIC + b"%08x\n" % ((crc32(body) + 1) & 0xFFFFFFFF) + body,  # the wrong checksum,
                    MAGIC + b"%08x\n" % ((crc32(body) - 1) & 0xFFFFFFFF) + body,  # above or below
                    _snapshot(body)[:-1] + b"\x09",  # a changed byte
                    _snapshot(b'{"stage": 2,\n\x08'),  # a header that is not JSON
                    _snapshot(b'{"stage": 2}'),  # no newline after the header: not JSON either
                    _snapshot(b"")):
        st = fresh_store(TMP)
        write_file(TMP + "/state.bin", damaged)
        write_file(TMP + "/state.bak", _snapshot(good))
        assert resume.load(st) == ({"stage": 1, "jlen": 0, "seq": 0}, b"\x07"), damaged
        write_file(TMP + "/state.bak", damaged)
        assert resume.load(Store(TMP)) is None, damaged


def test_the_checksum_alone_judges_the_snapshot():
    # the byte after the checksum is a separator the checksum does not cover: a file whose
    # checksummed part is whole reads back (the checksum field itself is read as 8 digits)
    body = b'{"stage": 2}\n\x08'
    good = _snapshot(body)
    st = fresh_store(TMP)
    write_file(TMP + "/state.bin", good[:12] + b"x" + good[13:])
    assert resume.load(st) == ({"stage": 2}, b"\x08")


def test_the_newest_good_snapshot_wins():
    st = fresh_store(TMP)
    write_file(TMP + "/state.bin", _snapshot(b'{"stage": 2}\n\x08'))
    write_file(TMP + "/state.bak", _snapshot(b'{"stage": 1}\n\x07'))
    assert resume.load(st) == ({"stage": 2}, b"\x08")
    assert (st.jlen, st.seq) == (0, 0)  # a header without the counts: an empty journal


def test_a_snapshot_with_a_short_header_still_reads():
    st = fresh_store(TMP)
    write_file(TMP + "/state.bin", _snapshot(b'{}\n'))
    assert resume.load(st) == ({}, b"")
    write_file(TMP + "/state.bin", _snapshot(b'7\n\x01'))
    got = resume._read(TMP + "/state.bin")
    assert got == (7, b"\x01")


# --- the journal cut to the snapshot ---------------------------------------------------------------
def _journal_then_cut(n_saved, n_after, width=40):
    """A journal of n_saved lines with a snapshot after them, then n_after lines more (a power cut
    before the next snapshot). Returns the store and the journal's bytes at the snapshot."""
    st = fresh_store(TMP)
    lines = _lines(n_saved + n_after, width)
    for k in range(n_saved):
        st.append(lines[k])
    st.save({"stage": 2}, b"\x01")
    kept = read_file(st.journal) if n_saved else b""
    for k in range(n_saved, n_saved + n_after):
        st.append(lines[k])
    return st, kept


def test_the_journal_is_cut_back_to_the_snapshot_byte_for_byte():
    for n_saved, n_after, width in ((1, 1, 40), (9, 3, 40), (7, 20, 3), (30, 1, 40), (5, 1, 251 - 16)):
        st, kept = _journal_then_cut(n_saved, n_after, width)
        st2 = Store(TMP)
        header, _data = resume.load(st2)
        assert (header["seq"], st2.seq, st2.jlen) == (n_saved, n_saved, len(kept))
        assert read_file(TMP + "/game.jsonl") == kept, (n_saved, n_after, width)
        assert [s for s, _t in st2.lines()] == list(range(1, n_saved + 1))
        assert sorted(os.listdir(TMP)) == ["game.jsonl", "state.bak", "state.bin"] or \
            sorted(os.listdir(TMP)) == ["game.jsonl", "state.bin"]
        assert st2.append('{"next": 1}') == n_saved + 1  # the journal goes on from the snapshot
        assert [t for _s, t in st2.lines(n_saved + 1)] == ['{"next": 1}']


def test_a_journal_cut_at_one_byte_past_a_chunk():
    # the copy goes 256 bytes at a time: a journal of 257 or 513 bytes has one byte in its last one
    for size in (257, 513):
        st = fresh_store(TMP)
        st.append('{"pad": "%s"}' % ("x" * (size - 12)))
        assert st.jlen == size
        st.save({"stage": 2}, b"\x01")
        st.append('{"after": 1}')
        st2 = Store(TMP)
        resume.load(st2)
        assert len(read_file(TMP + "/game.jsonl")) == size and st2.jlen == size
        assert [s for s, _t in st2.lines()] == [1]


def test_a_journal_shorter_than_the_snapshot_counts_is_left_as_it_is():
    st, kept = _journal_then_cut(8, 0)  # more than 256 bytes
    f = open(TMP + "/game.jsonl", "wb")
    f.write(kept[:-10])  # its tail lost
    f.close()
    before = os.stat(TMP + "/game.jsonl")[1]
    resume.load(Store(TMP))
    assert read_file(TMP + "/game.jsonl") == kept[:-10] and os.stat(TMP + "/game.jsonl")[1] == before


def test_a_journal_of_exactly_the_snapshots_length_is_kept():
    st, kept = _journal_then_cut(8, 0)  # more than 256 bytes: past CPython's cached small ints
    assert len(kept) > 256
    before = os.stat(TMP + "/game.jsonl")[1]  # its inode: a trimmed journal would be a new file
    st2 = Store(TMP)
    resume.load(st2)
    assert read_file(TMP + "/game.jsonl") == kept and st2.seq == 8
    assert not exists(TMP + "/game.old") and not exists(TMP + "/game.trim")
    assert os.stat(TMP + "/game.jsonl")[1] == before  # not copied at every boot


def test_a_cut_between_the_two_renames_is_taken_back():
    # the trim renamed game.jsonl to game.old, then the power went: the next boot takes it back
    st, kept = _journal_then_cut(6, 2)
    os.rename(TMP + "/game.jsonl", TMP + "/game.old")
    st2 = Store(TMP)
    resume.load(st2)
    assert read_file(TMP + "/game.jsonl") == kept and not exists(TMP + "/game.old")
    assert [s for s, _t in st2.lines()] == [1, 2, 3, 4, 5, 6]


def test_a_cut_after_the_second_rename_drops_the_old_journal():
    st, kept = _journal_then_cut(6, 0)
    write_file(TMP + "/game.old", kept + b'{"late": 1}\n')
    st2 = Store(TMP)
    resume.load(st2)
    assert read_file(TMP + "/game.jsonl") == kept and not exists(TMP + "/game.old")


def test_no_journal_at_all_is_no_journal_after():
    st = fresh_store(TMP)
    st.save({"stage": 1}, b"")
    st2 = Store(TMP)
    assert resume.load(st2) == ({"stage": 1, "jlen": 0, "seq": 0}, b"")
    assert not exists(TMP + "/game.jsonl") and list(st2.lines()) == []


# --- the board after a restart ---------------------------------------------------------------------
def _board_with(header, data):
    """A board restarted on a snapshot with this header and game bytes (its journal left empty)."""
    tb = TestBoard(TMP)
    tb.store.reset()
    tb.store.save(header, data)
    tb.reboot()
    return tb


def _game_bytes():
    tb = TestBoard(TMP)
    tb.command("hello", proto=1)
    assert tb.command("setup", detectives=[13, 26, 29, 34, 50])["ok"]
    for s in (13, 26, 29, 34, 50):
        tb.place(s)
    assert tb.command("mrx", ticket="taxi")["ok"]
    tb.lift(13)
    tb.place(4)
    assert tb.board.game.pos[0] == 4
    return tb.board.game.save()


def test_a_game_in_play_resumes_waiting_for_its_pieces():
    data = _game_bytes()
    tb = _board_with({"v": 1, "stage": PLAY, "x_on": 0}, data)
    assert tb.board.stage == PLAY and tb.board.restoring and tb.board.game.pos[0] == 4
    st = tb.command("status")
    assert st["stage"] == "play" and st["restoring"] and sorted(st["missing"]) == ["D1", "D2", "D3", "D4", "D5"]
    assert not tb.board.mrx_piece_on


def test_mister_xs_piece_on_the_board_is_remembered():
    data = _game_bytes()
    tb = _board_with({"v": 1, "stage": PLAY, "x_on": 1}, data)
    assert tb.board.mrx_piece_on is True
    tb = _board_with({"v": 1, "stage": PLAY}, data)
    assert tb.board.mrx_piece_on is False


def test_a_setup_resumes_as_a_setup_not_restoring():
    data = _game_bytes()
    tb = _board_with({"v": 1, "stage": SETUP, "x_on": 0}, data)
    assert tb.board.stage == SETUP and not tb.board.restoring and tb.board.game is not None
    assert tb.command("status")["stage"] == "setup"


def test_a_finished_game_resumes_over():
    data = _game_bytes()
    tb = _board_with({"v": 1, "stage": OVER, "x_on": 0}, data)
    assert tb.board.stage == OVER and not tb.board.restoring
    assert tb.command("status")["stage"] == "over"


def test_a_snapshot_without_a_game_is_an_idle_board():
    data = _game_bytes()
    for header, game in (({"v": 1, "stage": PLAY}, b""), ({"v": 1}, data), ({"v": 1, "stage": IDLE}, data)):
        tb = _board_with(header, game)
        assert tb.board.stage == IDLE and tb.board.game is None and not tb.board.restoring, header
        assert tb.command("status")["stage"] == "idle"


def test_a_restart_draws_its_first_frame_at_once():
    data = _game_bytes()
    tb = _board_with({"v": 1, "stage": PLAY, "x_on": 0}, data)
    assert tb.board.restoring and tb.strip.seq > 0  # the pieces to put back: shown by start(), no cycle run
    assert not tb.board.dirty  # and not drawn again ahead of the host's first line


def test_resume_says_whether_it_took_a_game_up():
    tb = _board_with({"v": 1, "stage": PLAY, "x_on": 0}, _game_bytes())
    assert resume.resume(tb.board) is True


def test_a_board_without_a_snapshot_starts_idle():
    tb = TestBoard(TMP)
    tb.reboot()
    assert tb.board.stage == IDLE and tb.board.game is None
    assert resume.resume(tb.board) is False
    assert json.loads(json.dumps(tb.command("status")))["stage"] == "idle"
