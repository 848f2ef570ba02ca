"""`yard play`: Mister X's console, connected to the board.

A new game: how many detective players (1-5; 1 = the two-player game), start cards drawn at
random or entered by hand, the public setup sent to the board, then Mister X's turns at the
keyboard and the detectives' moves from the board. `--resume` continues the newest unfinished
secret log (or the one given) after the host or the board crashed or the cable was pulled.

`--mrx computer`: the host plays Mister X against the people at the table; the screen shows only
public information. `--detectives computer`: the host plays the detectives; the board lights each
move for a person to carry out (host/misterx/computer.py).
"""
import os
import sys

from host.i18n import _, is_no, is_yes
from host.misterx.boardside import BoardSide
from host.misterx.computer import GuidedDetectives, add_mode_arguments, mrx_agent
from host.misterx.console import Console
from host.errors import UserError, BoardError
from host.misterx.secretgame import SecretGame, draw_setup, latest_unfinished, default_dir
from host.link.ports import add_port_argument, check_port, resolve


def add_arguments(parser):
    add_port_argument(parser)
    add_game_arguments(parser)
    parser.add_argument("--resume", nargs="?", const="latest", metavar="SECRET_LOG",
                        help=_("continue a saved game: the newest unfinished one, or the secret log given"))
    parser.add_argument("--new", action="store_true",
                        help=_("start a new game even if the board holds one in progress (abandons it)"))


def add_game_arguments(parser):
    parser.add_argument("--players", "-n", type=int, metavar="N",
                        help=_("detective players, 1-5 (1 = the two-player game: 2 detectives, 2 bobbies)"))
    add_mode_arguments(parser)
    parser.add_argument("--cards", choices=("random", "hand"),
                        help=_("start cards drawn at random (default) or entered by hand"))
    parser.add_argument("--start", metavar="STATIONS",
                        help=_("start stations by hand: detectives then bobbies, then X's, e.g. 13,26,29,34:45"))
    parser.add_argument("--dir", metavar="FOLDER", help=_("where secret logs are kept (default: $YARD_HOME or "
                                                         "~/.local/share/yard)"))
    parser.add_argument("--secret-page", action="store_true",
                        help=_("Mister X's screen in a browser too (his station, moves by click, the detectives): "
                               "served on 127.0.0.1, its secret link printed; the console keeps working"))
    parser.add_argument("--lan", nargs="?", const="auto", metavar="ADDRESS",
                        help=_("with --secret-page: serve it on the local network, for a phone at the table, on "
                               "ADDRESS (one of this computer's addresses; default: the one of the network it "
                               "reaches the internet by), over TLS with a certificate made at start; the link carries "
                               "a secret key: it is printed and shown as a QR code, with the certificate's fingerprint"))
    parser.add_argument("--secret-port", type=int, default=0, metavar="PORT",
                        help=_("the secret page's port (default: any free one)"))


def secret_page_options(args, mrx):
    """{"lan", "port"} for connect_and_play, or None without --secret-page. `lan`: the address to
    serve on (--lan), or None for this computer only."""
    if not args.secret_page:
        if args.lan:
            raise UserError(_("--lan goes with --secret-page"))
        return None
    if mrx != "human":
        raise UserError(_("the secret page is Mister X's screen: it goes with a human Mister X"))
    lan = None
    if args.lan:
        from host.web.mrxpage import lan_choice
        try:
            lan = lan_choice(args.lan)
        except ValueError:
            raise UserError(_("--lan takes one of this computer's IP addresses, not %(given)r") % {"given": args.lan})
    return {"lan": lan, "port": args.secret_port}


