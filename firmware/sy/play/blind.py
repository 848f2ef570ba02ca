"""Stations whose reed is out of service (board.json reeds.dead, `reed` in sy/play/deadreed.py): the
table the board works around them with (Board.blind; None while every reed works, so a sound board
carries none of this).

What the Board does with it (sy/play/board.py), and what it asks of it here:
  - Such a switch is ignored, and its station holds what the game says (sync).
  - A piece that may move and stands there cannot be seen lifted: a station closing while nothing
    is in hand is that piece put down (Board.switch, hidden_mover), and sync shows it lifted.
  - A piece put there cannot be seen: the confirm button pressed briefly with the piece in hand
    puts it there (confirm); with several such destinations the host is asked (note `where`, the
    host's `place`). Its destinations out of service blink white in turn with their transport,
    and the `lifted` note names them (note).
Nothing in the scan's path allocates (sync, hidden_mover); the rest runs for a button or a note.
"""
from sy.rules.base import RuleError
from sy.play.board import REED_OPEN, REED_CLOSED, PLAY

_DEAD = b"\x01"  # in Blind.dead
_CLOSED = bytes((REED_CLOSED,))  # in the Board's reeds


class Blind:
    def __init__(self, stations):
        self.dead = bytearray(200)  # 1: the station's reed is out of service
        for s in stations:
            self.dead[s] = 1
        self.n = len(stations)

    def stations(self):
        out = []
        for s in range(1, 200):
            if self.dead[s]:
                out.append(s)
        return out

    def hidden_mover(self, game, may):
        """A piece that may move (bit p of may), standing on a station out of service, or -1."""
        for i in range(game.n_pieces):
            if self.dead[game.pos[i]] and may & (1 << i):
                return i
        return -1

    def sync(self, reeds, game, may):
        """The stations out of service closed in reeds where the game has a piece, open elsewhere;
        the piece out of sight that may move (bit p of may) shown lifted when exactly one placement
        is on the board and no other piece is off its station."""
        s = 0
        while True:
            s = self.dead.find(_DEAD, s + 1)
            if s < 0:
                break
            reeds[s] = REED_CLOSED if game.holder_of(s) >= 0 else REED_OPEN
        p = self.hidden_mover(game, may)
        if p < 0:
            return
        held = 0
        pos = game.pos
        for i in range(game.n_pieces):
            if not reeds[pos[i]]:
                return
            if reeds[pos[i]] == REED_CLOSED:
                held += 1
        if reeds.count(_CLOSED) - held == 1:
            reeds[pos[p]] = REED_OPEN

    def unseen(self, b):
        """The destinations of Board b's piece in hand whose reed is out of service (a new list)."""
        dead = self.dead
        return [s for s in b.destinations() if dead[s]]

    def note(self, b, note):
        """The `lifted` note names the destinations out of service: put there, then press confirm."""
        unseen = self.unseen(b)
        if unseen:
            note["confirm"] = unseen

    def confirm(self, b):
        """The confirm button pressed briefly with a piece in hand: the piece put on its one
        destination out of service; with several, the host is asked which (note `where`)."""
        p = b.piece_in_hand()
        if p < 0 or b.stage != PLAY:
            return
        unseen = self.unseen(b)
        if not unseen:
            return
        b.hide_travel_log()  # it gives way to the placement
        if len(unseen) > 1:
            b.out.note({"note": "where", "piece": b.game.piece_name(p), "stations": unseen})
            return
        try:
            b.place_unseen(p, unseen[0])
        except RuleError:
            pass  # not a move it may make: the board told the players (note `illegal`)
