"""Reeds out of service: a station whose switch is stuck closed or never closes (found by `yard
selftest`) is listed in board.json's reeds.dead and the board works around it (sy/play/blind.py;
docs/protocol.md, "Reeds out of service"). Loaded when the host's `reed` or `place` command comes
(sy/link/handlers.py) and dropped after it (sy/link/proto.py's command table): a board with every
reed working never carries this code.

    set_reed   take a station's reed out of service or back in: written into board.json first,
               then applied
    place      put a piece (in hand, or standing on a station out of service) on a station whose
               reed is out of service
"""
import json
import os

from sy.rules.game import RuleError

MAX_DEAD = 20  # sy/hardware/boardconfig.py MAX_DEAD (tests/test_deadreed.py checks they agree)


def config_path(app):
    """Where the board read its config (sy/start.py): board.json, in the simulator's folder under
    the unix port; a test's App names its own (config_path)."""
    path = getattr(app, "config_path", None)
    if path:
        return path
    import sys
    if sys.platform == "linux":
        return (os.getenv("SY_SIM") or "sim") + "/board.json"
    return "board.json"


def _write(path, dead):
    """Rewrite reeds.dead in the board config at path: <name>.new written whole, then renamed into
    place (never over an existing file: FAT cannot); recover() finishes a rewrite a power cut
    interrupted."""
    if not path:
        raise RuleError("bad_input", "no_config")
    f = open(path)
    try:
        cfg = json.load(f)
    finally:
        f.close()
    if not isinstance(cfg, dict):
        raise RuleError("bad_input", "config_bad")
    reeds = cfg.get("reeds")
    if reeds is None:
        reeds = cfg["reeds"] = {}
    if dead:
        reeds["dead"] = dead
    else:
        reeds.pop("dead", None)  # sy/hardware/boardconfig.py writes no empty list
    base = path[:-5] if path.endswith(".json") else path
    f = open(base + ".new", "w")
    try:
        json.dump(cfg, f)
    finally:
        f.close()
    cfg = reeds = None
    try:
        os.remove(base + ".old")
    except OSError:
        pass
    os.rename(path, base + ".old")
    os.rename(base + ".new", path)
    os.remove(base + ".old")


def recover(path):
    """At boot, with no config at path (sy/start.py): a rewrite a power cut interrupted between its
    renames (_write) is finished: the complete <name>.new, else <name>.old, takes its place. True
    if one did."""
    try:
        open(path).close()
        return False  # there is one: a config error of its own
    except OSError:
        pass
    base = path[:-5] if path.endswith(".json") else path
    for tail in (".new", ".old"):
        try:
            os.rename(base + tail, path)
            return True
        except OSError:
            pass
    return False


def set_reed(b, app, s, out):
    """Take station s's reed out of service (out True) or back in; returns the stations out of
    service after it."""
    bl = b.blind
    dead = []
    for k in range(1, 200):
        if bl is not None and bl.dead[k] and k != s:
            dead.append(k)
    if out:
        dead.append(s)
        dead.sort()
    if len(dead) > MAX_DEAD:
        raise RuleError("bad_input", "too_many_dead", MAX_DEAD)
    if (bl is not None and bl.dead[s] == 1) != out:
        try:
            _write(config_path(app), dead)
        except OSError:
            raise RuleError("bad_input", "config_write")
        if not dead:
            b.blind = None  # every reed works again: no work-around
        elif bl is None:
            from sy.play.blind import Blind
            b.blind = Blind(dead)
        else:
            bl.dead[s] = 1 if out else 0
            bl.n = len(dead)
        if not out:  # back in service: the station is what its switch says
            b.read_reeds(app.debouncer.stable, app.bit_station, app.nbits, s)
        b.compare_and_commit(quiet=True)
    return dead


def place(b, name, s, t):
    """Put piece `name` on station s, whose reed is out of service, by ticket t (or -1: as the
    placement decides). Returns the move's seq, or 0 if the move waits for its ticket (the
    tickets that lead there: b.asked_tickets()). The game is in play (the command table's stage)."""
    k = b.game.piece_index(name)
    bl = b.blind
    if bl is None or not bl.dead[s]:
        raise RuleError("bad_input", "in_service", s)
    return b.place_unseen(k, s, t)
