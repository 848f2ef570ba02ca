"""The reliability suite: protocol fuzzing, power cuts, sensor faults, link loss,
secrecy and LED power, each against the real firmware on the MicroPython unix port (SimBoard)
and the real host protocol client (BoardLink). tests/test_reliability.py runs it at small
counts; `yard bench reliability` at any counts."""
