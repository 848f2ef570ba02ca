"""Secrecy: nothing the host sends, nothing the board saves, nothing its REPL can read names an
unrevealed Mister X station (or a salt before the reveal, which would let anyone test stations
against the commitments).

- wire: every command the host wrote (FastLink records them) is parsed; a Mister X command may
  name a station only on a surfacing move (the move is known by its commitment), a setup never
  names his start, no salt before the reveal, no other command carries a station.
- flash: chaos.flash_leaks on the flash as the firmware reads it back, after every power cut and
  after every game; and the raw bytes of every flash file are searched for every salt.
- REPL: mid-game, Ctrl-C stops the game loop and `mpremote resume exec` walks everything
  reachable: every module's globals, `board_app` and every object under it (attributes, lists,
  dicts, byte buffers: the link's line buffer, the journal cache...), and every file under the
  board's working folder, byte by byte (but frames.bin: the harness's own LED recording). Leaks: a salt or a secret mrx line in any string or
  buffer, a Mister X station in the board's Game (`mrx`, the travel log), a file holding a salt.
"""
import json
import subprocess
import time

from host.device.mpy_build import tool

REPL_DUMP = r'''
import sys, os
_seen = set()
_out = []
def _emit(path, v):
    print("V\t" + path + "\t" + repr(v))
def _walk(path, o, d):
    if d > 9:
        return
    t = type(o)
    if t in (int, bool, float) or o is None:
        _emit(path, o); return
    if t is str:
        _emit(path, o); return
    if t in (bytes, bytearray, memoryview):
        # in hex, 256 bytes a line: the repr of a whole 1 KB buffer needs up to 4 KB in one piece,
        # which a nearly full heap (the unix port's, at the tests' size) may not have
        for k in range(0, len(o), 256):
            print("B\t" + path + "\t" + bytes(o[k:k + 256]).hex())
        print("B\t" + path + "\t")
        return
    i = id(o)
    if i in _seen:
        return
    _seen.add(i)
    if t in (list, tuple):
        for k, v in enumerate(o):
            _walk(path + "[%d]" % k, v, d + 1)
        return
    if t is dict:
        for k in list(o.keys()):
            _walk(path + "[%r]" % (k,), o[k], d + 1)
        return
    if t is set or t is frozenset:
        for v in o:
            _walk(path + "{}", v, d + 1)
        return
    if callable(o) and not hasattr(o, "__dict__"):
        return
    for k in dir(o):
        if k.startswith("__"):
            continue
        try:
            v = getattr(o, k)
        except Exception:
            continue
        if callable(v) and type(v).__name__ in ("function", "bound_method", "closure", "builtin_function"):
            continue
        _walk(path + "." + k, v, d + 1)
for _n in list(sys.modules.keys()):
    _walk("sys.modules[%r]" % _n, sys.modules[_n], 0)
import __main__
for _k in dir(__main__):
    if not _k.startswith("_"):
        _walk("__main__." + _k, getattr(__main__, _k), 0)
def _files(p):
    try:
        names = os.listdir(p)
    except OSError:
        return
    for n in names:
        q = p + "/" + n
        try:
            st = os.stat(q)
        except OSError:
            continue
        if st[0] & 0x4000:
            _files(q)
        elif n != "frames.bin":
            try:
                f = open(q, "rb")
            except OSError:
                continue
            while True:
                b = f.read(256)
                if not b:
                    break
                print("F\t" + q + "\t" + b.hex())
            f.close()
            print("F\t" + q + "\t")
_files(".")
print("END")
'''


HOST_FILE_PROBE = r'''
for _p in %r:
    try:
        _f = open(_p, "rb")
        _b = _f.read(4096)
        _f.close()
        print("READ\t" + _p + "\t" + _b.hex())
    except Exception as _e:
        print("DENIED\t" + _p + "\t" + repr(_e))
print("END")
'''


