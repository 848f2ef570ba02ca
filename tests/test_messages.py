"""The board sends codes and values, never a sentence: RuleError(code, why, *values) (ProtoError
and SvcError are the same class; the Europe board's RuleError has the same shape). Every refusal
the firmware's source raises must carry a documented code, a detail code the host knows
(host/refusals.py DETAILS) or none, and exactly as many values as that detail names; and every
sentence the host words them with is translated in every language."""
import ast
import os
import re

import pytest

from host import ROOT, i18n, refusals
from sy.rules.game import Game, RuleError

SY = os.path.join(ROOT, "firmware", "sy")
PACKAGES = ("rules", "play", "link", "storage", "hardware", "europe")
REFUSALS = ("RuleError", "ProtoError", "SvcError")  # SvcError: service.py's name for ProtoError
LANGUAGES = ("de", "nl", "fr", "it", "ru")
CODE = re.compile(r"^[a-z][a-z0-9_]*$")


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


def _literal_whys(node):
    """The detail codes an argument can be: a literal, or either side of `a if c else b`."""
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literal_whys(node.body) + _literal_whys(node.orelse)
    return None


def _documented_codes():
    """The error codes docs/game-record.md (the rules' contract) and docs/protocol.md (the board's own) name."""
    codes = set()
    with open(os.path.join(ROOT, "docs", "game-record.md"), encoding="utf-8") as f:
        text = f.read()
    for part in text.split("- Error codes:")[1:]:  # London's and Europe's
        codes |= set(re.findall(r"`([a-z_]+)`", part[:part.index("\n- ")]))
    with open(os.path.join(ROOT, "docs", "protocol.md"), encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Error codes"):]
    codes |= set(re.findall(r"`([a-z_]+)`", section[:section.index("\n## ")]))
    return codes


def _emitted():
    """Every (module, line, code, why, number of values) the firmware's refusals can send."""
    out = []
    for module in _modules():
        for call in _refusals(_tree(module)):
            if not call.args:  # `except RuleError as e`, a class named as a value: not a refusal
                continue
            where = "%s line %d" % (module, call.lineno)
            code = call.args[0]
            assert isinstance(code, ast.Constant) and isinstance(code.value, str), where + ": the code is a literal"
            starred = any(isinstance(a, ast.Starred) for a in call.args)
            if len(call.args) == 1:
                out.append((where, code.value, None, 0))
                continue
            whys = _literal_whys(call.args[1])
            if starred and whys is None:  # RuleError(code, problem[0], *problem[1]): check_route's, checked below
                continue
            assert whys is not None, where + ": the detail is a literal code, not a sentence built there"
            for why in whys:
                out.append((where, code.value, why, None if starred else len(call.args) - 2))
    return out


def test_the_modules_are_found():
    assert {"rules.game", "rules.base", "play.board", "link.proto", "link.fields", "play.verify",
            "europe.rules", "europe.record"} <= set(_modules())
    assert len(_emitted()) > 150


def test_every_refusal_has_a_known_code_a_known_detail_and_its_values():
    known = _documented_codes()
    for where, code, why, n in _emitted():
        assert code in known, "%s: %r is not a documented error code" % (where, code)
        assert code in refusals.REFUSALS, "%s: the host cannot word the code %r" % (where, code)
        if why is None:
            continue
        assert isinstance(why, str) and CODE.match(why), "%s: %r is not a detail code (a sentence?)" % (where, why)
        assert why in refusals.DETAILS, "%s: the host cannot word the detail %r" % (where, why)
        if n is not None:
            names = refusals.DETAILS[why][1]
            assert n == len(names), "%s: %r names %s, given %d values" % (where, why, names, n)


def test_the_other_codes_the_board_sends_are_known_to_the_host():
    """Details sent without a RuleError: the notes' and the verdict's (sy/play/report.py, board.py,
    verify.py, sy/rules/commit.py check_route), found as string literals that are DETAILS keys'
    shape beside "why" in the source."""
    sources = []
    for module in _modules():
        with open(os.path.join(SY, *module.split(".")) + ".py", encoding="utf-8") as f:
            sources.append(f.read())
    text = "\n".join(sources)
    sent = set(re.findall(r'"why": "([a-z_]+)"', text))
    sent |= set(re.findall(r'return "[a-z_]+", "([a-z_]+)", \[', text))  # report.why
    sent |= set(re.findall(r'return "([a-z_]+)", \(', text))  # commit.check_route
    sent |= set(re.findall(r'"[a-z_]+", "([a-z_]+)", \[g\.piece_name', text))  # the guided move's note
    assert {"route_ok", "no_ticket_left", "move_unreachable", "guided_to", "count_mismatch"} <= sent, sent
    assert sent - set(refusals.DETAILS) == set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_refusal_is_worded_in_every_language(lang):
    catalog = i18n.read_catalog(lang)
    missing = []
    for msgid in list(refusals.REFUSALS.values()) + [d[0] for d in refusals.DETAILS.values()] + \
            list(refusals.MOVE_REFUSALS.values()) + [refusals.UNKNOWN]:
        m = catalog.get(msgid)
        if m is None or not m.string or m.fuzzy:
            missing.append(msgid)
    assert missing == [], "%s: %d refusal sentences untranslated: %s" % (lang, len(missing), missing[:5])


def test_the_documented_codes_are_read():
    codes = _documented_codes()
    assert {"bad_input", "wrong_turn", "already_moved", "not_connected", "no_ticket", "occupied", "ferry",
            "double_used", "game_over", "too_long", "no_memory", "internal", "unproved"} <= codes


def test_a_refusal_is_codes_and_values_and_the_host_words_it():
    g = Game([13, 26, 29, 34, 50], [], 45)
    with pytest.raises(RuleError) as e:
        g.move(0, 0, 14)
    assert (e.value.code, e.value.why, e.value.values) == ("wrong_turn", "mrx_turn", ())
    assert refusals.of(e.value) == "it is Mister X's turn"
    with pytest.raises(RuleError) as e:
        g.move(0, 0, 500)
    assert (e.value.code, e.value.why, e.value.values) == ("bad_input", "not_station", (500,))
    assert refusals.of(e.value) == "500 is not a station"
    assert refusals.of(RuleError("no_ticket", "no_ticket_left", "D1", "underground")) == \
        "D1 has no underground ticket left"


def test_a_code_the_host_does_not_know_is_shown_as_it_came():
    """A newer board's codes: the codes and values, never a traceback."""
    assert refusals.refusal("melted", why="too_hot", args=[451, "C"]) == "the board refused (melted too_hot: 451, C)"
    assert refusals.refusal("melted") == "the board refused (melted)"
    assert refusals.refusal("wrong_turn", why="new_reason", args=[1]) == refusals.refusal("wrong_turn")
    assert refusals.refusal("bad_input", why="held_by", args=[4]) == refusals.refusal("bad_input")  # values missing
    assert refusals.of_reply({"ok": False, "error": "occupied", "why": "held_by", "args": [4, "D2"]}) == \
        "station 4 is held by D2"
    assert refusals.of_reply({"ok": False, "error": "occupied", "why": ["x"], "args": "nonsense"}) == \
        refusals.refusal("occupied")
    assert refusals.of_reply({"ok": False}) == refusals.refusal("internal")


def test_refusals_are_worded_in_the_players_language():
    was = i18n.current()
    i18n.use("de")
    try:
        text = refusals.of_reply({"error": "no_ticket", "why": "no_ticket_left", "args": ["D1", "bus"]})
    finally:
        i18n.use(was)
    assert "D1" in text and text != "D1 has no bus ticket left", text
