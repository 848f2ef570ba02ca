"""Only Mister X's host speaks for him (docs/fairplay.md): the lines that act on his behalf carry
an HMAC-SHA256 tag made with a key of this game, and the board refuses them without it.

- The key: 32 random bytes the host draws for each game (its OS's secure randomness) and sends
  with `setup` (`key`, 64 hex digits), on a serial port it holds alone (host/link/auth.py). The
  board keeps it in RAM only; its flash holds SHA-256 of it (`link.key` beside the journal), so
  after a power cut or a restart the host presents it again (`hello` with `key`) and the board
  takes it only if its hash matches. Nothing the board saves or sends can make a tag.
- A tag: HMAC-SHA256(key, "sy-link-1:" + session + "\\n" + the line without its tag), in hex,
  as the line's last field: `{..., "n": 7, "mac": "<64 hex>"}`. `session` is drawn by the board
  at each boot (os.urandom) and given in the `hello` reply, so a line recorded before a restart
  is worth nothing after it; `n` must grow from line to line, so one recorded since is refused
  too. The hello reply gives the last `n` taken, so a restarted host goes on from there.
- A game set up without a key (tests, tools) has nothing to check against: as a game without
  commitments, only the rules apply.

HMAC is written out here over hashlib.sha256 (RFC 2104): MicroPython has no hmac module, and its
hashlib objects have no copy(). Loaded by sy/link/proto.py once a game has a key (its hash on
flash, a setup or a hello with one): a board whose games have none never carries it.
"""
import hashlib
import os

from sy.rules.base import RuleError

DOMAIN = b"sy-link-1:"
_BLOCK = 64
MAC_FIELD = b',"mac":"'
TAG_HEX = 64
# the tail of a line with a tag: ,"mac":"<64 hex>"}
TAIL = len(MAC_FIELD) + TAG_HEX + 2
KEY_BYTES = 32
KEY_FILE = "link.key"  # (sy/link/proto.py's KEY_FILE: it looks for it without loading this module)


def pads(key, out=None):
    """HMAC's inner and outer pads of key (bytes): a bytearray of two blocks, made once per key, so
    that a line's tag allocates nothing but the two sha256 objects."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    if out is None:
        out = bytearray(2 * _BLOCK)
    for i in range(_BLOCK):
        b = key[i] if i < len(key) else 0
        out[i] = b ^ 0x36
        out[_BLOCK + i] = b ^ 0x5C
    return out


def _mac(kp, a, b=b"", c=b"", d=b"", e=b""):
    """HMAC-SHA256 with the pads kp of the message a + b + c + d + e (buffers, not joined): 32 bytes."""
    m = memoryview(kp)
    h = hashlib.sha256(m[:_BLOCK])
    for part in (a, b, c, d, e):
        h.update(part)
    outer = hashlib.sha256(m[_BLOCK:])
    outer.update(h.digest())
    return outer.digest()


def hmac_sha256(key, msg):
    """HMAC-SHA256 of msg (bytes) with key (bytes): 32 bytes."""
    return _mac(pads(key), msg)


def tag_hex(key, session, payload):
    """The hex tag of a line's payload (its bytes without the tag) in this session."""
    return "".join("%02x" % b for b in _mac(pads(key), DOMAIN, session, b"\n", payload)).encode()


def tagged(raw):
    """The length of a line's payload before its tag (the line as it was before the tag was added,
    less its closing brace), or -1 if the line has no tag where one belongs (its last field)."""
    n = len(raw)
    if n < TAIL + 2 or raw[n - 2:] != b'"}' or raw[n - TAIL:n - TAIL + len(MAC_FIELD)] != MAC_FIELD:
        return -1
    return n - TAIL


def same_hex(mac, raw, at):
    """mac (32 bytes) == the 64 lowercase hex digits of raw from at, in a time that does not tell
    where they first differ; nothing allocated."""
    d = 0
    for i in range(len(mac)):
        hi = _nibble(raw[at + 2 * i])
        lo = _nibble(raw[at + 2 * i + 1])
        d |= ((hi << 4 | lo) ^ mac[i]) | ((hi | lo) & 0x100)  # -1 (not a digit) sets bit 8
    return d == 0


def _nibble(c):
    """The value of a lowercase hex digit's byte c, or -1. (Arithmetic: MicroPython's bytes.index
    takes no int on the RPI_PICO build.)"""
    if 48 <= c <= 57:
        return c - 48
    if 97 <= c <= 102:
        return c - 87
    return -1


def key_arg(v):
    """The key from a command's field (64 lowercase hex digits) as bytes; None if absent.
    ValueError for anything else."""
    if v is None:
        return None
    if not isinstance(v, str) or len(v) != 2 * KEY_BYTES:
        raise ValueError
    raw = v.encode()
    out = bytearray(KEY_BYTES)
    for i in range(KEY_BYTES):
        hi = _nibble(raw[2 * i])
        lo = _nibble(raw[2 * i + 1])
        if hi < 0 or lo < 0:
            raise ValueError
        out[i] = hi << 4 | lo
    return out


