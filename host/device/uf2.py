"""`yard uf2`: one file a maker drags onto the Pico: MicroPython plus the board's filesystem.

A UF2 file is a list of 512-byte blocks, each carrying 256 bytes for one flash address
(https://github.com/microsoft/uf2). MicroPython's RPI_PICO firmware describes, in its binary info
(pico-sdk `bi_decl(bi_block_device(...))`), the flash range its littlefs filesystem lives in. This
command reads that range from the firmware itself, builds a littlefs image of exactly that size
holding the compiled firmware as `yard flash` would copy it (host/device/flash.py `build`) and the board's
config, and writes one UF2: the firmware's blocks followed by the filesystem's.

Dragged onto the Pico's BOOTSEL drive, the boot ROM writes every block to its address: MicroPython
boots, mounts the filesystem and runs main.py. Nothing else is checked on the Pico, so everything
is checked here: the file must be a UF2 for the RP2040 family, hold a MicroPython firmware that
declares its filesystem, and not reach into that filesystem.
"""
import json
import os
import struct
import tempfile

from host import configerrors
from host.errors import UserError
from host.i18n import _, number

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY = 0xE48BFF56
FLASH_BASE = 0x10000000
PAYLOAD = 256
BLOCK = 512

# pico-sdk binary info (src/common/pico_binary_info/include/pico/binary_info/defs.h, structure.h)
_BI_MARKER_START = 0x7188EBF2
_BI_MARKER_END = 0xE71AA390
_BI_TYPE_ID_AND_STRING = 6
_BI_TYPE_BLOCK_DEVICE = 7
_BI_PROGRAM_NAME = 0x02031C86
_BI_PROGRAM_VERSION = 0x11A9BC3A
# MicroPython's rp2 port (mpconfigport.h / rp2_flash.c): littlefs with 4 KB blocks
FS_BLOCK_SIZE = 4096
# How full the image's directory logs may grow before littlefs compacts them (a setting of the
# writer only: the board reads any size). Finding a file reads and checks the whole log of every
# directory on its path, and a log written file by file fills its 4 KB block with commits
# (each padded to the 256-byte program size): a module import then took ~10 ms on the emulated
# Pico. Logs kept to 512 bytes cut the boot from 637 to 514 ms (docs/pico.md, "Boot time").
FS_METADATA_MAX = 512


class Image:
    """A UF2 read into memory: {flash address: 256 payload bytes}, in file order."""

    def __init__(self, blocks, family):
        self.blocks = blocks
        self.family = family

    @property
    def start(self):
        return min(self.blocks)

    @property
    def end(self):
        return max(self.blocks) + PAYLOAD

    def read(self, address, n):
        """n bytes at a flash address (0xFF where the image holds nothing, as erased flash)."""
        out = bytearray(b"\xff" * n)
        for a in range(address - address % PAYLOAD, address + n, PAYLOAD):
            data = self.blocks.get(a)
            if data is None:
                continue
            lo = max(a, address)
            hi = min(a + PAYLOAD, address + n)
            out[lo - address:hi - address] = data[lo - a:hi - a]
        return bytes(out)

    def flash(self, size=2 * 1024 * 1024):
        """The flash chip's contents after the boot ROM wrote this image onto an erased chip."""
        out = bytearray(b"\xff" * size)
        for a, data in self.blocks.items():
            off = a - FLASH_BASE
            if 0 <= off and off + PAYLOAD <= size:
                out[off:off + PAYLOAD] = data
        return out


