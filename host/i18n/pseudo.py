"""The pseudo-locale `qps`: each message of the template, accented and bracketed, placeholders
kept. A test runs the demo in it: any line a player reads without the brackets did not go
through a catalog."""
import re

from babel.messages.catalog import Catalog

OPEN, CLOSE = "⟦", "⟧"
_ACCENTS = str.maketrans("aeiouyAEIOUYcnsCNS", "àéîõüýÀÉÎÕÜÝçñšÇÑŠ")
# printf fields (%s, %(name)s, %.1f, %%), str.format fields ({name}) and HTML tags stay as they are
_KEEP = re.compile(r"%(?:\([a-z_]+\))?[-+ #0]*\d*(?:\.\d+)?[sdrfi%]|\{[a-z_0-9]*\}|<[^>]+>")


def pseudo(text):
    out = []
    last = 0
    for m in _KEEP.finditer(text):
        out.append(text[last:m.start()].translate(_ACCENTS))
        out.append(m.group(0))
        last = m.end()
    out.append(text[last:].translate(_ACCENTS))
    return OPEN + "".join(out) + CLOSE


def pseudo_catalog(template):
    """The pseudo-locale's catalog from the template's messages."""
    catalog = Catalog(locale="en", domain="yard")
    for m in template:
        if not m.id:
            continue
        if isinstance(m.id, (tuple, list)):
            catalog.add(m.id, (pseudo(m.id[0]), pseudo(m.id[1])), flags=m.flags - {"fuzzy"})
        else:
            catalog.add(m.id, pseudo(m.id), flags=m.flags - {"fuzzy"})
    return catalog
