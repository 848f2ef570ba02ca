"""Power cuts on the emulated Pico: whole games (host/reliability/chaos.py's ChaosGame: the
host's full-knowledge game, salted commitments, the players putting pieces back and making the
interrupted move again) with the power cut at random instructions, and inside or right after the
flash chip's erase and program operations.

Where the unix-port suite kills a process (at a random moment, or by strace on a file syscall),
here the emulator stops the CPU: at an instruction (counted only while the CPU runs, so every
such cut lands in real work: a scan, a command, a save), inside the n-th erase or program with a
random fraction of it done (a partly erased sector, a partly programmed page), or right after
one (between an erase and the program that follows it). The board's files are read back out of
the flash chip's littlefs after each cut, and the same checks run as on the unix port: nothing
the host had received is missing from the journal, the snapshot reads back, no secret on flash.
"""
import random
import time

from host.reliability.chaos import ChaosGame


class PicoChaos(ChaosGame):
    def __init__(self, sim, rng, stats=None, log=None, timeout=30.0):
        super().__init__(sim, rng, mode="power", rate=0.3, stats=stats, log=log, timeout=timeout, strace=False)
        self.game_seconds = 1800
        self.cuts_target = 1 << 30  # no more cuts once this many happened (the game then ends quickly)

    def arm(self, trim=False):
        """Before a (re)start: half the cuts are planned into the flash chip's operations."""
        rng = self.rng
        if self.stats["power_cuts"] < self.cuts_target and rng.random() < 0.5:
            kind = rng.choice(["erase", "program", "any"])
            if rng.random() < 0.7:
                plan = {"in_flash": kind, "skip": rng.randrange(6), "fraction": rng.random()}
            else:
                plan = {"after_flash": True, "skip": rng.randrange(6)}
            self.sim.next_plan = plan
            self._bump("planned_flash_cuts")

    def _check_secret_flash(self, fl):
        """After each cut (ChaosGame.recover): the flash must still mount as a filesystem."""
        if not self.sim.flash_mounts:
            self._bump("corrupt_saves")
            self.problems.append("the flash's littlefs does not mount after a cut")
        super()._check_secret_flash(fl)

    def maybe_cut(self):
        """After an action: with probability `rate`, the power goes within the next few million
        instructions (the action's own work, or the scans and frames after it)."""
        if self.sim.cut_planned or self.sim.next_plan or self.rng.random() >= self.rate:
            return
        if not self.sim.alive() or self.stats["power_cuts"] >= self.cuts_target:
            return
        rng = self.rng
        if rng.random() < 0.5:
            self.sim.plan_cut(instructions=1 + rng.randrange(4_000_000))
        else:
            self.sim.plan_cut(in_flash=rng.choice(["erase", "program", "any"]), skip=rng.randrange(3),
                              fraction=rng.random())


def run_power_cuts(cuts_target, seed=1, log=None, micropython=None, bootrom=None, config=None, max_games=40,
                   capture_rounds=(0, 6, 10)):
    """Play games on an emulated Pico until `cuts_target` power cuts have happened; the stats
    of host/reliability/chaos.py run_games plus where the cuts landed. A game's detectives take
    Mister X from one of capture_rounds on (0: never on purpose)."""
    import json
    import os
    import shutil
    import tempfile
    from host.pico.board import PicoBoard, find_binaries
    from host.device.uf2 import make_board_uf2
    from sy.hardware import boardconfig
    from sy.rules import mapgraph
    stats = {"games": 0, "finished_games": 0, "resumed_games": 0, "lost_moves": 0, "corrupt_saves": 0,
             "cuts_during_save": 0, "lost_events": 0, "duplicate_events": 0, "disagreements": 0,
             "secret_leaks": 0, "problems": [], "power_cuts": 0, "link_cuts": 0, "stuck_over_games": 0,
             "cuts_in_erase": 0, "cuts_in_program": 0, "cuts_after_flash": 0, "cuts_at_instruction": 0}
    rng = random.Random(seed)
    t0 = time.monotonic()
    setups = [((13, 26, 29, 34, 50), ()), ((13, 26), (29, 34)), ((91, 94, 103), (112,))]
    g = mapgraph.load()
    micropython, bootrom = find_binaries(micropython, bootrom)
    cfg = {"board": "pico", "debounce_ms": 10, "scan_hz": 200}
    cfg.update(config or {})
    cfg = boardconfig.validate(cfg)
    build = tempfile.mkdtemp(prefix="pico-cuts-")
    try:
        with open(os.path.join(build, "board.json"), "w") as f:
            json.dump(cfg, f)
        uf2 = os.path.join(build, "board.uf2")
        make_board_uf2(micropython, uf2, os.path.join(build, "board.json"))  # one UF2 for every game
        k = 0
        while stats["power_cuts"] < cuts_target and k < max_games:
            det, bob = setups[k % len(setups)]
            k += 1
            mrx = rng.choice([s for s in g.x_cards if s not in det + bob])
            sim = PicoBoard(config=cfg, micropython=micropython, bootrom=bootrom, uf2=uf2)
            game = PicoChaos(sim, random.Random(rng.getrandbits(32)), stats=stats, log=log)
            game.cuts_target = cuts_target
            game.arm()
            try:
                sim.start()
                out = game.play(det, bob, mrx, capture_round=rng.choice(capture_rounds))
                if log:
                    log("pico game %d: %s, round %s, %d events, cuts so far %d" % (
                        k, out["result"], out["round"], out["events"], stats["power_cuts"]))
            except Exception as e:  # a stuck or broken game is a failure, not a crash of the run
                import traceback
                stats["problems"].append("game %d: %s: %s %s" % (k, type(e).__name__, e,
                                                                 traceback.format_exc(limit=-3)))
                stats["games"] += 1
            finally:
                for cut in sim.cuts:
                    where = cut.get("where", "")
                    if where in ("erase", "program"):
                        stats["cuts_in_" + where] += 1
                    elif where.startswith("after-"):
                        stats["cuts_after_flash"] += 1
                    elif where == "instruction":
                        stats["cuts_at_instruction"] += 1
                game.link.close()
                sim.stop()
    finally:
        shutil.rmtree(build, ignore_errors=True)
    stats["seconds"] = round(time.monotonic() - t0, 1)
    return stats