def read_uf2(path):
    """Image of a UF2 file; a UserError says what is wrong with anything else."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UserError(_("cannot read %(file)s: %(error)s") % {"file": path, "error": e.strerror or e})
    if not data or len(data) % BLOCK:
        raise UserError(_("%(file)s is not a UF2 file (its size, %(size)d bytes, is not a multiple of 512)")
                        % {"file": path, "size": len(data)})
    blocks = {}
    family = None
    for i in range(len(data) // BLOCK):
        b = data[i * BLOCK:(i + 1) * BLOCK]
        m0, m1, flags, address, size, _no, _count, fam = struct.unpack_from("<8I", b)
        (m_end,) = struct.unpack_from("<I", b, BLOCK - 4)
        if (m0, m1, m_end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise UserError(_("%(file)s is not a UF2 file (block %(block)d has no UF2 magic numbers)") % {"file": path, "block": i})
        if not flags & FLAG_FAMILY_ID or fam != RP2040_FAMILY:
            raise UserError(_("%(file)s is a UF2 for another chip (family %(family)s), not the RP2040 (%(rp2040)s): "
                              "download MicroPython for the Raspberry Pi Pico (RPI_PICO)") % {
                                "file": path, "family": "0x%08x" % (fam if flags & FLAG_FAMILY_ID else 0),
                                "rp2040": "0x%08x" % RP2040_FAMILY})
        if size != PAYLOAD or address % PAYLOAD:
            raise UserError(_("%(file)s: block %(block)d carries %(size)d bytes at %(address)s; RP2040 UF2 blocks carry "
                              "256 bytes at 256-byte aligned addresses") % {
                                "file": path, "block": i, "size": size, "address": "0x%08x" % address})
        if address in blocks:
            raise UserError(_("%(file)s: address %(address)s is written twice") % {"file": path, "address": "0x%08x" % address})
        blocks[address] = b[32:32 + PAYLOAD]
        family = fam
    return Image(blocks, family)


def _binary_info(image):
    """[(type, address of the entry)] of the image's pico-sdk binary info, or []."""
    head = image.read(FLASH_BASE, 4096)
    k = 0
    while True:
        k = head.find(struct.pack("<I", _BI_MARKER_START), k)
        if k < 0 or k % 4 == 0:
            break
        k += 1
    if k < 0 or k + 20 > len(head):
        return []
    start, end, _mapping, marker_end = struct.unpack_from("<4I", head, k + 4)
    if marker_end != _BI_MARKER_END or not (FLASH_BASE <= start <= end < FLASH_BASE + 0x1000000):
        return []
    out = []
    table = image.read(start, end - start)
    for i in range(0, len(table), 4):
        (ptr,) = struct.unpack_from("<I", table, i)
        typ, _tag = struct.unpack("<HH", image.read(ptr, 4))
        out.append((typ, ptr))
    return out


def _c_string(image, address, limit=64):
    return image.read(address, limit).split(b"\0")[0].decode("ascii", "replace")


def describe(image):
    """{"program", "version", "fs_address", "fs_size"} from the firmware's binary info."""
    info = {"program": None, "version": None, "fs_address": None, "fs_size": None}
    for typ, ptr in _binary_info(image):
        if typ == _BI_TYPE_ID_AND_STRING:
            ident, value = struct.unpack("<II", image.read(ptr + 4, 8))
            if ident == _BI_PROGRAM_NAME:
                info["program"] = _c_string(image, value)
            elif ident == _BI_PROGRAM_VERSION:
                info["version"] = _c_string(image, value)
        elif typ == _BI_TYPE_BLOCK_DEVICE:
            _name, address, size = struct.unpack("<III", image.read(ptr + 4, 12))
            info["fs_address"], info["fs_size"] = address, size
    return info


def check_micropython(image, path):
    """The firmware's description; refuses what is not MicroPython with a filesystem after it."""
    info = describe(image)
    if info["program"] != "MicroPython":
        raise UserError(_("%(file)s is not MicroPython (its binary info names %(program)r): download MicroPython for "
                          "the Raspberry Pi Pico (RPI_PICO) from https://micropython.org/download/RPI_PICO/") % {
                            "file": path, "program": info["program"]})
    address, size = info["fs_address"], info["fs_size"]
    if address is None or not size or size % FS_BLOCK_SIZE or address % FS_BLOCK_SIZE:
        raise UserError(_("%(file)s declares no filesystem the board can use (block device %(address)r, %(size)r)")
                        % {"file": path, "address": address, "size": size})
    if image.end > address:
        raise UserError(_("%(file)s already writes into the filesystem at %(address)s (up to %(end)s): use "
                          "MicroPython's own RPI_PICO file, not a board image") % {
                            "file": path, "address": "0x%08x" % address, "end": "0x%08x" % image.end})
    return info


