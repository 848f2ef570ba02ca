"""The game paused while the reader chain lies (sy/hardware/reeds.py checks it in every scan): what
the host hears and what the players see, for either game's board. Loaded when the chain begins to
lie (each game's main loop calls follow()) and dropped when it is whole again: a board whose chain
never lies pays no heap for it.

While it lies the reeds read as the last good scan and the buttons are held (the main loop): nothing
is taken from the board. The status and a note carry the code {"code": "chain_broken", "fault":
"short"|"long", "after_module": k} (broken or mis-clocked after module k, -1: before module 0),
which the host speaks (host/refusals.py). The stations of the first module not heard flash amber,
two short beats a second (a rhythm no other state has, so it reads without its colour); the
pieces glow dim.

What it asks of the main loop (`app`): chain (the inputs, with chain_fault and chain_kind),
chain_fault and chain_kind (its own copy, set here), board, link, debouncer, bitmap, bit_station,
nbits, chips. Of the game's board: pause_for(pause or None) (kept, and render() calls draw()
while it is set), read_reeds(bitmap, bit_station, nbits), await_pieces() (takes no move until the
pieces stand where the game has them) and draw_pieces_dim()."""
import sys

from sy import forget
from sy.hardware.reeds import CHAIN_OK, SHORT

CHAIN_RGB = (255, 96, 0)
_PERIOD_MS = 1000  # lit 0-120 and 240-360 ms of each period


# where the chain lies, while it does (this module's own: it is loaded only then)
after = CHAIN_OK  # the last module heard before the chain lied (-1: none)
long = False  # a bit taken twice (else lost, or the chain cut)
stations = b""  # the stations of the module it lies at (0: an input no station uses)


def follow(app):
    """The chain's check changed (the main loop saw app.chain say other than app.chain_fault and
    app.chain_kind): the game paused or going on; whole again, this module is dropped."""
    chain = app.chain
    fault = app.chain_fault = chain.chain_fault
    kind = app.chain_kind = chain.chain_kind
    changed(app, fault, kind)
    if fault == CHAIN_OK:
        forget("play.chainpause")


def changed(app, fault, kind):
    """The chain began to lie (fault: the last module heard) or is whole again (CHAIN_OK)."""
    global after, long, stations
    board = app.board
    game = getattr(board, "game_board", board)  # (service mode: the game's board behind it)
    if fault == CHAIN_OK:
        game.pause_for(None)
        if game is board:  # (service mode's leave re-reads the reeds itself)
            # the pieces as they stand now; a game in play takes nothing the players did while
            # the board could not see until they agree with it again, as after a power cut: the
            # board saw only the sum of what happened meanwhile
            app.debouncer.prime(app.bitmap)
            game.read_reeds(app.bitmap, app.bit_station, app.nbits)
            game.await_pieces()
        _note(app, {"note": "chain", "code": None})
        return
    # the first module not heard shows where (the last one if it was the last heard)
    m = min(fault + 1, app.chips - 1)
    after, long, stations = fault, kind != SHORT, bytes(app.bit_station[8 * m:8 * m + 8])
    game.pause_for(sys.modules[__name__])
    note = code()
    note["note"] = "chain"
    _note(app, note)


def _note(app, obj):
    """A note is sent as the board's other unasked lines are (sy/link/proto.py's note): a line that
    cannot be written is dropped, never the scan loop; the status carries the same code."""
    try:
        app.link.send_json(obj)
    except Exception:
        pass


def code():
    """The pause's code and fields, for the status and the note."""
    return {"code": "chain_broken", "fault": "long" if long else "short", "after_module": after}


def draw(board, now):
    """The frame while the chain lies (the board has cleared it). No allocation."""
    L = board.leds
    t = now % _PERIOD_MS
    if t < 120 or 240 <= t < 360:
        st = stations
        for i in range(len(st)):
            if st[i]:
                L.put(st[i], CHAIN_RGB[0], CHAIN_RGB[1], CHAIN_RGB[2])
    board.draw_pieces_dim()
