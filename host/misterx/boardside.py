"""The console's view of the board: public facts out, the detectives' moves in, resynchronisation.

Wraps host/link/boardlink.py (docs/protocol.md). The board is told only: the setup without Mister X's
station (plus the commitment to it), each move's ticket kind and commitment, the station of a
surfacing move, a capture, a cornered Mister X, and after the game the salts.

Resynchronisation (after `yard play --resume`, a restarted board or a pulled cable, and whenever
the board reports or refuses something this host did not expect: an event it never saw, a move
the rules refuse, a refusal of Mister X's move): the board is the referee. Its journal is the
truth for the detectives' moves, the secret log for Mister X's. The host asks for
the whole journal (journal line N = event seq N), checks both agree on what they share, applies
detective moves it missed, resends a Mister X move the board never got (same commitment), and
repeats a capture or a cornered Mister X. Events up to the journal's end are then ignored. A
journal that holds a move of Mister X's the secret log lacks cannot be followed: the host stops
with a sentence that says so.
"""
import time

from host.link.auth import LinkKey
from host.link.boardlink import BoardLink, BoardCommandError, LinkError, LinkClosed, BoardTimeout, reveal_requests
from host.errors import BoardError
from host import refusals
from host.i18n import _
from host.words import piece_name, ticket_name
from host.misterx.secretgame import board_pairs, public_line
from host.link.ports import open_serial

# The events the console applies (move, undo) or may see late (ready, right after the setup); any
# other new event (mrx, capture, cornered, verified, setup) was not caused by this host.
EXPECTED_EVENTS = ("move", "undo", "ready")

_PUBLIC_SETUP_KEYS = ("detectives", "bobbies", "two_player", "tickets", "mrx_tickets", "rounds", "reveals", "map",
                      "commit")


def _steps(line):
    return line["double"] if "double" in line else [line]


class MoveTakenBack(BoardError):
    """The board refused Mister X's move because it is the detectives' turn there (a take-back this
    host did not hear of): his move is withdrawn from the secret log and the game follows the
    board's journal; he moves again after the detectives."""


def standing(journal):
    """[(seq, line)] of the journal's mrx and move lines that stand: each `undo` line takes back
    the latest standing move of its turn (as the board's record does, sy/play/report.py)."""
    out = []
    for seq, line in enumerate(journal, 1):
        kind = line.get("type")
        if kind in ("mrx", "move"):
            out.append((seq, line))
        elif kind == "undo" and out and out[-1][1]["type"] == "move":
            out.pop()
    return out