def littlefs_image(files, size):
    """A littlefs image of `size` bytes, as MicroPython's rp2 port formats it, holding
    {board path: bytes}."""
    from littlefs import LittleFS
    # read_size only has to divide metadata_max here (the board mounts with its own read size)
    fs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=size // FS_BLOCK_SIZE, prog_size=256, read_size=256,
                  metadata_max=FS_METADATA_MAX)
    for path in sorted(files):
        folder = os.path.dirname(path)
        if folder:
            fs.makedirs(folder, exist_ok=True)
        with fs.open(path, "wb") as f:
            f.write(files[path])
    return bytes(fs.context.buffer)


def write_uf2(path, chunks):
    """Write a UF2 of [(flash address, bytes)]; bytes are split into 256-byte blocks."""
    payloads = []
    for address, data in chunks:
        for k in range(0, len(data), PAYLOAD):
            payloads.append((address + k, data[k:k + PAYLOAD].ljust(PAYLOAD, b"\xff")))
    out = bytearray()
    for no, (address, data) in enumerate(payloads):
        out += struct.pack("<8I", MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, address, PAYLOAD, no,
                           len(payloads), RP2040_FAMILY)
        out += data + bytes(476 - PAYLOAD)
        out += struct.pack("<I", MAGIC_END)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(out)
    os.replace(tmp, path)
    return len(payloads)


def board_files(config_path=None, board="pico"):
    """{board path: bytes}: the firmware as `yard flash` copies it, and the validated config."""
    from host.device.flash import build
    from host.device.mpy_build import PICO_ARCH
    from sy.hardware import boardconfig
    if config_path:
        try:
            with open(config_path, encoding="utf-8") as f:
                cfg = json.load(f)
        except OSError as e:
            raise UserError(_("cannot read %(file)s: %(error)s") % {"file": config_path, "error": e.strerror or e})
        except ValueError as e:
            raise UserError(_("%(file)s is not valid JSON: %(error)s") % {"file": config_path, "error": e})
    else:
        cfg = {"board": board}
    try:
        cfg = boardconfig.validate(cfg)
    except boardconfig.ConfigError as e:
        raise UserError("%s: %s" % (config_path or _("the default config"), configerrors.explain(e)))
    if cfg["board"] != "pico":
        raise UserError(_("%(file)s is for a %(board)s board; a UF2 is for the Raspberry Pi Pico")
                        % {"file": config_path, "board": cfg["board"]})
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path, local in build(tmp, PICO_ARCH).items():
            with open(local, "rb") as f:
                out[path] = f.read()
    out["board.json"] = json.dumps(cfg).encode()
    return out


def make_board_uf2(micropython_uf2, out_path, config_path=None):
    """Write the maker's UF2; returns a dict of what went in."""
    image = read_uf2(micropython_uf2)
    info = check_micropython(image, micropython_uf2)
    files = board_files(config_path)
    fs = littlefs_image(files, info["fs_size"])
    firmware = sorted(image.blocks.items())
    chunks = [(a, d) for a, d in firmware] + [(info["fs_address"], fs)]
    blocks = write_uf2(out_path, chunks)
    return {"micropython": info["version"], "files": len(files),
            "firmware_bytes": sum(len(d) for d in files.values()),
            "fs_address": info["fs_address"], "fs_size": info["fs_size"], "blocks": blocks}


def add_arguments(parser):
    parser.add_argument("--micropython", metavar="RPI_PICO_UF2", required=True,
                        help=_("MicroPython's firmware for the Raspberry Pi Pico (RPI_PICO-*.uf2 from "
                             "https://micropython.org/download/RPI_PICO/)"))
    parser.add_argument("-o", "--output", default="board.uf2", help=_("the UF2 to write (default board.uf2)"))
    parser.add_argument("--config", metavar="BOARD_JSON",
                        help=_("the board's config (validated); default: the Pico defaults"))


def run(args):
    got = make_board_uf2(args.micropython, args.output, args.config)
    print(_("%(uf2)s: MicroPython %(version)s + %(files)d files (%(kb)s kB) in a %(fs_kb)d kB filesystem at "
            "%(address)s; %(blocks)d UF2 blocks") % {
        "uf2": args.output, "version": got["micropython"], "files": got["files"],
        "kb": number(round(got["firmware_bytes"] / 1024, 1)), "fs_kb": got["fs_size"] // 1024,
        "address": "0x%08x" % got["fs_address"], "blocks": got["blocks"]})
    print(_("hold BOOTSEL, plug the Pico in, and drag %s onto the RPI-RP2 drive") % args.output)
    return 0
