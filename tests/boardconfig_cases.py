"""sy.hardware.boardconfig tests as plain functions: run by pytest (tests/test_boardconfig.py) and by
tests/mpy_run.py under the MicroPython unix port with a small heap."""
import json
from sy.hardware import boardconfig as bc
from sy.hardware.boardconfig import ConfigError


def _refused(cfg, key, why, words=()):
    """validate(cfg) must raise ConfigError naming key with the code why, every word among its
    values (strings: the host words them, host/configerrors.py)."""
    try:
        bc.validate(cfg)
    except ConfigError as e:
        msg = str(e)
        assert e.key == key, "key %r, wanted %r: %s" % (e.key, key, msg)
        assert e.why == why, "why %r, wanted %r: %s" % (e.why, why, msg)
        assert msg.startswith(e.key + ": " + why), msg
        assert isinstance(e.values, tuple), msg
        for v in e.values:
            assert isinstance(v, str), msg
        for w in words:
            assert [v for v in e.values if w in v], "%r not in %r" % (w, msg)
        return e
    raise AssertionError("accepted a config with a bad %s" % key)


def _cfg(**changes):
    c = bc.default("pico")
    for path, value in changes.items():
        parts = path.split("__")
        d = c
        for p in parts[:-1]:
            d = d[p]
        d[parts[-1]] = value
    return c


def test_defaults_are_valid_for_both_boards():
    for board in bc.BOARDS:
        d = bc.default(board)
        v = bc.validate(d)
        assert v == d
        assert v["board"] == board
        assert len(v["reeds"]["bits"]) == 199 and len(v["leds"]["index"]) == 199
        assert v["reeds"]["bits"][0] == 0 and v["leds"]["index"][198] == 198


def test_default_pins_are_unique_per_board():
    for board in bc.BOARDS:
        d = bc.default(board)
        pins = [d["reeds"]["sck"], d["reeds"]["miso"], d["reeds"]["load"], d["leds"]["pin"], d["safe_mode_pin"]]
        pins += [d["buttons"][b] for b in bc.BUTTONS]
        assert len(set(pins)) == len(pins), pins


def test_minimal_config_is_filled_with_defaults():
    v = bc.validate({"board": "esp32"})
    assert v == bc.default("esp32")
    v = bc.validate({})
    assert v["board"] == "pico"
    v = bc.validate({"board": "pico", "leds": {"brightness": 0.5}, "reeds": {"active_low": False}})
    assert v["leds"]["brightness"] == 0.5
    assert v["leds"]["count"] == 199 and v["leds"]["order"] == "GRB"
    assert v["reeds"]["active_low"] is False and v["reeds"]["chips"] == 25


def test_validate_does_not_change_its_input():
    c = {"board": "pico", "leds": {"brightness": 0.5}}
    bc.validate(c)
    assert c == {"board": "pico", "leds": {"brightness": 0.5}}


def test_permuted_maps_are_accepted():
    c = bc.default()
    c["reeds"]["bits"] = [199 - 1 - i for i in range(199)]
    c["leds"]["index"] = [(i * 7) % 199 for i in range(199)]
    v = bc.validate(c)
    assert v["reeds"]["bits"][0] == 198
    assert v["leds"]["index"][1] == 7
    # spare bits and spare LEDs: 26 chips have 208 inputs (207 is the marker), a chain may be longer
    # than the map
    c["reeds"]["chips"] = 26
    c["reeds"]["bits"][5] = 199
    c["leds"]["count"] = 210
    c["leds"]["index"][3] = 209
    bc.validate(c)


def test_buttons_and_safe_mode_may_be_absent():
    c = bc.default()
    c["buttons"] = None
    c["safe_mode_pin"] = None
    v = bc.validate(c)
    assert v["buttons"] is None and v["safe_mode_pin"] is None


def test_top_level_errors():
    _refused(_cfg(board="arduino"), "board", "not_one_of_choices", ["pico, esp32", "arduino"])
    _refused(_cfg(map="paris"), "map", "not_one_of_choices", ["london1983"])
    _refused(_cfg(version=2), "version", "wrong_version", ["2"])
    _refused(_cfg(colour="red"), "colour", "unknown_key", ["scan_hz"])
    _refused(_cfg(debounce_ms=-1), "debounce_ms", "out_of_range", ["1000", "-1"])
    _refused(_cfg(scan_hz="fast"), "scan_hz", "not_integer", ["fast"])
    _refused(_cfg(scan_hz=True), "scan_hz", "not_integer", ["True"])
    try:
        bc.validate([1, 2])
    except ConfigError as e:
        assert e.key is None and e.why == "not_json_object" and e.values == ("'list'",), str(e)
    else:
        raise AssertionError("accepted a list")


