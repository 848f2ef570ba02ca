"""Tools for a physical board: compile the firmware (mpy_build), flash it, build a UF2, calibrate
an assembled board, self-test it, monitor its serial line."""
