"""The board config file (board.json): defaults, schema validation, clear errors.

Runs on the board and in the host. The hardware tools (hardware/) generate the file; a maker may
edit it by hand, so every mistake is refused with a ConfigError naming the key and the problem as a
code with its values: no sentence (MicroPython has no gettext), the host words it
(host/configerrors.py, in the maker's language).

    cfg = load()                       # reads board.json, validates, fills defaults
    bit = cfg["reeds"]["bits"][station - 1]
    led = cfg["leds"]["index"][station - 1]
"""
import json

DEFAULT_PATH = "board.json"
VERSION = 1
STATIONS = 199
BOARDS = ("pico", "esp32")
MAPS = ("london", "london1983")
ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")
BUTTONS = ("taxi", "bus", "underground", "confirm")

# Pico: GP0..GP22 and GP26..GP28 are on the header (23 = SMPS, 24 = VBUS sense, 25 = on-board LED).
_PICO_PINS = tuple(range(0, 23)) + (26, 27, 28)
# RP2040 hardware SPI: which GPIOs can carry SCK and RX (MISO) for SPI0 / SPI1.
_PICO_SCK = ((2, 6, 18, 22), (10, 14, 26))
_PICO_MISO = ((0, 4, 16, 20), (8, 12, 28))
# The SPI driver also claims its default MOSI pin (the chain needs none, sy/hardware/backends.py does not pass one):
# rp2 SPI0 -> GP19, SPI1 -> GP11; esp32 SPI1 (HSPI) -> GPIO13, SPI2 (VSPI) -> GPIO23.
_MOSI = {"pico": {0: 19, 1: 11}, "esp32": {1: 13, 2: 23}}
# ESP32 (WROOM): 6..11 are the flash, 20/24/28..31 do not exist, 34..39 are input-only without pull-ups.
_ESP32_OUT = (0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 25, 26, 27, 32, 33)
_ESP32_IN_ONLY = (34, 35, 36, 39)
# ESP32 strapping pins, read at reset: a button held there at power-up changes the boot mode
# (GPIO0 low = the ROM's download mode, so boot.py never runs; GPIO12 high = 1.8 V flash).
_ESP32_STRAPPING = (0, 2, 5, 12, 15)
# The LED cap must leave the controller and the readers their share of the supply, and keep the
# supply at 80 % of its rating (hardware/README.md, "Power budget").
SUPPLY_DERATE = 0.8
CONTROLLER_MA = 60
# SPI modes the 74HC165 chain can use: it shifts on CLK's rising edge and shows the first bit
# (H = D7) as soon as SH/LD goes high, so the bit must be sampled on the leading edge (CPHA 0).
# Modes 1 and 3 sample on the trailing edge and lose D7 of every chip.
SPI_MODES = (0, 2)
# Reeds taken out of service (reeds.dead: stations whose switch is stuck closed or never closes,
# found by `yard selftest`): the board works around them. More than this many is a board to repair.
MAX_DEAD = 20


def marker_bit(chips):
    """The chain bit no station may use: the last board's input D0, wired to GND, which
    sy.hardware.reeds checks in every scan (it always reads as a closed switch)."""
    return chips * 8 - 1


class ConfigError(Exception):
    """A config that cannot be used. .key names the offending key ("leds.brightness"), or None for
    the whole file; .why is the problem's code and .values a tuple of its values, strings (the host
    words them: host/configerrors.py PROBLEMS has the sentence and the values' names of each code);
    .file is the file's path when load() read it, else None. str() is the codes as they are.

    Codes are longer than 10 characters and values have no names here: mpy-cross interns shorter
    string constants and names as qstrs, which stay on the board's heap after start.py drops this
    module (measured on the emulated Pico, `yard bench pico`: codes of 4..10 characters and named
    values cost 176 bytes at boot and 112 at the game's peak)."""

    def __init__(self, key, why, values=()):
        self.key = key
        self.why = why
        self.values = values
        self.file = None
        super().__init__(((key + ": ") if key else "") + why + (" " + repr(values) if values else ""))