def test_section_errors():
    _refused(_cfg(leds="lots"), "leds", "not_an_object", ["lots"])
    _refused(_cfg(leds__brightnes=0.5), "leds.brightnes", "unknown_key", ["brightness"])
    _refused(_cfg(leds__brightness=0), "leds.brightness", "out_of_interval", ["(0, 1]"])
    _refused(_cfg(leds__brightness=1.5), "leds.brightness", "out_of_interval", ["1.5"])
    _refused(_cfg(leds__brightness="dim"), "leds.brightness", "not_a_number", ["dim"])
    _refused(_cfg(leds__order="RGBW"), "leds.order", "not_one_of_choices", ["GRB", "RGBW"])
    _refused(_cfg(leds__count=100), "leds.count", "out_of_range", ["199", "100"])
    _refused(_cfg(leds__current_limit_ma=20), "leds.current_limit_ma", "out_of_range")
    _refused(_cfg(leds__ma_per_channel=0), "leds.ma_per_channel", "out_of_interval")
    _refused(_cfg(reeds__chips=24), "reeds.chips", "out_of_range", ["25", "24"])
    _refused(_cfg(reeds__active_low=1), "reeds.active_low", "not_a_boolean", ["1"])
    _refused(_cfg(reeds__baudrate=10), "reeds.baudrate", "out_of_range")
    _refused(_cfg(buttons__active_low="yes"), "buttons.active_low", "not_a_boolean")


def test_the_chains_marker_bit_is_no_stations():
    # the last board's D0 is wired to GND and checked in every scan: a station there would read
    # as a piece standing on it for ever
    bits = list(range(199))
    bits[57] = 199
    _refused(_cfg(reeds__bits=bits), "reeds.bits[57]", "chain_marker", ["58", "199"])
    bits[57] = 26 * 8 - 1
    _refused(_cfg(reeds__chips=26, reeds__bits=bits), "reeds.bits[57]", "chain_marker", ["207"])
    bits[57] = 199
    bc.validate(_cfg(reeds__chips=26, reeds__bits=bits))   # a spare input on a longer chain
    assert bc.marker_bit(25) == 199


def test_map_list_errors():
    bits = list(range(199))
    bits[10] = 3
    e = _refused(_cfg(reeds__bits=bits), "reeds.bits[10]", "entry_already_used")
    assert e.values == ("11", "3", "4"), e.values
    _refused(_cfg(reeds__bits=list(range(198))), "reeds.bits", "wrong_length", ["199", "198"])
    _refused(_cfg(reeds__bits="0..198"), "reeds.bits", "not_int_list", ["199"])
    bits = list(range(199))
    bits[198] = 200  # 25 chips: bits 0..199
    _refused(_cfg(reeds__bits=bits), "reeds.bits[198]", "entry_out_of_range", ["199", "200"])
    idx = list(range(199))
    idx[0] = -1
    _refused(_cfg(leds__index=idx), "leds.index[0]", "entry_out_of_range", ["-1"])
    idx[0] = 1.0
    _refused(_cfg(leds__index=idx), "leds.index[0]", "entry_not_integer", ["1.0"])
    idx = list(range(199))
    idx[198] = 199
    _refused(_cfg(leds__index=idx), "leds.index[198]", "entry_out_of_range", ["198", "199"])


def test_pin_errors_pico():
    _refused(_cfg(leds__pin=25), "leds.pin", "pico_no_such_gpio", ["25"])
    _refused(_cfg(leds__pin=29), "leds.pin", "pico_no_such_gpio", ["29"])
    _refused(_cfg(leds__pin=18), "leds.pin", "pin_already_used", ["18", "reeds.sck"])
    _refused(_cfg(buttons__confirm=22), "buttons.confirm", "pin_already_used", ["leds.pin"])
    _refused(_cfg(safe_mode_pin=10), "safe_mode_pin", "pin_already_used", ["buttons.taxi"])
    _refused(_cfg(reeds__sck=3), "reeds.sck", "pico_sck_pin", ["3", "0", "2, 6, 18, 22"])
    _refused(_cfg(reeds__miso=21), "reeds.miso", "pico_miso_pin", ["21", "0, 4, 16, 20"])
    _refused(_cfg(reeds__miso=19), "reeds.miso", "pin_is_spi_mosi", ["19", "0"])
    _refused(_cfg(reeds__spi=2), "reeds.spi", "not_one_of_choices")
    _refused(_cfg(leds__pin="GP22"), "leds.pin", "not_a_gpio_number", ["GP22"])
    # SPI1 on its own pins is fine, once nothing else sits on its default MOSI pin GP11
    c = _cfg(reeds__spi=1, reeds__sck=26, reeds__miso=28, reeds__load=27)
    _refused(c, "buttons.bus", "pin_is_spi_mosi", ["11", "1"])
    c["buttons"]["bus"] = 9
    assert bc.validate(c)["reeds"]["sck"] == 26
    _refused(_cfg(leds__pin=19), "leds.pin", "pin_is_spi_mosi", ["19"])


