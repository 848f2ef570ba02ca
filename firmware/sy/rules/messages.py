"""The sentences of the refusals raised by the code the board keeps on its heap (rules, board,
protocol). They live in messages.txt next to this module, one per line as `_KEY sentence`: that
code raises RuleError(code, _KEY, *args) with `_KEY = const(n)`, n the line's index, the args its
%-fields. tests/test_messages.py checks every _KEY against the file, by index and by name.

Only the sentence being reported is read onto the heap: as a table of string objects the 56
sentences took about 5 KB while an error was reported, which a board short of heap (a game
resumed after a power cut, on the unix port at 64k) could not always find (docs/memory.md).
"""


def text(n):
    """Sentence n: line n of messages.txt without its key. OSError if the file is missing."""
    here = __file__
    f = open(here[:max(here.rfind("/"), here.rfind("\\")) + 1] + "messages.txt")
    try:
        for _ in range(n):
            f.readline()
        line = f.readline()
    finally:
        f.close()
    return line[line.find(" ") + 1:].rstrip("\n")
