"""`yard sim`: the real firmware on the MicroPython unix port, simulated switches and LEDs on a
pty, and Mister X's console connected to it exactly as to a real board.

The detectives are computer players whose moves are carried out through the simulated reed
switches (lift, then place; a ticket button when two transports join the stations), so the
firmware's tracking and validation do the work. `--demo` lets a computer Mister X play too
(typing into the same console) and prints the result and the travel log.
"""
import copy
import os
import random
import sys
import time

from host.console import SHORT
from host.errors import UserError
from host.mrxgame import SecretGame, draw_setup
from host.play import add_game_arguments, new_setup, connect_and_play
from sy.rules import TICKET_NAMES


def add_arguments(parser):
    add_game_arguments(parser)
    parser.add_argument("--demo", action="store_true",
                        help="computer players on both sides: play a whole game and print the result")
    parser.add_argument("--level", default="easy", choices=("random", "easy", "normal", "hard"),
                        help="the computer players' level (default easy: instant heuristics)")
    parser.add_argument("--seed", type=int, help="random seed (start cards and computer players)")
    parser.add_argument("--debounce-ms", type=int, default=10,
                        help="the simulated board's debounce time (default 10 ms; real boards use ~30)")
    parser.add_argument("--heap", default="192k", help="the unix port's heap (default 192k, about a Pico's free RAM)")
    parser.add_argument("--keep", metavar="FOLDER", help="keep the simulated board's files (flash, LEDs) here")
    parser.add_argument("--verbose", "-v", action="store_true", help="demo: show Mister X's status every turn")


class SimDetectives:
    """Moves one detective or bobby per call on the simulated board, chosen by a computer player
    that sees only public information."""

    def __init__(self, sim, agent, public_view):
        self.sim = sim
        self.agent = agent
        self.public_view = public_view
        self.moves = 0

    def __call__(self, sg):
        g = sg.game
        piece, ticket, to = self.agent.choose(self.public_view(g))
        here = g.pos[piece]
        fits = {t for s, t in g.legal(piece) if s == to}
        self.sim.lift(here)
        if not g.is_bobby(piece) and len(fits) > 1 and ticket is not None:
            self.sim.press(TICKET_NAMES[ticket])  # which ticket: the board cannot tell
        self.sim.place(to)
        self.moves += 1


def detective_agent(level, seed):
    from host.ai import make_detective_agent, public_view
    return make_detective_agent(level, seed=seed), public_view


def mrx_typist(level, seed, sg):
    """A computer Mister X that types into the console like a person would."""
    from host.ai import make_mrx_agent
    agent = make_mrx_agent(level, seed=seed)

    def inp(prompt):
        choice = agent.choose(copy.deepcopy(sg.game))
        if choice[0] == "double":
            _k, t1, s1, t2, s2 = choice
            return "double %s %d %s %d" % (SHORT[t1], s1, SHORT[t2], s2)
        _k, t, s = choice
        return "%s %d" % (SHORT[t], s)
    return inp


def run_sim(args, out=print, inp=input):
    from host.simboard import SimBoard
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    if args.demo and args.detectives is None:
        args.detectives = 1 + rng.randrange(5)
    setup = new_setup(args, inp=inp, out=out, rng=rng)
    folder = args.dir
    if folder is None:
        import tempfile
        folder = tempfile.mkdtemp(prefix="yard-sim-")
    sg = SecretGame.create(setup, folder=folder)
    agent, view = detective_agent(args.level, seed)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    sim = SimBoard(folder=args.keep, debounce_ms=args.debounce_ms, heapsize=args.heap)
    t0 = time.monotonic()
    try:
        sim.start()
        driver = SimDetectives(sim, agent, view)

        def place_pieces(sg):
            for s in sg.game.pos:
                sim.place(s, settle=False)
            sim.settle()

        typing = inp
        if args.demo:
            typist = mrx_typist(args.level, seed + 1, sg)

            def typing(prompt):
                text = typist(prompt)
                if args.verbose:
                    out(prompt + text)
                return text
        if args.demo:
            out("Demo game (seed %d): %d detective player(s), computer players at level %s, on the simulated "
                "board (firmware under the MicroPython unix port, port %s)." % (seed, args.detectives, args.level, sim.port))
        code = connect_and_play(sim.port, sg, False, inp=typing, out=out, detectives=driver,
                                on_setup=place_pieces, quiet=args.demo and not args.verbose, boot_wait=30,
                                quit_hint="Game abandoned (the simulated board stops with yard sim). Secret log: " + sg.path)
        if args.demo:
            out("Demo: %d detective moves made through the simulated switches; %.1f s." % (
                driver.moves, time.monotonic() - t0))
        return code
    finally:
        sim.stop()


def run(args):
    if not args.demo and not sys.stdin.isatty() and args.detectives is None:
        raise UserError("yard sim needs --detectives N when its input is not a terminal")
    return run_sim(args)
