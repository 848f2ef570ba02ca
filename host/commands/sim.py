"""`yard sim`: the real firmware on the MicroPython unix port, simulated switches and LEDs on a
pty, and Mister X's console connected to it exactly as to a real board.

Who plays: `--mrx human` (default: you, at this console) or `computer`; `--detectives computer`
(default with a human Mister X: the host computes each move, the board lights it with `guide`,
and the simulator's hands carry it out through the reed switches, so the firmware's tracking and
validation do the work) or `human` (default with a computer Mister X: you move the pieces in the
browser view). The browser view of the simulated board (host/web) is served on loopback and its
URL printed (`--no-web` to skip). `--demo` lets a computer Mister X play too (typing into the same
console) and prints the result and the travel log.
"""
import copy
import json
import os
import sys
import time

from host.i18n import _, number
from host.words import level_name
from host.misterx.boardside import BoardSide
from host.misterx.computer import GuidedDetectives, mrx_agent
from host.misterx.console import SHORT
from host.errors import UserError
from host.misterx.secretgame import SecretGame
from host.commands.play import add_game_arguments, new_setup, connect_and_play, secret_page_options
from host.misterx.randomness import SEED_WARNING, secret_rng


def add_arguments(parser):
    add_game_arguments(parser)
    parser.add_argument("--demo", action="store_true",
                        help=_("computer players on both sides: play a whole game and print the result"))
    parser.add_argument("--seed", type=int,
                        help=_("repeat a game: seeds the start cards and computer players. For demos and tests, "
                               "not for real games (default: the OS's secure randomness)"))
    parser.add_argument("--debounce-ms", type=int, default=10,
                        help=_("the simulated board's debounce time (default 10 ms; real boards use ~30)"))
    parser.add_argument("--board", choices=("unix", "pico"), default="unix",
                        help=_("unix (default, fast): the firmware on the MicroPython unix port; pico: MicroPython's "
                               "real RPI_PICO firmware on an emulated Raspberry Pi Pico (rp2040js), booted from the "
                               "maker's UF2, in real time"))
    parser.add_argument("--micropython", metavar="RPI_PICO_UF2",
                        help=_("--board pico: MicroPython's RPI_PICO firmware (default: in $YARD_PICO_DIR)"))
    parser.add_argument("--bootrom", metavar="ROM", help=_("--board pico: the RP2040 boot ROM (default: in $YARD_PICO_DIR)"))
    parser.add_argument("--heap", default="192k", help=_("the unix port's heap (default 192k, about a Pico's free RAM)"))
    parser.add_argument("--keep", metavar="FOLDER", help=_("keep the simulated board's files (flash, LEDs) here"))
    parser.add_argument("--verbose", "-v", action="store_true", help=_("demo: show Mister X's status every turn"))
    parser.add_argument("--no-web", action="store_true", help=_("do not serve the browser view of the simulated board"))
    parser.add_argument("--web", action="store_true", help=_("--demo: serve the browser view too (off by default)"))
    parser.add_argument("--web-port", type=int, default=0, help=_("the browser view's port on 127.0.0.1 (default: any free one)"))
    parser.add_argument("--open", action="store_true",
                        help=_("open the browser view in Chromium, in a profile of its own made for this run and "
                               "deleted after it (the table's screen never holds Mister X's secret link)"))
    parser.add_argument("--game", choices=("london", "europe"), default="london",
                        help=_("europe: Mister X - Flight through Europe on the map given by --map (host/europe/sim.py)"))
    parser.add_argument("--map", metavar="FOLDER", help=_("--game europe: the map folder (docs/map-format.md)"))
    parser.add_argument("--rounds", type=int, default=40, help=_("--game europe: stop the demo after this many rounds"))
    parser.add_argument("--patterns", action="store_true",
                        help=_("for colour-blind players: a rhythm beside each colour on the simulated board's LEDs "
                               "and in the browser view (board.json leds.patterns; docs/colour-vision.md)"))


def sim_modes(args):
    """(mrx, detectives) for yard sim: --demo is computer against computer; a computer Mister X
    plays human detectives (in the browser) unless told otherwise, a human one computer detectives."""
    if args.demo:
        if args.mrx == "human" or args.detectives == "human":
            raise UserError(_("--demo is the computer against itself: leave out --mrx/--detectives human"))
        return "computer", "computer"
    mrx = args.mrx or "human"
    det = args.detectives or ("human" if mrx == "computer" else "computer")
    if mrx == det == "computer":
        raise UserError(_("both sides played by the computer: that is yard sim --demo"))
    if args.show_mrx and mrx != "computer":
        raise UserError(_("--show-mrx goes with --mrx computer"))
    return mrx, det


class Hands:
    """Carries out a move on the simulated board like a person: lift, then place. Through the
    browser view's pieces when it runs (so the page shows the pieces where they are)."""

    def __init__(self, sim, web=None):
        self.sim = sim
        self.phys = web.phys if web else None

    def __call__(self, name, here, to):
        if self.phys:
            self.phys.move(name, to)
            self.sim.settle()
        else:
            self.sim.lift(here)
            self.sim.place(to)
        if to in self.out_of_service():  # the board cannot see it there: the confirm button
            if self.phys:
                self.phys.press("confirm")
            else:
                self.sim.press("confirm")

    def out_of_service(self):
        """The stations whose reed is out of service, as the board's config says (the people at the
        table know them: the board tells them)."""
        try:
            with open(os.path.join(self.sim.folder, "board.json")) as f:
                return json.load(f).get("reeds", {}).get("dead", [])
        except (OSError, ValueError, AttributeError, TypeError):
            return []

    def set_up(self, web, pieces):
        """Put every piece on its start station."""
        if web:
            web.make_state()  # the page's pieces follow the new game first
            web.phys.set_up(pieces)
            self.sim.settle()
            return
        for _name, s in pieces:
            self.sim.place(s, settle=False)
        self.sim.settle()


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


