"""The board's LED colours as the tests look for them on the strip.

The logical colours come from the firmware (sy/play/board.py), never typed again here: a colour
changed there changes what the tests expect. What the tests state on their own is how a logical
colour reaches the strip at the default brightness (board.json 0.25: 64/256, a lit channel never
goes dark), and that Mister X's surfacing flashes white (the firmware writes it as 255, 255, 255
where it draws it, not as a named colour).
"""
import time

from sy.play.board import PIECE_RGB, TRANSPORT_RGB, _ERROR

SCALE = 64  # board.json brightness 0.25, of 256


def _rgb(table, k):
    return tuple(table[3 * k:3 * k + 3])


TAXI_RGB, BUS_RGB, UG_RGB = (_rgb(TRANSPORT_RGB, t) for t in range(3))
TRANSPORT_NAMES_RGB = {"taxi": TAXI_RGB, "bus": BUS_RGB, "underground": UG_RGB}
PIECES_RGB = [_rgb(PIECE_RGB, k) for k in range(len(PIECE_RGB) // 3)]  # D1..D5, then every bobby (index 5)
ERROR_RGB = tuple(_ERROR)
WHITE_RGB = (255, 255, 255)


def shown(c, kind=tuple):
    """A logical colour as it reaches the strip at brightness 0.25 (a lit channel stays lit);
    kind=bytes for the emulated Pico's frames."""
    return kind(((v * SCALE) >> 8) or 1 if v else 0 for v in c)


def at_level(c, lvl):
    """A logical colour drawn at level lvl of 256 (a piece that blinks is drawn at 255)."""
    return tuple((v * lvl) >> 8 for v in c)


TAXI, BUS, UG = shown(TAXI_RGB), shown(BUS_RGB), shown(UG_RGB)
TRANSPORT = {name: shown(c) for name, c in TRANSPORT_NAMES_RGB.items()}
PIECES = [shown(c) for c in PIECES_RGB]
ERROR = shown(ERROR_RGB)
WHITE = shown(WHITE_RGB)


def frames(sim, station, seconds=1.2):
    """Every colour a SimBoard's station showed in the next `seconds` (sampled every 20 ms)."""
    seen = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.add(sim.leds()[station])
        time.sleep(0.02)
    return seen
