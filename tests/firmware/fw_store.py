"""The board's storage (sy/storage/store.py, with sy/storage/resume.py reading it back) as plain
functions: tests/test_firmware_units.py runs them under CPython and under the MicroPython unix port.
What tests/firmware/fw_cases.py leaves out: reset() leaving nothing behind, the journal's counts,
lines() from a given seq, the snapshot's rotation and its file layout."""
import json
import os
import sys

if sys.implementation.name != "micropython":
    _ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tests")):
        if p not in sys.path:
            sys.path.insert(0, p)

from binascii import crc32

from sy.storage.store import Store, MAGIC, exists
from sy.storage import resume
from testkit import scratch, _rmtree, fresh_store, read_file, write_file, watch_journal_readers

TMP = scratch("sy-fwtest-store-units")


def test_append_counts_lines_and_bytes():
    st = fresh_store(TMP)
    assert (st.seq, st.jlen, st.writes) == (0, 0, 0)
    assert st.append('{"type": "setup"}') == 1
    assert st.append('{"a": 1}') == 2
    assert st.seq == 2 and st.writes == 2
    assert st.jlen == len('{"type": "setup"}\n{"a": 1}\n')
    assert read_file(TMP + "/game.jsonl") == b'{"type": "setup"}\n{"a": 1}\n'


def test_lines_from_a_seq_and_only_what_the_store_counts():
    st = fresh_store(TMP)
    for k in range(1, 6):
        st.append('{"k": %d}' % k)
    assert list(st.lines()) == [(k, '{"k": %d}' % k) for k in range(1, 6)]
    assert list(st.lines(4)) == [(4, '{"k": 4}'), (5, '{"k": 5}')]
    assert list(st.lines(6)) == []
    st.jlen -= len('{"k": 5}\n')  # a line past what the store counts (appended, then a power cut)
    assert [s for s, _t in st.lines()] == [1, 2, 3, 4]


def test_lines_of_a_store_without_a_journal():
    st = fresh_store(TMP)
    assert list(st.lines()) == []
    assert list(st.lines_at(0)) == []


def test_lines_holding_a_mark_keep_their_seq():
    st = fresh_store(TMP)
    for text in ('{"type": "setup"}', '{"type": "move"}', '{"type": "mrx"}', '{"type": "move"}', '{"type": "mrx"}'):
        st.append(text)
    assert list(st.lines(1, ('"mrx"',))) == [(3, '{"type": "mrx"}'), (5, '{"type": "mrx"}')]
    assert [s for s, _t in st.lines(1, ('"setup"', '"mrx"'))] == [1, 3, 5]
    assert [s for s, _t in st.lines(4, ('"setup"', '"mrx"'))] == [5]
    assert list(st.lines(1, ('"undo"',))) == []
    assert [s for s, _t in st.lines(2, ())] == [2, 3, 4, 5]  # no marks: every line
    # a reader that stops early closes the journal (MicroPython closes no generator it drops)
    open_files, _original = watch_journal_readers(st)
    reader = st.lines(1)
    assert next(reader) == (1, '{"type": "setup"}') and open_files == [1]
    reader.close()
    assert open_files == [0]


def test_lines_at_a_byte_offset_come_back_to_a_line():
    st = fresh_store(TMP)
    texts = ['{"k": %d}' % k for k in (1, 22, 333)]
    for text in texts:
        st.append(text)
    at = [0, len(texts[0]) + 1, len(texts[0]) + len(texts[1]) + 2]
    assert list(st.lines_at(0)) == [(a, t + "\n") for a, t in zip(at, texts)]
    assert list(st.lines_at(at[1])) == [(at[1], texts[1] + "\n"), (at[2], texts[2] + "\n")]
    assert list(st.lines_at(at[2])) == [(at[2], texts[2] + "\n")]
    st.jlen = at[2]  # the last line past what the store counts (appended, then a power cut)
    assert list(st.lines_at(at[1])) == [(at[1], texts[1] + "\n")]
    assert list(st.lines_at(at[2])) == []


def test_a_snapshot_file_holds_its_checksum_header_and_data():
    st = fresh_store(TMP)
    st.append('{"type": "setup"}')
    st.save({"stage": 3}, b"\x00\x01\xfe")
    data = read_file(TMP + "/state.bin")
    assert data[:4] == MAGIC
    body = data[13:]
    assert int(data[4:12], 16) == crc32(body) & 0xFFFFFFFF and data[12:13] == b"\n"
    nl = body.find(b"\n")
    assert json.loads(body[:nl]) == {"stage": 3, "jlen": st.jlen, "seq": 1}
    assert body[nl + 1:] == b"\x00\x01\xfe"
    assert not exists(TMP + "/state.tmp") and not exists(TMP + "/state.bak")
    assert st.writes == 2


def test_a_snapshot_without_game_bytes():
    st = fresh_store(TMP)
    st.save({"stage": 0}, b"")
    header, data = resume.load(Store(TMP))
    assert header["stage"] == 0 and data == b""


def test_snapshots_rotate_through_the_previous_copy():
    st = fresh_store(TMP)
    for stage in (1, 2, 3):
        st.append('{"stage": %d}' % stage)
        st.save({"stage": stage}, bytes([stage]))
    assert resume._read(TMP + "/state.bin")[1] == b"\x03"
    assert resume._read(TMP + "/state.bak")[1] == b"\x02"
    write_file(TMP + "/state.bin", b"SY1\n00000000\n{}\n")  # the newest damaged: the one before wins
    st2 = Store(TMP)
    header, data = resume.load(st2)
    assert header["stage"] == 2 and data == b"\x02" and st2.seq == 2
    assert [t for _s, t in st2.lines()] == ['{"stage": 1}', '{"stage": 2}']