class BoardSide:
    def __init__(self, port, sg, out=print, link=None, retry_seconds=60.0, wire_log=None):
        self.port = port
        self.sg = sg
        self.out = out
        self.link = link or BoardLink(port, applied=sg.setup.get("board_seq", 0), timeout=5.0)
        if sg.setup.get("board_seq") and sg.setup.get("link_key"):
            self.link.key = LinkKey(sg.link_key)  # a game the board has: the key goes with every hello
        self.synced = 0  # events up to this seq are already in the secret log
        self.setup_sent = False
        self.retry_seconds = retry_seconds
        self.wire_log = wire_log
        self.guided = None  # the computer detectives' move the board lights (sent again after a reconnect)

    # --- connection ---------------------------------------------------------------------------
    def open(self, wait=0.0):
        """Hello; with `wait`, keep trying that long (a board still booting)."""
        end = time.monotonic() + wait
        if not wait:
            open_serial(self.port).close()  # a clear reason if the port is missing or busy
        while True:
            try:
                return self.link.open()
            except LinkClosed as e:
                if time.monotonic() >= end:
                    raise BoardError(e.message)
            except BoardTimeout:
                if time.monotonic() >= end:
                    raise BoardError(_("no answer from a board on %(port)s: is the firmware running? (yard flash, or "
                                       "yard monitor to see what it prints)") % {"port": self.port})
            self.link.close()
            time.sleep(0.2)

    def close(self):
        self.link.close()

    def _call(self, cmd, **args):
        """A command; on a lost link wait for the board to come back, resync, and go on."""
        deadline = time.monotonic() + self.retry_seconds
        while True:
            try:
                return self.link.request(cmd, **args)
            except BoardCommandError:
                raise
            except LinkError as e:
                refused = self.link.take_refusal()  # an error the board could not tie to an id
                if refused is not None:
                    raise BoardError(_("the board refused %(command)s: %(refusal)s")
                                     % {"command": cmd, "refusal": refusals.of_reply(refused)})
                if time.monotonic() > deadline:
                    raise BoardError(_("the board is gone (%s); your game is saved: yard play --resume") % refusals.shown(e))
                self.out(_("(the board does not answer: %s; reconnecting...)") % refusals.shown(e))
                self._reconnect(deadline)
                if cmd == "mrx":
                    return None  # resync resent it if the board had not got it
                if cmd == "undo":
                    return None  # not sent twice: had the board taken it back, resync took it back here too

    def _reconnect(self, deadline):
        while True:
            try:
                self.link.reconnect(attempts=4, delay=0.25)
                self.resync()
                if self.guided:
                    try:
                        self.link.request("guide", **self.guided)
                    except BoardCommandError:
                        self.guided = None  # the move was made meanwhile
                return
            except LinkError:
                if time.monotonic() > deadline:
                    raise BoardError(_("the board did not come back; your game is saved: yard play --resume"))
                time.sleep(0.5)

    # --- starting -----------------------------------------------------------------------------
    def start(self, wait_ready=True, ready_timeout=None):
        """Send the public setup; wait until the pieces stand on their start stations."""
        setup = self.sg.setup
        args = {k: setup[k] for k in _PUBLIC_SETUP_KEYS if k in setup}
        args["mrx"] = None
        args["key"] = self.sg.link_key.hex()  # only this host speaks for him (docs/fairplay.md)
        reply = self._call("setup", replace=True, **args)
        self.setup_sent = True
        self._remember_seq(reply.get("seq", 0))
        if wait_ready:
            self.wait_ready(ready_timeout)

    def wait_ready(self, timeout=None):
        g = self.sg.game
        where = ", ".join(_("%(piece)s on %(station)d") % {"piece": g.piece_name(i), "station": g.pos[i]}
                          for i in range(g.n_pieces))
        self.out(_("Put the pieces on their start stations: %s (the board blinks them).") % where)
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            st = self.link.request("status")
            if st.get("stage") != "setup":
                return
            if end is not None and time.monotonic() > end:
                raise BoardError(_("the pieces were not placed on their start stations in time"))
            self.link.poll(0.2)

    def _remember_seq(self, seq):
        if seq and seq > self.synced:
            self.synced = seq
        setup = self.sg.setup
        if self.synced > setup.get("board_seq", 0):
            setup["board_seq"] = self.synced
            self.sg.save()

    # --- what the console calls ---------------------------------------------------------------
    def mrx(self, line):
        pub = public_line(line)
        if "double" in pub:
            args = {"double": [self._step_args(s) for s in pub["double"]]}
        else:
            args = self._step_args(pub)
        warned = False
        while True:
            try:
                reply = self._call("mrx", **args)
                break
            except BoardCommandError as e:
                st = self.link.request("status")
                if e.code == "wrong_turn" and st.get("phase") == "detectives" and st.get("stage") == "play":
                    self.sg.withdraw_mrx()
                    self.follow_board(_("the board refused Mister X's move (%s)") % refusals.shown(e))
                    raise MoveTakenBack(_("the board refused Mister X's move: %s") % refusals.shown(e))
                if e.code != "wrong_turn" or not (st.get("restoring") or st.get("stage") == "setup"):
                    raise BoardError(_("the board refused Mister X's move: %s (the move is saved; yard play "
                                       "--resume sends it again)") % refusals.shown(e))
                if not warned:
                    self.out(_("(the board is not ready: %s; waiting, your move is saved)") % refusals.shown(e))
                    warned = True
                self.link.poll(0.5)
        if reply:
            self._remember_seq(reply.get("seq", 0))

    @staticmethod
    def _step_args(step):
        out = {"ticket": step["ticket"], "commit": step["commit"]}
        if step.get("to"):
            out["to"] = step["to"]
        return out

    def guide(self, piece, to, ticket):
        """Light a computer detective's move on the board; the board then takes only that placement."""
        self.guided = {"piece": piece, "to": to, "ticket": ticket}
        try:
            self._call("guide", **self.guided)
        except BoardCommandError as e:
            self.guided = None
            raise BoardError(_("the board refused the computer's move %s to %d: %s") % (piece, to, refusals.shown(e)))

    def undo(self, piece=None):
        """Take back the last detective's or bobby's move of this turn on the board (its undo event
        then comes like any other), with Mister X's consent: he asked for it, or allowed it (a move
        the game has answered needs it: docs/fairplay.md). BoardError with the board's sentence if
        it refuses."""
        args = {"piece": piece, "consent": True} if piece else {"consent": True}
        try:
            return self._call("undo", **args)
        except BoardCommandError as e:
            raise BoardError(_("the board refused the take-back: %s") % refusals.shown(e))

    def reed(self, station, out=True):
        """Take station's reed out of service (out=True) or put it back; the board remembers it in its
        board.json. Returns the stations out of service. BoardError with the board's sentence."""
        try:
            return self._call("reed", station=station, out=out).get("dead", [])
        except BoardCommandError as e:
            raise BoardError(_("the board refused: %s") % refusals.shown(e))

    def place(self, piece, station, ticket=None):
        """Put the piece in hand on station, whose reed is out of service (the board's `where` note
        asked). Its move event then comes like any other; a reply with `pending` lists the tickets
        to choose from (the ticket buttons, or choose())."""
        args = {"piece": piece, "station": station}
        if ticket:
            args["ticket"] = ticket
        try:
            return self._call("place", **args)
        except BoardCommandError as e:
            raise BoardError(_("the board refused: %s") % refusals.shown(e))

    def choose(self, ticket):
        try:
            return self._call("choose", ticket=ticket)
        except BoardCommandError as e:
            raise BoardError(_("the board refused: %s") % refusals.shown(e))

    def notes(self):
        """The board's notes since the last call (lifted, where, illegal...): the players are told."""
        return self.link.take_notes()

    def capture(self, piece):
        """Declare the capture, proved: the opening of Mister X's current commitment goes with it."""
        try:
            self._remember_seq(self._call("capture", piece=piece, reveal=self.sg.current_proof()).get("seq", 0))
        except BoardCommandError as e:
            if e.code != "game_over":
                raise BoardError(_("the board refused the capture: %s") % refusals.shown(e))

    def cornered(self):
        try:
            self._remember_seq(self._call("cornered", reveal=self.sg.current_proof()).get("seq", 0))
        except BoardCommandError as e:
            if e.code != "game_over":
                raise BoardError(_("the board refused to end the game: %s") % refusals.shown(e))

    def reveal(self, rev):
        """Hand the salts to the board, a few moves per line; (verified, the board's sentence).
        A line the board got but whose reply the link lost is sent again after the reconnect;
        the board then names the offset it expects, and the reveal starts over once."""
        start, moves = board_pairs(rev)
        for attempt in (1, 2):
            try:
                for args in reveal_requests(start, moves):
                    reply = self._call("reveal", **args)
                return bool(reply.get("verified")), (refusals.detail(reply.get("why"), reply.get("args") or ())
                                                     or reply.get("message", ""))
            except BoardCommandError as e:
                if attempt == 2 or e.why != "next_chunk":
                    return False, e.message

    def events(self, timeout):
        """New board events not yet in the secret log (dicts)."""
        try:
            got = self.link.poll(timeout)
        except LinkError as e:
            self.out(_("(lost the board: %s; reconnecting...)") % refusals.shown(e))
            self._reconnect(time.monotonic() + self.retry_seconds)
            return []
        out = []
        for seq, ev in got:
            if seq <= self.synced:
                continue
            if ev.get("type") not in EXPECTED_EVENTS:
                # the journal holds everything `got` holds, this event and the ones after it
                self.follow_board(_("the board reports a %(event)s event this host did not cause") % {"event": ev.get("type")})
                return []
            self.synced = seq
            if ev.get("type") in ("move", "undo"):
                self.guided = None
            out.append(ev)
        if got:
            self.sg.setup["board_seq"] = max(self.sg.setup.get("board_seq", 0), self.synced)
        return out

    def record(self):
        return self.link.record()

    # --- resynchronising ----------------------------------------------------------------------
    def follow_board(self, reason):
        """Something happened on the board that this host did not see or did not cause: say so, and
        bring the secret log to the board's journal (resync). BoardError if the game cannot go on."""
        self.out(_("(%s: following the board's journal)") % reason)
        return self.resync(
            on_move=lambda line: self.out(
                (_("  %(piece)s by %(ticket)s to %(station)d (from the board's journal)") if line.get("ticket") else
                 _("  %(piece)s to %(station)d (from the board's journal)")) % {
                    "piece": line["piece"], "ticket": ticket_name(line.get("ticket")), "station": line["to"]}),
            on_take_back=lambda line: self.out(
                _("  %(piece)s's move to %(station)d taken back: %(piece)s goes back to %(back)d (from the board's "
                  "journal)") % {"piece": line["piece"], "station": line["to"],
                                 "back": self.sg.game.pos[self.sg.game.piece_index(line["piece"])]}))

    def resync(self, on_move=None, on_take_back=None):
        """Bring board and secret log into agreement (see the module doc). Returns a summary."""
        sg = self.sg
        journal = self.link.record(everything=True, timeout=15)
        if not journal or journal[0].get("type") != "setup":
            raise BoardError(_("the board holds no game (it was reset or is another board); start a new game"))
        if journal[0].get("commit") != sg.setup.get("commit"):
            raise BoardError(_("the board holds another game than this secret log"))
        board = standing(journal)
        mine = [line for line in sg.lines[1:] if line.get("type") in ("mrx", "move")]
        summary = {"applied": 0, "resent": 0, "taken_back": 0}
        same = 0  # detective moves the board took back while the host did not hear: taken back here too
        while same < min(len(board), len(mine)) and (mine[same]["type"] != "move" or (
                mine[same]["piece"], mine[same]["to"]) == (board[same][1].get("piece"), board[same][1].get("to"))):
            same += 1
        if any(line["type"] == "move" for line in mine[same:]):
            if any(line["type"] != "move" for line in mine[same:]):
                raise BoardError(_("the board took back detective moves that Mister X's later move followed"))
            for _undone in mine[same:]:
                line = sg.take_back()
                summary["taken_back"] += 1
                if on_take_back:
                    on_take_back(line)
            mine = mine[:same]
        for k, (seq, bline) in enumerate(board):
            if k < len(mine):
                self._check_same(k, mine[k], bline)
                continue
            if bline["type"] != "move":
                raise BoardError(_("the board holds a move of Mister X's that this host never sent: another program "
                                   "wrote to the board's port, or this is not the game's latest secret log. The board's "
                                   "game cannot be trusted from here; the secret log is kept: start a new game with "
                                   "yard play --new"))
            line = sg.detective_move(bline["piece"], bline.get("ticket"), bline["to"])
            summary["applied"] += 1
            if on_move:
                on_move(line)
        extra = mine[len(board):]
        for line in extra:
            if line["type"] != "mrx":
                raise BoardError(_("the secret log has detective moves the board never made: another board?"))
            pub = public_line(line)
            if "double" in pub:
                self.link.request("mrx", double=[self._step_args(s) for s in pub["double"]])
            else:
                self.link.request("mrx", **self._step_args(pub))
            summary["resent"] += 1
        journal_len = len(journal) + summary["resent"]
        self.synced = max(self.synced, journal_len)
        g = sg.game
        kinds = {line.get("type") for line in journal}
        if g.result == "detectives" and g.reason == "capture" and "capture" not in kinds and not any(
                line.get("capture") for line in journal):
            last = [line for line in sg.lines if line.get("type") == "move"][-1]
            self.link.request("capture", piece=last["piece"], reveal=sg.current_proof())
        if g.result == "detectives" and g.reason == "mrx_stuck" and "cornered" not in kinds:
            self.link.request("cornered", reveal=sg.current_proof())
        self._remember_seq(self.link.request("ping").get("seq", 0))
        return summary

    @staticmethod
    def _check_same(k, mine, theirs):
        if mine["type"] != theirs["type"]:
            kinds = {"move": _("a detective's move"), "mrx": _("a move of Mister X's")}
            raise BoardError(_("the board and the secret log disagree at move %(move)d (the board: %(board)s, the "
                               "secret log: %(log)s)") % {"move": k + 1, "board": kinds.get(theirs["type"], theirs["type"]),
                                                          "log": kinds.get(mine["type"], mine["type"])})
        if mine["type"] == "move":
            if (mine["piece"], mine["to"]) != (theirs.get("piece"), theirs.get("to")):
                raise BoardError(_("the board and the secret log disagree on a detective's move (the board: "
                                   "%(board_piece)s to %(board_to)s, the secret log: %(log_piece)s to %(log_to)s)")
                                 % {"board_piece": piece_name(theirs.get("piece")), "board_to": theirs.get("to"),
                                    "log_piece": piece_name(mine["piece"]), "log_to": mine["to"]})
            return
        a, b = _steps(mine), _steps(theirs)
        if len(a) != len(b) or any(x.get("commit") != y.get("commit") for x, y in zip(a, b)):
            raise BoardError(_("the board holds other commitments for Mister X's move than the secret log"))
