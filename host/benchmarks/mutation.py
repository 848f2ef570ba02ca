"""`yard bench mutation`: plant bugs in the board's modules, one at a time, and count the share the
fast tests that reach each module catch (docs/testing.md).

The planting is cosmic-ray's (https://cosmic-ray.readthedocs.io, 8.x): it writes a mutant into the
module's file on disk, runs a test command, and puts the file back. That is what this layout needs:
the MicroPython tests compile firmware/ from source with mpy-cross for every run (tests/mpy.py), so
a mutant reaches the compiled .mpy too. (mutmut 3 instead rewrites every function into CPython
trampolines that call back into mutmut at run time: MicroPython cannot import those files.)

Everything happens in a copy of the tree under /tmp, never in the checkout: per module a session
database (cosmic-ray init), a seeded sample of at most --max-per-module mutants (the rest marked
skipped in the database, as cosmic-ray's own filters do), a baseline run of the tests on the
unmutated copy (it must pass), then cosmic-ray exec. The test runs share a folder of compiled files
keyed by content (YARD_MPY_CACHE, host/device/mpy_build.py), so a run compiles only the mutated file.

A survivor listed in docs/testing.md as an equivalent mutant (no test can tell it from the
original) is shown as such and counts as caught in the `adjusted` score only.
"""
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from host import ROOT
from host.benchmarks.mutation_check import STAGES
from host.device.mpy_build import tool
from host.errors import UserError
from host.i18n import _

# the fast tests that reach each module of the board: host/benchmarks/mutation_check.py (STAGES)
# by default: the rules' core, the store, the scan's two hot modules, and every module of the game's
# flow (play/) and of the link (link/) (tests/test_bench_mutation.py holds that the list is whole)
DEFAULT_MODULES = ("rules/game.py", "storage/store.py", "hardware/debounce.py", "hardware/leds.py",
                   "play/board.py", "play/newgame.py", "play/mrxturn.py", "play/declare.py", "play/undo.py",
                   "play/status.py", "play/report.py", "play/verify.py", "play/deadreed.py", "play/blind.py",
                   "play/rhythm.py", "play/chainpause.py",
                   "link/proto.py", "link/handlers.py", "link/fields.py", "link/lines.py", "link/service.py",
                   "link/auth.py")
PYTEST = ("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0")

# what the copy leaves out: version control, installed packages, outputs
_IGNORE = shutil.ignore_patterns(".git", "node_modules", ".venv", "build", "dist", "test-artifacts", "__pycache__",
                                 "*.egg-info", ".pytest_cache", ".hypothesis", ".yard", "*.pyc", "*.mpy")

_EQUIVALENT = re.compile(r"^- `([^`]+)`: `(.+?)` → `(.+?)`: (.+)$")


def add_arguments(parser):
    parser.add_argument("--modules", nargs="+", metavar="PATH", default=list(DEFAULT_MODULES),
                        help=_("modules below firmware/sy (default: %(modules)s)") % {"modules": " ".join(DEFAULT_MODULES)})
    parser.add_argument("--max-per-module", type=int, default=150, metavar="N",
                        help=_("test at most N mutants of each module, a seeded sample (default 150)"))
    parser.add_argument("--seed", type=int, default=19, help=_("the sample's seed (default 19)"))
    parser.add_argument("--tests", nargs="+", metavar="FILE",
                        help=_("pytest files to run for every module (default: the module's own stages, "
                             "host/benchmarks/mutation_check.py)"))
    parser.add_argument("--test-command",
                        help=_("a whole test command instead (run in the copy's top folder; exit status 0: the mutant survived)"))
    parser.add_argument("--tree", default=ROOT, help=_("the checkout to copy and mutate (default: this one)"))
    parser.add_argument("--keep", action="store_true", help=_("keep the copy and the session databases"))


def run(args):
    report = mutation_run(args.tree, args.modules, args.max_per_module, args.seed, tests=args.tests,
                          test_command=args.test_command, keep=args.keep,
                          out=sys.stderr if args.json else sys.stdout)  # --json: stdout is the JSON only
    figures = {}
    for m in report["modules"]:
        key = m["module"]
        for name in ("tested", "killed", "survived", "incompetent", "equivalent", "score", "adjusted",
                     "mutants", "seconds"):
            figures["%s %s" % (key, name)] = m[name]
        if args.json:
            figures[key + " survivors"] = m["survivors"]
    return figures