def _pins(board):
    if board == "pico":
        return {"reeds": {"spi": 0, "sck": 18, "miso": 16, "load": 17},
                "leds": 22, "buttons": (10, 11, 12, 13), "safe": 14}
    return {"reeds": {"spi": 2, "sck": 18, "miso": 19, "load": 5},
            "leds": 25, "buttons": (32, 33, 26, 27), "safe": 4}


def default(board="pico"):
    """A complete valid config for a board kind; station n is reed bit n-1 and LED n-1."""
    d = _skeleton(board)
    d["reeds"]["bits"] = list(range(STATIONS))
    d["leds"]["index"] = list(range(STATIONS))
    del d["reeds"]["dead"]  # written only when a reed is out of service
    del d["leds"]["patterns"]  # written only when turned on
    return d


def _skeleton(board):
    """default(board) without the two long lists (None): validate() builds them only when absent."""
    if board not in BOARDS:
        choices = ", ".join(BOARDS)
        raise ConfigError("board", "not_one_of_choices", (choices, repr(board)))
    p = _pins(board)
    r = p["reeds"]
    b = p["buttons"]
    return {
        "version": VERSION,
        "board": board,
        "map": "london",
        "reeds": {"spi": r["spi"], "sck": r["sck"], "miso": r["miso"], "load": r["load"],
                  "baudrate": 250000, "spi_mode": 0, "chips": 25, "active_low": True,
                  "bits": None, "dead": []},
        "leds": {"pin": p["leds"], "count": STATIONS, "index": None, "order": "GRB",
                 "brightness": 0.25, "supply_ma": 4000, "current_limit_ma": 2000, "ma_per_channel": 20.0,
                 "idle_ma_per_led": 1.0, "patterns": False},
        "buttons": {"taxi": b[0], "bus": b[1], "underground": b[2], "confirm": b[3], "active_low": True},
        "safe_mode_pin": p["safe"],
        "debounce_ms": 30,
        "scan_hz": 200,
    }


def _is_bool(v):
    return v is True or v is False


def _int(v, key, lo, hi):
    if _is_bool(v) or not isinstance(v, int):
        raise ConfigError(key, "not_integer", (repr(v),))
    if v < lo or v > hi:
        raise ConfigError(key, "out_of_range", (str(lo), str(hi), str(v)))
    return v


def _num(v, key, lo, hi, lo_open=False):
    if _is_bool(v) or not isinstance(v, (int, float)):
        raise ConfigError(key, "not_a_number", (repr(v),))
    if (v <= lo if lo_open else v < lo) or v > hi:
        interval = "%s%s, %s]" % ("(" if lo_open else "[", lo, hi)
        raise ConfigError(key, "out_of_interval", (interval, repr(v)))
    return v


def _bool(v, key):
    if not _is_bool(v):
        raise ConfigError(key, "not_a_boolean", (repr(v),))
    return v


def _choice(v, key, choices):
    if _is_bool(v) or v not in choices:
        names = ", ".join([str(c) for c in choices])
        raise ConfigError(key, "not_one_of_choices", (names, repr(v)))
    return v


def _section(cfg, name, defaults):
    """The section merged over its defaults; unknown keys are refused (they are usually typos)."""
    given = cfg.get(name, {})
    if not isinstance(given, dict):
        raise ConfigError(name, "not_an_object", (repr(given),))
    for k in given:
        if k not in defaults:
            known = ", ".join(sorted(defaults))
            raise ConfigError(name + "." + str(k), "unknown_key", (known,))
    out = {}
    for k in defaults:
        out[k] = given[k] if k in given else defaults[k]
    return out


def _permutation(v, key, limit, marker=-1):
    """A list of STATIONS distinct ints in 0..limit-1 (station n at position n-1), none of them marker."""
    if not isinstance(v, list):
        raise ConfigError(key, "not_int_list", (str(STATIONS),))
    if len(v) != STATIONS:
        raise ConfigError(key, "wrong_length", (str(STATIONS), str(len(v))))
    seen = bytearray(limit)
    for i in range(STATIONS):
        x = v[i]
        if _is_bool(x) or not isinstance(x, int):
            raise ConfigError(key + "[" + str(i) + "]", "entry_not_integer", (str(i + 1), repr(x)))
        if x < 0 or x >= limit:
            raise ConfigError(key + "[" + str(i) + "]", "entry_out_of_range",
                              (str(i + 1), str(limit - 1), str(x)))
        if x == marker:  # the last reader board's input D0, wired to GND
            raise ConfigError(key + "[" + str(i) + "]", "chain_marker", (str(i + 1), str(x)))
        if seen[x]:
            raise ConfigError(key + "[" + str(i) + "]", "entry_already_used",
                              (str(i + 1), str(x), str(v.index(x) + 1)))
        seen[x] = 1
    return v


