"""The players' language: everything `yard` and its pages say goes through gettext catalogs.

The sources are host/locale/<lang>/LC_MESSAGES/yard.po (English is the source language: the
msgids). They are read with Babel and compiled in memory at first use, so an editable install, a
wheel and a fresh clone in CI all read the same .po files and no compiled catalog is kept in the
tree. The pages get the same catalog as JSON (`page_catalog`).

The language comes from `--lang`, else the environment (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, in
gettext's order), else a browser's Accept-Language for the pages, else English.

`qps` is a pseudo-locale for tests: every translated string is marked and accented, so a string
that reaches a player without going through a catalog stands out.
"""
import gettext
import io
import os
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCALE_DIR = os.path.join(ROOT, "locale")
DOMAIN = "yard"
SOURCE = "en"
LANGUAGES = ("en", "de", "nl", "fr", "it", "ru")
PSEUDO = "qps"
# each language's name in itself, for `yard` to say which one it chose
NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands", "fr": "Français", "it": "Italiano",
         "ru": "Русский", PSEUDO: "pšéüðõ-lõçàlé"}
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_lock = threading.Lock()
_compiled = {}  # lang: gettext.GNUTranslations (or NullTranslations for the source language)
_current = {"lang": SOURCE}


def known(lang):
    return lang in LANGUAGES or lang == PSEUDO


def parse(value):
    """A language of ours from a locale name or tag: 'fr_FR.UTF-8', 'de-CH', 'ru' -> 'fr', 'de',
    'ru'; None for anything else ('C', 'POSIX', '', a language without a catalog)."""
    if not value:
        return None
    tag = value.split(".")[0].split("@")[0].replace("-", "_").strip().lower()
    if tag == PSEUDO:
        return PSEUDO
    base = tag.split("_")[0]
    return base if base in LANGUAGES else None


def from_accept_language(header):
    """The best of our languages for a browser's Accept-Language header, or None."""
    if not header:
        return None
    ranked = []
    for index, part in enumerate(header.split(",")):
        fields = part.strip().split(";")
        quality = 1.0
        for f in fields[1:]:
            f = f.strip()
            if f.startswith("q="):
                try:
                    quality = float(f[2:])
                except ValueError:
                    quality = 0.0
        lang = parse(fields[0])
        if lang and quality > 0:
            ranked.append((-quality, index, lang))
    return min(ranked)[2] if ranked else None


class Choice:
    """The language chosen and what chose it ('--lang', 'LANG=fr_FR.UTF-8', 'Accept-Language',
    'default')."""

    def __init__(self, lang, source):
        self.lang = lang
        self.source = source

    def __repr__(self):
        return "Choice(%r, %r)" % (self.lang, self.source)


def choose(arg=None, environ=None, accept=None):
    """The language from `--lang` (arg), else the environment, else Accept-Language, else English.
    An unknown --lang is the caller's error to report; unknown environment values are skipped
    as gettext skips them."""
    if arg:
        lang = parse(arg)
        if lang:
            return Choice(lang, "--lang")
        raise ValueError(arg)
    environ = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = environ.get(name)
        if not value:
            continue
        # LANGUAGE is a colon-separated list of preferences; the others name one locale
        for item in value.split(":") if name == "LANGUAGE" else (value,):
            lang = parse(item)
            if lang:
                return Choice(lang, "%s=%s" % (name, value))
        if name != "LANGUAGE":
            break  # the first of LC_ALL/LC_MESSAGES/LANG that is set decides, even as 'C'
    lang = from_accept_language(accept)
    if lang:
        return Choice(lang, "Accept-Language")
    return Choice(SOURCE, "default")


def po_path(lang):
    return os.path.join(LOCALE_DIR, lang, "LC_MESSAGES", DOMAIN + ".po")


def template_path():
    return os.path.join(LOCALE_DIR, DOMAIN + ".pot")


def read_catalog(lang):
    """The Babel Catalog of a language's .po (the pseudo-locale's made from the template)."""
    from babel.messages.pofile import read_po
    if lang == PSEUDO:
        from host.i18n.pseudo import pseudo_catalog
        with open(template_path(), "rb") as f:
            return pseudo_catalog(read_po(f, domain=DOMAIN))
    with open(po_path(lang), "rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def translations(lang):
    """gettext translations for a language, compiled from its .po at first use."""
    with _lock:
        t = _compiled.get(lang)
        if t is None:
            if lang == SOURCE:
                t = gettext.NullTranslations()
            else:
                from babel.messages.mofile import write_mo
                buf = io.BytesIO()
                write_mo(buf, read_catalog(lang), use_fuzzy=False)
                buf.seek(0)
                t = gettext.GNUTranslations(buf)
            _compiled[lang] = t
        return t


def use(lang):
    """Speak `lang` from now on (the whole process: `yard` serves one player's language)."""
    if not known(lang):
        raise ValueError(lang)
    translations(lang)
    _current["lang"] = lang


def current():
    return _current["lang"]


def _(message):
    return translations(_current["lang"]).gettext(message)


def ngettext(singular, plural, n):
    return translations(_current["lang"]).ngettext(singular, plural, n)


def N_(message):
    """Marks a message for the catalog where it is defined (a table); it is translated where it is shown."""
    return message


def N_n(singular, plural):
    """Marks a message with a plural form for the catalog; ngettext() translates it where it is shown."""
    return (singular, plural)


def is_yes(text):
    """A player's answer "yes" to a yes/no question, in his language or in English."""
    # i18n: a short and a long answer "yes" to a [y/N] question (English y and yes work too)
    return text.strip().lower() in ("y", "yes", _("y"), _("yes"))


def is_no(text):
    """A player's answer "no" to a yes/no question, in his language or in English."""
    # i18n: the answer "no" to a [Y/n] question, as its first letter (English n works too)
    return text.strip().lower().startswith(("n", _("n")))


def babel_locale(lang=None):
    lang = lang or _current["lang"]
    return SOURCE if lang == PSEUDO else lang


def number(value, lang=None):
    """A number in the language's format (1,234.5 / 1.234,5 / 1 234,5)."""
    from babel.numbers import format_decimal
    return format_decimal(value, locale=babel_locale(lang))


def percent(value, lang=None):
    from babel.numbers import format_percent
    return format_percent(value, locale=babel_locale(lang))


def page_catalog(lang):
    """The catalog the pages read (served as JSON): msgid -> text, or the list of plural forms
    under the singular msgid; with the language's plural rule as a JavaScript-safe expression."""
    catalog = read_catalog(lang) if lang != SOURCE else None
    messages = {}
    if catalog is not None:
        for m in catalog:
            if not m.id or m.fuzzy:
                continue
            if isinstance(m.id, (tuple, list)):
                if all(m.string):
                    messages[m.id[0]] = list(m.string)
            elif m.string:
                messages[m.id] = m.string
    return {"lang": lang, "plural": plural_indexes(lang), "messages": messages}


def plural_indexes(lang):
    """CLDR plural category -> index of the gettext plural form, for the pages: they pick the
    category with the browser's Intl.PluralRules and need no copy of the rule in JavaScript."""
    from babel import Locale
    rule = Locale.parse(babel_locale(lang)).plural_form
    forms = translations(lang)
    indexes = {}
    for n in range(0, 200):
        if lang == SOURCE or not hasattr(forms, "plural"):
            index = 0 if n == 1 else 1
        else:
            index = forms.plural(n)
        indexes.setdefault(rule(n), index)
    return indexes