def _hash_hex(key):
    return "".join("%02x" % b for b in hashlib.sha256(key).digest())


def _fresh_session():
    try:
        r = os.urandom(8)
    except (AttributeError, OSError):  # a port without it: the boot's ticks will do for a label
        import time
        r = b"%08x" % (time.ticks_us() if hasattr(time, "ticks_us") else int(time.time() * 1e6) & 0xFFFFFFFF)
    return "".join("%02x" % b for b in r).encode()


# the commands that act for Mister X: his moves, the claims that end the game with his proof, his
# route after the game; a take-back's consent; and, while his keyed game is on, ending it
_FOR_MRX = ("mrx", "capture", "cornered", "reveal")


def speaks_for_mrx(cmd, msg, game_on):
    if cmd in _FOR_MRX:
        return True
    if cmd == "undo":
        return bool(msg.get("consent"))
    if cmd == "setup" or cmd == "reset":
        return game_on
    return False


class LinkAuth:
    """The game's key (in RAM, once presented), the hash of it (on flash), the session and the
    last counter taken."""

    def __init__(self, folder):
        self.path = ((folder + "/") if folder else "") + KEY_FILE
        self.key = None       # bytearray, once the host gave it in this boot
        self.pads = None      # HMAC's pads of it (pads()), made once for every line's tag
        self.keyhash = None   # hex str: the game is keyed
        self.session = _fresh_session()
        self.last_n = 0
        try:
            f = open(self.path)
            try:
                text = f.read().strip()
            finally:
                f.close()
            if len(text) == 64:
                self.keyhash = text
        except OSError:
            pass

    # --- the key ------------------------------------------------------------------------------
    def begin(self, key):
        """A new game's key (bytes, or None for a game without one): its hash written to flash
        (renamed into place, so a cut leaves the old or the new) before the game is journalled."""
        if key is None:
            self.forget_game()
            return
        h = _hash_hex(key)
        tmp = self.path + ".new"
        f = open(tmp, "w")
        try:
            f.write(h)
        finally:
            f.close()
        os.rename(tmp, self.path)
        self.keyhash = h
        self._keep(key)
        self.last_n = 0

    def forget_game(self):
        """No game, or one without a key: the hash goes from flash."""
        try:
            os.remove(self.path)
        except OSError:
            pass
        self.keyhash = None
        self.wipe()

    def _keep(self, key):
        self.wipe()
        self.key = bytearray(key)
        self.pads = pads(key)

    def wipe(self):
        """Forget the key in RAM (the game loop stopping for the REPL): the host presents it again."""
        for held in (self.key, self.pads):
            if held is not None:
                for i in range(len(held)):
                    held[i] = 0
        self.key = self.pads = None

    def present(self, key):
        """The host's `hello` with the game's key: taken only if its hash is the game's.
        Returns True if taken; False for a key that is not this game's."""
        if self.keyhash is None or _hash_hex(key) != self.keyhash:
            return False
        self._keep(key)
        return True

    # --- the link's use of it (sy/link/proto.py) ---------------------------------------------
    def hello_fields(self, msg, out):
        """A hello: take the game's key if it comes with one and is the game's (a key that is not
        leaves key_ok false: the hello still answers), and add what the host needs to tag its lines
        to the reply `out`."""
        v = msg.get("key")
        if v is not None:
            try:
                key = key_arg(v)
            except ValueError:
                raise RuleError("bad_input", "field", "key")
            self.present(key)
        out["session"] = self.session.decode()
        out["auth_n"] = self.last_n
        out["keyed"] = self.keyhash is not None
        out["key_ok"] = self.key is not None

    def check(self, cmd, msg, raw, game_on):
        """Refuse (RuleError, nothing changed) a line that speaks for Mister X without his host's
        tag, in a game that has a key. game_on: a game is being set up or played (then a setup
        that replaces it, and a reset, speak for him too)."""
        if not speaks_for_mrx(cmd, msg, game_on):
            return
        why = self.verify(raw, msg.get("n"))
        if why is None:
            return
        if why == "no_key":
            raise RuleError("no_key")
        if why == "replayed":
            raise RuleError("replayed", "counter", self.last_n)
        raise RuleError("unauthenticated", "untagged", cmd)

    # --- lines --------------------------------------------------------------------------------
    def verify(self, raw, n):
        """None if line raw (with counter n from its JSON) carries a good tag of this game and
        session with a counter above the last; else the reason (an error code). Takes n if so."""
        if self.keyhash is None:
            return None  # a game without a key: nothing to check against
        if self.key is None:
            return "no_key"
        end = tagged(raw)
        if end < 0:
            return "unauthenticated"
        if not isinstance(n, int) or isinstance(n, bool) or n <= self.last_n:
            return "replayed"
        mac = _mac(self.pads, DOMAIN, self.session, b"\n", memoryview(raw)[:end], b"}")
        if not same_hex(mac, raw, end + len(MAC_FIELD)):
            return "unauthenticated"
        self.last_n = n
        return None