def _stop_game_loop(sim, link=None):
    """Ctrl-C on the board's serial port: the game loop stops at the REPL (the first step of the attack below)."""
    if link is not None:
        link.close()
    import serial
    s = serial.Serial(sim.port, 115200, timeout=0.5)
    s.write(b"\x03")
    time.sleep(0.3)
    s.read(65536)
    s.close()


def repl_host_files(sim, paths, link=None):
    """An attack on the simulated board: Ctrl-C on its serial port, then open() each of
    `paths` (the host's files: Mister X's secret log, ...) at its REPL. Returns {path: bytes read
    or None if refused}. The board needs a restart after."""
    _stop_game_loop(sim, link)
    r = subprocess.run([tool("mpremote"), "connect", sim.port, "resume", "exec", HOST_FILE_PROBE % (list(paths),)],
                       capture_output=True, text=True, timeout=60)
    if "END" not in r.stdout:
        raise AssertionError("the REPL probe did not finish: %s %s" % (r.stdout[-500:], r.stderr[-500:]))
    out = {}
    for line in r.stdout.splitlines():
        parts = line.split("\t", 2)
        if parts[0] == "READ" and len(parts) == 3:
            out[parts[1]] = bytes.fromhex(parts[2])
        elif parts[0] == "DENIED" and len(parts) == 3:
            out[parts[1]] = None
    return out


def repl_dump(sim, link):
    """Stop the game loop (Ctrl-C), dump everything reachable from the REPL. Returns
    (values [(path, python literal text)], files {path: bytes}). The board needs a restart after."""
    _stop_game_loop(sim, link)
    r = subprocess.run([tool("mpremote"), "connect", sim.port, "resume", "exec", REPL_DUMP], capture_output=True,
                       text=True, timeout=120)
    values, files, buffers = [], {}, {}
    for line in r.stdout.splitlines():
        parts = line.split("\t", 2)
        if parts[0] == "V" and len(parts) == 3:
            values.append((parts[1], parts[2]))
        elif parts[0] in ("F", "B") and len(parts) == 3:
            try:
                chunk = bytes.fromhex(parts[2])
            except ValueError:
                chunk = parts[2].encode()
            into = files if parts[0] == "F" else buffers
            into[parts[1]] = into.get(parts[1], b"") + chunk
    values.extend((path, repr(data)) for path, data in buffers.items())  # a buffer: its bytes' literal
    if "END" not in r.stdout:
        raise AssertionError("the REPL dump did not finish: %s %s" % (r.stdout[-500:], r.stderr[-500:]))
    return values, files


def repl_leaks(values, files, truth, salts):
    """What the REPL dump shows that only Mister X may know."""
    import ast
    out = []
    secret_moves = {k + 1 for k in range(len(truth.log)) if (k + 1) not in truth.reveals}
    hidden = {s for k, (_t, s) in enumerate(truth.log) if (k + 1) in secret_moves} | {truth._start}
    surfaced = {s for k, (_t, s) in enumerate(truth.log) if (k + 1) not in secret_moves}
    salt_bytes = [s.encode() for s, _st in salts]
    for path, text in values:
        for sb in salt_bytes:
            if sb.decode() in text:
                out.append("REPL: a salt at %s" % path)
        if path.endswith(".mrx") and path.count("game"):
            try:
                v = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                continue
            if isinstance(v, int) and v and v in hidden and v not in surfaced:
                out.append("REPL: %s = %d, Mister X's hidden station" % (path, v))
        if '"mrx"' in text and '"to"' in text:
            for frag in _json_objects(text):
                if frag.get("type") == "mrx":
                    steps = frag.get("double", [frag])
                    for st in steps:
                        if st.get("to") in hidden and st.get("to") not in surfaced:
                            out.append("REPL: a secret station in %s: %s" % (path, frag))
    logs = [(p, t) for p, t in values if ".game.log[" in p]
    for p, t in logs:
        if p.endswith("][1]"):
            k = int(p.rsplit("log[", 1)[1].split("]")[0]) + 1
            if k in secret_moves and t != "0":
                out.append("REPL: the board's travel log names secret move %d: %s = %s" % (k, p, t))
    for path, data in files.items():
        for sb in salt_bytes:
            if sb in data:
                out.append("REPL: file %s holds a salt" % path)
        if "flash" in path and path.endswith(".jsonl"):
            for line in data.decode("utf-8", "replace").splitlines():
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if obj.get("type") == "mrx":
                    for st in obj.get("double", [obj]):
                        if "to" in st and st["to"] in hidden and st["to"] not in surfaced:
                            out.append("REPL: file %s names a secret station: %s" % (path, obj))
    return out


