"""Computer players at the table: `--mrx computer` and `--detectives computer`.

Computer Mister X: the console (host/misterx/console.py, `mrx_agent`) asks host.ai for his move instead of
the keyboard; the move goes to the board exactly as a typed one would (public facts and
commitments), and the screen shows only public information: the people at the table are all
detectives.

Computer detectives: for each piece that has to move, host.ai picks the move from the public view
only; the board is told with `guide` (docs/protocol.md) and lights it; a person (or the simulator's
hands) carries it out, and the board takes only that placement. A move taken back (the board's
confirm button held, the console's undo) goes back the same way before the next one is guided.
"""
import time

from host import refusals
from host.errors import BoardError
from host.ai import make_detective_agent, make_mrx_agent, public_view
from sy.rules.game import TICKET_NAMES
from host.i18n import _
from host.words import piece_name, ticket_name

MODES = ("human", "computer")


def add_mode_arguments(parser):
    parser.add_argument("--mrx", choices=MODES,
                        help=_("who plays Mister X: a person at the console (human) or the host (computer)"))
    parser.add_argument("--detectives", choices=MODES,
                        help=_("who plays the detectives: people moving the pieces (human), or the host "
                               "(computer: the board lights each move for a person to carry out)"))
    parser.add_argument("--level", choices=("random", "easy", "normal", "hard"),
                        help=_("the computer players' level. Mister X: random, easy (answers after 0.2 s), normal "
                               "(1 s), hard (4 s). Detectives: random, easy (the public possible set), normal (they "
                               "follow what the computer Mister X's code implies), hard (a search on top: ~1 s a piece)"))
    parser.add_argument("--show-mrx", action="store_true",
                        help=_("with --mrx computer: show Mister X's stations on this screen (not for a real game)"))


def mrx_agent(level, seed=None):
    return make_mrx_agent(level, seed=seed)


class GuidedDetectives:
    """callable(sg): one detective's or bobby's move, chosen from the public view, sent to the
    board as a guided move; `hands(piece_name, from, to)` carries it out (the simulator), or a person
    does. The console then waits for the board's move event."""

    def __init__(self, side, level, seed=None, out=print, hands=None):
        self.side = side
        self.agent = make_detective_agent(level, seed=seed)
        self.out = out
        self.hands = hands
        self.moves = 0
        self.quiet = False
        self.back = None  # a piece taken back, until the board's `back` note says it is on its station
        side.link.on_note = self._note

    def __call__(self, sg):
        g = sg.game
        self._wait_put_back()
        piece, ticket, to = self.agent.choose(public_view(g))
        if ticket is None:  # a bobby: name a transport that joins the stations
            ticket = next(t for s, t in g.legal(piece) if s == to)
        name, here = g.piece_name(piece), g.pos[piece]
        self.side.guide(name, to, TICKET_NAMES[ticket])
        if not self.quiet:
            self.out("  " + _("move %(piece)s from %(here)d to %(to)d (%(ticket)s): the board lights it")
                     % {"piece": name, "here": here, "to": to, "ticket": ticket_name(TICKET_NAMES[ticket])})
        if self.hands:
            self.hands(name, here, to)
        self.moves += 1

    def put_back(self, name, here, to):
        """A move taken back (the console's undo event): the piece goes back from `here` to `to`,
        by the simulator's hands or by a person; nothing is guided until the board sees it there."""
        self.back = name
        if self.hands:
            self.hands(name, here, to)
        elif not self.quiet:
            self.out("  " + _("put %(piece)s back on %(station)d") % {"piece": name, "station": to})

    def _wait_put_back(self, timeout=600.0):
        """Wait for the board's `back` note of a piece taken back (a person may take a while)."""
        end = time.monotonic() + timeout
        while self.back is not None:
            if time.monotonic() > end:
                raise BoardError(_("%(piece)s was not put back within %(seconds)d s")
                                 % {"piece": piece_name(self.back), "seconds": round(timeout)})
            self.side.link.poll(0.05)

    def _note(self, note):
        if note.get("note") == "back" and note.get("piece") == self.back:
            self.back = None
        if note.get("note") == "illegal" and not self.quiet:
            self.out("  " + _("the board refuses %(piece)s on %(station)s: %(refusal)s")
                     % {"piece": note.get("piece"), "station": note.get("station"),
                        "refusal": refusals.of_reply(note)})
