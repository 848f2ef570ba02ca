"""Mister X's console: what he sees behind his screen, and the short forgiving move syntax.

The console works on a SecretGame (the full rules and the secret log) and a board adapter
(host/misterx/boardside.py, or a fake in tests) that is told only public facts. Input and output are
injected, so tests type into it and read what it prints.

What `help` shows is MOVES_HELP and COMMANDS_HELP below, in the player's words.
"""
import copy
import textwrap
import time

from host import i18n, refusals
from host.i18n import N_, _, ngettext, number
from host.misterx.boardside import MoveTakenBack
from host.i18n import is_yes
from host.errors import BoardError
from host.words import COMMAND_WORDS, CONSOLE_WORDS, command_word, console_words, ticket_name
from sy.rules.game import RuleError, TICKET_NAMES, BLACK, PHASE_MRX, PHASE_DETECTIVES

TICKET_ALIASES = {
    "t": 0, "ta": 0, "tax": 0, "taxi": 0, "cab": 0,
    "b": 1, "bu": 1, "bus": 1,
    "u": 2, "ug": 2, "un": 2, "und": 2, "under": 2, "underground": 2, "tube": 2, "metro": 2, "subway": 2,
    "x": 3, "bl": 3, "bla": 3, "blac": 3, "black": 3,
}
DOUBLE_WORDS = ("double", "dbl", "d", "2", "2x", "do", "dou")
# each language's own words too (host/words.py: CONSOLE_WORDS)
for _lang_words in CONSOLE_WORDS.values():
    for _key, _words in _lang_words.items():
        if _key == "double":
            DOUBLE_WORDS += tuple(w for w in _words if w not in DOUBLE_WORDS)
        else:
            TICKET_ALIASES.update((w, TICKET_NAMES.index(_key)) for w in _words)
SHORT = ("taxi", "bus", "ug", "black")
# the console's commands: every language's words (host/words.py COMMAND_WORDS) -> the command
COMMANDS = {}
REED_STATES = {}  # the reed command's second word -> out of service?
for _lang_words in COMMAND_WORDS.values():
    for _key, _words in _lang_words.items():
        if _key in ("out", "in"):
            REED_STATES.update((w, _key == "out") for w in _words)
        else:
            COMMANDS.update((w, _key) for w in _words)
# the English words that may be abbreviated, in the order they are tried ("s" is status, "l" log,
# "le" legal); a ticket's or the double move's abbreviation is theirs ("d" is double)
ABBREVIATED = ("status", "log", "help", "quit", "exit", "legal", "?", "candidates")


class ParseError(Exception):
    pass


def word(command, lang=None):
    """The player's word for a command (what `help` and the console's hints show)."""
    return command_word(command, lang or i18n.current())


def command_of(head):
    """A line's first word (lower case) -> its command, or None (a move)."""
    if head in COMMANDS:
        return COMMANDS[head]
    if head in TICKET_ALIASES or head in DOUBLE_WORDS or head.isdigit():
        return None
    return next((COMMANDS[name] for name in ABBREVIATED if name.startswith(head)), None)


# how the English words are shown after the player's own in a refusal (the short forms it takes too)
_ENGLISH_TICKETS = (("taxi", "taxi"), ("bus", "bus"), ("underground", "underground/ug"), ("black", "black/x"))


def ticket_words(lang=None):
    """The tickets as the console takes them, the player's words first: 'métro/underground/ug'."""
    own = dict(console_words(lang or i18n.current()))
    return ", ".join("/".join(tuple(w for w in own.get(key, ()) if w != key)[:1] + (english,))
                     for key, english in _ENGLISH_TICKETS)


def parse_ticket(word):
    t = TICKET_ALIASES.get(word.lower())
    if t is None:
        raise ParseError(_("%(word)r is not a ticket: %(tickets)s") % {"word": word, "tickets": ticket_words()})
    return t


def _station(word):
    if not word.isdigit():
        raise ParseError(_("%r is not a station number") % word)
    return int(word)


def _is_piece(word):
    """D1..D7, B1..B7 (a detective or a Bobby, as the board names them)."""
    return len(word) == 2 and word[0].upper() in "DB" and word[1] in "1234567"


