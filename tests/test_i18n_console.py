"""Mister X's console in the player's language: the prompt, the command words (host/words.py
COMMAND_WORDS) typed in French and Russian, `help` listing them, no word meaning two things, and
the pseudo-locale's help with nothing outside the catalog's brackets. English always works."""
import random
import re

import pytest

from host import i18n
from host.misterx.console import (ABBREVIATED, COMMANDS, DOUBLE_WORDS, REED_STATES, TICKET_ALIASES, Console,
                                  ParseError, help_text, parse_command, parse_ticket)
from host.misterx.secretgame import SecretGame, draw_setup
from host.i18n import _
from host.ptyterminal import PtyTerminal
from host.words import COMMAND_WORDS, CONSOLE_WORDS
from mpy import needs_unix_port
from consoleboard import ReedBoard, random_detectives
from yardplay import yard_env

ARGUMENTS = ("out", "in")  # the reed command's second words


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.use("en")


def test_every_language_has_a_word_for_every_command_and_none_means_two_things():
    meaning = {}
    for lang, table in COMMAND_WORDS.items():
        assert set(table) == set(COMMAND_WORDS["en"]), lang
        for key, words in table.items():
            kind = "argument" if key in ARGUMENTS else "command"
            for w in words:
                assert w == w.lower() and w.split() == [w], (lang, w)
                assert meaning.setdefault((kind, w), key) == key, (lang, w, meaning[(kind, w)], key)
                if kind == "command":
                    # a command word is never a move word, a station, nor an English abbreviation of another
                    assert w not in TICKET_ALIASES and w not in DOUBLE_WORDS and not w.isdigit(), (lang, w)
                    assert all(COMMANDS[name] == key for name in ABBREVIATED if name.startswith(w)), (lang, w)
    for words in CONSOLE_WORDS.values():  # and no move word is a command
        for own in words.values():
            assert not set(own) & set(COMMANDS), own
    assert set(REED_STATES) == {w for t in COMMAND_WORDS.values() for k in ARGUMENTS for w in t[k]}


@pytest.mark.parametrize("lang", sorted(COMMAND_WORDS))
def test_each_languages_words_parse_to_their_command_in_every_language(lang):
    t = {key: words[0] for key, words in COMMAND_WORDS[lang].items()}
    for speaking in ("en", lang):
        i18n.use(speaking)
        assert parse_command("%s %s" % (t["legal"], "coup")) == ("legal", True)
        assert parse_command(t["legal"]) == ("legal", False)
        for key in ("status", "log", "candidates", "help", "quit"):
            assert parse_command(t[key].upper()) == (key, None)
        assert parse_command("%s d2" % t["undo"]) == ("undo", "D2")
        assert parse_command("%s %s 45" % (t["reed"], t["out"])) == ("reed", (45, True))
        assert parse_command("%s %s 45" % (t["reed"], t["in"])) == ("reed", (45, False))
        assert parse_command("%s D1 45 bus" % t["place"]) == ("place", ("D1", 45, "bus"))


def test_a_wrong_command_line_is_explained_with_the_players_words():
    i18n.use("fr")
    with pytest.raises(ParseError, match="interrupteur hors 45 met l'interrupteur"):
        parse_command("interrupteur 45")
    with pytest.raises(ParseError, match="annuler annule"):
        parse_command("annuler X9")
    i18n.use("en")
    with pytest.raises(ParseError, match="reed out 45 takes"):
        parse_command("reed off 45")


def session(tmp_path, lang, typed, seed=3):
    """A console in `lang`, Mister X typing `typed`: what it printed and the prompts it showed."""
    i18n.use(lang)
    rng = random.Random(seed)
    sg = SecretGame.create(draw_setup(3, rng), folder=str(tmp_path))
    board = ReedBoard(rng)
    lines, prompts = [], []
    queue = iter(typed)

    def inp(prompt):
        prompts.append(prompt)
        return next(queue)

    con = Console(sg, board, inp=inp, out=lines.append, detectives=random_detectives(board), wait=0)
    return con, sg, board, lines, prompts


@pytest.mark.parametrize("lang, words, expect", [
    ("fr", ("aide", "possibles", "possibles coup", "état", "tablette", "soupçons", "interrupteur hors 45",
            "interrupteur en 45", "métro 999", "quitter"),
     ("possibles [coup]", "état ", "tablette ", "soupçons ", "interrupteur hors 45", "poser D1 45 [bus]",
      "aide ", "quitter ", "Tablette de déplacements :", "Les détectives peuvent te croire sur",
      "Interrupteur de l'arrêt 45", "Sauvegardé.")),
    ("ru", ("помощь", "ходы", "ходы двойное", "статус", "журнал", "подозрения", "датчик выкл 45", "датчик вкл 45",
            "выход"),
     ("ходы [двойное]", "статус ", "журнал ", "подозрения ", "датчик выкл 45", "поставить D1 45 [автобус]",
      "помощь ", "выход ", "Путеводитель:", "Детективы могут думать", "Сохранено.")),
])
def test_a_session_typed_in_the_players_words(tmp_path, lang, words, expect):
    con, sg, board, lines, prompts = session(tmp_path, lang, words)
    assert con.play() is False  # he quit, in his words
    text = "\n".join(lines)
    missing = [e for e in expect if e.lower() not in text.lower()]
    assert not missing, (missing, text)
    assert "?" not in [line[:1] for line in lines if "999" not in line], text  # every word understood
    assert prompts == [{"fr": "mister x> ", "ru": "мистер икс> "}[lang]] * len(words)
    assert [m for m in board.sent if "reed" in m] == [{"reed": 45, "out": True}, {"reed": 45, "out": False}]
    assert SecretGame.load(sg.path).game.moves == 0


