"""The Pico's filesystem as MicroPython's rp2 port keeps it: littlefs v2 in the flash chip's
last 1,408 KB (the firmware's binary info says where: host/device/uf2.py), read on the host with
littlefs-python."""


FS_OFFSET = 0xA0000  # MicroPython v1.28 RPI_PICO: 0x100A0000 - 0x10000000
FS_SIZE = 352 * 4096
BLOCK = 4096


def mount(flash_path, offset=FS_OFFSET, size=FS_SIZE):
    """A littlefs-python LittleFS over the filesystem in a flash file, or None if it does not mount."""
    from littlefs import LittleFS, LittleFSError
    with open(flash_path, "rb") as f:
        f.seek(offset)
        image = bytearray(f.read(size))
    fs = LittleFS(block_size=BLOCK, block_count=size // BLOCK, prog_size=256, mount=False)
    fs.context.buffer = image
    try:
        fs.mount()
    except LittleFSError:
        return None
    return fs


def read_tree(flash_path, folder=""):
    """{name: bytes} of the files in `folder` of the Pico's filesystem ({} if the folder is
    absent), or None if the filesystem does not mount."""
    fs = mount(flash_path)
    if fs is None:
        return None
    out = {}
    try:
        names = fs.listdir(folder or "/")
    except Exception:
        return out
    for name in names:
        path = (folder + "/" + name) if folder else name
        try:
            with fs.open(path, "rb") as f:
                out[name] = f.read()
        except Exception:
            continue  # a folder
    return out
