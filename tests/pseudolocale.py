"""Reading text printed in the pseudo-locale (`--lang qps`, host/i18n): every message that went
through a catalog stands inside ⟦...⟧, so what is left outside the brackets did not."""
import re

OPEN, CLOSE = "⟦", "⟧"
LETTERS = re.compile(r"[A-Za-z]{2,}")


def outside(text):
    """The text outside every ⟦...⟧ (nested ones included; a message may span lines)."""
    depth, out = 0, []
    for ch in text:
        if ch == OPEN:
            depth += 1
        elif ch == CLOSE:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def untranslated(text):
    """The lines of what is outside the brackets that hold a word."""
    return [line for line in outside(text).splitlines() if LETTERS.search(line)]
