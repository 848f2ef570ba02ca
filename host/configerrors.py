"""board.json's problems in the maker's language.

The firmware's check (sy.hardware.boardconfig, which runs on MicroPython too, without gettext)
names every problem with a code (`why`) and a tuple of string values; the host words them here,
one sentence per code, with the names of its values (a translation may put them in any order). tests/test_i18n_config.py reads every code the check can raise and fails on one this
table cannot word.
"""
from host.i18n import N_, _

PROBLEMS = {  # ConfigError.why -> (the names of ConfigError.values in order, the msgid they fill)
    "not_integer": (("got",),
        N_("must be an integer, got %(got)s")),
    "out_of_range": (("lo", "hi", "got"),
        N_("must be %(lo)s..%(hi)s, got %(got)s")),
    "not_a_number": (("got",),
        N_("must be a number, got %(got)s")),
    "out_of_interval": (("interval", "got"),
        # i18n: %(interval)s is a mathematical interval such as [0, 1] or (0, 5.5]
        N_("must be in %(interval)s, got %(got)s")),
    "not_a_boolean": (("got",),
        N_("must be true or false, got %(got)s")),
    "not_one_of_choices": (("choices", "got"),
        N_("must be one of %(choices)s, got %(got)s")),
    "not_an_object": (("got",),
        N_("must be an object, got %(got)s")),
    "unknown_key": (("known",),
        N_("unknown key (known: %(known)s)")),
    "not_json_object": (("got",),
        N_("the config must be a JSON object, got %(got)s")),
    "wrong_version": (("version", "got"),
        N_("this firmware reads version %(version)s, the file has %(got)s")),
    # the two long lists, reeds.bits and leds.index: one entry per station
    "not_int_list": (("count",),
        N_("must be a list of %(count)s integers")),
    "wrong_length": (("count", "got"),
        N_("must have %(count)s entries (stations 1..%(count)s), has %(got)s")),
    "entry_not_integer": (("station", "got"),
        N_("station %(station)s: must be an integer, got %(got)s")),
    "entry_out_of_range": (("station", "hi", "got"),
        N_("station %(station)s: must be 0..%(hi)s, got %(got)s")),
    "entry_already_used": (("station", "got", "by"),
        N_("station %(station)s: %(got)s is already used by station %(by)s")),
    "chain_marker": (("station", "bit"),
        N_("station %(station)s: chain bit %(bit)s is the chain's marker (the last reader board's input D0, "
           "wired to GND): no station may use it")),
    "dead_stations": (("most", "stations", "got"),
        N_("must list at most %(most)s distinct stations 1..%(stations)s, got %(got)s")),
    # pins
    "not_a_gpio_number": (("got",),
        N_("must be a GPIO number, got %(got)s")),
    "pico_no_such_gpio": (("pin",),
        N_("GP%(pin)s is not a usable Pico GPIO (0..22, 26..28)")),
    "esp32_input_only": (("pin",),
        N_("GPIO%(pin)s is input-only on the ESP32, this pin must drive an output")),
    "esp32_no_pull_up": (("pin",),
        N_("GPIO%(pin)s has no internal pull-up on the ESP32; use another pin")),
    "esp32_no_such_gpio": (("pin",),
        N_("GPIO%(pin)s is not a usable ESP32 GPIO (6..11 are the flash)")),
    "esp32_strapping": (("pin",),
        N_("GPIO%(pin)s is an ESP32 strapping pin: held at power-up it changes the boot mode (GPIO0: download "
           "mode, boot.py never runs); use another pin")),
    "pin_already_used": (("pin", "by"),
        N_("pin %(pin)s is already used by %(by)s")),
    "pin_is_spi_mosi": (("pin", "spi"),
        N_("pin %(pin)s is already used by reeds.spi (SPI%(spi)s claims it as MOSI)")),
    "pico_sck_pin": (("pin", "spi", "choices"),
        N_("GP%(pin)s cannot be SCK of SPI%(spi)s (use one of %(choices)s)")),
    "pico_miso_pin": (("pin", "spi", "choices"),
        N_("GP%(pin)s cannot be RX (MISO) of SPI%(spi)s (use one of %(choices)s)")),
    "spi_mode_cpha": (("got",),
        N_("must be 0 or 2 (the 74HC165 needs CPHA 0: modes 1 and 3 lose the first bit of every chip), got "
           "%(got)s")),
    "led_current": (("got", "supply", "share", "controller", "most"),
        N_("%(got)s mA is more than a %(supply)s mA supply can give the LEDs (%(share)s %% of it less "
           "%(controller)s mA for the controller: at most %(most)s)")),
    # the file itself
    "not_valid_json": (("error",),
        # i18n: %(error)s is the JSON parser's own message, in English
        N_("not valid JSON (%(error)s)")),
    "no_such_file": ((),
        N_("no such file; copy one made by the hardware tools (python -m hardware.gen_config) onto the board")),
}


def explain(error):
    """The sentence for a boardconfig.ConfigError: "file: key: problem" in the maker's language
    (the file when load() read it, the key when one is at fault)."""
    why, values = getattr(error, "why", None), tuple(getattr(error, "values", None) or ())
    names, msgid = PROBLEMS.get(why, ((), None))
    if msgid is not None and len(names) == len(values):
        problem = _(msgid) % dict(zip(names, values))
    else:  # a newer firmware's code, or values that do not fit it: the code and values as they came
        problem = " ".join([str(why)] + [str(v) for v in values])
    parts = [getattr(error, "file", None), getattr(error, "key", None), problem]
    return ": ".join(str(p) for p in parts if p)
