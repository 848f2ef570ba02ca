"""The players' language: the catalogs are complete and checked by Babel's checkers, the language
is chosen from --lang, the environment or Accept-Language, and plural forms and numbers follow it."""
import os
import subprocess
import sys

import pytest

from host import ROOT, i18n
from host.i18n import catalogs

TRANSLATED = catalogs.TRANSLATED


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.use("en")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_catalog_is_complete_and_passes_babels_checkers(lang):
    """No missing, empty or fuzzy message; placeholders identical to the source; all plural forms."""
    assert catalogs.problems(lang) == []


def test_the_template_holds_what_the_sources_say():
    """A message wrapped in the code but not extracted would reach every player in English."""
    extracted = {m.id for m in catalogs.extract() if m.id}
    template = {m.id for m in catalogs.read_template() if m.id}
    assert extracted == template, "run python -m host.i18n update: %s" % sorted(map(str, extracted ^ template))[:10]


def test_a_placeholder_changed_in_a_translation_is_caught(tmp_path, monkeypatch):
    """The check itself can fail: a catalog whose translation drops a placeholder is reported."""
    path = i18n.po_path("de")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    bad = text.replace('msgstr "%(piece)s kann jetzt nicht nach %(to)s"', 'msgstr "%(piece)s kann jetzt nicht"', 1)
    assert bad != text
    copy = tmp_path / "de" / "LC_MESSAGES" / "yard.po"
    copy.parent.mkdir(parents=True)
    copy.write_text(bad.replace('msgstr "diese Figur kann jetzt nicht dorthin"', 'msgstr ""', 1), encoding="utf-8")
    monkeypatch.setattr(catalogs, "po_path", lambda lang: str(tmp_path / lang / "LC_MESSAGES" / "yard.po"))
    found = catalogs.problems("de")
    assert any("placeholders" in p or "format" in p for p in found), found
    assert any("untranslated" in p for p in found), found


@pytest.mark.parametrize("arg, env, accept, lang, source", [
    ("fr", {"LANG": "de_DE.UTF-8"}, None, "fr", "--lang"),
    (None, {"LANG": "de_DE.UTF-8"}, "fr", "de", "LANG=de_DE.UTF-8"),
    (None, {"LC_ALL": "nl_NL.UTF-8", "LANG": "de_DE.UTF-8"}, None, "nl", "LC_ALL=nl_NL.UTF-8"),
    (None, {"LANGUAGE": "pt:it", "LANG": "de_DE.UTF-8"}, None, "it", "LANGUAGE=pt:it"),
    (None, {"LANG": "C.UTF-8"}, "ru-RU,ru;q=0.9", "ru", "Accept-Language"),
    (None, {"LANG": "pt_BR.UTF-8"}, "pt-BR, de;q=0.5, fr;q=0.8", "fr", "Accept-Language"),
    (None, {}, "pt-BR", "en", "default"),
    (None, {}, None, "en", "default"),
])
def test_the_language_is_chosen_in_order(arg, env, accept, lang, source):
    choice = i18n.choose(arg, environ=env, accept=accept)
    assert (choice.lang, choice.source) == (lang, source)


def test_an_unknown_lang_is_refused():
    with pytest.raises(ValueError):
        i18n.choose("xx", environ={})


@pytest.mark.parametrize("lang, one, few, many", [
    ("en", "expected 1 argument", "expected 3 arguments", "expected 5 arguments"),
    ("ru", "ожидался 1 аргумент", "ожидалось 3 аргумента", "ожидалось 5 аргументов"),
    ("fr", "1 argument attendu", "3 arguments attendus", "5 arguments attendus"),
])
def test_plural_forms_follow_the_language(lang, one, few, many):
    i18n.use(lang)
    got = [i18n.ngettext("expected %s argument", "expected %s arguments", n) % n for n in (1, 3, 5)]
    assert got == [one, few, many]


@pytest.mark.parametrize("lang, text", [("en", "1,234.5"), ("de", "1.234,5"), ("fr", "1\u202f234,5"),
                                        ("ru", "1\xa0234,5"), ("it", "1.234,5"), ("nl", "1.234,5")])
def test_numbers_are_written_as_the_language_writes_them(lang, text):
    assert i18n.number(1234.5, lang) == text


