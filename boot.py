"""The board's boot file: runs before main.py at every power-up and soft reset.

- an emergency exception buffer, so an exception raised where the heap is locked still reports;
- safe mode: the button on safe_mode_pin held at power-up skips the game (main.py returns at
  once), so the REPL and mpremote are free even if the game crashes at start.
"""
import micropython

if hasattr(micropython, "alloc_emergency_exception_buf"):  # not on the unix port
    micropython.alloc_emergency_exception_buf(100)


def _safe_pin():
    """safe_mode_pin from board.json without building the whole config (the file is large)."""
    try:
        f = open("board.json")
    except OSError:
        return None
    try:
        head = f.read(4096)
    finally:
        f.close()
    k = head.find('"safe_mode_pin"')
    if k < 0:
        return None
    rest = head[head.find(":", k) + 1:].lstrip()
    digits = ""
    for c in rest:
        if c.isdigit():
            digits += c
        else:
            break
    return int(digits) if digits else None


def _safe_mode():
    try:
        from machine import Pin
    except ImportError:  # the unix port: no buttons
        return False
    pin = _safe_pin()
    if pin is None:
        # no board.json, or safe_mode_pin is null: there is no safe-mode button. No fallback
        # pin: a guessed pin may be a strapping pin or wired to something else on this board.
        return False
    p = Pin(pin, Pin.IN, Pin.PULL_UP)
    return p.value() == 0


import sy  # noqa: E402  (the package loads after the safe-mode check above is defined)

sy.safe_mode = _safe_mode()
if sy.safe_mode:
    print('{"note": "safe_mode"}')  # the game does not start; the REPL is free