def test_a_session_moves_with_the_players_words_and_english_still_works(tmp_path):
    con, sg, board, lines, prompts = session(tmp_path, "ru", [])
    g = sg.game
    station, ticket = g.legal_mrx()[0]
    own = {0: "такси", 1: "автобус", 2: "метро", 3: "чёрный"}[ticket]
    typed = iter(["статус", "legal", "%s %d" % (own, station)])  # English works beside Russian
    con.inp = lambda prompt: next(typed)
    assert con.mrx_turn() is True
    assert SecretGame.load(sg.path).game.moves == 1 and SecretGame.load(sg.path).game.mrx == station


def test_english_keeps_its_prompt_and_help():
    i18n.use("en")
    text = help_text()
    for usage in ("legal [double]", "status", "log", "candidates", "undo [D1]", "reed out 45", "reed in 45",
                  "place D1 45 [bus]", "help", "quit"):
        assert re.search(r"^    %s +\S" % re.escape(usage), text, re.M), usage
    assert "rulebook" not in text


def test_the_pseudo_locales_help_has_nothing_outside_the_catalog():
    """Outside the brackets only the command words and their arguments (the table's, not sentences)."""
    i18n.use(i18n.PSEUDO)
    text = help_text()
    outside = re.sub("⟦.*?⟧", " ", text, flags=re.S)
    allowed = {w for words in COMMAND_WORDS["en"].values() for w in words} | {"[double]", "[D1]", "D1", "45", "[bus]"}
    assert set(outside.split()) <= allowed, set(outside.split()) - allowed
    assert text.count("⟦") == 11  # the move syntax and each command's line


@needs_unix_port
@pytest.mark.parametrize("lang, prompt, typed", [
    ("fr", "mister x> ", ("aide", "état", "possibles", "quitter")),
    ("ru", "мистер икс> ", ("помощь", "статус", "ходы", "выход")),
])
def test_yard_sim_in_the_players_language_takes_his_words_through_a_pty(tmp_path, lang, prompt, typed):
    """The real `yard sim` (the firmware on the unix port), Mister X at a terminal typing his words."""
    i18n.use(lang)
    words = COMMAND_WORDS[lang]
    shown = ("%s %s 45" % (words["reed"][0], words["out"][0]), _("Travel log: %s") % "", _("legal: %s") % "")
    env = yard_env(tmp_path)
    for name in i18n.ENVIRONMENT:
        env.pop(name, None)
    host = PtyTerminal(["sim", "--players", "2", "--seed", "3", "--cards", "random", "--no-web", "--lang", lang], env)
    try:
        host.expect([re.escape(prompt)], timeout=60)
        for word, answer in zip(typed, shown):
            host.send(word)
            host.expect([re.escape(answer) + r"[^\n]*\n"], timeout=20)
            host.expect([re.escape(prompt)], timeout=20)
        host.send(typed[-1])
        assert host.proc.wait(20) == 0
        assert "\n? " not in host.seen  # every word understood
    finally:
        host.close()


def test_tab_completes_the_players_command_words_and_the_english_ones(tmp_path):
    con, *_rest = session(tmp_path, "fr", [])
    assert con.completions("ai", "ai") == ["aide"]
    assert con.completions("qu", "qu") == ["quit", "quitter"]
    assert con.completions("ét", "ét") == ["état"]
    assert "помощь" not in con.completions("", "")  # another language's words are typed, not offered


def test_a_wrong_ticket_names_the_tickets_in_the_players_words():
    i18n.use("ru")
    with pytest.raises(ParseError) as e:
        parse_ticket("blabla")
    assert "метро/underground/ug" in str(e.value) and "автобус/bus" in str(e.value)
    i18n.use("en")
    with pytest.raises(ParseError, match="taxi, bus, underground/ug, black/x"):
        parse_ticket("blabla")


def test_rounds_hidden_take_the_languages_plural():
    i18n.use("ru")
    hidden = i18n.ngettext("Mister X stayed hidden for all %d round", "Mister X stayed hidden for all %d rounds", 22)
    assert hidden % 22 == "Мистер Икс скрывался все 22 раунда"
    hidden = i18n.ngettext("Mister X stayed hidden for all %d round", "Mister X stayed hidden for all %d rounds", 25)
    assert hidden % 25 == "Мистер Икс скрывался все 25 раундов"


def test_the_start_cards_question_asks_again_until_yes_no_or_enter(monkeypatch):
    # (at a terminal only: the answers come from a stdin that says it is one)
    import argparse
    import io
    import sys
    from host.commands.play import new_setup

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    i18n.use("fr")
    said = []
    for typed, cards in (("aide\nhand\n\n", "random"), ("peut-être\nnon\n13 26 29 34\n45\n", "hand")):
        monkeypatch.setattr(sys, "stdin", Terminal(typed))
        said.clear()
        setup = new_setup(argparse.Namespace(players=1, start=None, cards=None), out=said.append,
                          rng=random.Random(1))
        assert said.count("o ou n, s'il vous plaît.") == (2 if cards == "random" else 1), said
        if cards == "hand":
            assert setup["mrx"] == 45, setup
