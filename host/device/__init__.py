"""Tools for a physical board: compile (mpy_build), flash, build a UF2, calibrate the assembly, self-test, monitor the serial line."""
