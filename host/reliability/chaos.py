"""Whole games under chaos: power cuts (kill -9 of the firmware at random moments, many timed to
land while the board writes its flash) or a serial link cut and restored at random moments.

The host here is BoardLink (the real protocol client: hello with the last applied event, resend,
drop of duplicates, gap detection) plus Mister X's full-knowledge game (sy.rules.game.Game) and
salted commitments (sy.rules.commit), like host/simulator/scripted.play_game; the players' hands move the pieces
through the simulated reeds and buttons. After a power cut the players do what the board shows:
pieces it does not find where it saved them are put back, and the interrupted move is made again.

Figures (per run): power_cuts / link_cuts, cuts_during_save (the flash showed a write in
progress: a temp snapshot, a missing state.bin, or a journal line not yet in a snapshot),
lost_moves (an event the host had received that the board's journal no longer holds, or holds
differently), corrupt_saves (a flash the firmware's own loader could not read back whole),
resumed_games (games with at least one cut that finished, verified, board and host agreeing),
lost_events / duplicate_events (events never handed to the host, or handed twice),
disagreements (host and board differ at the end), stuck_over_games (with tolerate_stuck_over: games
ended because the board resumed a finished game as still being played; otherwise such a game
fails with that message).
"""
import json
import random
import threading
import time

from host.link.boardlink import BoardCommandError, LinkError
from host.reliability.common import FastLink, RelSim, inspect_flash, strace_works
from host.simulator.scripted import _mrx_second, detective_move
from sy.rules import commit as commitlib
from sy.rules.game import Game, RuleError, TICKET_NAMES
from host.simulator.board import SIM_HEAP

TICKETS = TICKET_NAMES


class Cut(Exception):
    pass


