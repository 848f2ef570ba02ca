"""The simulated board: the real firmware under the MicroPython unix port on a pty (board),
confined to its own flash (sandbox), and the scripted game driver that plays a whole game on it or
on the emulated Pico (scripted), used by the benchmarks, the reliability suite and the tests."""
