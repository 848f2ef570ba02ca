"""What the link's command handling shares (docs/protocol.md): the protocol's and the firmware's
versions, ProtoError (a refused command), and the checks of a command's fields. The bottom of the
link: sy/link/proto.py (the line dispatcher), sy/link/handlers.py (the game's commands) and
sy/link/service.py (service mode's) import this."""
from sy.rules.base import RuleError, TICKET_NAMES

PROTO = 1
FIRMWARE = "0.1.2"


ProtoError = RuleError  # a refused command: the same code and sentence as a refused move


def ticket_arg(name, what="ticket"):
    if name not in TICKET_NAMES:
        raise ProtoError("bad_input", "field", what)
    return TICKET_NAMES.index(name)


def station_arg(v, what="to", required=False):
    """A station number from a command's field; 0 for a field left out (unless required)."""
    if v is None and not required:
        return 0
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 199:
        raise ProtoError("bad_input", "field", what)
    return v


_HEX = b"0123456789abcdef"  # as sy/rules/commit.py's (a module loaded only after the game)


def commit_arg(v):
    # journalled as given: anything but lowercase hex (what sy/rules/commit.py makes) would never
    # match, and a character outside ASCII would break the journal's byte count (Store.jlen).
    # Checked as bytes, as commit.valid_salt does: MicroPython interns each 1-character string
    if v is None:
        return None
    if not isinstance(v, str) or len(v) != 64 or not all(c in _HEX for c in v.encode()):
        raise ProtoError("bad_input", "field", "commit")
    return v


# what a step of a long answer yields before one that makes much garbage of its own (the reveal's
# verdict, saved to flash): the loop collects the steps' garbage first (sy/app.py)
COLLECT_FIRST = 1
