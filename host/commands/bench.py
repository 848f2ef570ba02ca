"""`yard bench KIND [--json]`: benchmarks that measure and print numbers (they assert nothing).

Each KIND is a module with `add_arguments(parser)` and `run(args) -> dict`.
"""
import importlib
import json

from host.i18n import N_, _

BENCHES = {
    "rules": ("host.benchmarks.rules", N_("the rules core: map size, heap, legal moves, possible stations")),
    "firmware": ("host.benchmarks.firmware", N_("the firmware on the unix port: heap, scan loop, latency")),
    "ai": ("host.ai.bench", N_("the computer players: Mister X's levels against a panel of detectives who know his "
           "code (win rates, blunders, early losses, leak, time a move), and the detectives' levels")),
    "pico": ("host.benchmarks.pico", N_("the firmware on the emulated Raspberry Pi Pico: heap, scan loop, latency, "
             "boot, saves and power cuts (the reference figures)")),
    "pico-europe": ("host.benchmarks.pico_europe", N_("the Europe board on the emulated Raspberry Pi Pico: heap at boot "
                    "and its peak over a whole demo game, against London's budget")),
    "mutation": ("host.benchmarks.mutation", N_("the tests against planted bugs: cosmic-ray mutants of the board's modules, "
                 "the share the fast tests catch per module and the survivors (docs/testing.md)")),
    "reliability": ("host.benchmarks.reliability", N_("the board on a family table: fuzzing, power cuts, sensor faults, "
                    "link loss, secrecy, LED power")),
}


def add_arguments(parser):
    sub = parser.add_subparsers(dest="bench", metavar=_("KIND"))
    sub.required = True
    for name, (module, text) in BENCHES.items():
        text = _(text)
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--json", action="store_true", help=_("print one JSON object"))
        p.set_defaults(_bench_module=module)
        importlib.import_module(module).add_arguments(p)


def run(args):
    figures = importlib.import_module(args._bench_module).run(args)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        width = max(len(k) for k in figures)
        for key in sorted(figures):
            print("%-*s  %s" % (width, key, figures[key]))
    return 0