def test_reset_leaves_nothing_behind():
    st = fresh_store(TMP)
    for k in range(3):
        st.append('{"k": %d}' % k)
        st.save({"stage": k}, b"\x01")
    for name in ("state.tmp", "game.old", "game.trim"):  # what a power cut may leave
        write_file(TMP + "/" + name, b"left over")
    st.reset()
    assert (st.seq, st.jlen) == (0, 0)
    assert os.listdir(TMP) == []
    assert list(st.lines()) == []
    assert resume.load(Store(TMP)) is None
    assert st.append('{"type": "setup"}') == 1  # a new game starts its journal at seq 1
    assert list(st.lines()) == [(1, '{"type": "setup"}')]


def test_a_store_makes_its_folder_once():
    _rmtree(TMP)
    st = Store(TMP)
    assert exists(TMP)
    st.append("{}")
    st2 = Store(TMP)  # the folder is there: kept, with its journal
    assert exists(TMP + "/game.jsonl") and st2.seq == 0
    assert st2.journal == TMP + "/game.jsonl" and st2.state == TMP + "/state.bin"


def test_a_store_in_the_current_folder():
    st = Store("")  # no folder: the files beside the running code (nothing is written yet)
    assert (st.journal, st.state, st.bak, st.tmp) == ("game.jsonl", "state.bin", "state.bak", "state.tmp")


def test_lines_stop_at_the_end_of_a_journal_shorter_than_counted():
    # the journal lost its tail (a power cut the file system did not survive whole) while the
    # snapshot counts more bytes: lines() gives what is there and ends
    st = fresh_store(TMP)
    for k in range(3):
        st.append('{"k": %d}' % k)
    st.jlen += 100
    assert [s for s, _t in st.lines()] == [1, 2, 3]


def test_lines_never_read_past_the_counted_bytes():
    # a count that ends inside a line (a journal written by another build): that line is the last
    st = fresh_store(TMP)
    for k in range(5):
        st.append('{"k": %d}' % k)
    st.jlen = len('{"k": 0}\n{"k": 1}\n{"k"')
    assert [s for s, _t in st.lines()] == [1, 2, 3]


def _crc_table():
    t = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        t.append(c)
    return t


def _forge(crc, target):
    """4 bytes that, appended to data whose CRC-32 is crc, make the CRC-32 `target` (the CRC
    run backwards: each table entry has a top byte of its own)."""
    t = _crc_table()
    top = {}
    for j in range(256):
        top[t[j] >> 24] = j
    r = target ^ 0xFFFFFFFF
    used = []
    for _ in range(4):
        j = top[r >> 24]
        used.insert(0, j)
        r = ((r ^ t[j]) << 8) & 0xFFFFFFFF
    r = crc ^ 0xFFFFFFFF
    out = bytearray(4)
    for k in range(4):
        out[k] = (r ^ used[k]) & 0xFF
        r = (r >> 8) ^ t[used[k]]
    return bytes(out)


def test_a_snapshot_whose_checksum_is_all_ones():
    st = fresh_store(TMP)
    header = {"stage": 5, "jlen": 0, "seq": 0}  # as save() completes it: the same JSON
    h = json.dumps(header).encode()
    game = _forge(crc32(b"\n", crc32(h)), 0xFFFFFFFF)
    assert crc32(game, crc32(b"\n", crc32(h))) & 0xFFFFFFFF == 0xFFFFFFFF
    st.save(header, game)
    assert read_file(TMP + "/state.bin")[4:13] == b"ffffffff\n"
    assert resume.load(Store(TMP)) == ({"stage": 5, "jlen": 0, "seq": 0}, game)


# --- the snapshot written over in place on littlefs (sy/storage/store.py) ------------------
def test_only_littlefs_takes_a_snapshot_written_over_in_place():
    from sy.storage.resume import replaced_whole
    assert not replaced_whole(TMP)  # a POSIX folder (or CPython): copied and renamed
    if sys.implementation.name != "micropython":
        return
    # MicroPython's littlefs on a block device in RAM, mounted beside the POSIX folders

    class Ram:
        def __init__(self):
            self.buf = bytearray(b"\xff" * (16 * 512))

        def readblocks(self, n, buf, off=0):
            buf[:] = self.buf[n * 512 + off:n * 512 + off + len(buf)]

        def writeblocks(self, n, buf, off=None):
            if off is None:
                off = 0
            self.buf[n * 512 + off:n * 512 + off + len(buf)] = buf

        def ioctl(self, op, arg):
            return 16 if op == 4 else 512 if op == 5 else 0
    ram = Ram()
    os.VfsLfs2.mkfs(ram)
    os.mount(os.VfsLfs2(ram), "/fw_store_lfs")
    try:
        assert replaced_whole("/fw_store_lfs/game") and replaced_whole("/fw_store_lfs")
        assert not replaced_whole(TMP)
        st = Store("/fw_store_lfs/game")
        assert resume.load(st) is None  # at boot: nothing saved yet, and the store told it is on littlefs
        assert st.in_place
        st.append('{"type": "setup"}')
        st.save({"stage": 1}, b"\x01")
        st.save({"stage": 2}, b"\x02")
        assert sorted(os.listdir("/fw_store_lfs/game")) == ["game.jsonl", "state.bin"]  # no copy kept
        st2 = Store("/fw_store_lfs/game")
        header, data = resume.load(st2)
        assert data == b"\x02" and [t for _s, t in st2.lines()] == ['{"type": "setup"}']
    finally:
        os.umount("/fw_store_lfs")
