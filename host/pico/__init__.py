"""The emulated Raspberry Pi Pico (rp2040js) the board's firmware is tested and measured on."""