def parse_steps(words):
    """Words -> [(ticket or None, station)]: pairs of ticket and station in either order."""
    steps = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.isdigit():
            s = _station(w)
            t = None
            if i + 1 < len(words) and not words[i + 1].isdigit() and words[i + 1].lower() in TICKET_ALIASES:
                # "58 bus" -- but in "14 bus 58" the bus belongs to 58
                if not (i + 2 < len(words) and words[i + 2].isdigit()):
                    t = parse_ticket(words[i + 1])
                    i += 1
            steps.append((t, s))
            i += 1
        else:
            t = parse_ticket(w)
            if i + 1 >= len(words):
                raise ParseError(_("%s to which station?") % ticket_name(TICKET_NAMES[t]))
            steps.append((t, _station(words[i + 1])))
            i += 2
    return steps


def _undo_payload(args):
    if len(args) > 1 or args and not _is_piece(args[0]):
        raise ParseError(_("%(undo)s takes back the last move of this turn: %(undo)s, or %(undo)s D2 to name the "
                           "piece") % {"undo": word("undo")})
    return args[0].upper() if args else None


def _reed_payload(args):
    if len(args) != 2 or args[0].lower() not in REED_STATES or not args[1].isdigit() or not 1 <= int(args[1]) <= 199:
        raise ParseError(_("%(reed)s %(out)s 45 takes station 45's switch out of service; %(reed)s %(in)s 45 puts it "
                           "back") % {"reed": word("reed"), "out": word("out"), "in": word("in")})
    return int(args[1]), REED_STATES[args[0].lower()]


def _place_payload(args):
    if len(args) not in (2, 3) or not _is_piece(args[0]) or not args[1].isdigit():
        raise ParseError(_("%(place)s D1 45 [ticket] puts D1 on 45, whose switch is out of service") % {
            "place": word("place")})
    ticket = None
    if len(args) == 3:
        ticket = parse_ticket(args[2])
        if ticket == BLACK:
            raise ParseError(_("detectives travel by taxi, bus or underground"))
        ticket = TICKET_NAMES[ticket]
    return args[0].upper(), int(args[1]), ticket


# what follows a command's word: its payload (the others have none)
PAYLOADS = {
    "legal": lambda args: bool(args) and args[0].lower() in DOUBLE_WORDS,
    "undo": _undo_payload,
    "reed": _reed_payload,
    "place": _place_payload,
}


def parse_command(text):
    """A line -> (kind, payload): ("move", [(t, s)]), ("double", [(t, s), (t, s)]), ("legal", bool
    double), ("undo", piece or None), ("reed", (station, out)), ("place", (piece, station, ticket)),
    ("status"|"log"|"candidates"|"help"|"quit"|"empty", None). ParseError with a sentence."""
    words = text.replace(",", " ").replace(">", " ").split()
    if not words:
        return "empty", None
    head = words[0].lower()
    command = command_of(head)
    if command is not None:
        payload = PAYLOADS.get(command)
        return command, payload(words[1:]) if payload else None
    if head in DOUBLE_WORDS:
        steps = parse_steps(words[1:])
        if len(steps) != 2:
            raise ParseError(_("a double move is two moves: double taxi 14 bus 58"))
        return "double", steps
    steps = parse_steps(words)
    if len(steps) == 2:
        return "double", steps  # "taxi 14 bus 58" is clearly a double move
    if len(steps) != 1:
        raise ParseError(_("one move at a time: a ticket and a station, e.g. bus 58"))
    return "move", steps


# what `help` shows: how a move is typed, then each command with what follows its word
MOVES_HELP = N_("""Move syntax (case-insensitive, ticket names may be abbreviated):
    bus 58        58 bus       b 58        58          (a station alone: when one ticket fits)
    black 115     x 115        bl 115
    double taxi 14 bus 58      2 t 14 b 58""")
COMMANDS_HELP = (
    ("legal", " [%(double)s]", N_("the moves you can make now; with %(double)s, the double moves")),
    ("status", "", N_("the round, your tickets, the detectives and your travel log")),
    ("log", "", N_("your travel log")),
    ("candidates", "", N_("the stations the detectives may think you are on")),
    ("undo", " [D1]", N_("take back the detectives' last move of this turn (a piece put on the wrong station), "
                         "until Mister X moves; the board blinks the piece's station until it is back")),
    ("reed", " %(out)s 45", N_("take station 45's switch out of service (stuck closed or never closing: `yard "
                               "selftest` finds them); the board remembers it and works around the station: a piece "
                               "put there is confirmed with the confirm button")),
    ("reed", " %(in)s 45", N_("put station 45's switch back in service")),
    ("place", " D1 45 [%(bus)s]", N_("put the piece in hand on 45 (out of service) when the board asks where")),
    ("help", "", N_("this help")),
    ("quit", "", N_("stop: the game is saved (`yard play --resume`)")),
)
HELP_WIDTH = 100
HELP_COLUMN = 24  # where the commands' explanations start


