"""Errors a user can act on: the CLI prints the message, no traceback, and exits non-zero."""


class UserError(Exception):
    """Bad input from the person at the keyboard (a missing file, a bad argument)."""

    exit_code = 2


class BoardError(Exception):
    """The board cannot be reached or answered wrongly."""

    exit_code = 3
