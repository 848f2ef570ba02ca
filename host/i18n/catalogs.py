"""The catalogs' upkeep (a maker's tool, `python -m host.i18n extract|update|check`): extract the
messages from the sources with Babel, merge them into each language's .po, and check them with
Babel's checkers (placeholders identical to the source, plural forms complete).

What is extracted: `_()`, `N_()`, `ngettext()` in host/**/*.py, and `t()`/`tn()` in the pages'
JavaScript (host/web/static/*.js), which read the same catalog as JSON."""
import os
import re
from html.parser import HTMLParser

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from host.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, ROOT, SOURCE, po_path, template_path

# (method map, keywords) per language: `t` is a call in the pages' JavaScript, a name in Python
PYTHON = ([("**/node_modules/**", "ignore"), ("**.py", "python")],
          {"_": None, "N_": None, "N_n": (1, 2), "ngettext": (1, 2)})
JAVASCRIPT = ([("**/node_modules/**", "ignore"), ("web/static/**.js", "javascript"), ("europe/**.js", "javascript"),
               ("web/static/**.html", "host.i18n.catalogs:extract_html"),
               ("europe/**.html", "host.i18n.catalogs:extract_html")],
              {"t": None, "tn": (1, 2), "tr": None, "trn": (1, 2)})  # mrx.js: tr, trn (its `t` is a ticket)
HTML_ATTRIBUTES = ("data-i18n-title", "data-i18n-aria-label", "data-i18n-placeholder", "data-i18n-alt")


class _Marked(HTMLParser):
    """The pages' marked words: an element's text where it has data-i18n (or the attribute's
    value when given), and the values of data-i18n-title and the like."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []  # (line, message)
        self.open = []  # [line, explicit message or None, text so far] of the marked elements open

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        line = self.getpos()[0]
        for name in HTML_ATTRIBUTES:
            if attrs.get(name):
                self.found.append((line, attrs[name]))
        if "data-i18n" in attrs:
            self.open.append([line, attrs["data-i18n"] or None, ""])
        elif self.open:
            self.open.append(None)  # an unmarked element inside a marked one

    def handle_endtag(self, tag):
        if self.open:
            top = self.open.pop()
            if top is not None:
                text = top[1] or " ".join(top[2].split())
                if text:
                    self.found.append((top[0], text))

    def handle_data(self, data):
        for entry in reversed(self.open):
            if entry is not None:
                entry[2] += data
                break


def extract_html(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the pages' HTML (docs/i18n.md)."""
    parser = _Marked()
    parser.feed(fileobj.read().decode("utf-8"))
    for line, message in parser.found:
        yield line, None, message, []
COMMENT_TAGS = ("i18n:",)
# printf fields; Babel's python_format checker lets a translation leave a named one out, ours does not
# a placeholder, or %% (a percent sign: "80 %% of it", dropped by placeholders())
PLACEHOLDER = re.compile(r"%%|%(?:\([a-z_]+\))?[-+ #0]*\d*(?:\.\d+)?[sdrfi]|\{[a-z_0-9]*\}")


def placeholders(text):
    return sorted(p for p in PLACEHOLDER.findall(text) if p != "%%")
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != SOURCE)


def extract():
    """A fresh template from the sources (under host/)."""
    template = Catalog(domain=DOMAIN, project="yard", charset="utf-8", fuzzy=False)
    for methods, keywords in (PYTHON, JAVASCRIPT):
        for filename, lineno, message, comments, context in extract_from_dir(
                ROOT, methods, keywords=keywords, comment_tags=COMMENT_TAGS, strip_comment_tags=True):
            template.add(message, None, [(os.path.join("host", filename), lineno)],
                         auto_comments=comments, context=context)
    return template


def read_template():
    with open(template_path(), "rb") as f:
        return read_po(f, domain=DOMAIN)


def write(catalog, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=100, omit_header=False, sort_output=False, include_lineno=False)


def update():
    """Rewrite the template from the sources and merge it into every language's .po (new
    messages come in untranslated, changed ones fuzzy: `check` then fails until they are done)."""
    template = extract()
    if os.path.exists(template_path()):
        old = read_template()
        if {m.id for m in old} == {m.id for m in template}:
            template.creation_date = old.creation_date  # nothing new: no churn in git
    write(template, template_path())
    for lang in TRANSLATED:
        path = po_path(lang)
        if os.path.exists(path):
            with open(path, "rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, fuzzy=False)
        catalog.update(template, update_header_comment=False)
        catalog.obsolete.clear()
        write(catalog, path)


def problems(lang):
    """Every reason the language's catalog is not ready: missing, fuzzy or empty messages, the
    source's messages it lacks, and the errors of Babel's checkers (python-format placeholders,
    the number of plural forms)."""
    template_ids = {m.id for m in read_template() if m.id}
    with open(po_path(lang), "rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    out = []
    ids = set()
    for m in catalog:
        if not m.id:
            continue
        ids.add(m.id)
        name = m.id if isinstance(m.id, str) else m.id[0]
        if m.fuzzy:
            out.append("%s: fuzzy: %r" % (lang, name))
        strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        if not all(strings):
            out.append("%s: untranslated: %r" % (lang, name))
            continue
        sources = m.id if isinstance(m.id, (tuple, list)) else (m.id,)
        wanted = placeholders(sources[-1])
        for s in strings:
            if placeholders(s) != wanted:
                out.append("%s: placeholders %s differ from the source's %s in %r" % (
                    lang, placeholders(s), wanted, name))
    for message, errors in catalog.check():
        for e in errors:
            out.append("%s: %r: %s" % (lang, message.id, e))
    for missing in template_ids - ids:
        out.append("%s: missing: %r" % (lang, missing))
    for extra in ids - template_ids:
        out.append("%s: not in the sources: %r" % (lang, extra))
    return out


def main(argv):
    what = argv[0] if argv else "check"
    if what == "extract":
        write(extract(), template_path())
        return 0
    if what == "update":
        update()
        return 0
    if what == "check":
        found = []
        for lang in TRANSLATED:
            found += problems(lang)
        for line in found:
            print(line)
        return 1 if found else 0
    print("usage: python -m host.i18n extract|update|check (catalogs in %s)" % LOCALE_DIR)
    return 2
