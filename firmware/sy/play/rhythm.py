"""The LEDs' second channel beside colour (board.json leds.patterns; docs/colour-vision.md): a
transport's rhythm and a piece's count, as a level or a lit/dark at the time in ms. Integer
arithmetic only: sy/play/board.py calls these for every lit station of every frame. A module of
its own, loaded only on a board that turns the rhythms on, so the others' heap does not grow."""
try:
    from micropython import const
except ImportError:  # CPython
    from sy.compat import const

# each transport's rhythm fills one 1.2 s window: taxi steady, bus a slow pulse (one breath),
# underground a double blink; a piece's empty station blinks the detective's number in the same
# window, a Bobby's one long flash
PATTERN_MS = const(1200)
_BLINK_MS = const(100)  # the underground's flashes, and a piece's, on and off


def transport_level(t, now):
    """The level (0..256, 256 the full colour) of transport t's rhythm at time now (ms)."""
    k = now % PATTERN_MS
    if t == 1:  # bus: full at the window's start, down to a sixth and up again, never dark
        k = k if k < PATTERN_MS // 2 else PATTERN_MS - k
        return 256 - k * 213 // (PATTERN_MS // 2)
    if t == 2:  # underground: two short flashes, then dark
        return 256 if k < 4 * _BLINK_MS and (k // _BLINK_MS) & 1 == 0 else 0
    return 256  # taxi: steady


def piece_lit(piece, n_detectives, now):
    """Whether a piece's empty station is lit at time now: its number in flashes (a Bobby: one
    long flash), then dark till the next 1.2 s (D5's last flash ends 300 ms before)."""
    k = now % PATTERN_MS
    if piece >= n_detectives:
        return k < 6 * _BLINK_MS
    return k < 2 * _BLINK_MS * (piece + 1) and (k // _BLINK_MS) & 1 == 0
