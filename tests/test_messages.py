"""The refusal sentences of the board's resident code live in sy/rules/messages.txt (off the board's heap
until one is reported, then only that line): every `_KEY = const(n)` a module raises with must
name the right sentence, by index and by name, with as many %-fields as the raise gives arguments."""
import ast
import importlib
import os
import re

import pytest

from host import ROOT
from sy.rules.messages import text
from sy.rules.game import Game, RuleError

with open(os.path.join(ROOT, "firmware", "sy", "rules", "messages.txt"), encoding="ascii") as _f:
    LINES = [line.rstrip("\n").split(" ", 1) for line in _f]  # [_KEY, sentence]
TEXT = [sentence for _key, sentence in LINES]

MODULES = ("rules.base", "rules.game", "rules.gamestart", "rules.savedgame", "rules.mrxmoves", "rules.mrxknown",
           "rules.takeback", "play.board", "link.fields", "link.proto", "play.mrxturn")  # below sy


def _source(module):
    with open(os.path.join(ROOT, "firmware", "sy", *module.split(".")) + ".py", encoding="utf-8") as f:
        return f.read()


def _fields(text):
    return len(re.findall(r"%[sdr]", text))


def _consts(tree):
    """{name: value} of the module's `_NAME = const(n)` lines."""
    out = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "const" and isinstance(node.targets[0], ast.Name)):
            out[node.targets[0].id] = node.value.args[0].value
    return out


@pytest.mark.parametrize("module", MODULES)
def test_every_refusal_names_a_sentence_with_matching_fields(module):
    tree = ast.parse(_source(module))
    consts = _consts(tree)
    raises = 0
    for node in ast.walk(tree):
        called = node.func.attr if isinstance(getattr(node, "func", None), ast.Attribute) else getattr(
            getattr(node, "func", None), "id", "")
        if isinstance(node, ast.Call) and called in ("RuleError", "ProtoError"):
            key = node.args[1]
            assert isinstance(key, ast.Name) and key.id in consts, \
                "%s line %d: a resident module names its sentence by a const index" % (module, node.lineno)
            assert LINES[consts[key.id]][0] == key.id, "%s line %d: %s is line %d of messages.txt, %s" % (
                module, node.lineno, key.id, consts[key.id], LINES[consts[key.id]][0])
            sentence = TEXT[consts[key.id]]
            assert _fields(sentence) == len(node.args) - 2, "%s line %d: %r takes %d arguments" % (
                module, node.lineno, sentence, _fields(sentence))
            raises += 1
    assert raises


def test_the_board_reads_one_line_of_the_file():
    assert [text(n) for n in range(len(TEXT))] == TEXT
    assert all(key.startswith("_") and key.isupper() for key, _s in LINES)


def test_the_table_has_no_unused_or_repeated_sentence():
    keys = {key for key, _sentence in LINES}
    used = set()
    for module in MODULES:  # a sentence may serve several modules; other consts (colours...) are not sentences
        used |= {value for name, value in _consts(ast.parse(_source(module))).items() if name in keys}
    assert used == set(range(len(TEXT)))
    assert len(set(TEXT)) == len(TEXT)


def test_a_refusal_reads_as_a_sentence():
    g = Game([13, 26, 29, 34, 50], [], 45)
    with pytest.raises(RuleError) as e:
        g.move(0, 0, 14)
    assert e.value.code == "wrong_turn"
    assert e.value.message == "it is Mister X's turn" == str(e.value)
    assert RuleError("bad_input", "a plain sentence").message == "a plain sentence"


@pytest.mark.parametrize("module", ("rules.mrxmoves", "rules.mrxknown", "rules.takeback"))
def test_constants_folded_into_mister_x_modules_are_the_rules(module):
    from sy.rules import mapgraph, game as rules
    consts = _consts(ast.parse(_source(module)))
    same = {"_BLACK": rules.BLACK, "_FERRY": mapgraph.FERRY, "_PHASE_MRX": rules.PHASE_MRX,
            "_PHASE_DETECTIVES": rules.PHASE_DETECTIVES, "_PHASE_OVER": rules.PHASE_OVER}
    folded = [name for name in same if name in consts]
    assert folded
    mod = importlib.import_module("sy." + module)
    for name in folded:
        assert consts[name] == same[name], name
        assert getattr(mod, name) == same[name], name  # what the module runs with under CPython
