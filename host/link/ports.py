"""Finding the board: --port PATH or pyserial URL, else $YARD_PORT, else by USB VID/PID."""
import errno
import os

from host.errors import BoardError
from host.i18n import N_, _

# (vid, pid or None, what): boards that run MicroPython, best guess first
KNOWN_USB = (
    (0x2E8A, 0x0005, "Raspberry Pi Pico (MicroPython)"),
    (0x2E8A, None, "Raspberry Pi RP2040/RP2350"),
    (0x303A, None, N_("Espressif ESP32 (native USB)")),
    (0x10C4, 0xEA60, N_("ESP32 board (CP210x)")),
    (0x1A86, None, N_("ESP32 board (CH340/CH9102)")),
    (0x0403, None, N_("board behind an FTDI adapter")),
    (0xF055, None, N_("MicroPython board (pyboard)")),
)


def add_port_argument(parser):
    parser.add_argument("--port", "-p", metavar="PORT",
                        help=_("serial port (/dev/ttyACM0, COM3) or pyserial URL (socket://host:port, "
                               "rfc2217://host:port); default: $YARD_PORT or the first board found by USB id"))


def is_url(port):
    return "://" in port


def find_boards():
    """[(device, description)] of USB serial ports that look like a MicroPython board."""
    try:
        from serial.tools import list_ports
    except ImportError:
        return []
    found = []
    for p in list_ports.comports():
        for rank, (vid, pid, what) in enumerate(KNOWN_USB):
            if p.vid == vid and (pid is None or p.pid == pid):
                found.append((rank, p.device, "%s, %04x:%04x" % (_(what), p.vid, p.pid)))
                break
    found.sort()
    return [(dev, what) for _r, dev, what in found]


def resolve(port=None):
    """The port or URL to open; BoardError if none was given and no board is plugged in."""
    port = port or os.environ.get("YARD_PORT")
    if port:
        return port
    boards = find_boards()
    if not boards:
        raise BoardError(_("no board found: plug it in by USB, or give --port (a serial port or a "
                           "socket:// or rfc2217:// URL)"))
    return boards[0][0]


def check_port(port):
    """BoardError if `port` is a device path that cannot be a board: missing, or not ours to open.
    Cheap and without opening it (opening may reset a board); a URL is left to its first open."""
    if is_url(port) or os.name != "posix":  # Windows' COM3 is no path: pyserial's open tells
        return
    if not os.path.exists(port):
        raise BoardError(_("no board at %s: the port does not exist (plugged in? right port?)") % port)
    if not os.access(port, os.R_OK | os.W_OK):
        raise BoardError(_("no permission to open %s (on Linux: add yourself to the dialout group)") % port)


def explain_open_error(port, e):
    """A sentence for why `port` could not be opened (pyserial's SerialException or OSError)."""
    text = str(e)
    code = getattr(e, "errno", None)
    low = text.lower()
    if code in (errno.EBUSY, errno.EAGAIN) or "busy" in low or "lock" in low or "temporarily unavailable" in low:
        return _("port %s is busy: another program has it open (a serial monitor, mpremote, another yard?)") % port
    if code == errno.EACCES or "permission denied" in low:
        return _("no permission to open %s (on Linux: add yourself to the dialout group)") % port
    if code == errno.ENOENT or "no such file" in low or "could not open port" in low and "2]" in text:
        return _("no board at %s: the port does not exist (plugged in? right port?)") % port
    if "connection refused" in low or "timed out" in low:
        return _("no board answers at %(port)s: %(error)s") % {"port": port, "error": text}
    return _("cannot open %(port)s: %(error)s") % {"port": port, "error": text}


def open_serial(port, baudrate=115200, timeout=0.1):
    """Open a port or URL exclusively; BoardError with a clear reason if that fails."""
    import serial
    try:
        return serial.serial_for_url(port, baudrate=baudrate, timeout=timeout, exclusive=True)
    except TypeError:  # URL handlers that do not know `exclusive`
        try:
            return serial.serial_for_url(port, baudrate=baudrate, timeout=timeout)
        except (serial.SerialException, OSError, ValueError) as e:
            raise BoardError(explain_open_error(port, e))
    except (serial.SerialException, OSError, ValueError) as e:
        raise BoardError(explain_open_error(port, e))
