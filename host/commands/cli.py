"""`yard`: one CLI, one module per subcommand.

Each subcommand module has `add_arguments(parser)` and `run(args) -> int` (the exit code).
Benchmarks are registered in host/commands/bench.py.
"""
import argparse
import importlib
import os
import signal
import sys
import threading
import time

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


_EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_exiting = []  # the signal that is ending yard, once its handler has run


def _exit_on(signum, _frame):
    if _exiting:
        return  # sent again by _wake_main while yard already cleans up: nothing more to do
    _exiting.append(signum)
    raise SystemExit(128 + signum)


def _wake_main(wakeups):
    """Python runs a signal's handler in the main thread, when the signal interrupts what that
    thread waits for or between two bytecodes. A signal that lands just before a blocking call
    starts (after input() wrote its prompt, before it waits for a key) interrupts nothing: the
    handler would wait for the next key press, and a closed terminal sends none. The C-level
    handler also writes each signal's number to `wakeups` (signal.set_wakeup_fd): this thread reads
    it and sends the signal to the main thread again until its handler has run."""
    main = threading.main_thread().ident
    while True:
        try:
            got = os.read(wakeups, 64)
        except OSError:
            return
        for signum in set(got) & set(_EXIT_SIGNALS):
            for _ in range(100):  # 10 s; one resend is enough unless the main thread is busy
                time.sleep(0.1)
                if _exiting:
                    break
                signal.pthread_kill(main, signum)


def _exit_on_signals():
    """A closed terminal (SIGHUP) or a kill (SIGTERM) ends yard through its `finally` blocks, so a
    simulated board's firmware process (in its own session) is stopped, not left running."""
    if signal.getsignal(signal.SIGTERM) is _exit_on:
        return  # installed already (main() called again in one process)
    wakeups, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    for sig in _EXIT_SIGNALS:
        signal.signal(sig, _exit_on)
    threading.Thread(target=_wake_main, args=(wakeups,), name="signal-wake", daemon=True).start()


def main(argv=None):
    args = build_parser().parse_args(argv)
    _exit_on_signals()
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
