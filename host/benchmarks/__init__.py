"""`yard bench KIND`: the figures of the rules core, the firmware (unix port and emulated Pico)
and the reliability suite. host/commands/bench.py lists the kinds; the AI's is host/ai/bench.py."""