def test_the_pages_catalog_picks_plural_forms_by_cldr_category():
    page = i18n.page_catalog("ru")
    assert page["plural"]["one"] == 0 and page["plural"]["few"] == 1 and page["plural"]["many"] == 2
    assert page["messages"]["taxi"] == "такси"
    assert page["messages"]["expected %s argument"] == ["ожидался %s аргумент", "ожидалось %s аргумента",
                                                         "ожидалось %s аргументов"]


def test_the_pseudo_locale_marks_every_message_and_keeps_placeholders():
    i18n.use(i18n.PSEUDO)
    text = i18n._("%(piece)s cannot go to %(to)s now")
    assert text.startswith("⟦") and text.endswith("⟧") and "%(piece)s" in text and "%(to)s" in text
    assert (text % {"piece": "D1", "to": 5}).count("D1") == 1


def _yard(*args, env):
    return subprocess.run([sys.executable, "-m", "host", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, env=env, stdin=subprocess.DEVNULL)


def test_yard_says_which_language_it_chose_and_speaks_it():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    r = _yard("replay", env=dict(env, LANG="de_DE.UTF-8"))
    assert "Sprache Deutsch (de, aus LANG=de_DE.UTF-8)" in r.stderr
    assert "Aufruf: yard replay" in r.stderr and "Fehler: diese Argumente fehlen: record" in r.stderr
    r = _yard("--lang", "nl", "--help", env=dict(env, LANG="de_DE.UTF-8"))
    assert r.returncode == 0 and "taal Nederlands (nl, uit --lang)" in r.stderr
    assert "een spelverslag controleren" in r.stdout
    r = _yard("--lang=xx", "--help", env=env)
    assert r.returncode == 2 and "unknown language 'xx'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("line, parsed", [
    ("автобус 58", ("move", [(1, 58)])),
    ("58 метро", ("move", [(2, 58)])),
    ("métro 13", ("move", [(2, 13)])),
    ("nero 115", ("move", [(3, 115)])),
    ("doppelzug taxi 14 bus 58", ("double", [(0, 14), (1, 58)])),
    ("dubbelzet t 14 metro 58", ("double", [(0, 14), (2, 58)])),
    ("двойное такси 14 автобус 58", ("double", [(0, 14), (1, 58)])),
    ("bus 58", ("move", [(1, 58)])),
    ("double taxi 14 bus 58", ("double", [(0, 14), (1, 58)])),
])
def test_the_console_takes_each_rulebooks_move_words(line, parsed):
    from host.misterx.console import parse_command
    assert parse_command(line) == parsed


def test_the_console_words_are_one_meaning_each_and_shown_in_the_help():
    from host.misterx.console import ABBREVIATED, COMMANDS, DOUBLE_WORDS, TICKET_ALIASES, help_text
    from host.words import CONSOLE_WORDS
    for words in CONSOLE_WORDS.values():
        for key, own in words.items():
            for w in own:
                assert (w in DOUBLE_WORDS) == (key == "double") and (w in TICKET_ALIASES) == (key != "double"), w
                assert w not in COMMANDS and not any(c.startswith(w) for c in ABBREVIATED), w
    assert "автобус = bus" in help_text("ru") and "doppelzug = double" in help_text("de")
    assert help_text("en") == help_text("en").split("\n\n")[0] and "rulebook" not in help_text("en")


@pytest.mark.parametrize("cfg, english, german", [
    ({"leds": {"brightness": "a"}}, "leds.brightness: must be a number, got 'a'",
     "leds.brightness: muss eine Zahl sein, ist 'a'"),
    ({"leds": {"zz": 1}}, "leds.zz: unknown key (known: ", "leds.zz: unbekannter Schlüssel (bekannt: "),
    ({"board": "x"}, "board: must be one of pico, esp32, got 'x'", "board: muss eines von pico, esp32 sein, ist 'x'"),
    ([1], "the config must be a JSON object, got 'list'", "die Konfiguration muss ein JSON-Objekt sein, ist 'list'"),
])
def test_board_json_problems_are_worded_by_the_host_in_the_makers_language(cfg, english, german):
    from sy.hardware import boardconfig
    from host import configerrors
    with pytest.raises(boardconfig.ConfigError) as got:
        boardconfig.validate(cfg)
    assert configerrors.explain(got.value).startswith(english)
    i18n.use("de")
    try:
        assert configerrors.explain(got.value).startswith(german)
    finally:
        i18n.use("en")