def board_config(args):
    """The simulated board's board.json overrides that the command line asks for."""
    return {"leds": {"patterns": True}} if args.patterns else None


def simulated_board(args, folder=None):
    """(the simulated board `--board` names, in words where it runs), not started yet."""
    if args.board == "pico":
        from host.pico.board import PicoBoard
        sim = PicoBoard(folder=folder, config=board_config(args), debounce_ms=args.debounce_ms,
                        micropython=args.micropython, bootrom=args.bootrom, realtime=True)
        return sim, _("MicroPython's RPI_PICO firmware on an emulated Raspberry Pi Pico")
    from host.simulator.board import SimBoard
    sim = SimBoard(folder=folder, config=board_config(args), debounce_ms=args.debounce_ms, heapsize=args.heap)
    return sim, _("firmware under the MicroPython unix port")


def _derived(seed, k):
    """Another repeatable seed from --seed, or None (the OS's randomness) without one."""
    return None if seed is None else seed + k


def run_sim(args, out=print, inp=input):
    seed = args.seed  # None: every secret choice from the OS (host/misterx/randomness.py)
    rng = secret_rng(seed)
    if seed is not None:
        out(_(SEED_WARNING) % seed)
    mrx, det = sim_modes(args)
    page = secret_page_options(args, mrx)
    level = args.level or "easy"
    web_on = args.web if args.demo else not args.no_web
    if det == "human" and not web_on:
        raise UserError(_("human detectives move their pieces in the browser view: leave out --no-web"))
    if args.demo and args.players is None:
        args.players = 1 + rng.randrange(5)
    setup = new_setup(args, inp=inp, out=out, rng=rng)
    folder = args.dir
    if folder is None:
        import tempfile
        folder = tempfile.mkdtemp(prefix="yard-sim-")
    sg = SecretGame.create(setup, folder=folder)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    sim, where = simulated_board(args, args.keep)
    stop_web = None
    view = None
    t0 = time.monotonic()
    try:
        sim.start()
        web = None
        if web_on:
            from host.web import start_web
            url, stop_web = start_web(sim, port=args.web_port)
            web = stop_web.webboard
            out(_("Browser view of the simulated board: %(url)s") % {"url": url})
            if args.open:
                from host.web.viewer import PublicView
                view = PublicView(url)
                if not view.opened:
                    out(_("(no Chromium to open it with: open it in a browser where Mister X's page is never opened)"))
        hands = Hands(sim, web)
        side = BoardSide(sim.port, sg, out=out)
        if web:
            web.commander = side.link.request  # the page's `reed` goes over the console's link
        driver = None
        if det == "computer":
            driver = GuidedDetectives(side, level, seed=seed, out=out, hands=hands)
            driver.quiet = args.demo and not args.verbose
        elif not args.demo:
            out(_("You play the detectives: move the pieces in the browser view."))

        def place_pieces(sg):
            g = sg.game
            hands.set_up(web, [(g.piece_name(i), g.pos[i]) for i in range(g.n_pieces)])

        typing = inp
        agent = None
        if args.demo:
            typist = mrx_typist(level, _derived(seed, 1), sg)

            def typing(prompt):
                text = typist(prompt)
                if args.verbose:
                    out(prompt + text)
                return text
            out(_("Demo game (%(randomness)s): %(players)d detective player(s), computer players at level %(level)s, on "
                  "the simulated board (%(where)s, port %(port)s).") % {
                "randomness": _("seed %d") % seed if seed is not None else _("secure randomness"),
                "players": args.players, "level": level_name(level), "where": where, "port": sim.port})
        elif mrx == "computer":
            agent = mrx_agent(level, _derived(seed, 1))
        code = connect_and_play(sim.port, sg, False, inp=typing, out=out, detectives=driver, side=side,
                                on_setup=place_pieces, quiet=args.demo and not args.verbose, boot_wait=30,
                                quit_hint=_("Game abandoned (the simulated board stops with yard sim). Secret log: %s") % sg.path,
                                mrx_agent=agent, show_mrx=args.show_mrx, move_timeout=20.0 if driver else None,
                                secret_page=page)
        if args.demo:
            out(_("Demo: %(moves)d detective moves made through the simulated switches; %(seconds)s s.") % {
                "moves": driver.moves, "seconds": number(round(time.monotonic() - t0, 1))})
        return code
    finally:
        if view:
            view.close()
        if stop_web:
            stop_web()
        sim.stop()


def run(args):
    if args.game == "europe":
        from host.europe.sim import run as run_europe
        return run_europe(args)
    if not args.demo and not sys.stdin.isatty() and args.players is None:
        raise UserError(_("yard sim needs --players N when its input is not a terminal"))
    return run_sim(args)