class ChaosGame:
    def __init__(self, sim, rng, mode="power", rate=0.2, stats=None, log=None, timeout=3.0, strace=False):
        self.sim = sim
        self.rng = rng
        self.mode = mode  # "power", "link" or None
        self.rate = rate  # chance per action that a cut follows it
        self.stats = stats if stats is not None else {}
        self.log = log or (lambda *_a: None)
        self.timeout = timeout
        self.killer = None
        self.cut_until = 0.0
        self.link = FastLink(sim.port, abort=self._gone, timeout=timeout, on_event=self._on_event)
        self.truth = None
        self.pending = None  # Mister X's planned move, applied to the truth when its event comes
        self.salts = []
        self.events = []  # (seq, ev) as handed to the host
        self.seen = set()
        self.had_cut = False
        self.problems = []
        self.refusals = []  # the board's last refusals of the host's commands (for a stuck game's report)
        self.strace = strace
        self.repl_round = 0  # > 0: at this round, stop the board and read everything from its REPL
        self.repl = None
        self.game_seconds = 150
        self.lost = set()
        self.avoid_trim_cut = False  # True: never time a cut onto the boot's journal trim (a known bug)
        # True: a board that resumed a finished game as stage "play" (a known firmware bug) ends the
        # game, counted as stuck_over_games, instead of failing it
        self.tolerate_stuck_over = False

    # --- chaos ----------------------------------------------------------------------------
    def _gone(self):
        if self.mode == "power":
            return not self.sim.alive()
        if self.mode == "link":
            return self.sim.cable_cut
        return False

    def _bump(self, key, n=1):
        self.stats[key] = self.stats.get(key, 0) + n

    def arm(self, trim=False):
        """Before a (re)start: half the power cuts are timed by strace to land inside a flash
        write (its n-th open/write/unlink/rename of a flash file), the others by a timer.
        trim: the boot will trim a journal line no snapshot covers; with avoid_trim_cut no cut is
        timed into that trim (sy/storage/store.py loses the journal there: its own test shows it)."""
        self.sim.strace_kill = None
        if self.mode == "power" and self.strace and self.rng.random() < 0.5:
            if trim and self.avoid_trim_cut:
                return
            sc = self.rng.choice(["openat", "write", "write", "unlink", "rename", "rename"])
            self.sim.strace_kill = (sc, 1 + self.rng.randrange(int(4 / max(self.rate, 0.05))))

    def maybe_cut(self):
        """After an action: with probability `rate`, a cut lands a random moment later."""
        if not self.mode or self.killer is not None or self.sim.strace_kill or self.rng.random() >= self.rate:
            return
        delay = self.rng.random() * 0.03 if self.rng.random() < 0.8 else self.rng.random() * 0.3
        if self.mode == "power":
            self.killer = threading.Timer(delay, self.sim.power_cut)
        else:
            length = 0.05 + self.rng.random() * 0.5

            def cut():
                self.sim.cable_cut = True
                self.cut_until = time.monotonic() + length
            self.killer = threading.Timer(delay, cut)
        self.killer.daemon = True
        self.killer.start()

    def recover(self, error=None):
        """The cut happened (or is about to): wait for it, bring board and link back, check.
        error: the link's error that called for it (named if no cut explains it)."""
        if self.killer is not None:
            self.killer.join()
            self.killer = None
        self.had_cut = True
        self.link.close()
        if self.mode != "power":
            left = self.cut_until - time.monotonic()
            if left > 0:
                time.sleep(left)
            self.sim.cable_cut = False
            self._bump("link_cuts")
        while True:
            if self.mode == "power":
                if self.sim.alive():
                    raise AssertionError("a link error without a cut (%r): %s" % (error, self.sim.console[-400:]))
                self.sim.power_cut()  # reap it
                self._bump("power_cuts")
                fl = inspect_flash(self.sim.folder)
                if not fl["readable"]:
                    self._bump("corrupt_saves")
                    self.problems.append("corrupt save: " + fl["why"])
                if fl["during_save"]:
                    self._bump("cuts_during_save")
                self._check_secret_flash(fl)
                from host.reliability.common import flash_bytes
                from host.reliability.secrecy import flash_salt_leaks
                leaks = flash_salt_leaks(flash_bytes(self.sim.folder), self.salts)
                if leaks:
                    self._bump("secret_leaks", len(leaks))
                    self.problems.extend(leaks)
                self.arm(trim=fl["trim"])
                self.sim.start()
            end = time.monotonic() + 20
            while True:
                try:
                    self.link.open()  # hello with the last applied event: the board resends the rest
                    break
                except LinkError:
                    self.link.close()
                    if self.mode == "power" and not self.sim.alive():
                        break  # cut again while booting
                    if time.monotonic() > end:
                        raise
                    time.sleep(0.02)
            if self.link.ser is not None:
                break
        self._check_journal()

    def _check_journal(self):
        """Every event the host holds is still in the board's journal, the same."""
        # the whole journal, a line per event: under strace (a cut armed at the last start that
        # never came) every small write of the stream stops the board, so it takes seconds
        journal = self.call(lambda: self.link.record(everything=True, timeout=max(self.timeout, 30.0)))
        lost = [seq for seq, ev in self.events if seq > len(journal) or journal[seq - 1] != ev]
        new = [seq for seq in lost if seq not in self.lost]
        if new:
            self.lost.update(new)
            self.problems.append("the journal lost %d event(s) the host had (%d in all)" % (len(new), len(self.lost)))
            self._bump("lost_moves", len(new))

    def call(self, fn):
        """Run a link action; a cut in the middle: recover, then run it again."""
        while True:
            try:
                return fn()
            except LinkError as e:
                if not self.mode:
                    raise
                self.recover(e)

    # --- events -----------------------------------------------------------------------------
    def _on_event(self, seq, ev):
        if seq in self.seen:
            self._bump("duplicate_events")
            self.problems.append("event %d handed twice" % seq)
            return
        self.seen.add(seq)
        self.events.append((seq, ev))
        t = self.truth
        kind = ev.get("type")
        try:
            if kind == "mrx":
                plan = self.pending
                if plan is None:
                    raise RuleError("bad_input", "a Mister X move event the host did not send")
                self.pending = None
                if len(plan) == 4:
                    t.mrx_double(*plan)
                else:
                    t.mrx_move(*plan)
            elif kind == "move":
                p = t.piece_index(ev["piece"])
                tk = ev.get("ticket")
                t.move(p, TICKETS.index(tk) if tk else None, ev["to"])
        except RuleError as e:
            self._bump("duplicate_events")
            self.problems.append("event %d refused by the host's rules: %s" % (seq, e))

    # --- the players ------------------------------------------------------------------------
    def sealed(self, station):
        salt = "%032x" % self.rng.getrandbits(128)
        self.salts.append([salt, station])
        return commitlib.commitment(station, salt)

    def status(self):
        return self.call(lambda: self.link.request("status"))

    def fix_pieces(self, st):
        """Put every piece where the board says it stands (and nothing else)."""
        want = set(st["pieces"].values())
        sim = self.sim
        for s in range(1, 200):
            if sim.switch(s) and s not in want:
                sim.set_switch(s, False)
        for s in want:
            if not sim.switch(s):
                sim.set_switch(s, True)
        sim.settle()

    def plan_mrx(self):
        t = self.truth
        rng = self.rng
        opts = t.legal_mrx()  # never empty: a cornered Mister X ended the truth's game (play())
        s1, t1 = opts[rng.randrange(len(opts))]
        if t.double and t.round + 1 in (5, 12):
            second = _mrx_second(t, s1, t1)
            if second:
                return (t1, s1, second[1], second[0])
        if t.round + 1 == 2 and t.black:
            s1, t1 = next(((s, tk) for s, tk in opts if tk == 3), (s1, t1))
        return (t1, s1)

    def mrx_args(self, plan):
        t = self.truth
        first = t.moves + 1
        if len(plan) == 4:
            steps = []
            for k, (tk, s) in enumerate(((plan[0], plan[1]), (plan[2], plan[3]))):
                d = {"ticket": TICKETS[tk], "commit": plan_commit(self, k)}
                if first + k in t.reveals:
                    d["to"] = s
                steps.append(d)
            return {"double": steps}
        d = {"ticket": TICKETS[plan[0]], "commit": plan_commit(self, 0)}
        if first in t.reveals:
            d["to"] = plan[1]
        return d

    def play(self, detectives, bobbies, mrx, capture_round=0):
        rng = self.rng
        self.truth = Game(list(detectives), list(bobbies), mrx)
        self.truth._start = mrx
        self.start = mrx
        self.commits = {}
        self.call(self.link.open)
        setup = {"detectives": list(detectives), "bobbies": list(bobbies), "commit": self.sealed(mrx)}
        while True:
            st = self.status()
            if st["stage"] != "idle" and st.get("seq", 0) >= 1 and self.events and self.events[0][1].get("type") == "setup":
                break
            try:
                self.link.request("setup", replace=True, **setup)
                self.maybe_cut()
            except LinkError as e:
                self.recover(e)
        choose_by_host = False
        gap = (self.sim.config["debounce_ms"] + 15) / 1000
        deadline = time.monotonic() + self.game_seconds
        while True:
            if time.monotonic() > deadline:
                raise AssertionError("the game did not finish within %d s; board: %s; problems: %s; "
                                     "last refusals: %s" % (self.game_seconds, self.link.request("status"),
                                                            self.problems[-3:], self.refusals))
            st = self.status()
            t = self.truth
            if st["stage"] == "over":
                break
            if st.get("phase") == "over":
                # the board's game is over but the board still says stage "play" (a cut between the
                # two saves of the game's last commit, firmware/sy/play/board.py): no command moves it
                # on, and the detectives' turn below would wait for a move no one has to make
                why = "the board resumed a finished game (%s, %s) as stage %r after a power cut" % (
                    st.get("result"), st.get("reason"), st["stage"])
                if self.tolerate_stuck_over:
                    self._bump("stuck_over_games")
                    self._bump("games")
                    return {"ok": False, "result": st.get("result"), "round": st.get("round"),
                            "events": len(self.events), "stuck_over": why}
                raise AssertionError(why)
            if st["stage"] == "setup":
                self.fix_pieces({"pieces": {t.piece_name(i): t.pos[i] for i in range(t.n_pieces)}})
                self.maybe_cut()
                self._wait(lambda s: s["stage"] != "setup")
                continue
            if st["restoring"]:
                self.fix_pieces(st)
                self.maybe_cut()
                self._wait(lambda s: not s["restoring"])
                continue
            self._check_sync(st)
            if st["missing"] or st["extra"]:
                # a move cut short (its choose note lost, say): the player puts the piece back
                self.fix_pieces(st)
                continue
            if t.result == "detectives" and st["result"] is None:
                if t.reason == "mrx_stuck":
                    # the detectives' last move (or the start) left him no move: Mister X's host
                    # knows it, the board (which only knows his possible stations) is told, proved
                    self._act(lambda: self.link.request("cornered", reveal=self.salts[-1]))
                    continue
                last = [ev for _s, ev in self.events if ev.get("type") == "move"][-1]
                self._act(lambda: self.link.request("capture", piece=last["piece"], reveal=self.salts[-1]))
                continue
            if st["phase"] == "mrx":
                if self.repl_round and t.round >= self.repl_round and self.repl is None:
                    self.inspect_repl()
                    continue
                if self.pending is None:
                    self.pending = self.plan_mrx()
                    self.commits = {k: self.sealed(s) for k, s in enumerate(self.pending[1::2])}
                args = self.mrx_args(self.pending)
                self._act(lambda: self.link.request("mrx", **args))
                continue
            # the detectives' turn: one piece, by hand
            mask = t.to_move()
            if not mask:
                raise AssertionError("the board waits for the detectives (%s), the host's game has no piece to move "
                                     "(phase %d, result %s)" % (st.get("to_move"), t.phase, t.result))
            p, s, tk, ambiguous = detective_move(t, rng, capture_round)
            mark = (t.round, t.moved, t.phase)
            try:
                self.sim.lift(t.pos[p], settle=False)
                self.maybe_cut()
                self.sim.pause(gap)
                self.sim.place(s, settle=False)
                if ambiguous:
                    self.link.wait_note("choose", timeout=self.timeout)
                    if choose_by_host:
                        self.link.request("choose", ticket=TICKETS[tk])
                    else:
                        self.sim.press(TICKETS[tk])
                    choose_by_host = not choose_by_host
                end = time.monotonic() + self.timeout
                while (t.round, t.moved, t.phase) == mark and t.result is None:
                    self.link.poll(0.01)
                    if time.monotonic() > end:
                        st = self.link.request("status")
                        if st["restoring"] or st["missing"] or st["extra"]:
                            # the board restarted under the move (a cut the link never saw as
                            # an error): the loop above puts the pieces back and asks again
                            break
                        raise AssertionError("the board did not take %s to %d: %s" % (
                            t.piece_name(p), s, st))
            except LinkError as e:
                self.recover(e)
        # the end: reveal the commitments, then compare
        rev = self.call(lambda: self.link.reveal(self.salts[0], self.salts[1:]))
        self.call(lambda: self.link.poll(0.05))
        return self.finish(rev)

    def inspect_repl(self):
        """Someone plugs a laptop in mid-game: Ctrl-C, dump everything from the REPL, then the
        board is switched off and on again and the game goes on."""
        from host.reliability.secrecy import repl_dump, repl_leaks
        values, files = repl_dump(self.sim, self.link)
        leaks = repl_leaks(values, files, self.truth, self.salts)
        self.repl = {"values": len(values), "files": len(files), "leaks": leaks,
                     "bytes": sum(len(b) for b in files.values())}
        if leaks:
            self._bump("secret_leaks", len(leaks))
            self.problems.extend(leaks)
        self.sim.power_cut()
        self.sim.strace_kill = None
        self.sim.start()
        end = time.monotonic() + 20
        while True:
            try:
                self.link.open()
                return
            except LinkError:
                self.link.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)

    def _act(self, fn):
        try:
            fn()
            self.maybe_cut()
        except LinkError as e:
            # a refusal is a LinkError too (a command resent after a cut may be refused as done
            # already); kept, so that a game stuck on a refused command says which
            if isinstance(e, BoardCommandError):
                self.refusals = (self.refusals + [str(e)])[-3:]
            self.recover(e)

    def _wait(self, pred, timeout=None):
        end = time.monotonic() + (timeout or self.timeout * 2)
        while True:
            st = self.status()
            if pred(st):
                return st
            if time.monotonic() > end:
                raise AssertionError("the board is stuck: %s" % st)
            self.call(lambda: self.link.poll(0.02))

    def _check_sync(self, st):
        t = self.truth
        pieces = {t.piece_name(i): t.pos[i] for i in range(t.n_pieces)}
        if st["pieces"] != pieces or st["moves"] != t.moves or st["round"] != t.round:
            self.problems.append("host and board disagree: %s vs %s" % (pieces, st["pieces"]))
            self._bump("disagreements")
            raise AssertionError(self.problems[-1])

    def _check_secret_flash(self, fl):
        """The flash (as the firmware reads it back) names no unrevealed station of Mister X."""
        leaks = flash_leaks(fl, self.truth, self.salts, self.salts)
        if leaks:
            self._bump("secret_leaks", len(leaks))
            self.problems.extend(leaks)

    def finish(self, rev):
        st = self.status()
        t = self.truth
        # the whole journal, a line per event: under strace (a cut armed at the last start that
        # never came) every small write of the stream stops the board, so it takes seconds
        journal = self.call(lambda: self.link.record(everything=True, timeout=max(self.timeout, 30.0)))
        ok = True
        if [ev for _s, ev in self.events] != journal:
            missing = len(journal) - len(self.events)
            self._bump("lost_events", max(0, missing))
            self.problems.append("the host holds %d events, the journal %d" % (len(self.events), len(journal)))
            ok = False
        if [s for s, _e in self.events] != list(range(1, len(self.events) + 1)):
            self.problems.append("events out of order or with gaps: %s" % [s for s, _e in self.events])
            ok = False
        try:
            self._check_sync(st)
        except AssertionError:
            ok = False
        if st["result"] != t.result or st["log"] != [TICKETS[tk] for tk, _s in t.log]:
            self._bump("disagreements")
            self.problems.append("result/log differ: %s %s vs %s" % (st["result"], st["log"], t.result))
            ok = False
        if rev.get("verified") is not True:
            self.problems.append("the board did not verify the commitments: %s" % ((rev.get("why"), rev.get("args")),))
            ok = False
        fl = inspect_flash(self.sim.folder)
        self._check_secret_flash_final(fl)
        from host.reliability.secrecy import wire_leaks
        leaks = wire_leaks(self.link.sent, t, self.salts)
        if leaks:
            self._bump("secret_leaks", len(leaks))
            self.problems.extend(leaks)
        self._bump("games")
        if ok and self.had_cut:
            self._bump("resumed_games")
        if ok:
            self._bump("finished_games")
        return {"ok": ok, "result": st["result"], "round": st["round"], "events": len(self.events)}

    def _check_secret_flash_final(self, fl):
        # after the reveal the salts are public: check the journal's Mister X lines only
        leaks = flash_leaks(fl, self.truth, [], self.salts)
        if leaks:
            self._bump("secret_leaks", len(leaks))
            self.problems.extend(leaks)


