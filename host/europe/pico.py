"""The Europe board on the emulated Raspberry Pi Pico (host/pico/): the maker's UF2 with the
Europe entry point and an owner's map, for `yard sim --game europe --board pico` and
`yard bench pico-europe`.

The image is the London board's (`yard uf2`: MicroPython, the compiled firmware, board.json) with
two files changed: main.py is firmware/europe_main.py, and sy/maps/europe.mpy is the map folder
compiled (the module a Europe board loads, docs/europe-board.md).
"""
import os
import tempfile

from host.errors import UserError
from host.i18n import _
from host.europe.mapformat import MapFormatError, read_map, render_module

FIRMWARE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "firmware")
BOARD_MAP = "europe"  # the map module's name on a board (sy/europe/app.py)


def europe_files(map_folder, config_path=None):
    """{board path: bytes} of a Europe board playing the map in `map_folder`."""
    from host.device.mpy_build import PICO_ARCH, compile_file
    from host.device.uf2 import board_files
    try:
        m = read_map(map_folder)
    except MapFormatError as e:
        raise UserError(_("the map %(folder)s: %(problem)s") % {"folder": map_folder, "problem": e})
    files = board_files(config_path)
    with open(os.path.join(FIRMWARE, "europe_main.py"), "rb") as f:
        files["main.py"] = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, BOARD_MAP + ".py")
        with open(src, "w") as f:
            f.write(render_module(m, BOARD_MAP, os.path.basename(os.path.normpath(map_folder))))
        out = os.path.join(tmp, BOARD_MAP + ".mpy")
        proc = compile_file(src, out, PICO_ARCH)
        if proc.returncode:
            raise UserError(_("mpy-cross failed on the map module:") + "\n" + proc.stderr)
        with open(out, "rb") as f:
            files["sy/maps/%s.mpy" % BOARD_MAP] = f.read()
    return files


def make_europe_uf2(micropython_uf2, out_path, map_folder, config_path=None):
    """Write a Europe board's UF2; returns what went in (as host/device/uf2.make_board_uf2)."""
    from host.device.uf2 import check_micropython, littlefs_image, read_uf2, write_uf2
    image = read_uf2(micropython_uf2)
    info = check_micropython(image, micropython_uf2)
    files = europe_files(map_folder, config_path)
    fs = littlefs_image(files, info["fs_size"])
    blocks = write_uf2(out_path, sorted(image.blocks.items()) + [(info["fs_address"], fs)])
    return {"micropython": info["version"], "files": len(files),
            "firmware_bytes": sum(len(d) for d in files.values()), "blocks": blocks}


def europe_pico(map_folder, micropython=None, bootrom=None, folder=None, realtime=False, config=None):
    """A PicoBoard (not started) that boots the Europe board with this map; config: board.json
    overrides, written into its UF2 (as the PicoBoard wrote them beside it)."""
    from host.pico.board import PicoBoard
    pico = PicoBoard(folder=folder, config=config, micropython=micropython, bootrom=bootrom, realtime=realtime)
    pico.uf2 = os.path.join(pico.folder, "europe-board.uf2")  # in the board's folder: stop() removes it
    try:
        make_europe_uf2(pico.micropython, pico.uf2, map_folder,
                        os.path.join(pico.folder, "board.json") if config else None)
    except BaseException:
        pico.stop()
        raise
    return pico
