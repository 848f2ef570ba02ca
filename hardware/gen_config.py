"""Generate (or check) the board config file board.json that the firmware reads.

    python -m hardware.gen_config --board pico --measurements my_board.csv -o board.json
    python -m hardware.gen_config --check board.json

With measurements, the LED index map follows the serpentine chain route of hardware.placement and
the reed bit map follows the same route (8 route neighbours per 74HC165, chip 0 nearest the
controller), so both chains are short. Without, station n is LED n-1 and bit n-1. The result is
validated by sy.hardware.boardconfig, the same code the firmware runs; edit it by hand if you like and
check it again with --check.
"""
import argparse
import json
import sys

from host import configerrors  # board.json's problems worded from their codes
from sy.hardware import boardconfig


def max_led_ma(supply_ma):
    """The highest LED cap a supply of supply_ma allows (sy.hardware.boardconfig checks the same)."""
    return int(supply_ma * boardconfig.SUPPLY_DERATE) - boardconfig.CONTROLLER_MA


def build_config(board="pico", placement=None, map_name="london", brightness=None, current_limit_ma=None,
                 buttons=True, supply_ma=None):
    cfg = boardconfig.default(board)
    cfg["map"] = map_name
    if placement is not None:
        order = placement.index_list()
        cfg["leds"]["index"] = list(order)
        cfg["reeds"]["bits"] = list(order)
    if brightness is not None:
        cfg["leds"]["brightness"] = brightness
    if supply_ma is not None:
        # the cap follows the supply's rating unless it is given too
        cfg["leds"]["supply_ma"] = supply_ma
        cfg["leds"]["current_limit_ma"] = max(100, max_led_ma(supply_ma))
    if current_limit_ma is not None:
        cfg["leds"]["current_limit_ma"] = current_limit_ma
    if not buttons:
        cfg["buttons"] = None
    return boardconfig.validate(cfg)


def dumps(cfg):
    """JSON with one key per line and each long list on one line: readable and hand-editable."""
    def block(d, indent):
        pad = " " * indent
        items = []
        for k, v in d.items():
            if isinstance(v, dict):
                items.append('%s%s: %s' % (pad + "  ", json.dumps(k), block(v, indent + 2)))
            else:
                items.append('%s%s: %s' % (pad + "  ", json.dumps(k), json.dumps(v)))
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    return block(cfg, 0) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.gen_config", description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", choices=boardconfig.BOARDS, default="pico")
    ap.add_argument("--map", choices=boardconfig.MAPS, default="london")
    ap.add_argument("--measurements", help="CSV station,x_mm,y_mm (see hardware/placement.py)")
    ap.add_argument("--brightness", type=float)
    ap.add_argument("--supply-ma", type=int, help="the 5 V supply's rating in mA (default 4000); the LED cap "
                                                   "becomes 80 %% of it less 60 mA unless --current-limit-ma is given")
    ap.add_argument("--current-limit-ma", type=int)
    ap.add_argument("--no-buttons", action="store_true")
    ap.add_argument("-o", "--out", default="board.json")
    ap.add_argument("--check", metavar="FILE", help="only validate FILE and report")
    args = ap.parse_args(argv)
    try:
        if args.check:
            cfg = boardconfig.load(args.check)
            print("%s: valid (%s, %d LEDs, %d reed chips)" % (args.check, cfg["board"], cfg["leds"]["count"],
                                                                cfg["reeds"]["chips"]))
            return 0
        pl = None
        if args.measurements:
            from hardware import placement
            pl = placement.placement_from_file(args.measurements)
            print(pl.summary())
        cfg = build_config(args.board, pl, args.map, args.brightness, args.current_limit_ma, not args.no_buttons,
                           args.supply_ma)
    except boardconfig.ConfigError as e:
        print("error: %s" % configerrors.explain(e), file=sys.stderr)
        return 2
    except Exception as e:  # placement errors, unreadable files: one clear line, not a traceback
        if type(e).__name__ not in ("PlacementError", "FileNotFoundError", "PermissionError"):
            raise
        print("error: %s" % e, file=sys.stderr)
        return 2
    with open(args.out, "w") as f:
        f.write(dumps(cfg))
    print("wrote %s (%s)" % (args.out, cfg["board"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
