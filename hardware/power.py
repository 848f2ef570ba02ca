"""Power budget of the LED chain, with the same current model the firmware's cap uses:

    current = count * idle_ma_per_led + sum(channel bytes after brightness) / 255 * ma_per_channel

and the firmware scales the whole frame down when that exceeds current_limit_ma.

    python -m hardware.power [board.json]
"""
import argparse
import sys

from host import configerrors  # board.json's problems worded from their codes
from sy.hardware import boardconfig

CONTROLLER_MA = 50      # Pico or ESP32 board (ESP32 with Wi-Fi off) incl. the 3.3 V regulator's load
READER_MA = 10          # 25 x 74HC165 quiescent + the 74AHCT125, with a few reeds closed (0.33 mA each)
assert CONTROLLER_MA + READER_MA == boardconfig.CONTROLLER_MA  # the validator reserves the same


def led_ma(cfg, lit):
    """Estimated LED current for lit = [(r, g, b)] at the config's brightness, before the cap."""
    led = cfg["leds"]
    total = 0.0
    for r, g, b in lit:
        total += (r + g + b) * led["brightness"] / 255 * led["ma_per_channel"]
    return led["count"] * led["idle_ma_per_led"] + total


def capped(cfg, ma):
    return min(ma, cfg["leds"]["current_limit_ma"])


def budget(cfg):
    """The figures for hardware/README.md: mA at 5 V."""
    led = cfg["leds"]
    n = led["count"]
    full = dict(cfg, leds=dict(led, brightness=1.0))
    white = [(255, 255, 255)] * n
    # a typical turn: Mister X's possible stations (about 15, one colour), the detectives' and
    # bobbies' stations (7, white) and one destination choice (1, one colour)
    typical = [(255, 0, 0)] * 15 + [(255, 255, 255)] * 7 + [(0, 0, 255)]
    out = {
        "idle": led_ma(cfg, []),
        "worst_full_white": led_ma(full, white),
        "worst_at_brightness": led_ma(cfg, white),
        "worst_with_cap": capped(cfg, led_ma(cfg, white)),
        "typical": capped(cfg, led_ma(cfg, typical)),
        "controller": CONTROLLER_MA + READER_MA,
    }
    out["supply_needed"] = out["worst_with_cap"] + out["controller"]
    out["supply_rating"] = led["supply_ma"]
    out["cap_allowed"] = int(led["supply_ma"] * boardconfig.SUPPLY_DERATE) - boardconfig.CONTROLLER_MA
    return out


def report(cfg):
    b = budget(cfg)
    led = cfg["leds"]
    return "\n".join([
        "LEDs: %d, brightness %.2f, %.0f mA per channel at full, cap %d mA" % (
            led["count"], led["brightness"], led["ma_per_channel"], led["current_limit_ma"]),
        "  idle (all off):                 %6.0f mA" % b["idle"],
        "  worst case, all white, full:    %6.0f mA (what the cap exists for)" % b["worst_full_white"],
        "  all white at brightness:        %6.0f mA" % b["worst_at_brightness"],
        "  worst case with the cap:        %6.0f mA" % b["worst_with_cap"],
        "  typical turn (23 stations lit): %6.0f mA" % b["typical"],
        "  controller + reed reader:       %6.0f mA" % b["controller"],
        "  supply must give at least:      %6.0f mA at 5 V" % b["supply_needed"],
        "  supply rating (leds.supply_ma): %6.0f mA; the cap may be at most %d mA (80 %% of it less the "
        "controller's %d mA)" % (b["supply_rating"], b["cap_allowed"], boardconfig.CONTROLLER_MA),
    ])


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.power", description="The LED chain's power budget.")
    ap.add_argument("config", nargs="?", help="a board.json (default: the firmware's defaults)")
    args = ap.parse_args(argv)
    try:
        cfg = boardconfig.load(args.config) if args.config else boardconfig.default()
    except boardconfig.ConfigError as e:
        print("error: %s" % configerrors.explain(e), file=sys.stderr)
        return 2
    print(report(cfg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