def test_pin_errors_esp32():
    c = bc.default("esp32")
    c["leds"]["pin"] = 34
    _refused(c, "leds.pin", "esp32_input_only", ["34"])
    c = bc.default("esp32")
    c["leds"]["pin"] = 7
    _refused(c, "leds.pin", "esp32_no_such_gpio", ["7"])
    c = bc.default("esp32")
    c["buttons"]["taxi"] = 36
    _refused(c, "buttons.taxi", "esp32_no_pull_up", ["36"])
    c = bc.default("esp32")
    c["reeds"]["spi"] = 0
    _refused(c, "reeds.spi", "not_one_of_choices")
    c = bc.default("esp32")
    c["leds"]["pin"] = 23
    _refused(c, "leds.pin", "pin_is_spi_mosi", ["23", "2"])
    c = bc.default("esp32")  # the GPIO matrix routes SPI anywhere: no SCK/MISO pin table
    c["reeds"]["sck"] = 14
    c["reeds"]["miso"] = 12
    bc.validate(c)


def test_loads_and_bad_json():
    v = bc.loads('{"board": "esp32", "leds": {"order": "RGB"}}')
    assert v["board"] == "esp32" and v["leds"]["order"] == "RGB"
    try:
        bc.loads('{"board": "pico",')
    except ConfigError as e:
        assert e.why == "not_valid_json" and e.key is None and e.values[0] and e.file is None, str(e)
    else:
        raise AssertionError("accepted broken JSON")


def test_load_files():
    path = "_boardconfig_test.json"
    full = bc.default("esp32")
    full["leds"]["brightness"] = 0.1
    full["reeds"]["bits"][0], full["reeds"]["bits"][1] = 1, 0
    with open(path, "w") as f:
        json.dump(full, f)
    del full
    try:
        v = bc.load(path)
        assert v["leds"]["brightness"] == 0.1 and v["board"] == "esp32"
        assert v["reeds"]["bits"][:3] == [1, 0, 2]
        del v
        with open(path, "w") as f:
            f.write("{not json")
        try:
            bc.load(path)
        except ConfigError as e:
            assert e.file == path and e.why == "not_valid_json" and e.key is None, str(e)
        else:
            raise AssertionError("accepted broken JSON")
        with open(path, "w") as f:
            f.write('{"leds": {"brightness": 2}}')
        try:
            bc.load(path)
        except ConfigError as e:
            assert e.key == "leds.brightness" and e.why == "out_of_interval" and e.file == path, str(e)
        else:
            raise AssertionError("accepted brightness 2")
    finally:
        import os
        os.remove(path)
    try:
        bc.load("_no_such_board.json")
    except ConfigError as e:
        assert e.file == "_no_such_board.json" and e.why == "no_such_file" and e.key is None, str(e)
    else:
        raise AssertionError("load of a missing file did not fail")


def test_led_cap_follows_the_supply_rating():
    # the cap must fit 80 % of the supply's rating less the controller's share (a cap above the
    # supply's rating would let the LEDs brown out the board)
    d = bc.default()
    assert d["leds"]["supply_ma"] == 4000 and d["leds"]["current_limit_ma"] <= 4000 * 0.8 - 60
    e = _refused(_cfg(leds__current_limit_ma=20000), "leds.current_limit_ma", "led_current", ["4000", "3140"])
    assert e.values == ("20000", "4000", "80", "60", "3140"), e.values
    _refused(_cfg(leds__supply_ma=2000), "leds.current_limit_ma", "led_current", ["2000", "1540"])
    assert bc.validate(_cfg(leds__supply_ma=2000, leds__current_limit_ma=1540))["leds"]["current_limit_ma"] == 1540
    _refused(_cfg(leds__supply_ma=100), "leds.supply_ma", "out_of_range", ["500", "20000"])
    _refused(_cfg(leds__supply_ma="4A"), "leds.supply_ma", "not_integer", ["4A"])


def test_reader_bus_clock_and_spi_mode():
    d = bc.default()
    assert d["reeds"]["baudrate"] <= 500000 and d["reeds"]["spi_mode"] == 0
    _refused(_cfg(reeds__baudrate=10000000), "reeds.baudrate", "out_of_range", ["4000000"])
    for mode in (1, 3, "0", True):
        _refused(_cfg(reeds__spi_mode=mode), "reeds.spi_mode", "spi_mode_cpha", [repr(mode)])
    assert bc.validate(_cfg(reeds__spi_mode=2))["reeds"]["spi_mode"] == 2


def test_esp32_safe_mode_and_buttons_avoid_strapping_pins():
    # GPIO0 held at reset starts the ROM's download mode, so boot.py would never run
    d = bc.default("esp32")
    assert d["safe_mode_pin"] not in (0, 2, 5, 12, 15)
    for pin in (0, 2, 12, 15):
        c = bc.default("esp32")
        c["safe_mode_pin"] = pin
        _refused(c, "safe_mode_pin", "esp32_strapping", [str(pin)])
    c = bc.default("esp32")
    c["buttons"]["confirm"] = 12
    _refused(c, "buttons.confirm", "esp32_strapping", ["12"])
    c = bc.default()           # the Pico has no strapping pins: GP0 is fine there
    c["safe_mode_pin"] = 0
    assert bc.validate(c)["safe_mode_pin"] == 0