def _check_args(tree, modules, max_per_module, own_tests):
    if not isinstance(max_per_module, int) or max_per_module < 1:
        raise UserError(_("--max-per-module must be a whole number of 1 or more"))
    if not os.path.isdir(os.path.join(tree, "firmware", "sy")):
        raise UserError(_("%(tree)s has no firmware/sy: not a checkout of this project") % {"tree": tree})
    for m in modules:
        if not m.endswith(".py") or m.startswith("/") or ".." in m.split("/"):
            raise UserError(_("%(module)r: name a module as its path below firmware/sy, e.g. hardware/debounce.py")
                            % {"module": m})
        if not os.path.isfile(os.path.join(tree, "firmware", "sy", m)):
            raise UserError(_("%(module)r: no such module in %(folder)s") % {"module": m,
                                                                             "folder": os.path.join(tree, "firmware", "sy")})
    if len(set(modules)) != len(modules):
        raise UserError(_("a module is named twice in --modules"))
    for m in modules:
        if not own_tests and m not in STAGES:
            raise UserError(_("no fast tests are known for %(module)s: name them with --tests") % {"module": m})


def _env(copy, work):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join((copy, os.path.join(copy, "firmware")))
    env["YARD_MPY_CACHE"] = os.path.join(work, "mpy-cache")
    env["SY_TEST_TMP"] = os.path.join(work, "scratch")  # the tests' own files (tests/testkit.py scratch())
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def equivalents(tree):
    """{(module, original line, mutated line): reason} from docs/testing.md's list of equivalent mutants."""
    out = {}
    path = os.path.join(tree, "docs", "testing.md")
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = _EQUIVALENT.match(line.rstrip("\n"))
            if m:
                out[(m.group(1), m.group(2).strip(), m.group(3).strip())] = m.group(4)
    return out


def _code(line):
    """A line of code stripped, without its comment (this project's style: two spaces, then #)."""
    cut = line.find("  # ")
    return (line[:cut] if cut >= 0 else line).strip()


