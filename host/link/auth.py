"""The host's half of the link's authentication (docs/fairplay.md; the board's half:
firmware/sy/link/auth.py): the lines that speak for Mister X carry an HMAC-SHA256 tag with a key
of this game, and the port is held by this host alone while the key travels and the game runs.

    key = new_key()                          # at setup: sent once as setup's `key` (hex)
    signer = Signer(key, session, last_n)    # session and last_n from the board's hello reply
    line = signer.line({"cmd": "mrx", ...})  # bytes, with "n" and "mac" added
    claim_port(ser)                          # after opening the port: no one else may open it

A second program on the port is the threat: it could read the key as it travels and write lines
of its own. `claim_port` makes the tty exclusive (TIOCEXCL: any later open fails, root aside)
and refuses a port another process of this user already holds open (found in /proc), so the key
is sent only to the board. pyserial's own `exclusive=True` is an advisory flock, which a program
that does not ask for the lock never meets.
"""
import hmac
import hashlib
import json
import os
import secrets

from host.errors import BoardError
from host.i18n import _

DOMAIN = b"sy-link-1:"
KEY_BYTES = 32
# the commands that speak for Mister X: tagged whenever the game has a key (the board refuses them
# untagged). `undo` only with `consent`, `setup` and `reset` only while a keyed game is on: both
# are decided by the board; a tag on any other line is harmless, so the host tags them all.
SPEAKS_FOR_MRX = ("mrx", "capture", "cornered", "reveal", "undo", "setup", "reset")


def new_key():
    """A game's key: 32 bytes of the OS's secure randomness."""
    return secrets.token_bytes(KEY_BYTES)


def tag(key, session, payload):
    """The hex tag of a line's payload (its JSON bytes without the tag)."""
    return hmac.new(key, DOMAIN + session.encode() + b"\n" + payload, hashlib.sha256).hexdigest()


def signed_line(key, session, n, obj):
    """obj (a command dict) as one JSON line (bytes, no newline) with counter n and its tag last."""
    body = dict(obj)
    body.pop("mac", None)
    body["n"] = n
    payload = json.dumps(body, separators=(",", ":")).encode()
    return payload[:-1] + b',"mac":"' + tag(key, session, payload).encode() + b'"}'


class Signer:
    """Tags lines for one board session: the board's `session` and the last counter it took
    (both in its hello reply, `session` and `auth_n`)."""

    def __init__(self, key, session, last_n=0):
        self.key = key
        self.session = session
        self.n = last_n

    def line(self, obj):
        self.n += 1
        return signed_line(self.key, self.session, self.n, obj)


class LinkKey:
    """The host's side of a game's key on one link (host/link/boardlink.py holds one): which lines
    it tags, what hello carries, what the board's replies tell it. No key: it tags nothing.

        key = LinkKey(bytes_or_None)
        key.hello_args()              # {"key": hex} to add to hello, or {}
        key.line(msg)                 # the tagged bytes of a command dict, or None (send it as is)
        key.took(cmd, args, reply)    # after each reply: a setup with a key, a hello's session
    """

    def __init__(self, key=None):
        self.key = key
        self.signer = None

    def hello_args(self):
        return {"key": self.key.hex()} if self.key else {}

    def line(self, msg):
        if self.signer is None or msg.get("cmd") not in SPEAKS_FOR_MRX:
            return None
        return self.signer.line(msg)

    def took(self, cmd, args, reply):
        """The board's reply to cmd (args as sent): the session to tag for, the last counter taken."""
        if cmd == "setup" and reply.get("ok"):
            if args.get("key"):
                self.key = bytes.fromhex(args["key"])
                self.signer = Signer(self.key, reply["session"], reply.get("auth_n", 0))
            else:
                self.key = self.signer = None  # a game without a key
        elif cmd == "hello" and reply.get("ok") and self.key and reply.get("key_ok"):
            self.signer = Signer(self.key, reply["session"], reply.get("auth_n", 0))

    def lost(self, code):
        """True if the board's refusal (code) means it wants the key again: send hello, then retry."""
        return self.key is not None and code in ("no_key", "replayed")


class PortShared(BoardError):
    """Another program holds the board's port: the key must not travel on it."""


def _ancestors():
    """The pids of this process and those that started it (from /proc)."""
    out = set()
    pid = os.getpid()
    while pid > 1 and pid not in out:
        out.add(pid)
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def other_holders(path):
    """[(pid, command)] of the other processes of this user holding `path` (a device) open,
    from /proc (Linux); [] where /proc cannot tell. This process and those that started it do not
    count: they could change what it does anyway (the simulator that made the port is one)."""
    try:
        target = os.stat(path)
    except OSError:
        return []
    out = []
    mine = _ancestors()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in pids:
        if pid in mine:
            continue
        fds = "/proc/%d/fd" % pid
        try:
            names = os.listdir(fds)
        except OSError:
            continue  # another user's process, or gone
        for fd in names:
            try:
                st = os.stat(os.path.join(fds, fd))
            except OSError:
                continue
            if st.st_rdev == target.st_rdev and st.st_rdev and (st.st_ino, st.st_dev) == (target.st_ino, target.st_dev):
                try:
                    with open("/proc/%d/comm" % pid) as f:
                        comm = f.read().strip()
                except OSError:
                    comm = "?"
                out.append((pid, comm))
                break
    return out


def claim_port(ser, path=None):
    """Make the open serial port `ser` this process's alone: TIOCEXCL (later opens fail), then
    refuse it (PortShared) if another process of this user already has it open. A port that is
    not a tty (a socket://, loop://) has nothing to claim."""
    fd = getattr(ser, "fd", None)
    path = path or getattr(ser, "port", None)
    if fd is None or not path or not os.path.exists(path):
        return
    import fcntl
    import termios
    try:
        fcntl.ioctl(fd, termios.TIOCEXCL)
    except OSError:
        return  # not a tty
    holders = other_holders(os.path.realpath(path))
    if holders:
        raise PortShared(_("another program has the board's port %(port)s open (%(programs)s): close it first, it "
                           "could read and write what Mister X's host says")
                         % {"port": path, "programs": ", ".join("%s, pid %d" % (c, p) for p, c in holders)})


def release_port(ser):
    """Let other programs open the port again (TIOCNXCL), e.g. before handing it to mpremote."""
    fd = getattr(ser, "fd", None)
    if fd is None:
        return
    import fcntl
    import termios
    try:
        fcntl.ioctl(fd, termios.TIOCNXCL)
    except OSError:
        pass
