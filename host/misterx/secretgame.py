"""Mister X's side of a game on the host: the full rules, the secret log, the commitments.

The secret log is a game record (docs/game-record.md) with Mister X's stations, plus two
extra keys on setup and on every Mister X entry: `commit` (what the board was sent) and `salt`
(kept secret until the end). It is saved after every change, atomically, mode 0600, so that
`yard play --resume` continues after a crash. The same file, once the game is over, is what
`yard verify` checks: every salt against its commitment, every move against the rules.
"""
import copy
import json
import os
import random
import secrets
import time

from host import refusals
from host.errors import UserError
from host.i18n import _
from host.link.auth import new_key
from sy.rules import commit as commitlib
from sy.rules import mapgraph, mrxmoves
from host.misterx.record import setup_game
from sy.rules.game import RuleError, TICKET_NAMES, BLACK

BOBBIES = {2: 2, 3: 1, 4: 0, 5: 0}


def default_dir():
    return os.environ.get("YARD_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "yard")


def new_salt():
    """16 fresh random bytes as base64url (22 characters, see sy/rules/commit.py)."""
    return secrets.token_urlsafe(commitlib.MIN_SALT_BYTES)


def draw_setup(players, rng=None, detectives=None, mrx=None, graph=None):
    """A setup line (dict with Mister X's start) for `players` detective players (1-5).

    One player means the two-player game: 2 detectives sharing one stock, 2 bobbies.
    Start stations are drawn from the D and X cards unless given by hand (detectives: the
    stations of the detectives then the bobbies)."""
    if not isinstance(players, int) or not 1 <= players <= 5:
        raise UserError(_("the number of detectives is 1 to 5 (1 = the two-player game)"))
    g = graph or mapgraph.load()
    rng = rng or random.SystemRandom()
    n = 2 if players == 1 else players
    pieces = n + BOBBIES[n]
    if detectives is None:
        detectives = rng.sample(list(g.d_cards), pieces)
    elif len(detectives) != pieces:
        raise UserError(_("%(needed)d start stations needed (%(detectives)d detectives, %(bobbies)d bobbies), got "
                          "%(got)d") % {"needed": pieces, "detectives": n, "bobbies": BOBBIES[n], "got": len(detectives)})
    if mrx is None:
        mrx = rng.choice([s for s in g.x_cards if s not in detectives])
    line = {"type": "setup", "detectives": list(detectives[:n]), "bobbies": list(detectives[n:]),
            "mrx": mrx}
    if players == 1:
        line["two_player"] = True
    try:
        setup_game(line)  # the rules' own checks: stations, duplicates
    except RuleError as e:
        raise UserError(refusals.of(e))
    return line


def _step_entry(ticket, to):
    salt = new_salt()
    return {"ticket": TICKET_NAMES[ticket], "to": to, "commit": commitlib.commitment(to, salt), "salt": salt}


def public_line(line):
    """What the board may know of a secret-log line: no hidden station, no salt."""
    kind = line.get("type")
    if kind == "setup":
        out = {k: v for k, v in line.items() if k not in ("mrx", "salt")}
        out["mrx"] = None
        return out
    if kind != "mrx":
        return dict(line)
    if "double" in line:
        return {"type": "mrx", "double": [_public_step(s) for s in line["double"]]}
    return dict(_public_step(line), type="mrx")


def _public_step(step):
    out = {"ticket": step["ticket"], "commit": step.get("commit")}
    if step.get("shown"):
        out["to"] = step["to"]
    return out


class SecretGame:
    """The full game as Mister X knows it, and its secret log on disk."""

    def __init__(self, path, lines):
        self.path = path
        self.lines = lines
        self.game = setup_game(lines[0])
        for line in lines[1:]:
            self._apply(line)

    # --- creating, saving, loading ----------------------------------------------------------
    @classmethod
    def create(cls, setup, folder=None, path=None):
        setup = dict(setup)
        setup.setdefault("game", "%s-%s" % (time.strftime("%Y%m%d-%H%M%S"), secrets.token_hex(3)))
        setup["salt"] = new_salt()
        setup["commit"] = commitlib.commitment(setup["mrx"], setup["salt"])
        setup["started"] = int(time.time())
        if path is None:
            folder = folder or default_dir()
            path = os.path.join(folder, "game-%s.jsonl" % setup["game"])
        self = cls(path, [setup])
        self.save()
        return self

    @classmethod
    def load(cls, path):
        try:
            with open(path, encoding="utf-8") as f:
                lines = [json.loads(t) for t in f if t.strip()]
        except OSError as e:
            raise UserError(_("cannot read the secret log %(file)s: %(error)s") % {"file": path, "error": e.strerror or e})
        except ValueError:
            raise UserError(_("the secret log %(file)s is damaged (not JSON lines)") % {"file": path})
        if not lines or lines[0].get("type") != "setup":
            raise UserError(_("%(file)s is not a secret log (no setup line)") % {"file": path})
        try:
            return cls(path, lines)
        except RuleError as e:
            raise UserError(_("the secret log %(file)s does not replay: %(refusal)s") % {"file": path, "refusal": refusals.of(e)})

    def save(self):
        """Write the whole log atomically, readable by its owner only."""
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, mode=0o700, exist_ok=True)
        tmp = self.path + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for line in self.lines:
                f.write(json.dumps(line) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)

    # --- the game ---------------------------------------------------------------------------
    @property
    def setup(self):
        return self.lines[0]

    @property
    def link_key(self):
        """The game's key for the lines that speak for Mister X on a board (host/link/auth.py,
        docs/fairplay.md), drawn when a board first needs it and kept in this log (its owner's
        only, as the salts)."""
        if not self.setup.get("link_key"):
            self.setup["link_key"] = new_key().hex()
            self.save()
        return bytes.fromhex(self.setup["link_key"])

    @property
    def game_id(self):
        return self.setup.get("game")

    @property
    def over(self):
        return self.game.result is not None

    @property
    def unfinished(self):
        """Not over, or over but the salts never reached the board."""
        return not self.over or not self.setup.get("revealed")

    def _apply(self, line):
        g = self.game
        if line["type"] == "mrx":
            if "double" in line:
                a, b = line["double"]
                g.mrx_double(TICKET_NAMES.index(a["ticket"]), a["to"], TICKET_NAMES.index(b["ticket"]), b["to"])
            else:
                g.mrx_move(TICKET_NAMES.index(line["ticket"]), line["to"])
        elif line["type"] == "move":
            piece = g.piece_index(line["piece"])
            t = line.get("ticket")
            g.move(piece, TICKET_NAMES.index(t) if t else None, line["to"])
        elif line["type"] == "end":
            if g.result is None and line.get("reason") == "mrx_stuck":
                g.mrx_cornered()

    def mrx_move(self, ticket, to):
        """Play, log and save one move. Returns the new log line. RuleError if refused."""
        g = self.game
        before = g.moves
        g.mrx_move(ticket, to)
        step = _step_entry(ticket, to)
        if (before + 1) in g.reveals:
            step["shown"] = True
        line = dict(step, type="mrx")
        self.lines.append(line)
        self.save()
        return line

    def mrx_double(self, t1, to1, t2, to2):
        g = self.game
        before = g.moves
        g.mrx_double(t1, to1, t2, to2)
        a, b = _step_entry(t1, to1), _step_entry(t2, to2)
        if (before + 1) in g.reveals:
            a["shown"] = True
        if (before + 2) in g.reveals:
            b["shown"] = True
        line = {"type": "mrx", "double": [a, b]}
        self.lines.append(line)
        self.save()
        return line

    def detective_move(self, piece_name, ticket_name, to):
        """A detective's or bobby's move (from the board). Returns the log line."""
        g = self.game
        piece = g.piece_index(piece_name)
        ticket = TICKET_NAMES.index(ticket_name) if ticket_name else None
        g.move(piece, ticket, to)
        line = {"type": "move", "piece": piece_name, "to": to}
        if ticket_name:
            line["ticket"] = ticket_name
        self.lines.append(line)
        self.save()
        return line

    def take_back(self, piece_name=None):
        """The board took back the last detective's or bobby's move of this turn (of piece_name, if
        given): the game as before it, and the move gone from the log (a record holds only the moves
        that stand). Returns the log line taken back. RuleError if there is none."""
        g = self.game
        if piece_name is not None and g.n_turn and g.piece_name(g.turn[3 * g.n_turn - 3] & 0x7F) != piece_name:
            raise RuleError("wrong_turn", "not_last", piece_name)
        g.take_back()
        k = max(i for i, line in enumerate(self.lines) if line.get("type") == "move")
        line = self.lines.pop(k)
        self.save()
        return line

    def withdraw_mrx(self):
        """Drop Mister X's last move, which the board refused because the detectives took back a
        move meanwhile (it never reached the board): the game as before it."""
        assert self.lines[-1].get("type") == "mrx"
        self.lines.pop()
        self.game = SecretGame(self.path, self.lines).game
        self.save()

    def cornered(self):
        """Mister X has no legal move at the start of his turn: the detectives win."""
        self.game.mrx_cornered()
        self.lines.append({"type": "end", "reason": "mrx_stuck"})
        self.save()

    def can_double(self):
        g = self.game
        return g.double > 0 and g.phase == 0 and g.result is None

    def double_options(self):
        """Every legal double move as ((t1, s1), (t2, s2)), for `legal double`."""
        g = self.game
        out = []
        if not self.can_double():
            return out
        for t1, s1 in [(t, s) for s, t in g.legal_mrx()]:
            trial = copy.deepcopy(g)
            try:
                mrxmoves.step(trial, t1, s1)
            except RuleError:
                continue
            seconds = []
            trial._mrx_options(trial.mrx, seconds)
            for s2, t2 in sorted(seconds):
                out.append(((t1, s1), (t2, s2)))
        return out

    # --- what the board and verify see ------------------------------------------------------
    def mrx_lines(self):
        return [line for line in self.lines if line.get("type") == "mrx"]

    def entries(self):
        """Mister X's travel log: [(ticket_name, station, shown, commit, salt)] in order."""
        out = []
        for line in self.mrx_lines():
            steps = line["double"] if "double" in line else [line]
            for s in steps:
                out.append((s["ticket"], s["to"], bool(s.get("shown")), s["commit"], s["salt"]))
        return out

    def reveal(self):
        """The salts, to hand over at the end: start plus one [station, salt] per log entry."""
        return {"start": [self.setup["mrx"], self.setup["salt"]],
                "moves": [[to, salt] for _t, to, _sh, _c, salt in self.entries()]}

    def current_proof(self):
        """[salt, station] of Mister X's current station: the opening of his latest commitment (the
        last travel-log entry's, or the start's), which proves a capture or a cornered Mister X
        to the board (firmware/sy/play/declare.py)."""
        entries = self.entries()
        if entries:
            _t, to, _sh, _c, salt = entries[-1]
            return [salt, to]
        return [self.setup["salt"], self.setup["mrx"]]

    def record_lines(self):
        """The secret log as a game record (the format `yard replay` and `yard verify` read)."""
        return [line for line in self.lines if line.get("type") in ("setup", "mrx", "move")]


def board_pairs(rev):
    """A reveal (SecretGame.reveal) as the board's reveal command reads it:
    (start [salt, station], moves [[salt, station], ...])."""
    start = rev["start"]
    return [start[1], start[0]], [[salt, s] for s, salt in rev["moves"]]


def latest_unfinished(folder=None):
    """Path of the newest saved game that has not ended, or None."""
    folder = folder or default_dir()
    try:
        names = [n for n in os.listdir(folder) if n.startswith("game-") and n.endswith(".jsonl")]
    except OSError:
        return None
    for name in sorted(names, key=lambda n: os.path.getmtime(os.path.join(folder, n)), reverse=True):
        path = os.path.join(folder, name)
        try:
            if SecretGame.load(path).unfinished:
                return path
        except UserError:
            continue
    return None


__all__ = ["SecretGame", "draw_setup", "public_line", "latest_unfinished", "new_salt", "BLACK"]
