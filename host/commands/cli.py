"""`yard`: one CLI, one module per subcommand.

Each subcommand module has `add_arguments(parser)` and `run(args) -> int` (the exit code).
Benchmarks are registered in host/commands/bench.py.
"""
import argparse
import importlib
import signal
import sys

from host.errors import UserError, BoardError

# name: (module, one-line help)
COMMANDS = {
    "replay": ("host.commands.replay", "check a game record and print the verdict stream"),
    "bench": ("host.commands.bench", "measure the rules core, the firmware, the AI or the board's reliability"),
    "verify": ("host.commands.verify", "check Mister X's revealed log against its commitments and the rules"),
    "flash": ("host.device.flash", "compile the firmware and copy what changed onto the board (mpremote)"),
    "uf2": ("host.device.uf2", "write one UF2 for a Pico: MicroPython, the compiled firmware and board.json"),
    "play": ("host.commands.play", "Mister X's console: play a game on the board (or --resume one)"),
    "sim": ("host.commands.sim", "the firmware on a simulated board; --demo plays a whole game with computer players"),
    "monitor": ("host.device.monitor", "show the board's raw events and notes (for makers)"),
    "calibrate": ("host.device.calibrate", "assembly wizard: map each station's LED and switch, write board.json"),
    "selftest": ("host.device.selftest", "check every switch and LED of the board and print a report to act on"),
    "map-editor": ("host.europe.map_editor", "the digitizer: transcribe a board (Europe, or check London) from a photo"),
}


def build_parser():
    parser = argparse.ArgumentParser(prog="yard", description="The augmented Scotland Yard board: host tool.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module, text) in COMMANDS.items():
        p = sub.add_parser(name, help=text, description=text)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    return parser


def _exit_on(signum, _frame):
    raise SystemExit(128 + signum)


def main(argv=None):
    args = build_parser().parse_args(argv)
    # a closed terminal (SIGHUP) or a kill (SIGTERM) ends yard through its `finally` blocks, so a
    # simulated board's firmware process (in its own session) is stopped, not left running
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on)
    try:
        return importlib.import_module(args._module).run(args) or 0
    except (UserError, BoardError) as e:
        print("yard %s: %s" % (args.command, e), file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("yard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