def open_secret_page(sg, inp, out, lan=None, port=0):
    """Serve Mister X's secret page next to the console (with `lan`, on that address). Returns (inp,
    out, stop): the console's input (terminal and page), its output (also shown on the page) and stop()."""
    from host.web.mrxinput import PageInput, Said
    from host.web.mrxpage import start_secret_page, qr_text
    said = Said(out)
    pin = PageInput(inp, said)
    try:
        url, stop = start_secret_page(sg.path, pin, said, lan, port, sg.setup.get("map") or "london")
    except OSError as e:
        raise UserError(_("cannot serve the secret page on %(address)s: %(error)s")
                        % {"address": lan or "127.0.0.1", "error": e.strerror or e})
    # printed before the page's output is kept for the page (`out`, not `said`): the key is not in
    # what the page shows
    out(_("Mister X's secret page: %(url)s") % {"url": url})
    if lan:
        out(_("Scan it with your phone (the link is the key: keep it to yourself):"))
        out(qr_text(url))
        out(_("Your phone will warn that the page's certificate is not known: it is made fresh for this game. "
              "Accept it only if its SHA-256 fingerprint is"))
        out("  " + stop.fingerprint)
    else:
        out(_("(this computer only: --lan serves it to a phone on the local network)"))
    return pin, said, stop


def ask(prompt, inp=input, out=print):
    try:
        return inp(prompt).strip()
    except EOFError:
        raise UserError(_("no answer (end of input)"))


def parse_stations(text):
    try:
        return [int(w) for w in text.replace(",", " ").split()]
    except ValueError:
        raise UserError(_("station numbers, please: %(given)r") % {"given": text})


def new_setup(args, inp=input, out=print, rng=None):
    """Ask (or take from args) the number of detectives and the start cards."""
    n = args.players
    while n is None:
        text = ask(_("How many detective players (1-5; 1 = two-player game)? "), inp, out)
        if text.isdigit() and 1 <= int(text) <= 5:
            n = int(text)
        else:
            out(_("1 to 5, please."))
    if not 1 <= n <= 5:
        raise UserError(_("--players must be 1 to 5"))
    if args.start:
        det, _sep, x = args.start.partition(":")
        return draw_setup(n, rng, parse_stations(det), int(x) if x.strip() else None)
    cards = args.cards
    if cards is None and sys.stdin.isatty() and inp is input:
        while cards is None:   # Enter or yes: at random; no: by hand; anything else is asked again
            answer = ask(_("Draw the start cards at random? [Y/n] "), inp, out)
            if not answer.strip() or is_yes(answer):
                cards = "random"
            elif is_no(answer):
                cards = "hand"
            else:
                out(_("%(yes)s or %(no)s, please.") % {"yes": _("y"), "no": _("n")})
    if cards == "hand":
        pieces = (2 if n == 1 else n) + {1: 2, 2: 2, 3: 1}.get(n, 0)
        while True:
            try:
                det = parse_stations(ask(_("The %(count)d D cards (detectives first, then bobbies): ") % {"count": pieces},
                                          inp, out))
                x = parse_stations(ask(_("Your X card: "), inp, out))
                return draw_setup(n, rng, det, x[0] if x else None)
            except UserError as e:
                out(str(e))
    return draw_setup(n, rng)


def setup_readline(console):
    try:
        import readline
    except ImportError:
        return

    def complete(text, state):
        opts = console.completions(text, readline.get_line_buffer())
        return opts[state] if state < len(opts) else None

    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")


def load_resume(which, folder):
    if which == "latest":
        path = latest_unfinished(folder)
        if path is None:
            raise UserError(_("no unfinished game to resume in %(folder)s") % {"folder": folder or default_dir()})
    else:
        path = which
    sg = SecretGame.load(path)
    if not sg.unfinished:
        raise UserError(_("the game in %(file)s is over; start a new one with yard play") % {"file": path})
    return sg


def connect_and_play(port, sg, resume, inp=input, out=print, detectives=None, wire_log=None, side=None,
                     on_setup=None, quiet=False, boot_wait=0.0, replace=True, quit_hint=None, mrx_agent=None,
                     show_mrx=False, move_timeout=20.0, secret_page=None):
    """Open the board, set up or resync, run the console. Returns the exit code.
    detectives: a driver (callable(sg)) that makes one detective move, or a function
    side -> driver (it needs the board), or None when people move the pieces."""
    side = side or BoardSide(port, sg, out=out, wire_log=wire_log)
    stop_page = None
    if secret_page is not None:
        inp, out, stop_page = open_secret_page(sg, inp, out, **secret_page)
    try:
        return _connect_and_play(port, sg, resume, inp, out, detectives, side, on_setup, quiet, boot_wait, replace,
                                 quit_hint, mrx_agent, show_mrx, move_timeout, stop_page is not None)
    finally:
        if stop_page:
            stop_page()


