"""Refusals are written where they are raised: RuleError(code, sentence, *args) (ProtoError is the
same class), the sentence's %-fields filled from args when the message is read. Every refusal the
London board's code raises must carry a code the protocol knows and a sentence for a person, and
a sentence with fields must be given exactly as many arguments as it has fields."""
import ast
import os
import re

import pytest

from host import ROOT
from sy.rules.game import Game, RuleError

SY = os.path.join(ROOT, "firmware", "sy")
PACKAGES = ("rules", "play", "link", "storage", "hardware")  # the London board's; europe/ has its own errors
REFUSALS = ("RuleError", "ProtoError", "SvcError")  # SvcError: service.py's name for ProtoError


def _modules():
    out = []
    for package in PACKAGES:
        for name in sorted(os.listdir(os.path.join(SY, package))):
            if name.endswith(".py") and name != "__init__.py":
                out.append(package + "." + name[:-3])
    return out


def _tree(module):
    with open(os.path.join(SY, *module.split(".")) + ".py", encoding="utf-8") as f:
        return ast.parse(f.read())


def _refusals(tree):
    """The RuleError/ProtoError calls of a module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in REFUSALS:
                yield node


def _documented_codes():
    """The error codes docs/game-record.md (the rules' contract) and docs/protocol.md (the board's own) name."""
    codes = set()
    with open(os.path.join(ROOT, "docs", "game-record.md"), encoding="utf-8") as f:
        text = f.read()
    contract = text[text.index("- Error codes:"):text.index("`message` is a sentence")]
    codes |= set(re.findall(r"`([a-z_]+)`", contract))
    with open(os.path.join(ROOT, "docs", "protocol.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Error codes"):]
    codes |= set(re.findall(r"`([a-z_]+)`", section[:section.index("\n## ")]))
    return codes


def _fields(sentence):
    return len(re.findall(r"%[sdr]", sentence))


def test_the_modules_are_found():
    assert {"rules.game", "rules.base", "play.board", "link.proto", "link.fields", "play.verify"} <= set(_modules())


@pytest.mark.parametrize("module", _modules())
def test_every_refusal_has_a_known_code_and_a_sentence(module):
    known = _documented_codes()
    rules = module.startswith("rules.")
    for call in _refusals(_tree(module)):
        where = "%s line %d" % (module, call.lineno)
        if not call.args:  # `except RuleError as e`, a class named as a value: not a refusal
            continue
        code = call.args[0]
        assert isinstance(code, ast.Constant) and isinstance(code.value, str), where + ": the code is a literal"
        if rules:  # the rules' refusals are the game-record contract's, which the host and records share
            assert code.value in known, "%s: %r is not a documented error code" % (where, code.value)
        assert len(call.args) >= 2, where + ": a refusal gives a sentence"
        message = call.args[1]
        if isinstance(message, ast.Constant):
            assert isinstance(message.value, str) and message.value.strip(), where + ": an empty sentence"
            assert _fields(message.value) == len(call.args) - 2, "%s: %r takes %d arguments, given %d" % (
                where, message.value, _fields(message.value), len(call.args) - 2)
        else:  # a sentence built where it is raised ("..." % x) or passed on: formatted already
            assert len(call.args) == 2, where + ": arguments for a sentence that is not a literal"


def test_the_documented_codes_are_read():
    codes = _documented_codes()
    assert {"bad_input", "wrong_turn", "already_moved", "not_connected", "no_ticket", "occupied", "ferry",
            "double_used", "game_over", "too_long", "no_memory", "internal", "unproved"} <= codes


def test_a_refusal_reads_as_a_sentence():
    g = Game([13, 26, 29, 34, 50], [], 45)
    with pytest.raises(RuleError) as e:
        g.move(0, 0, 14)
    assert e.value.code == "wrong_turn"
    assert e.value.message == "it is Mister X's turn" == str(e.value)
    with pytest.raises(RuleError) as e:
        g.move(0, 0, 500)
    assert e.value.code == "bad_input"
    assert e.value.message == "500 is not a station"
    assert RuleError("bad_input", "a plain sentence").message == "a plain sentence"
    assert RuleError("bad_input", "100% sure").message == "100% sure"  # no arguments: not formatted

