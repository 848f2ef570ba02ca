"""Type-check the firmware against the boards' own APIs: the MicroPython stubs for rp2 (Pico) and
esp32 (micropython-stubs family), with pyright.

    python -m hardware.typecheck                 # both ports, every firmware file that touches hardware
    python -m hardware.typecheck --port rp2 firmware/sy/hardware/backends.py

The stubs replace CPython's typeshed, so `time.monotonic` or `machine.Pin.OUTT` or a str where
`SPI(baudrate=...)` wants an int are errors, exactly as they would fail on the board. Checked:
the firmware files that import a board-only module (machine, neopixel, rp2, esp32, micropython,
time, ...), found by scanning their imports, so a new driver is checked without listing it here.

Policy (why some rules are off): the firmware is unannotated MicroPython. Attributes that start as
None and CPython fallbacks in `try: ... except ImportError:` are idioms there, not misuse, so the
Optional* rules and reportAssignmentType / reportRedeclaration are off. Everything about calling
the boards' APIs (unknown attributes, wrong arguments, missing modules) stays an error.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
STUBS = {"rp2": "micropython-rp2-stubs==1.29.0.post1", "esp32": "micropython-esp32-stubs==1.29.0.post1"}
PYRIGHT = "pyright==1.1.414"
BOARD_MODULES = ("machine", "neopixel", "rp2", "esp32", "esp", "network", "micropython", "time", "utime",
                 "bluetooth", "framebuf", "onewire")

RULES = {
    "typeCheckingMode": "basic",
    "reportMissingImports": "error",
    "reportAttributeAccessIssue": "error",
    "reportCallIssue": "error",
    "reportArgumentType": "error",
    "reportIndexIssue": "error",
    "reportUndefinedVariable": "error",
    "reportMissingModuleSource": "none",
    "reportOptionalMemberAccess": "none",
    "reportOptionalSubscript": "none",
    "reportOptionalIterable": "none",
    "reportOptionalCall": "none",
    "reportOptionalOperand": "none",
    "reportAssignmentType": "none",
    "reportRedeclaration": "none",
}

# Known findings in code written before this check, matched by file and message start (not line,
# so edits elsewhere do not break the match). Each is a dynamic idiom the checker cannot follow;
# fix them and delete the entry (test_typecheck fails when an entry no longer occurs, so this
# list can only shrink). Anything not listed fails the check.
KNOWN = (
    ("boot.py", '"safe_mode" is not a known attribute of module "sy"'),  # set on the package at boot
    ("firmware/sy/compat.py", '"monotonic" is not a known attribute of module "time"'),  # CPython only
    # Protocol.step() runs only while an answer in steps is in hand (sy/app.py checks proto.job), and
    # that answer is the generator a handler returned: pyright cannot follow either from the class
    ("firmware/sy/link/proto.py", '"None" is not iterable'),
    ("firmware/sy/link/proto.py", 'Argument of type "Unknown | dict[str, Unknown]'),
    # _mac's message parts are any buffer (bytes, or a memoryview of the line checked in place);
    # pyright reads bytes from their b"" defaults
    ("firmware/sy/link/auth.py", 'Argument of type "memoryview[int]" cannot be assigned to parameter "d"'),
)

_IMPORT = re.compile(r"^\s*(?:import|from)\s+(\w+)", re.M)


class TypecheckError(Exception):
    pass


# a port's own module: a file that imports one is checked against that port only
PORT_MODULES = {"rp2": "rp2", "esp32": "esp32"}


def board_files(root=ROOT, port=None):
    """Firmware files (and boot.py) that import a board-only module; with port, those that do not
    import another port's own module (sy/hardware/ledspio.py is the Pico's alone)."""
    others = {m for p, m in PORT_MODULES.items() if port is not None and p != port}
    out = []
    cands = [os.path.join(root, "boot.py"), os.path.join(FIRMWARE, "main.py")]
    for dirpath, _, names in os.walk(os.path.join(root, "firmware")):
        cands += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".py")]
    for path in cands:
        if not os.path.exists(path) or path in out:
            continue
        with open(path) as f:
            mods = set(_IMPORT.findall(f.read()))
        if mods & set(BOARD_MODULES) and not mods & others:
            out.append(path)
    return out


def stubs_dir(port, cache=None):
    """The stub folder for a port, installed with pip --target on first use."""
    cache = cache or os.environ.get("SY_STUBS_DIR") or os.path.join(ROOT, "build", "stubs")
    d = os.path.join(cache, port)
    if not os.path.exists(os.path.join(d, "machine.pyi")):
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target",
                        d, STUBS[port]], check=True)
    return d


def pyright_cmd():
    # on PATH, or beside the running Python (a virtual environment's bin/ that is not on PATH)
    exe = shutil.which("pyright") or shutil.which("pyright", path=os.path.dirname(sys.executable))
    if not exe:
        raise TypecheckError("pyright is not installed: pip install %s" % PYRIGHT)
    return [exe]


def check(files, port, workdir=None):
    """Run pyright on files against a port's stubs. Returns the list of error diagnostics as
    (path, line, rule, message)."""
    stubs = stubs_dir(port)
    workdir = workdir or os.path.join(ROOT, "build", "typecheck")
    os.makedirs(workdir, exist_ok=True)
    cfg = dict(RULES, typeshedPath=stubs, stubPath=stubs, extraPaths=[FIRMWARE], pythonVersion="3.11",
               pythonPlatform="Linux")
    conf = os.path.join(workdir, "pyrightconfig-%s.json" % port)
    with open(conf, "w") as f:
        json.dump(cfg, f, indent=1)
    proc = subprocess.run(pyright_cmd() + ["-p", conf, "--outputjson"] + list(files), capture_output=True,
                          text=True, cwd=workdir)
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        raise TypecheckError("pyright gave no JSON (exit %d): %s" % (proc.returncode, proc.stderr[-2000:]))
    out = []
    for d in result.get("generalDiagnostics", []):
        if d.get("severity") == "error":
            out.append((d["file"], d["range"]["start"]["line"] + 1, d.get("rule", ""), d["message"]))
    if proc.returncode not in (0, 1):
        raise TypecheckError("pyright failed (exit %d): %s" % (proc.returncode, proc.stderr[-2000:]))
    return out


def split_known(errors, root=ROOT):
    """(new, known, unused_known): errors not in KNOWN, errors in KNOWN, KNOWN entries that matched nothing."""
    new, known, used = [], [], set()
    for e in errors:
        rel = os.path.relpath(e[0], root).replace(os.sep, "/")
        hit = [k for k in KNOWN if k[0] == rel and e[3].startswith(k[1])]
        if hit:
            known.append(e)
            used.update(hit)
        else:
            new.append(e)
    return new, known, [k for k in KNOWN if k not in used]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m hardware.typecheck", description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", choices=sorted(STUBS), action="append", help="default: every port")
    ap.add_argument("files", nargs="*", help="default: every firmware file that imports a board module")
    args = ap.parse_args(argv)
    bad = 0
    try:
        for port in args.port or sorted(STUBS):
            files = [os.path.abspath(f) for f in args.files] or board_files(port=port)
            errors, known, _ = split_known(check(files, port))
            for path, line, rule, msg in errors:
                print("%s:%d: [%s] %s (%s)" % (os.path.relpath(path, ROOT), line, port, msg.replace("\n", " "), rule))
            print("%s: %d files, %d errors (+%d known, listed in hardware/typecheck.py KNOWN)"
                  % (port, len(files), len(errors), len(known)))
            bad += len(errors)
    except TypecheckError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
