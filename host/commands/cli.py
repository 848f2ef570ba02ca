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

from host import i18n
from host.errors import UserError, BoardError
from host.i18n import N_, _
from host.i18n.argparse_messages import install as translate_argparse

# name: (module, one-line help)
COMMANDS = {
    "replay": ("host.commands.replay", N_("check a game record and print the verdict stream")),
    "bench": ("host.commands.bench", N_("measure the rules core, the firmware, the AI or the board's reliability")),
    "verify": ("host.commands.verify", N_("check Mister X's revealed log against its commitments and the rules")),
    "flash": ("host.device.flash", N_("compile the firmware and copy what changed onto the board (mpremote)")),
    "uf2": ("host.device.uf2", N_("write one UF2 for a Pico: MicroPython, the compiled firmware and board.json")),
    "play": ("host.commands.play", N_("Mister X's console: play a game on the board (or --resume one)")),
    "sim": ("host.commands.sim",
            N_("the firmware on a simulated board; --demo plays a whole game with computer players")),
    "monitor": ("host.device.monitor", N_("show the board's raw events and notes (for makers)")),
    "calibrate": ("host.device.calibrate",
                  N_("assembly wizard: map each station's LED and switch, write board.json")),
    "selftest": ("host.device.selftest", N_("check every switch and LED of the board and print a report to act on")),
    "map-editor": ("host.europe.map_editor",
                   N_("the digitizer: transcribe a board (Europe, or check London) from a photo")),
}
LANG_OPTION = "--lang"


def build_parser():
    parser = argparse.ArgumentParser(prog="yard", description=_("The augmented Scotland Yard board: host tool."))
    parser.add_argument(LANG_OPTION, metavar="LANG", choices=i18n.LANGUAGES + (i18n.PSEUDO,),
                        help=_("the language yard speaks: %s (default: from LANG, else English)")
                        % ", ".join(i18n.LANGUAGES))
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"))
    sub.required = True
    for name, (module, text) in COMMANDS.items():
        text = _(text)
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
            for _attempt in range(100):  # 10 s; one resend is enough unless the main thread is busy
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


def _take_lang(argv):
    """`--lang X` or `--lang=X` anywhere on the line: the language must be known before the help
    texts are made. Returns (the value or None, argv without it)."""
    rest = []
    value = None
    args = iter(argv)
    for a in args:
        if a == LANG_OPTION:
            value = next(args, "")
        elif a.startswith(LANG_OPTION + "="):
            value = a[len(LANG_OPTION) + 1:]
        else:
            rest.append(a)
    return value, rest


def choose_language(argv):
    """Speak the language of --lang, else of the environment, else English; say which on stderr.
    Returns argv without --lang."""
    value, rest = _take_lang(argv)
    try:
        choice = i18n.choose(value)
    except ValueError:
        choice = i18n.choose()
        i18n.use(choice.lang)
        print(_("yard: unknown language %(lang)r (known: %(known)s)")
              % {"lang": value, "known": ", ".join(i18n.LANGUAGES)}, file=sys.stderr)
        raise SystemExit(2)
    i18n.use(choice.lang)
    if value:
        # the processes yard starts (the browser view's server, a simulated board's tools) speak it too
        os.environ["LANGUAGE"] = choice.lang
    translate_argparse()
    source = _("default") if choice.source == "default" else choice.source
    print(_("yard: language %(name)s (%(lang)s, from %(source)s)")
          % {"name": i18n.NAMES[choice.lang], "lang": choice.lang, "source": source}, file=sys.stderr)
    return rest


def main(argv=None):
    argv = choose_language(sys.argv[1:] if argv is None else list(argv))
    args = build_parser().parse_args(argv)
    _exit_on_signals()
    try:
        return importlib.import_module(args._module).run(args) or 0
    except (UserError, BoardError) as e:
        print(_("yard %(command)s: %(error)s") % {"command": args.command, "error": e}, file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(_("yard: interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
