"""Run plain test functions under MicroPython (or CPython): the board's modules are tested on both.

    micropython -X heapsize=64k tests/mpy_run.py tests/core/test_rules.py [name-filter]

Every top-level function named test_* in the given file is called; prints one line per failure
and a closing line 'N passed, N failed'. Exit status 1 when anything failed.
"""
import sys
import gc


def main(argv):
    path = argv[1]
    only = argv[2] if len(argv) > 2 else None
    folder, _, filename = path.rpartition("/")
    sys.path.insert(0, folder or ".")
    module = __import__(filename[:-3] if filename.endswith(".py") else filename)
    passed = failed = 0
    for name in sorted(dir(module)):
        if not name.startswith("test_") or (only and only not in name):
            continue
        fn = getattr(module, name)
        if not callable(fn):
            continue
        gc.collect()
        try:
            fn()
            passed += 1
        except Exception as e:  # report and go on: one failure must not hide the others
            failed += 1
            print("FAIL %s: %s %s" % (name, type(e).__name__, e))
            if hasattr(sys, "print_exception"):
                sys.print_exception(e)
            else:
                import traceback
                traceback.print_exc()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
