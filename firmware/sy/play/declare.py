"""What the host declares besides Mister X's moves: a capture, Mister X cornered, the guided move
of a computer detective (the commands `capture`, `cornered`, `guide`: sy/link/handlers.py, which
loads this module when one of them first comes).

A capture and a cornered Mister X end the game, so they are proved, not claimed: the
host reveals the commitment of his current station, `reveal: [salt, station]`, and the board
checks it against the hash it holds (his last travel-log entry's, or the setup's) and against the
game: the capturing piece stands there, or he has no move from there. A capture on a station that
was not publicly possible is refused whatever comes with it. A game set up without commitments
has nothing to check a reveal against: there only the public checks apply.
"""
import json

from sy.rules.game import RuleError
from sy.play.board import PLAY, OVER


def _latest_commit(store):
    """(commit, shown, committed) of Mister X's latest position from the journal: the commitment
    of his last travel-log entry (or of the setup), the station it surfaced on (or 0), and whether
    the game was set up with a commitment."""
    commit, shown, committed = None, 0, False
    for _seq, text in store.lines(1, ('"setup"', '"mrx"')):  # detectives' moves and notes: not parsed
        obj = json.loads(text)
        kind = obj.get("type")
        if kind == "setup":
            commit, shown = obj.get("commit"), 0
            committed = commit is not None
        elif kind == "mrx":
            for h in obj.get("double") or (obj,):
                commit, shown = h.get("commit"), h.get("to", 0)
    return commit, shown, committed


def proved_station(b, pair):
    """Mister X's current station as the host proved it with pair, [salt, station] of his current
    commitment, or None in a game without commitments. RuleError("unproved") if the proof is
    missing or wrong."""
    commit, shown, committed = _latest_commit(b.store)
    if not committed:
        return shown or None
    if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str) \
            or not isinstance(pair[1], int) or isinstance(pair[1], bool):
        raise RuleError("unproved", "no_proof")
    salt, s = pair
    if commit is None:  # a surfacing move sent without a commitment: his station is public
        if s != shown:
            raise RuleError("unproved", "surfaced_on", shown, s)
        return s
    from sy.rules import commit as commitlib
    if not commitlib.matches(s, salt, commit):
        raise RuleError("unproved", "proof_mismatch")
    return s


def capture(b, name, pair):
    """Piece `name` caught Mister X, proved by pair (proved_station); returns the event's seq."""
    g = b.game
    if g is None:
        raise RuleError("wrong_turn", "no_game")
    piece = g.piece_index(name)
    if b.stage not in (PLAY, OVER):
        raise RuleError("wrong_turn", "not_playing")
    from sy.rules import mrxknown
    s = mrxknown.check_capture(g, piece)  # first the public facts: a station he cannot be on is refused outright
    at = proved_station(b, pair)
    if at is not None and at != s:
        raise RuleError("unproved", "not_on_mrx", g.piece_name(piece), s)
    g.capture(piece)  # the rules allow it after the last round's closing move, too
    return b.commit_capture({"type": "capture", "piece": g.piece_name(piece)})


def cornered(b, pair):
    """Mister X has no move, proved by pair (proved_station); returns the event's seq. The game
    is in play (Board.require_play: the command table's stage), as for guide."""
    g = b.game
    at = proved_station(b, pair)
    if at is not None:
        if not g.is_candidate(at):
            raise RuleError("unproved", "mrx_cannot_be", at)
        g.mrx = at  # his station, proved: the rules check that he has no move from there
    try:
        g.mrx_cornered()
    except RuleError:
        if at is not None:
            g.mrx = 0  # refused: the board keeps not knowing him
        raise
    return b.commit_change({"type": "cornered"})


def guide(b, name, to, t):
    """The host's move for piece `name` (computer detectives): to station `to` by ticket t, lit,
    and the only placement taken."""
    g = b.game
    k = g.piece_index(name)
    if not g.to_move() & (1 << k) or (to, t) not in g.legal(k):
        raise RuleError("not_connected", "cannot_go", g.piece_name(k), to)
    b.guide(k, to, t)