def _json_objects(text):
    out = []
    for chunk in text.replace("\\n", "\n").split("\n"):
        i = chunk.find("{")
        if i < 0:
            continue
        try:
            obj = json.loads(chunk[i:].rstrip("'\""))
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def wire_leaks(sent, truth, salts):
    """What the bytes the host sent tell beyond public facts. salts: [[salt, station]] with the
    start first, then one per move (ChaosGame.salts)."""
    from sy.rules import commit as commitlib
    out = []
    by_commit = {commitlib.commitment(st, salt): k for k, (salt, st) in enumerate(salts)}
    revealed = False
    latest = None  # the index (in salts) of the latest commitment sent
    for raw in bytes(sent).decode("utf-8", "replace").splitlines():
        if not raw.strip():
            continue
        try:
            cmd = json.loads(raw)
        except ValueError:
            continue
        kind = cmd.get("cmd")
        if kind == "reveal":
            revealed = True
            continue
        if kind in ("capture", "cornered") and "reveal" in cmd:
            # the proof that ends the game (firmware/sy/play/declare.py): the opening of his latest
            # commitment, and nothing else; from here on his stations are no secret
            pair = cmd["reveal"]
            ok = isinstance(pair, list) and len(pair) == 2 and latest is not None \
                and [pair[0], pair[1]] == list(salts[latest])
            if not ok:
                out.append("wire: a %s reveals something other than his current station: %s" % (kind, raw[:120]))
            revealed = True
            continue
        if not revealed:
            for salt, _st in salts:
                if salt in raw:
                    out.append("wire: a salt before the reveal: %s" % raw[:120])
        if kind == "setup":
            if cmd.get("mrx") is not None:
                out.append("wire: the setup names Mister X's start")
            latest = by_commit.get(cmd.get("commit"), latest)
            if set(cmd) - {"cmd", "id", "detectives", "bobbies", "replace", "commit", "two_player", "tickets",
                           "mrx_tickets", "rounds", "reveals", "map", "mrx", "key", "n", "mac"}:
                out.append("wire: unknown setup keys %s" % cmd)
        elif kind == "mrx":
            for st in cmd.get("double", [cmd]):
                k = by_commit.get(st.get("commit"))
                if k is None:
                    out.append("wire: a Mister X move with an unknown commitment: %s" % raw[:120])
                    continue
                latest = k
                if "to" in st and (k not in truth.reveals or st["to"] != salts[k][1]):
                    out.append("wire: move %d names station %s but does not surface" % (k, st["to"]))
                if set(st) - {"cmd", "id", "ticket", "to", "commit", "double", "n", "mac"}:  # (n, mac: his host's tag)
                    out.append("wire: extra keys in a Mister X move: %s" % raw[:120])
        else:
            if set(cmd) - {"cmd", "id", "seq", "acked", "proto", "piece", "all", "ticket", "confirm", "key", "consent",
                           "n", "mac"}:
                out.append("wire: a %s command carries %s" % (kind, sorted(set(cmd))))
    return out


def flash_salt_leaks(flash, salts):
    out = []
    for name, data in flash.items():
        for salt, _st in salts:
            if salt.encode() in data:
                out.append("flash: %s holds a salt" % name)
    return out