def _connect_and_play(port, sg, resume, inp, out, detectives, side, on_setup, quiet, boot_wait, replace, quit_hint,
                      mrx_agent, show_mrx, move_timeout, page):
    info = side.open(boot_wait)
    out(_("Board: firmware %(firmware)s, protocol %(proto)s, on %(port)s") % {
        "firmware": info.get("firmware"), "proto": info.get("proto"), "port": port})
    try:
        if resume:
            summary = side.resync(on_move=lambda line: out(_("  while you were away: %(piece)s to %(station)d") % {
                "piece": line["piece"], "station": line["to"]}))
            out(_("Resumed game %(game)s: %(caught_up)d detective move(s) caught up, %(resent)d move(s) of yours "
                  "resent.") % {"game": sg.game_id, "caught_up": summary["applied"], "resent": summary["resent"]})
            if summary["applied"] and sg.game.result == "detectives" and sg.game.reason == "capture":
                side.capture([line for line in sg.lines if line.get("type") == "move"][-1]["piece"])
        else:
            if not replace and info.get("stage") == "play":
                raise UserError(_("the board holds a game in progress (round %s): continue it with yard play --resume, "
                                  "or abandon it with yard play --new") % info.get("round", "?"))
            side.start(wait_ready=False)
            if on_setup:
                on_setup(sg)
            side.wait_ready()
            if mrx_agent is None or show_mrx:
                out((_("New game %(game)s. You start on %(station)d (keep it secret). Secret log: %(path)s")
                     if mrx_agent is None else
                     _("New game %(game)s. Mister X (computer) starts on %(station)d (keep it secret). Secret log: "
                       "%(path)s")) % {"game": sg.game_id, "station": sg.setup["mrx"], "path": sg.path})
            else:
                # no path on the shared screen: the file holds his stations, and anyone at the table could
                # open it (a file:// link in the browser that shows the public view)
                out(_("New game %s. The computer plays Mister X; his stations stay hidden until the end, when "
                      "his secret log is shown and checked.") % sg.game_id)
        if getattr(detectives, "needs_side", False):
            detectives = detectives(side)
        console = Console(sg, side, inp=inp, out=out, detectives=detectives, quiet=quiet, mrx_agent=mrx_agent,
                          show_mrx=show_mrx, move_timeout=move_timeout)
        if quit_hint:
            console.quit_hint = quit_hint
        if (inp is input or getattr(inp, "terminal", None) is input) and sys.stdin.isatty():
            setup_readline(console)  # the terminal, alone or beside the secret page
        if sg.over:
            console.finish()
        elif not console.play():
            return 0
        if page:
            out(_("The secret page shows the end of the game until you press Enter (or Done on the page)."))
            try:
                inp("")
            except EOFError:
                pass
        return 0
    finally:
        side.close()


def play_modes(args):
    """(mrx, detectives): who plays each side in yard play (both human by default)."""
    mrx, det = args.mrx or "human", args.detectives or "human"
    if mrx == det == "computer":
        raise UserError(_("the host cannot play both sides at the table: yard sim --demo shows such a game"))
    if args.show_mrx and mrx != "computer":
        raise UserError(_("--show-mrx goes with --mrx computer"))
    return mrx, det


def run(args):
    port = resolve(args.port)
    check_port(port)  # before any question: a wrong port is found before the game is set up
    mrx, det = play_modes(args)
    level = args.level or "normal"
    opts = {"mrx_agent": mrx_agent(level) if mrx == "computer" else None, "show_mrx": args.show_mrx,
            "secret_page": secret_page_options(args, mrx)}
    if det == "computer":
        opts["detectives"] = lambda side: GuidedDetectives(side, level)
        opts["detectives"].needs_side = True
        opts["move_timeout"] = None  # a person carries each move out: no hurry
    if args.resume:
        return connect_and_play(port, load_resume(args.resume, args.dir), True, **opts)
    sg = SecretGame.create(new_setup(args), folder=args.dir)
    side = BoardSide(port, sg)
    try:
        return connect_and_play(port, sg, False, replace=args.new, side=side, **opts)
    except (UserError, BoardError):
        if not side.setup_sent:
            os.remove(sg.path)  # the game never reached the board: nothing to resume
        raise