def plan_commit(game, k):
    return game.commits[k]


def flash_leaks(fl, truth, salts, all_salts=None):
    """What a flash (inspect_flash) says that only Mister X may know. Checks: every Mister X
    journal line names a station only on a surfacing move; no setup line names his start; the
    snapshot's Game knows no Mister X station beyond a surfaced, captured or cornered one; no salt."""
    out = []
    if fl is None:
        return out
    reveals = truth.reveals if truth is not None else (3, 8, 13, 18, 24)
    by_commit = {commitlib.commitment(st, salt): k for k, (salt, st) in enumerate(all_salts or [])}
    for line in fl["jlines"]:
        kind = line.get("type")
        if kind == "setup" and line.get("mrx") is not None:
            out.append("the saved setup names Mister X's start")
        if kind == "mrx":
            for step in line.get("double", [line]):
                k = by_commit.get(step.get("commit"))  # the move number, known by its commitment
                if "to" in step and (k is None or k not in reveals):
                    out.append("the journal names Mister X's station on move %s: %s" % (k, step))
        text = json.dumps(line)
        for salt, _s in salts:
            if salt in text:
                out.append("a salt is on the flash before the reveal")
    g = fl.get("game")
    if g is not None and g.mrx:
        public = {s for _t, s in g.log if s}
        # a proved capture or cornered Mister X showed his station: public from then on
        if g.mrx not in public and not (g.result == "detectives" and g.reason in ("capture", "mrx_stuck")):
            out.append("the saved game holds Mister X's station %d" % g.mrx)
        if any(s and (k + 1) not in g.reveals for k, (_t, s) in enumerate(g.log)):
            out.append("the saved travel log holds a secret station")
    return out


