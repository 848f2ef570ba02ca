"""The rules core's test suite, run again under the MicroPython unix port with a small heap: 80 KB.
It passed at 64 KB while the refusal sentences were lines of a file read one at a time; written
where they are raised (interned with their modules' code) it needs 72 KB on this 64-bit port
(docs/memory.md: the Pico is the reference)."""
import os

from mpy import ROOT, run_plain_tests


def test_rules_core_under_micropython_small_heap():
    run_plain_tests(os.path.join(ROOT, "tests", "core", "test_rules_core.py"), "80k")