def _dead(v, key):
    """At most MAX_DEAD distinct stations (their reeds out of service)."""
    ok = isinstance(v, list) and len(v) <= MAX_DEAD
    for i in range(len(v) if ok else 0):
        x = v[i]
        if _is_bool(x) or not isinstance(x, int) or not 1 <= x <= STATIONS or x in v[:i]:
            ok = False
    if not ok:
        raise ConfigError(key, "dead_stations", (str(MAX_DEAD), str(STATIONS), repr(v)))
    return v


def _given_or_identity(cfg, section, key):
    given = cfg.get(section, {})
    return given[key] if key in given else list(range(STATIONS))


def _pin(v, key, board, output):
    if _is_bool(v) or not isinstance(v, int):
        raise ConfigError(key, "not_a_gpio_number", (repr(v),))
    if board == "pico":
        if v not in _PICO_PINS:
            raise ConfigError(key, "pico_no_such_gpio", (str(v),))
    elif v in _ESP32_IN_ONLY:
        raise ConfigError(key, "esp32_input_only" if output else "esp32_no_pull_up", (str(v),))
    elif v not in _ESP32_OUT:
        raise ConfigError(key, "esp32_no_such_gpio", (str(v),))
    return v


def validate(cfg):
    """A checked copy of cfg with absent optional keys filled from default(cfg["board"]).

    The copy is shallow for the two long lists (bits, index): they are shared with cfg, not copied,
    to spare the board's heap."""
    if not isinstance(cfg, dict):
        raise ConfigError(None, "not_json_object", (repr(type(cfg).__name__),))
    board = cfg.get("board", "pico")
    _choice(board, "board", BOARDS)
    d = _skeleton(board)
    for k in cfg:
        if k not in d:
            known = ", ".join(sorted(d))
            raise ConfigError(str(k), "unknown_key", (known,))
    out = {}
    ver = cfg.get("version", VERSION)
    if ver != VERSION or _is_bool(ver):
        raise ConfigError("version", "wrong_version", (str(VERSION), repr(ver)))
    out["version"] = VERSION
    out["board"] = board
    out["map"] = _choice(cfg.get("map", d["map"]), "map", MAPS)

    r = _section(cfg, "reeds", d["reeds"])
    if board == "pico":
        _choice(r["spi"], "reeds.spi", (0, 1))
    else:
        _choice(r["spi"], "reeds.spi", (1, 2))
    # 6-8 m of ribbon into 25 inputs without Schmitt triggers: 4 MHz is the most we let a
    # config ask for; `yard selftest` measures the fastest reliable clock of the real chain
    _int(r["baudrate"], "reeds.baudrate", 10000, 4000000)
    if _is_bool(r["spi_mode"]) or r["spi_mode"] not in SPI_MODES:
        raise ConfigError("reeds.spi_mode", "spi_mode_cpha", (repr(r["spi_mode"]),))
    _int(r["chips"], "reeds.chips", (STATIONS + 7) // 8, 64)
    _bool(r["active_low"], "reeds.active_low")
    if not _dead(r["dead"], "reeds.dead"):
        del r["dead"]  # none: the key stays out of the file (measured: an empty list in board.json
        # costs the unix port's game 1 KB of heap, docs/memory.md)
    r["bits"] = _permutation(_given_or_identity(cfg, "reeds", "bits"), "reeds.bits", r["chips"] * 8,
                             marker_bit(r["chips"]))
    out["reeds"] = r

    led = _section(cfg, "leds", d["leds"])
    _int(led["count"], "leds.count", STATIONS, 1024)
    led["index"] = _permutation(_given_or_identity(cfg, "leds", "index"), "leds.index", led["count"])
    _choice(led["order"], "leds.order", ORDERS)
    _num(led["brightness"], "leds.brightness", 0, 1, True)
    _int(led["supply_ma"], "leds.supply_ma", 500, 20000)
    most = int(led["supply_ma"] * SUPPLY_DERATE) - CONTROLLER_MA
    _int(led["current_limit_ma"], "leds.current_limit_ma", 100, 20000)
    if led["current_limit_ma"] > most:
        raise ConfigError("leds.current_limit_ma", "led_current",
                          (str(led["current_limit_ma"]), str(led["supply_ma"]),
                           str(int(SUPPLY_DERATE * 100)), str(CONTROLLER_MA), str(most)))
    _num(led["ma_per_channel"], "leds.ma_per_channel", 0, 100, True)
    _num(led["idle_ma_per_led"], "leds.idle_ma_per_led", 0, 10)
    if not _bool(led["patterns"], "leds.patterns"):
        del led["patterns"]  # off: the key stays out of the file, as reeds.dead does
    out["leds"] = led

    pins = {}  # pin -> key, to refuse one pin used twice

    def use(v, key, output):
        _pin(v, key, board, output)
        if v in pins:
            if pins[v] is None:  # the SPI driver's MOSI pin
                raise ConfigError(key, "pin_is_spi_mosi", (str(v), str(r["spi"])))
            raise ConfigError(key, "pin_already_used", (str(v), pins[v]))
        pins[v] = key

    pins[_MOSI[board][r["spi"]]] = None  # reeds.spi's
    use(r["sck"], "reeds.sck", True)
    use(r["miso"], "reeds.miso", False)
    use(r["load"], "reeds.load", True)
    use(led["pin"], "leds.pin", True)
    if board == "pico":
        if r["sck"] not in _PICO_SCK[r["spi"]]:
            raise ConfigError("reeds.sck", "pico_sck_pin", (str(r["sck"]), str(r["spi"]),
                                                        ", ".join([str(p) for p in _PICO_SCK[r["spi"]]])))
        if r["miso"] not in _PICO_MISO[r["spi"]]:
            raise ConfigError("reeds.miso", "pico_miso_pin", (str(r["miso"]), str(r["spi"]),
                                                          ", ".join([str(p) for p in _PICO_MISO[r["spi"]]])))

    if "buttons" in cfg and cfg["buttons"] is None:
        out["buttons"] = None
    else:
        bd = dict(d["buttons"])
        bt = _section(cfg, "buttons", bd)
        for name in BUTTONS:
            use(bt[name], "buttons." + name, False)
        _bool(bt["active_low"], "buttons.active_low")
        out["buttons"] = bt

    safe = cfg.get("safe_mode_pin", d["safe_mode_pin"])
    if safe is not None:
        use(safe, "safe_mode_pin", False)
    if board == "esp32":
        held = [("safe_mode_pin", safe)]
        if out["buttons"]:
            held += [("buttons." + k, out["buttons"][k]) for k in BUTTONS]
        for key, v in held:
            if v in _ESP32_STRAPPING:
                # held at power-up it changes the boot mode (GPIO0: download mode, boot.py never runs)
                raise ConfigError(key, "esp32_strapping", (str(v),))
    out["safe_mode_pin"] = safe
    out["debounce_ms"] = _int(cfg.get("debounce_ms", d["debounce_ms"]), "debounce_ms", 0, 1000)
    out["scan_hz"] = _int(cfg.get("scan_hz", d["scan_hz"]), "scan_hz", 1, 2000)
    return out


def loads(text):
    """Parse and validate config text."""
    try:
        cfg = json.loads(text)
    except ValueError as e:
        raise ConfigError(None, "not_valid_json", (str(e),))
    return validate(cfg)


def load(path=DEFAULT_PATH):
    """Read, parse and validate the config file at path (parsed from the stream: no big string)."""
    try:
        try:
            f = open(path)
        except OSError:
            raise ConfigError(None, "no_such_file")
        try:
            try:
                cfg = json.load(f)
            except ValueError as e:
                raise ConfigError(None, "not_valid_json", (str(e),))
        finally:
            f.close()
        return validate(cfg)
    except ConfigError as e:
        e.file = path  # the host names the file: "board.json: leds.brightness: ..."
        raise