def run_games(n_games, mode, cuts_target=None, seed=1, heap=SIM_HEAP, rate=None, log=None, record_frames=False,
              keep=None, strace=True, repl_round=0, config=None, avoid_trim_cut=False, tolerate_stuck_over=False):
    """Play n_games whole games with `mode` chaos; returns the stats dict. With cuts_target the
    cut rate is set so that about that many cuts fall over the games (~130 actions a game)."""
    stats = {"games": 0, "finished_games": 0, "resumed_games": 0, "lost_moves": 0, "corrupt_saves": 0,
             "cuts_during_save": 0, "lost_events": 0, "duplicate_events": 0, "disagreements": 0,
             "secret_leaks": 0, "problems": [], "power_cuts": 0, "link_cuts": 0, "stuck_over_games": 0}
    if rate is None:
        rate = 0.0 if not cuts_target else min(0.9, cuts_target / (n_games * 120.0))
    rng = random.Random(seed)
    t0 = time.monotonic()
    setups = [((13, 26, 29, 34, 50), ()), ((13, 26), (29, 34)), ((91, 94, 103), (112,)), ((117, 123, 138, 141), ())]
    frames = []
    wires = []
    k = -1
    while True:
        k += 1
        cuts = stats["power_cuts"] + stats["link_cuts"]
        if k >= n_games and not (cuts_target and cuts < cuts_target and k < max(4 * n_games, n_games + 10)):
            break
        det, bob = setups[k % len(setups)]
        from sy.rules import mapgraph
        g = mapgraph.load()
        mrx = rng.choice([s for s in g.x_cards if s not in det + bob])
        cfg = {"scan_hz": 500}
        cfg.update(config or {})
        sim = RelSim(heapsize=heap, debounce_ms=10, record_frames=record_frames, config=cfg)
        # 10 s for a reply: a board started under strace (a cut armed into a flash write) stops at
        # every syscall, and its boot alone takes 2 s on a two-core machine; a cut is seen at once
        # (the process is gone), so the longer timeout costs nothing when the board is fine
        game = ChaosGame(sim, random.Random(rng.getrandbits(32)), mode=mode, rate=rate, stats=stats, log=log,
                         timeout=10.0 if mode == "power" else 3.0, strace=strace and strace_works())
        game.arm()
        game.repl_round = repl_round
        game.avoid_trim_cut = avoid_trim_cut
        game.tolerate_stuck_over = tolerate_stuck_over
        sim.start()
        try:
            capture_round = rng.choice([0, 0, 6, 12])
            game.truth = None
            out = _play(game, det, bob, mrx, capture_round)
            if log:
                log("%s game %d: %s, round %s, %d events, cuts so far %d" % (
                    mode or "plain", k + 1, out["result"], out["round"], out["events"],
                    stats["power_cuts"] + stats["link_cuts"]))
            wires.append(len(game.link.sent))
            if game.repl is not None:
                stats.setdefault("repl", []).append({k: v for k, v in game.repl.items()})
            if record_frames:
                frames.append((sim.config["leds"], sim.frames()))
            if keep is not None:
                keep.append(game)
        except Exception as e:  # a stuck or broken game is a failure, not a crash of the suite
            import traceback
            stats["problems"].append("game %d: %s: %s %s" % (k + 1, type(e).__name__, e,
                                                             traceback.format_exc(limit=-4) if log else ""))
            stats["games"] += 1
        finally:
            if game.killer is not None:  # a cut armed after the game's last action: not onto the next game
                game.killer.cancel()
                game.killer.join()
                game.killer = None
            stats["problems"].extend(game.problems)
            game.link.close()
            sim.stop()
    stats["seconds"] = round(time.monotonic() - t0, 1)
    stats["_frames"] = frames
    stats["_wires"] = wires
    return stats


def _play(game, det, bob, mrx, capture_round):
    out = game.play(det, bob, mrx, capture_round)
    game.truth._start = mrx
    return out
