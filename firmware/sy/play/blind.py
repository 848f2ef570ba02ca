"""Stations whose reed is out of service (board.json reeds.dead, `reed` in sy/play/deadreed.py): the
board's work-around, on the heap only on a board that has such a station (Board.blind is None
while every reed works, so a sound board carries none of this code; docs/memory.md).

  - Such a switch is ignored (switch), and its station holds what the game says (sync).
  - A piece that may move and stands there cannot be seen lifted: a station closing while nothing
    is in hand is that piece put down (switch takes it as a placement, sync shows the piece lifted).
  - A piece put there cannot be seen: the confirm button pressed briefly with the piece in hand
    puts it there (confirm); with several such destinations the host is asked (note `where`, the
    host's `place`). Its destinations out of service blink white in turn with their transport (draw).
Nothing allocates but confirm.
"""
from sy.play.board import PLAY


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

    def on_dead(self, b):
        """A piece that may move, standing on a station out of service, or -1."""
        g = b.game
        for i in range(g.n_pieces):
            if self.dead[g.pos[i]] and b._may(i):
                return i
        return -1

    def switch(self, b, station, closed):
        """True when the board must not take this change as it comes (Board.switch)."""
        if self.dead[station]:
            return True  # out of service: sync makes the station follow the game
        g = b.game
        if not closed or g is None or b.n_missing or g.holder_of(station) >= 0 or g.surfaced == station \
                or self.on_dead(b) < 0:
            return False
        b.occ[station] = 1  # a placement: the piece standing out of sight was lifted (sync)
        b.compare_and_commit()
        return True

    def sync(self, b):
        """The stations out of service closed where the game has a piece, open elsewhere; the piece
        out of sight that may move shown lifted when exactly one placement is on the board and no
        other piece is off its station."""
        g = b.game
        occ = b.occ
        s = 0
        while True:
            s = self.dead.find(b"\x01", s + 1)
            if s < 0:
                break
            occ[s] = 1 if g.holder_of(s) >= 0 else 0
        if b.stage != PLAY:
            return
        p = self.on_dead(b)
        if p < 0:
            return
        held = 0
        for i in range(g.n_pieces):
            if not occ[g.pos[i]]:
                return
            if occ[g.pos[i]] == 1:
                held += 1
        if occ.count(b"\x01") - held == 1:
            occ[g.pos[p]] = 0

    def destinations(self, b):
        """The piece in hand's destinations whose reed is out of service (a new list)."""
        blind = []
        for i in range(b.n_dest):
            if self.dead[b.dest[i]]:
                blind.append(b.dest[i])
        return blind

    def note(self, b, note):
        """The `lifted` note names the destinations out of service: put there, then press confirm."""
        blind = self.destinations(b)
        if blind:
            note["confirm"] = blind

    def draw(self, b):
        """The lifted piece's destinations out of service, white (every other frame)."""
        L = b.leds
        for i in range(b.n_dest):
            s = b.dest[i]
            if self.dead[s] and (b.pre_ticket < 0 or b.dest_mask[i] & (1 << b.pre_ticket)):
                L.put(s, 255, 255, 255)

    def confirm(self, b):
        """The confirm button pressed briefly with a piece in hand: the piece put on its one
        destination out of service; with several, the host is asked which (note `where`)."""
        if b.lifted < 0 or b.stage != PLAY:
            return
        blind = self.destinations(b)
        if not blind:
            return
        b.info_until = b.now  # the travel-log view gives way to the placement
        if len(blind) > 1:
            b.out.note({"note": "where", "piece": b.game.piece_name(b.lifted), "stations": blind})
            return
        b._place(b.lifted, blind[0])
