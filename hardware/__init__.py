"""The board's hardware tools, each runnable as `python -m hardware.<tool>` (hardware/README.md)."""
import importlib.util


def missing_extra(tool, *modules):
    """The sentence that tells a maker what to install when one of `modules` (the project's
    `hardware` extra, which `make demo` does not install) is absent; None when all are there.
    A tool says it and exits instead of a traceback halfway through its work."""
    absent = [m for m in modules if importlib.util.find_spec(m) is None]
    if not absent:
        return None
    return ("python -m hardware.%s needs %s: pip install -e '.[hardware]' (make setup installs it)"
            % (tool, " and ".join(absent)))