def help_text(lang=None):
    """The move syntax and the commands in the player's language, with his words for them and the
    move words of his language's rulebook."""
    lang = lang or i18n.current()
    own = dict(console_words(lang))
    values = {"double": own.get("double", ("double",))[0], "bus": own.get("bus", ("bus",))[0],
              "out": word("out", lang), "in": word("in", lang)}
    lines = [_(MOVES_HELP)]
    for command, args, what in COMMANDS_HELP:
        usage = "    " + word(command, lang) + args % values
        if len(usage) >= HELP_COLUMN - 1:  # a long word: the explanation on the lines below
            lines.append(usage)
            usage = ""
        lines.append(textwrap.fill(_(what) % values, HELP_WIDTH, initial_indent=usage.ljust(HELP_COLUMN),
                                   subsequent_indent=" " * HELP_COLUMN, break_on_hyphens=False))
    text = "\n".join(lines)
    own = console_words(lang)
    if own:
        text += "\n" + _("Your rulebook's words work too: %s") % ", ".join(
            "%s = %s" % ("/".join(words), key) for key, words in own)
    return text


class Console:
    """Mister X's side of the game, given a SecretGame and a board adapter."""

    def __init__(self, sg, board, inp=input, out=print, detectives=None, wait=0.05, clock=time.monotonic,
                 quiet=False, move_timeout=20.0, mrx_agent=None, show_mrx=False):
        self.sg = sg
        self.board = board
        self.inp = inp
        self.out = out
        self.detectives = detectives  # sim: callable(game) that makes the detectives move on the board
        self.wait = wait
        self.clock = clock
        self.started = clock()
        self.quit_hint = _("Saved. Continue later with: yard play --resume")
        self.quiet = quiet  # the demo: no status block before every move
        self.move_timeout = move_timeout  # None: wait as long as the people at the table take
        self.mrx_agent = mrx_agent  # --mrx computer: host.ai picks his moves, the screen stays public
        self.show_mrx = show_mrx
        self.announced = None  # the detectives' turn last announced: (round, Mister X's moves)

    # --- showing ------------------------------------------------------------------------------
    @property
    def secret_screen(self):
        """Mister X's stations may be shown: a person plays him behind his screen (or --show-mrx)."""
        return self.mrx_agent is None or self.show_mrx

    def status_lines(self):
        g = self.sg.game
        if not self.secret_screen:
            return self.public_lines()
        lines = []
        nxt = g.next_reveal()
        if nxt:
            until = ngettext("surfaces after move %(move)d (%(left)d more move)",
                             "surfaces after move %(move)d (%(left)d more moves)", nxt - g.moves) % {
                "move": nxt, "left": nxt - g.moves}
        else:
            until = _("no more surfacing")
        rnd = g.round + (1 if g.phase == PHASE_MRX else 0)
        lines.append(_("Round %(round)d/%(rounds)d   Mister X on %(station)d   moves made %(moves)d, %(until)s") % {
            "round": min(rnd, g.rounds), "rounds": g.rounds, "station": g.mrx, "moves": g.moves, "until": until})
        lines.append(_("Your tickets: black %(black)d, double %(double)d   General supply: taxi %(taxi)d, bus %(bus)d, "
                       "underground %(underground)d") % {"black": g.black, "double": g.double, "taxi": g.supply[0],
                                                         "bus": g.supply[1], "underground": g.supply[2]})
        det = []
        for i in range(g.n_pieces):
            name = g.piece_name(i)
            if g.is_bobby(i):
                det.append("%s %d" % (name, g.pos[i]))
            elif g.two_player and i == 1:
                det.append(_("%(piece)s %(station)d (shares D1's tickets)") % {"piece": name, "station": g.pos[i]})
            else:
                det.append(self.detective_text(name, g.pos[i], g.tickets[i]))
        lines.append(_("Detectives: %s") % "   ".join(det))
        lines.append(_("Travel log: %s") % self.log_text())
        n = g.candidates_count()
        lines.append(ngettext("The detectives think you may be on %d station.",
                              "The detectives think you may be on %d stations.", n) % n)
        return lines

    @staticmethod
    def detective_text(name, station, t):
        return _("%(piece)s %(station)d (taxi %(taxi)d, bus %(bus)d, ug %(underground)d)") % {
            "piece": name, "station": station, "taxi": t[0], "bus": t[1], "underground": t[2]}

    def public_lines(self):
        """What the detectives at the table may know (--mrx computer)."""
        g = self.sg.game
        nxt = g.next_reveal()
        rnd = g.round + (1 if g.phase == PHASE_MRX else 0)
        lines = [ngettext("Round %(round)d/%(rounds)d   Mister X has made %(moves)d move, %(until)s",
                          "Round %(round)d/%(rounds)d   Mister X has made %(moves)d moves, %(until)s", g.moves) % {
            "round": min(rnd, g.rounds), "rounds": g.rounds, "moves": g.moves,
            "until": _("surfaces after move %d") % nxt if nxt else _("no more surfacing")},
            _("Mister X's tickets: black %(black)d, double %(double)d") % {"black": g.black, "double": g.double}]
        det = []
        for i in range(g.n_pieces):
            if g.is_bobby(i) or g.two_player and i == 1:
                det.append("%s %d" % (g.piece_name(i), g.pos[i]))
            else:
                det.append(self.detective_text(g.piece_name(i), g.pos[i], g.tickets[i]))
        lines.append(_("Detectives: %s") % "   ".join(det))
        parts = ["%d %s%s" % (k, ticket_name(t), " %d" % to if shown else "") for k, (t, to, shown, _c, _s) in
                 enumerate(self.sg.entries(), 1)]
        lines.append(_("Travel log: %s") % (" | ".join(parts) or _("(empty)")))
        n = g.candidates_count()
        lines.append(ngettext("Mister X may be on %d station.", "Mister X may be on %d stations.", n) % n)
        return lines

    def public_describe(self, line):
        steps = line["double"] if "double" in line else [line]
        parts = [_("%(ticket)s and surfaces on %(station)d") % {"ticket": ticket_name(st["ticket"]), "station": st["to"]}
                 if st.get("shown") else ticket_name(st["ticket"]) for st in steps]
        if len(steps) == 2:
            return _("Mister X has moved: double move, %(first)s, then %(second)s") % {
                "first": parts[0], "second": parts[1]}
        return _("Mister X has moved: %s") % parts[0]

    def computer_move(self):
        """--mrx computer: the agent's move, told to the board like a typed one; the screen shows only
        what the detectives may know."""
        if self.catch_up():
            return True
        choice = self.mrx_agent.choose(copy.deepcopy(self.sg.game))
        try:
            if choice[0] == "double":
                line = self.try_move("double", [(choice[1], choice[2]), (choice[3], choice[4])])
            else:
                line = self.try_move("move", [(choice[1], choice[2])])
        except MoveTakenBack as e:
            self.out(_("(%s; Mister X's move is withdrawn: he moves again after the detectives)") % e)
            return True
        self.out(self.public_describe(line))
        if self.show_mrx:
            self.out("  (--show-mrx) " + self.describe(line))
        return True

    def log_text(self, full=False):
        entries = self.sg.entries()
        if not entries:
            return _("(empty; start on %d)") % self.sg.setup["mrx"]
        parts = []
        for k, (ticket, to, shown, _c, _s) in enumerate(entries, 1):
            parts.append("%d %s %d%s" % (k, ticket_name(ticket), to, "*" if shown else ""))
        return " | ".join(parts) + (_("   (* = surfaced)") if not full else "")

    def show_status(self):
        for line in self.status_lines():
            self.out(line)

    def legal_text(self, double=False):
        g = self.sg.game
        if double:
            opts = self.sg.double_options()
            if not opts:
                return _("no double move possible") if g.double else _("no double move possible: no double-move ticket left")
            return ngettext("%(count)d double move, e.g. %(examples)s", "%(count)d double moves, e.g. %(examples)s",
                            len(opts)) % {"count": len(opts), "examples": ", ".join(
                                "double %s %d %s %d" % (SHORT[a[0]], a[1], SHORT[b[0]], b[1]) for a, b in opts[:12])}
        by_station = {}
        for s, t in g.legal_mrx():
            by_station.setdefault(s, []).append(ticket_name(TICKET_NAMES[t]))
        if not by_station:
            return _("no legal move")
        return _("legal: %s") % ", ".join("%d (%s)" % (s, "/".join(ts)) for s, ts in sorted(by_station.items()))

    def completions(self, text, line):
        """Words that complete `text` given the whole line so far (for readline)."""
        words = line.split()
        if not words or (len(words) == 1 and not line.endswith(" ")):
            pool = list(TICKET_NAMES) + ["double"] + [  # the commands in English and in the player's language
                w for lang in dict.fromkeys(("en", i18n.current())) for key, ws in COMMAND_WORDS.get(lang, {}).items()
                if key in COMMANDS.values() for w in ws]
        else:
            try:
                pool = sorted(set(str(s) for s, _t in self.sg.game.legal_mrx())) + list(SHORT)
            except RuleError:
                pool = []
        return [w for w in pool if w.startswith(text.lower())]

    # --- moving -------------------------------------------------------------------------------
    def _resolve(self, t, s):
        """Fill in a missing ticket: the one non-black ticket that fits, else ask."""
        if t is not None:
            return t
        g = self.sg.game
        fits = [tt for ss, tt in g.legal_mrx() if ss == s]
        if not fits:
            raise ParseError(_("you cannot move to %(station)d now (type %(legal)s)") % {
                "station": s, "legal": word("legal")})
        plain = [tt for tt in fits if tt != BLACK]
        if len(plain) == 1:
            return plain[0]
        if not plain:
            raise ParseError(_("only a black ticket takes you to %(station)d: type black %(station)d") % {"station": s})
        raise ParseError(_("%(station)d: by %(tickets)s? type e.g. %(ticket)s %(station)d") % {
            "station": s, "tickets": _(" or ").join(ticket_name(TICKET_NAMES[x]) for x in fits),
            "ticket": TICKET_NAMES[plain[0]]})

    def _resolve_second(self, first, t2, s2):
        if t2 is not None:
            return t2
        g = self.sg.game
        fits = []
        for tt in range(4):
            if tt == BLACK:
                continue
            if g.graph.connected(first, s2, tt):
                fits.append(tt)
        if len(fits) == 1:
            return fits[0]
        raise ParseError(_("say which ticket for the second move to %d") % s2)

    def try_move(self, kind, steps):
        """Validate, log and tell the board. Returns the log line, or raises ParseError/RuleError."""
        sg = self.sg
        if kind == "move":
            t, s = steps[0]
            t = self._resolve(t, s)
            line = sg.mrx_move(t, s)
        else:
            (t1, s1), (t2, s2) = steps
            t1 = self._resolve(t1, s1)
            t2 = self._resolve_second(s1, t2, s2)
            line = sg.mrx_double(t1, s1, t2, s2)
        self.board.mrx(line)
        return line

    def describe(self, line):
        steps = line["double"] if "double" in line else [line]
        parts = []
        for st in steps:
            values = {"ticket": ticket_name(st["ticket"]), "station": st["to"]}
            parts.append((_("%(ticket)s to %(station)d (you surface: the board shows %(station)d)") if st.get("shown")
                          else _("%(ticket)s to %(station)d")) % values)
        if len(steps) == 2:
            return _("double move: %(first)s, then %(second)s") % {"first": parts[0], "second": parts[1]}
        return parts[0]

    def catch_up(self):
        """Apply the board's events that came while Mister X was thinking (a take-back reopens the
        detectives' turn). True if it is no longer his turn."""
        for ev in self.board.events(0):
            self.on_event(ev)
        g = self.sg.game
        return g.phase != PHASE_MRX or g.result is not None

    def take_back(self, piece):
        """The console's `undo`: the board takes back the move, then its event updates the game."""
        g = self.sg.game
        if not g.n_turn:
            if not g.moves:  # the first round, before anyone has moved: Mister X has not moved either
                raise ParseError(_("no move of this turn is left to take back"))
            raise ParseError(_("no move of this turn is left to take back (Mister X has moved since)"))
        before = g.n_turn
        self.board.undo(piece)
        end = self.clock() + 5
        while self.sg.game.n_turn >= before and self.clock() < end:
            for ev in self.board.events(self.wait or 0.01):
                self.on_event(ev)
        if self.sg.game.n_turn >= before:  # the board took it back (it said so) but its event never came
            self.follow_board(_("the board's event for the take-back did not come"))

    def reed(self, station, out):
        """The console's `reed out|in N`: the board takes the switch out of service (or back)."""
        dead = self.board.reed(station, out)
        self.out((_("Switch of station %(station)d out of service: a piece put there is confirmed with the confirm "
                    "button. Out of service now: %(dead)s") if out else
                  _("Switch of station %(station)d back in service. Out of service now: %(dead)s")) % {
            "station": station, "dead": ", ".join(map(str, dead)) or _("none")})

    def place(self, piece, station, ticket):
        """The console's `place`: the piece in hand put on a station out of service."""
        r = self.board.place(piece, station, ticket)
        if r and r.get("pending"):
            self.out(_("%(piece)s on %(station)d: which ticket? press %(buttons)s on the board (or %(place)s %(piece)s "
                       "%(station)d %(ticket)s)") % {"piece": piece, "station": station, "ticket": r["pending"][0],
                                                    "place": word("place"),
                                                    "buttons": _(" or ").join(map(ticket_name, r["pending"]))})

    def board_notes(self):
        """Tell the players what the board cannot see: a destination out of service (put the piece
        there and press confirm), and ask where a piece in hand went when several are."""
        notes = getattr(self.board, "notes", None)
        if notes is None:
            return
        for n in notes():
            kind = n.get("note")
            if kind == "lifted" and n.get("confirm"):
                self.out(_("  %(piece)s in hand: the switch of %(stations)s is out of service: put it there, then "
                           "press confirm") % {"piece": n.get("piece"), "stations": " / ".join(map(str, n["confirm"]))})
            elif kind == "where":
                self.ask_where(n.get("piece"), n.get("stations") or [])
            elif kind == "chain":  # the reader chain lies (the game paused) or is whole again
                self.out("  " + refusals.chain_note(n))
            elif kind == "refused" and n.get("error") == "needs_consent":
                self.ask_consent(n.get("piece"), n.get("from"), n.get("to"))

    def ask_consent(self, piece, at, home):
        """The detectives held confirm on a move the game has answered (docs/fairplay.md): only
        Mister X may allow taking it back. A person is asked; the computer never allows it."""
        if self.mrx_agent is not None:
            self.out(_("  %(piece)s's move to %(station)s stands: Mister X does not allow taking it back") % {
                "piece": piece, "station": at})
            return
        prompt = _("%(piece)s asks to take back its move to %(station)s (the board has answered it: they know "
                   "you are not there). Allow it? [y/N] ") % {"piece": piece, "station": at}
        ask = getattr(self.inp, "ask", None)  # the secret page's input: the page asks with its own buttons
        try:
            text = ask(prompt, {"kind": "consent", "piece": piece, "station": at}) if ask else self.inp(prompt)
        except EOFError:
            return
        if not is_yes(text):  # the page answers y or n; a person types his language's yes, or y
            self.out(_("  %(piece)s's move to %(station)s stands") % {"piece": piece, "station": at})
            return
        try:
            self.take_back(piece)
        except (BoardError, ParseError) as e:
            self.out(_("refused: %s") % refusals.shown(e))

    def ask_where(self, piece, stations):
        names = _(" or ").join(map(str, stations))
        while True:
            try:
                text = self.inp(_("%(piece)s went to %(stations)s (switches out of service): which? ") % {
                    "piece": piece, "stations": names}).strip()
            except EOFError:
                return
            if not text:
                return  # the players go on with the board
            try:
                words = text.split()
                if not words[0].isdigit() or int(words[0]) not in stations or len(words) > 2:
                    raise ParseError(_("one of %s, and a ticket if asked") % names)
                ticket = TICKET_NAMES[parse_ticket(words[1])] if len(words) == 2 else None
                self.place(piece, int(words[0]), ticket)
                return
            except ParseError as e:
                self.out("? " + str(e))
            except BoardError as e:
                self.out(_("refused: %s") % refusals.shown(e))

    # --- the loop -----------------------------------------------------------------------------
    def say_cornered(self):
        self.out(_("You cannot move: every station you could reach is blocked. The detectives win.") if self.secret_screen
                 else _("Mister X cannot move: every station he could reach is blocked. The detectives win."))

    def mrx_turn(self):
        """Ask for moves until one is accepted. Returns False if Mister X quits."""
        g = self.sg.game
        if not g.legal_mrx():
            self.say_cornered()
            self.sg.cornered()
            self.board.cornered()
            return True
        if not self.quiet:
            self.out("")
            self.show_status()
        if self.mrx_agent is not None:
            return self.computer_move()
        while True:
            try:
                # i18n: the console's prompt, where Mister X types his move (his name as the rulebook spells it)
                text = self.inp(_("mister x> "))
            except EOFError:  # Ctrl-D quits as `quit` does: he is told where his game is
                self.out("")
                self.out(self.quit_hint)
                return False
            try:
                kind, payload = parse_command(text)
                if kind == "empty":
                    continue
                if kind == "quit":
                    self.out(self.quit_hint)
                    return False
                if kind == "help":
                    self.out(help_text())
                    continue
                if kind == "status":
                    self.show_status()
                    continue
                if kind == "log":
                    self.out(_("Travel log: %s") % self.log_text())
                    continue
                if kind == "candidates":
                    self.out(_("The detectives may think you are on: %s") % " ".join(map(str, g.candidates())))
                    continue
                if kind == "legal":
                    self.out(self.legal_text(payload))
                    continue
                if kind in ("reed", "place"):
                    try:
                        getattr(self, kind)(*payload)
                    except BoardError as e:
                        self.out(_("refused: %s") % refusals.shown(e))
                    continue
                if kind == "undo":
                    try:
                        self.take_back(payload)
                    except BoardError as e:
                        self.out(_("refused: %s") % refusals.shown(e))
                        continue
                    if g.phase != PHASE_MRX:
                        return True
                    continue
                if self.catch_up():
                    return True
                line = self.try_move(kind, payload)
                self.out(_("OK: %s") % self.describe(line))
                return True
            except ParseError as e:
                self.out("? " + str(e))
            except RuleError as e:
                self.out(_("refused: %s") % refusals.shown(e))
            except MoveTakenBack as e:
                self.out(_("(%s; your move is withdrawn: you move again after the detectives)") % e)
                return True

    def detectives_turn(self):
        """Wait for the board to report the detectives' moves; apply them; declare a capture.
        With a `detectives` driver (the simulator), it makes one move at a time on the board."""
        sg = self.sg
        g = sg.game
        if not self.quiet and self.announced != (g.round, g.moves):
            self.announced = (g.round, g.moves)  # announced once, not again after a take-back
            self.out(_("Detectives' turn (round %d): waiting for the board...") % g.round)
        while g.phase == PHASE_DETECTIVES and g.result is None:
            if self.detectives is None:
                for ev in self.board.events(self.wait):
                    self.on_event(ev)
                self.board_notes()
                continue
            mark = (g.round, g.moved, g.phase)
            self.detectives(sg)
            end = self.clock() + (self.move_timeout or 0)
            while (g.round, g.moved, g.phase) == mark and g.result is None:
                for ev in self.board.events(self.wait or 0.01):
                    self.on_event(ev)
                self.board_notes()  # (the table may ask to take a move back meanwhile)
                if self.move_timeout is not None and self.clock() > end:
                    raise BoardError(_("the board did not take the detectives' move within %.0f s") % self.move_timeout)

    def follow_board(self, reason):
        """The board said something the game cannot apply: it is the referee, its journal is followed
        (a board adapter without a journal only gets the reason said)."""
        follow = getattr(self.board, "follow_board", None)
        if follow is None:
            self.out("(%s)" % reason)
            return
        follow(reason)

    def on_event(self, ev):
        sg = self.sg
        g = sg.game
        if ev.get("type") == "undo":
            try:
                line = sg.take_back(ev.get("piece"))
            except RuleError as e:
                self.follow_board(_("the board took back a move the game cannot (%(piece)s): %(why)s") % {
                    "piece": ev.get("piece"), "why": refusals.shown(e)})
                return
            self.out(_("  %(piece)s's move to %(station)d taken back: %(piece)s goes back to %(back)d") % {
                "piece": line["piece"], "station": line["to"], "back": ev.get("to")})
            put_back = getattr(self.detectives, "put_back", None)  # computer detectives: the piece goes back
            if put_back is not None:
                put_back(line["piece"], ev.get("from"), ev.get("to"))
            return
        if ev.get("type") != "move":
            return
        piece, ticket, to = ev.get("piece"), ev.get("ticket"), ev.get("to")
        try:
            sg.detective_move(piece, ticket, to)
        except RuleError as e:
            self.follow_board(_("the board reported a move the rules refuse (%(piece)s %(ticket)s %(station)s): %(why)s") % {
                "piece": piece, "ticket": ticket, "station": to, "why": refusals.shown(e, piece=piece, ticket=ticket, to=to)})
            return
        self.out((_("  %(piece)s by %(ticket)s to %(station)d") if ticket else _("  %(piece)s to %(station)d")) % {
            "piece": piece, "ticket": ticket_name(ticket), "station": to})
        if g.result == "detectives" and g.reason == "capture":
            self.out((_("%(piece)s lands on your station %(station)d: you are caught!") if self.secret_screen else
                      _("%(piece)s lands on Mister X's station %(station)d: caught!")) % {"piece": piece, "station": to})
            if not ev.get("capture"):
                self.board.capture(piece)
        elif g.result == "detectives" and g.reason == "mrx_stuck":
            # the move closed the round and left him no move: the board knows only his possible
            # stations, so it is told, with the proof (it ignores this if it saw it itself)
            self.say_cornered()
            self.board.cornered()

    def play(self):
        """Run the game until it ends (True) or Mister X quits (False)."""
        while self.sg.game.result is None:  # the game object itself is replaced when a move is withdrawn
            if self.sg.game.phase == PHASE_MRX:
                if not self.mrx_turn():
                    return False
            else:
                self.detectives_turn()
        self.finish()
        return True

    def finish(self):
        sg = self.sg
        g = sg.game
        winner = _("Mister X wins") if g.result == "mrx" else _("The detectives win")
        why = {"capture": _("a detective caught Mister X"), "mrx_stuck": _("Mister X could not move"),
               "rounds_done": ngettext("Mister X stayed hidden for all %d round",
                                       "Mister X stayed hidden for all %d rounds", g.rounds) % g.rounds,
               "detectives_stuck": _("no detective could move")}.get(g.reason, g.reason)
        self.out("")
        self.out(_("GAME OVER: %(winner)s (%(why)s), round %(round)d.") % {"winner": winner, "why": why, "round": g.round})
        self.out(_("Full travel log: start %(station)d | %(log)s") % {"station": sg.setup["mrx"],
                                                                        "log": self.log_text(full=True)})
        for line in self.stats_lines():
            self.out(line)
        ok, message = self.board.reveal(sg.reveal())
        if ok is not None:
            sg.setup["revealed"] = True
            sg.save()
        if ok is None:
            self.out(_("Commitments: revealed to the host log only (%s).") % message)
        elif ok:
            self.out(_("The board checked every commitment against the revealed log: fair play verified."))
        else:
            self.out(_("The board did NOT verify the log: %s") % message)
        self.out(_("Secret log: %(path)s   (check it with: yard verify %(path)s)") % {"path": sg.path})  # the game is over

    def stats_lines(self):
        g = self.sg.game
        entries = self.sg.entries()
        used = {}
        for t, *_rest in entries:
            used[t] = used.get(t, 0) + 1
        doubles = sum(1 for line in self.sg.mrx_lines() if "double" in line)
        det = sum(1 for line in self.sg.lines if line.get("type") == "move")
        n = g.candidates_count()
        return [_("Statistics: %(rounds)d rounds, Mister X made %(moves)d moves (%(tickets)s), %(doubles)s; detectives "
                  "and bobbies made %(detective_moves)d moves; %(possible)s still possible for him at the end; "
                  "%(seconds)s s.") % {
                    "rounds": g.round, "moves": len(entries),
                    "tickets": ", ".join("%s %d" % (ticket_name(k), used[k]) for k in TICKET_NAMES if k in used)
                    or _("none"),
                    "doubles": ngettext("%d double move", "%d double moves", doubles) % doubles,
                    "detective_moves": det,
                    "possible": ngettext("%d station was", "%d stations were", n) % n,
                    "seconds": number(round(self.clock() - self.started))}]
