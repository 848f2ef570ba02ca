"""board.json's problems: the firmware's check (sy.hardware.boardconfig) raises codes and string
values, never a sentence; the host (host/configerrors.py) words every code in every language.
The codes are read from the check's source, so a new problem the host cannot word fails here."""
import ast
import os
import re
import subprocess
import sys

import pytest

from host import ROOT, configerrors, i18n
from sy.hardware import boardconfig

SOURCE = os.path.join(ROOT, "firmware", "sy", "hardware", "boardconfig.py")
LANGUAGES = ("de", "nl", "fr", "it", "ru")
CODE = re.compile(r"^[a-z][a-z0-9_]*$")
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _raises():
    """(code, how many values or None when not a literal tuple, line) of every ConfigError the
    check makes; a code is a literal, or either side of `a if c else b`."""
    with open(SOURCE, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ConfigError":
            why = node.args[1]
            codes = [why.body, why.orelse] if isinstance(why, ast.IfExp) else [why]
            assert all(isinstance(c, ast.Constant) for c in codes), "line %d: the code is not a literal" % node.lineno
            values = node.args[2] if len(node.args) > 2 else ast.Tuple(elts=[])
            count = len(values.elts) if isinstance(values, ast.Tuple) else None
            out += [(c.value, count, node.lineno) for c in codes]
    return out


RAISES = _raises()


def test_the_check_raises_many_codes():
    assert len({code for code, _, _ in RAISES}) >= 25


def test_every_problem_is_a_code_with_the_values_its_sentence_names():
    for code, count, line in RAISES:
        assert CODE.match(code), "line %d: %r is not a code (a sentence?)" % (line, code)
        # shorter string constants become qstrs, which stay on the board's heap (boardconfig.ConfigError)
        assert len(code) > 10, "line %d: %r is a qstr on the board" % (line, code)
        assert code in configerrors.PROBLEMS, "line %d: no sentence for %r in host/configerrors.py" % (line, code)
        assert count is not None, "line %d: the values are not a literal tuple" % line
        names, msgid = configerrors.PROBLEMS[code]
        assert count == len(names), "line %d: %s has %d values, its sentence names %s" % (line, code, count, names)
        assert set(names) == set(PLACEHOLDER.findall(msgid)), code


def test_every_sentence_is_for_a_problem_the_check_raises():
    assert set(configerrors.PROBLEMS) == {code for code, _, _ in RAISES}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_problem_is_worded_in_every_language(lang):
    catalog = i18n.read_catalog(lang)
    missing = []
    for _names, msgid in configerrors.PROBLEMS.values():
        m = catalog.get(msgid)
        if m is None or not m.string or m.fuzzy or m.string == msgid:
            missing.append(msgid)
        elif set(PLACEHOLDER.findall(m.string)) != set(PLACEHOLDER.findall(msgid)):
            missing.append(msgid)
    assert not missing, missing


BAD = [  # (config, key, code): one of each kind of problem
    ({"leds": {"brightness": "a"}}, "leds.brightness", "not_a_number"),
    ({"reeds": {"bits": list(range(198)) + [3]}}, "reeds.bits[198]", "entry_already_used"),
    ({"reeds": {"bits": list(range(198)) + [199]}}, "reeds.bits[198]", "chain_marker"),
    ({"leds": {"pin": 25}}, "leds.pin", "pico_no_such_gpio"),
    ({"leds": {"pin": 19}}, "leds.pin", "pin_is_spi_mosi"),
    ({"board": "esp32", "safe_mode_pin": 0}, "safe_mode_pin", "esp32_strapping"),
    ({"leds": {"supply_ma": 1000}}, "leds.current_limit_ma", "led_current"),
    ({"reeds": {"spi_mode": 1}}, "reeds.spi_mode", "spi_mode_cpha"),
]


@pytest.mark.parametrize("cfg, key, code", BAD, ids=[b[2] for b in BAD])
def test_a_problem_is_worded_in_each_language_with_its_values(cfg, key, code):
    with pytest.raises(boardconfig.ConfigError) as got:
        boardconfig.validate(cfg)
    e = got.value
    assert (e.key, e.why) == (key, code)
    english = configerrors.explain(e)
    assert english.startswith(key + ": ") and code not in english
    for v in e.values:
        assert v in english
    for lang in LANGUAGES + (i18n.PSEUDO,):
        i18n.use(lang)
        try:
            text = configerrors.explain(e)
        finally:
            i18n.use("en")
        assert text.startswith(key + ": ") and text != english, lang
        for v in e.values:
            assert v in text, (lang, v, text)


def test_a_file_load_read_is_named_before_its_problem(tmp_path):
    missing = str(tmp_path / "board.json")
    with pytest.raises(boardconfig.ConfigError) as got:
        boardconfig.load(missing)
    assert configerrors.explain(got.value).startswith(missing + ": no such file")
    bad = tmp_path / "bad.json"
    bad.write_text('{"leds": {"count": 5}}')
    with pytest.raises(boardconfig.ConfigError) as got:
        boardconfig.load(str(bad))
    i18n.use("fr")
    try:
        assert configerrors.explain(got.value) == "%s: leds.count: doit être entre 199 et 1024, vaut 5" % bad
    finally:
        i18n.use("en")
    bad.write_text("{oops")
    with pytest.raises(boardconfig.ConfigError) as got:
        boardconfig.load(str(bad))
    assert configerrors.explain(got.value).startswith("%s: not valid JSON (" % bad)


def test_a_code_the_host_does_not_know_is_shown_as_it_came():
    e = boardconfig.ConfigError("leds.pin", "newer_problem", ("3",))
    assert configerrors.explain(e) == "leds.pin: newer_problem 3"
    e = boardconfig.ConfigError("leds.pin", "pin_already_used", ("3",))  # a value missing
    assert configerrors.explain(e) == "leds.pin: pin_already_used 3"


def test_a_bad_board_json_is_a_clear_error_in_the_makers_language(tmp_path):
    bad = tmp_path / "board.json"
    bad.write_text('{"leds": {"pin": 25}}')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    # checked before any port is opened
    r = subprocess.run([sys.executable, "-m", "host", "--lang", "de", "flash", "--port", str(tmp_path / "none"),
                        "--config", str(bad)], capture_output=True, text=True, cwd=ROOT, timeout=120, env=env,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "%s: leds.pin: GP25 ist kein nutzbarer GPIO des Pico" % bad in r.stderr, r.stderr
