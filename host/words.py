"""The game's own words in the player's language: tickets, transports, pieces, results.

The board and the records name them with small fixed words (`taxi`, `black`, `D2`, `capture`);
the host shows them with the rulebook's words for the language (docs/glossary.md)."""
from host.i18n import N_, _

TICKETS = {
    "taxi": N_("taxi"),
    "bus": N_("bus"),
    "underground": N_("underground"),
    # i18n: the black ticket, in the travel log beside taxi, bus, underground
    "black": N_("black"),
    "double": N_("double move"),
}

REASONS = {
    "capture": N_("Mister X was caught"),
    "mrx_stuck": N_("Mister X cannot move"),
    "rounds_done": N_("Mister X escaped: the last round is over"),
    "detectives_stuck": N_("the detectives cannot move"),
}

LEVELS = {
    "random": N_("random"),
    "easy": N_("easy"),
    "normal": N_("normal"),
    "hard": N_("hard"),
}

WINNERS = {
    "detectives": N_("the detectives win"),
    "mrx": N_("Mister X wins"),
}


# the Europe game (Mister X - Flight through Europe): its mission levels and how a game ends
EUROPE_LEVELS = {
    # i18n: the Europe game's mission level (the colour of its rings): beginners
    "green": N_("green"),
    # i18n: the Europe game's mission level: experienced players
    "yellow": N_("yellow"),
    # i18n: the Europe game's mission level: experts
    "orange": N_("orange"),
}

EUROPE_REASONS = {
    "capture": N_("Mister X was caught"),
    "mrx_stuck": N_("Mister X cannot move"),
    "destination": N_("Mister X reached his mission's destination"),
}


def europe_level(level):
    return _(EUROPE_LEVELS[level]) if level in EUROPE_LEVELS else level


def europe_reason(code):
    return _(EUROPE_REASONS[code]) if code in EUROPE_REASONS else code


# the console's move words in each language: the rulebook's own (docs/glossary.md), typed beside
# the English ones it always takes (`bus 58`, `double`). Every language's words work in every
# language (a family may mix them); `help` shows the player's own.
CONSOLE_WORDS = {
    "de": {"double": ("doppelzug",)},
    "nl": {"underground": ("metro",), "double": ("dubbelzet", "dubbele")},
    "fr": {"underground": ("métro", "metro"), "double": ("coup",)},
    "it": {"bus": ("autobus",), "underground": ("metropolitana", "metro"), "black": ("nero", "neri"),
           "double": ("doppia",)},
    "ru": {"taxi": ("такси",), "bus": ("автобус",), "underground": ("метро",), "black": ("чёрный", "черный"),
           "double": ("двойное", "двойной")},
}


# the console's command words in each language, beside the English ones it always takes: a short
# word of the player's language for each command (docs/glossary.md), the first one shown by `help`;
# `out` and `in` follow the reed command. Every language's words work in every language, as the move
# words do, and no word means two things (tests/test_i18n.py). English abbreviations (`s`, `le`)
# stay English's; the other languages' words are typed whole.
COMMAND_WORDS = {
    "en": {"legal": ("legal",), "status": ("status",), "log": ("log",), "candidates": ("candidates",),
           "undo": ("undo", "takeback", "take-back"), "reed": ("reed",), "place": ("place",), "help": ("help", "?"),
           "quit": ("quit", "exit"), "out": ("out",), "in": ("in",)},
    "de": {"legal": ("züge", "zuege"), "status": ("stand",), "log": ("tafel", "fahrtentafel"),
           "candidates": ("verdacht",), "undo": ("zurück", "zurueck"), "reed": ("schalter",), "place": ("stellen",),
           "help": ("hilfe",), "quit": ("ende",), "out": ("aus",), "in": ("an",)},
    "nl": {"legal": ("zetten",), "status": ("stand",), "log": ("tabel", "rittentabel"), "candidates": ("verdacht",),
           "undo": ("terug",), "reed": ("schakelaar",), "place": ("plaats",), "help": ("hulp",), "quit": ("stop",),
           "out": ("uit",), "in": ("aan",)},
    "fr": {"legal": ("possibles",), "status": ("état", "etat"), "log": ("tablette",),
           "candidates": ("soupçons", "soupcons"), "undo": ("annuler",), "reed": ("interrupteur",),
           "place": ("poser",), "help": ("aide",), "quit": ("quitter",), "out": ("hors",), "in": ("en",)},
    "it": {"legal": ("mosse",), "status": ("stato",), "log": ("tabella",), "candidates": ("sospetti",),
           "undo": ("annulla",), "reed": ("interruttore",), "place": ("metti",), "help": ("aiuto",),
           "quit": ("esci",), "out": ("fuori",), "in": ("in",)},
    "ru": {"legal": ("ходы",), "status": ("статус",), "log": ("журнал", "путеводитель"),
           "candidates": ("подозрения",), "undo": ("отмена",), "reed": ("датчик",), "place": ("поставить",),
           "help": ("помощь",), "quit": ("выход",), "out": ("выкл",), "in": ("вкл",)},
}


def command_word(command, lang):
    """The word `help` shows for a command in a language (English where it has none)."""
    return COMMAND_WORDS.get(lang, {}).get(command, COMMAND_WORDS["en"][command])[0]


def console_words(lang):
    """The player's language's own move words: [(the English word, its words)], in ticket order."""
    own = CONSOLE_WORDS.get(lang, {})
    return [(key, own[key]) for key in ("taxi", "bus", "underground", "black", "double") if key in own]


def ticket_name(ticket):
    return _(TICKETS[ticket]) if ticket in TICKETS else ticket


def piece_name(piece):
    """'X' is Mister X, 'D1'... detectives, 'B1'... Bobbies (the board's names)."""
    if piece in ("X", "mrx"):
        return _("Mister X")
    if isinstance(piece, str) and len(piece) > 1 and piece[1:].isdigit():
        if piece[0] == "D":
            return _("detective %s") % piece[1:]
        if piece[0] == "B":
            return _("Bobby %s") % piece[1:]
    return str(piece)


def level_name(level):
    """A computer players' level (`--level`) as the player reads it."""
    return _(LEVELS[level]) if level in LEVELS else level


def reason(code):
    return _(REASONS[code]) if code in REASONS else code


def winner(side):
    return _(WINNERS[side]) if side in WINNERS else side
