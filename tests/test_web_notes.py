"""The browser view's notes (host/web/board.py NoteTap): every note the firmware writes reaches the
page once, though the firmware repeats the same lines (a piece lifted and put back, again and
again) and the page's state is made from two threads at once (its poll loop and each action)."""
import json
import shutil
import sys
import threading

from host.simulator.board import SimBoard
from host.web.board import NoteTap
from host.web.server import WebBoard


def quiet_board():
    """A SimBoard that is never started: the test writes its console as the relay would."""
    return SimBoard(config={"board": "pico"})


def test_repeated_lines_are_each_read_once():
    sim = quiet_board()
    try:
        tap = NoteTap(sim, keep=1000)
        cycle = b'{"note":"lifted","piece":"D1","station":13}\n{"note":"placed","piece":"D1","station":13}\n'
        for _ in range(6):  # the same bytes again and again, read after each
            sim._heard(cycle)
            tap.poll()
        sim._heard(cycle * 3)  # and three at once: the last bytes read match a later copy
        sim._heard(b'{"note":"illegal","piece":"D1","station":150}\n')
        tap.poll()
        got = [(n["note"], n["station"]) for n in tap.notes]
        assert got == [("lifted", 13), ("placed", 13)] * 9 + [("illegal", 150)]
    finally:
        shutil.rmtree(sim.folder, ignore_errors=True)


def test_a_line_split_across_reads_is_kept_whole():
    sim = quiet_board()
    try:
        tap = NoteTap(sim)
        sim._heard(b'{"note":"ill')
        assert not tap.poll()
        sim._heard(b'egal","station":7}\n{"id":3,"ok":true}\n')
        assert tap.poll()
        assert [(n["note"], n["station"]) for n in tap.notes] == [("illegal", 7)]
    finally:
        shutil.rmtree(sim.folder, ignore_errors=True)


def test_two_threads_making_the_state_lose_no_note():
    sim = quiet_board()
    switch = sys.getswitchinterval()
    try:
        wb = WebBoard(sim)
        wb.phys.tap.keep = 100000
        total = 1000  # ~50 KB: all within the console tail a SimBoard keeps
        stop = threading.Event()

        def firmware():  # notes written in pieces, as a serial port delivers them
            for k in range(total):
                line = json.dumps({"note": "illegal", "station": k % 199 + 1, "k": k}).encode() + b"\n"
                sim._heard(line[:9])
                sim._heard(line[9:])
            stop.set()

        def page():
            while not stop.is_set():
                wb.make_state()

        sys.setswitchinterval(1e-6)  # threads interleave as often as they can: races show
        threads = [threading.Thread(target=firmware)] + [threading.Thread(target=page) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        wb.make_state()
        assert [n["k"] for n in wb.phys.tap.notes] == list(range(total))
    finally:
        sys.setswitchinterval(switch)
        shutil.rmtree(sim.folder, ignore_errors=True)