def mutated_lines(diff):
    """(original line, mutated line) of a one-line mutant's diff, stripped and without a comment;
    None if it is not one line."""
    old = [ln[1:] for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    new = [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    if len(old) != 1 or len(new) != 1:
        return None
    return _code(old[0]), _code(new[0])


def sample(items, n, seed):
    """At most n of the work items, chosen by a seeded draw from them in a fixed order (the
    database's job ids are random): the same source, n and seed give the same mutants."""
    def key(item):
        m = item.mutations[0]
        return (str(m.module_path), m.operator_name, m.occurrence)
    items = sorted(items, key=key)
    if len(items) <= n:
        return items
    return sorted(random.Random(seed).sample(items, n), key=key)


def _sample_session(session, n, seed):
    """Mark every work item but a sample of n skipped; (mutants in all, the sampled ones)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult
    with use_db(session, mode=WorkDB.Mode.open) as db:
        items = list(db.pending_work_items)
        keep = {i.job_id for i in sample(items, n, seed)}
        for item in items:
            if item.job_id not in keep:
                db.set_result(item.job_id, WorkResult(output="not in the sample (yard bench mutation --max-per-module)",
                                                      worker_outcome=WorkerOutcome.SKIPPED))
    return len(items), len(keep)


def _results(session):
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome
    with use_db(session, mode=WorkDB.Mode.open) as db:
        done = list(db.completed_work_items)
    return [(item, result) for item, result in done if result.worker_outcome != WorkerOutcome.SKIPPED]


def _run_checked(argv, env, cwd, what):
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise UserError(_("%(what)s failed (exit %(status)d):") % {"what": what, "status": proc.returncode} + "\n"
                        + (proc.stdout + proc.stderr)[-4000:])
    return proc


def mutation_run(tree, modules, max_per_module=150, seed=19, tests=None, test_command=None, keep=False,
                 out=sys.stdout):
    """Run the mutants of each module; a report {"modules": [per module: counts, scores, survivors]}."""
    tree = os.path.abspath(tree)
    _check_args(tree, modules, max_per_module, bool(tests or test_command))
    cosmic_ray = tool("cosmic-ray")  # on PATH or beside this Python, as every tool yard runs
    work = tempfile.mkdtemp(prefix="yard-mutation-")
    copy = os.path.join(work, "tree")
    try:
        shutil.copytree(tree, copy, ignore=_IGNORE, symlinks=True)
        env = _env(copy, work)
        known = equivalents(tree)
        report = {"tree": tree, "seed": seed, "max_per_module": max_per_module, "modules": []}
        if out:
            out.write("mutating a copy of %s in %s (cosmic-ray; at most %d mutants a module, seed %d)\n"
                      % (tree, copy, max_per_module, seed))
            out.flush()
        for module in modules:
            report["modules"].append(_one_module(cosmic_ray, copy, work, env, module, max_per_module, seed,
                                                 tests, test_command, known, out))
        return report
    finally:
        if keep:
            if out:
                out.write("kept %s\n" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


def _command(module, tests, test_command):
    if test_command:
        return test_command
    if tests:
        return shlex.join((sys.executable, *PYTEST, *tests))
    return shlex.join((sys.executable, "-m", "host.benchmarks.mutation_check", module))


def _one_module(cosmic_ray, copy, work, env, module, max_per_module, seed, tests, test_command, known, out):
    path = "firmware/sy/" + module
    command = _command(module, tests, test_command)
    t0 = time.monotonic()
    # the baseline: the tests must pass on the unmutated copy, and its time sets the mutants' timeout
    proc = subprocess.run(shlex.split(command), env=env, cwd=copy, capture_output=True, text=True)
    if proc.returncode != 0:
        raise UserError(_("the tests fail without any mutant (%(command)s):") % {"command": command} + "\n"
                        + (proc.stdout + proc.stderr)[-4000:])
    baseline = time.monotonic() - t0
    timeout = max(30.0, 4 * baseline)
    name = module.replace("/", "_")[:-3]
    config = os.path.join(work, name + ".toml")
    session = os.path.join(work, name + ".sqlite")
    with open(config, "w", encoding="utf-8") as f:
        f.write('[cosmic-ray]\nmodule-path = %s\ntimeout = %.1f\nexcluded-modules = []\ntest-command = %s\n\n'
                '[cosmic-ray.distributor]\nname = "local"\n' % (json.dumps(path), timeout, json.dumps(command)))
    _run_checked([cosmic_ray, "init", config, session], env, copy, _("cosmic-ray init for %(module)s") % {"module": module})
    total, picked = _sample_session(session, max_per_module, seed)
    if out:
        out.write("%s: %d of %d mutants, baseline %.1f s, timeout %.0f s: %s\n"
                  % (module, picked, total, baseline, timeout, command))
        out.flush()
    _run_checked([cosmic_ray, "exec", config, session], env, copy, _("cosmic-ray exec for %(module)s") % {"module": module})
    killed = survived = incompetent = equivalent = 0
    survivors = []
    for item, result in _results(session):
        m = item.mutations[0]
        if result.test_outcome is None or result.test_outcome == "incompetent":
            incompetent += 1  # the mutant could not be made or run: neither caught nor missed
            continue
        if result.test_outcome == "killed":
            killed += 1
            continue
        survived += 1
        lines = mutated_lines(result.diff or "")
        reason = known.get((module, lines[0], lines[1])) if lines else None
        if reason:
            equivalent += 1
        survivors.append({"where": "%s:%d" % (module, m.start_pos[0]), "operator": m.operator_name,
                          "occurrence": m.occurrence, "line": lines[0] if lines else None,
                          "mutant": lines[1] if lines else (result.diff or "").strip(),
                          "equivalent": reason})
    survivors.sort(key=lambda s: (int(s["where"].rsplit(":", 1)[1]), s["operator"], s["occurrence"]))
    tested = killed + survived
    entry = {"module": module, "mutants": total, "tested": tested, "killed": killed, "survived": survived,
             "incompetent": incompetent, "equivalent": equivalent,
             "score": round(100.0 * killed / tested, 1) if tested else None,
             "adjusted": round(100.0 * (killed + equivalent) / tested, 1) if tested else None,
             "seconds": round(time.monotonic() - t0, 1), "survivors": survivors}
    if out:
        out.write("%s: killed %d of %d (%s %%; %s %% with %d equivalent), %d incompetent, %.0f s\n"
                  % (module, killed, tested, entry["score"], entry["adjusted"], equivalent, incompetent,
                     entry["seconds"]))
        for s in survivors:
            out.write("  survived %-26s %-40s %s  ->  %s%s\n" % (
                s["where"], s["operator"].replace("core/", ""), s["line"], s["mutant"],
                "  (equivalent: %s)" % s["equivalent"] if s["equivalent"] else ""))
        out.flush()
    return entry
