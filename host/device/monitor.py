"""`yard monitor`: print every line the board sends (events, notes, console text), for makers.

Passive by default: it only listens. `--hello N` says hello (acked=N) so the board resends its
events after N; `--status` asks for the board's status once. Ctrl-C ends it.
"""
import json
import time

from host.errors import BoardError
from host.i18n import _
from host.link.ports import add_port_argument, resolve, open_serial
from sy.link.fields import PROTO


def add_arguments(parser):
    add_port_argument(parser)
    parser.add_argument("--hello", type=int, metavar="SEQ", help=_("say hello with acked=SEQ: the board resends later events"))
    parser.add_argument("--status", action="store_true", help=_("ask for the board's status once"))
    parser.add_argument("--seconds", type=float, help=_("stop after this many seconds"))
    parser.add_argument("--json", action="store_true", help=_("print the lines as they came, without time stamps"))


def run(args, out=print):
    port = resolve(args.port)
    ser = open_serial(port, timeout=0.05)
    start = time.monotonic()
    try:
        if args.hello is not None:
            ser.write(b'{"id": 1, "cmd": "hello", "proto": %d, "acked": %d}\n' % (PROTO, args.hello))
        if args.status:
            ser.write(b'{"id": 2, "cmd": "status"}\n')
        if not args.json:
            out(_("listening on %s (Ctrl-C to stop)") % port)
        buf = b""
        while args.seconds is None or time.monotonic() - start < args.seconds:
            try:
                data = ser.read(ser.in_waiting or 1)
            except OSError as e:
                raise BoardError(_("lost the board on %(port)s: %(error)s") % {"port": port, "error": e})
            if not data:
                continue
            buf += data
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                text = raw.decode("utf-8", "replace").rstrip("\r")
                if not text:
                    continue
                if args.json:
                    out(text)
                    continue
                try:
                    msg = json.loads(text)
                    # i18n: the kinds of line in the monitor's second column (at most 9 characters)
                    kind = _("event %d") % msg["seq"] if "seq" in msg and "ev" in msg else \
                        _("note") if "note" in msg else _("reply") if "id" in msg else _("json")
                except (ValueError, TypeError, KeyError):
                    kind = _("text")
                out("%8.3f  %-9s %s" % (time.monotonic() - start, kind, text))
    finally:
        ser.close()
    return 0
