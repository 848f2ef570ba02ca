"""The board's hardware: board.json (boardconfig), the real or simulated backends (backends,
simhw), the reed chain (reeds), the LEDs (leds, ledsfast, ledspio), debounce."""
