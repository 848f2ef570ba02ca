"""Stations whose reed is out of service (board.json reeds.dead, `reed` in sy/play/deadreed.py): the
table the board works around them with (Board.blind; None while every reed works, so a sound board
carries none of this).

What the Board does with it (sy/play/board.py):
  - Such a switch is ignored, and its station holds what the game says (sync).
  - A piece that may move and stands there cannot be seen lifted: a station closing while nothing
    is in hand is that piece put down (Board.switch, hidden_mover), and sync shows it lifted.
  - A piece put there cannot be seen: the confirm button pressed briefly with the piece in hand
    puts it there; with several such destinations the host is asked (note `where`, the host's
    `place`). Its destinations out of service blink white in turn with their transport.
Nothing here allocates but stations().
"""
from sy.play.board import REED_OPEN, REED_CLOSED

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
