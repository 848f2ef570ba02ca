"""Build the hardware layer from the board config: the real drivers on a board, the simulated
ones under the unix port (files in a folder served by host/simulator/board.py)."""
from sy.hardware.leds import Leds


def _leds(cfg, strip):
    c = cfg["leds"]
    return Leds(strip, c["count"], c["index"], c["order"], c["brightness"], c["current_limit_ma"],
                c["ma_per_channel"], c["idle_ma_per_led"], c.get("patterns", False))


def compact(cfg):
    """What the main loop needs from the config, in small objects (the config can then go)."""
    chips = cfg["reeds"]["chips"]
    bit_station = bytearray(chips * 8)
    bits = cfg["reeds"]["bits"]
    for s in range(1, len(bits) + 1):
        bit_station[bits[s - 1]] = s
    return {"chips": chips, "bit_station": bit_station, "debounce_ms": cfg["debounce_ms"],
            "scan_hz": cfg["scan_hz"], "map": cfg["map"], "board": cfg["board"], "dead": cfg["reeds"].get("dead")}


def real(cfg):
    """(inputs, leds) on a Pico or an ESP32."""
    from machine import Pin, SPI
    from sy.hardware.reeds import ShiftReeds, PinButtons, BoardInputs
    r = cfg["reeds"]
    mode = r["spi_mode"]
    spi = SPI(r["spi"], baudrate=r["baudrate"], polarity=mode >> 1, phase=mode & 1, sck=Pin(r["sck"]),
              miso=Pin(r["miso"]))
    reeds = ShiftReeds(spi, Pin(r["load"], Pin.OUT), r["chips"], r["active_low"])
    reeds.baudrate = r["baudrate"]   # for service mode's bus check (svc_bus), which restores it
    reeds.spi_mode = mode
    buttons = None
    b = cfg.get("buttons")
    if b:
        pull = Pin.PULL_UP if b["active_low"] else Pin.PULL_DOWN
        buttons = PinButtons([Pin(b[k], Pin.IN, pull) for k in ("taxi", "bus", "underground", "confirm")],
                             b["active_low"])
    c = cfg["leds"]
    return BoardInputs(reeds, buttons, r["chips"]), _leds(cfg, _strip(c["pin"], c["count"]))


def _strip(pin, count):
    """The WS2812 chain's driver: on an RP2040 a PIO state machine fed by DMA (sy/hardware/ledspio.py:
    a frame costs the CPU ~0.2 ms, not the 6 ms of bit-banging with interrupts off); elsewhere
    (ESP32) MicroPython's neopixel."""
    import sys
    if sys.platform == "rp2":
        from sy.hardware.ledspio import PioStrip
        return PioStrip(pin, count)
    from machine import Pin
    import neopixel
    return neopixel.NeoPixel(Pin(pin, Pin.OUT), count)


def simulated(cfg, folder):
    """(inputs, leds) backed by files in folder: inputs.bin (written by the simulator), leds.bin."""
    from sy.hardware.simhw import FileInputs, FileStrip
    chips = cfg["reeds"]["chips"]
    path = folder + "/inputs.bin"
    try:
        open(path, "rb").close()
    except OSError:
        f = open(path, "wb")
        f.write(bytearray(chips + 1))
        f.close()
    inputs = FileInputs(path, chips + 1)
    strip = FileStrip(folder + "/leds.bin", cfg["leds"]["count"])
    return inputs, _leds(cfg, strip)
