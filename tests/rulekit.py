"""What the rules tests share (tests/core/test_rules_core.py, tests/firmware/fw_rules.py,
tests/firmware/fw_fairplay_rules.py): the five detectives' game they start from and the check of a
refusal. Plain code for CPython and the MicroPython unix port (tests/mpy.py compiles it into the
port's build beside the firmware)."""
from sy.rules.game import Game, RuleError

FIVE = (13, 26, 29, 34, 50)  # the detectives' start stations of the rules tests


def five(mrx=45, at=FIVE, **kw):
    """A game of five detectives, no bobbies; Mister X on `mrx` (0: a secret game, his station unknown)."""
    return Game(list(at), [], mrx, **kw)


def refused(code, fn, *args):
    """fn(*args) refuses with RuleError `code` (codes and values, no sentence); the error."""
    try:
        fn(*args)
    except RuleError as e:
        assert e.code == code, "expected %s, got %s: %s" % (code, e.code, e)
        assert str(e).startswith(code)
        return e
    raise AssertionError("expected RuleError %s from %r" % (code, args))
