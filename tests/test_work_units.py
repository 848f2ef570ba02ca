"""How `make test` hands out its work (tests/conftest.py): every file and test function named in
LONGEST_FIRST and SPREAD exists (a renamed one would silently fall to the back of the queue), and a
SPREAD file's tests are split by function, keeping a function's parameters together."""
import ast
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def _conftest():
    with open(os.path.join(HERE, "conftest.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("LONGEST_FIRST", "SPREAD"):
                names[node.targets[0].id] = ast.literal_eval(node.value)
    return names


def _functions(path):
    with open(path, encoding="utf-8") as f:
        return {n.name for n in ast.parse(f.read()).body if isinstance(n, ast.FunctionDef)}


def test_every_named_unit_exists():
    names = _conftest()
    for entry in names["LONGEST_FIRST"] + names["SPREAD"]:
        path, _, func = entry.partition("::")
        assert os.path.isfile(os.path.join(HERE, path)), entry
        if func:
            assert path in names["SPREAD"], entry  # a function is a unit of its own only in a SPREAD file
            assert func in _functions(os.path.join(HERE, path)), entry
    assert len(set(names["LONGEST_FIRST"])) == len(names["LONGEST_FIRST"])


def test_a_spread_file_is_split_by_function():
    import conftest
    spread = conftest.SPREAD[0]
    assert conftest.work_unit("tests/%s::test_a[x-1]" % spread) == "tests/%s::test_a" % spread
    assert conftest.work_unit("tests/%s::test_a" % spread) == "tests/%s::test_a" % spread
    assert conftest.work_unit("tests/test_web.py::test_a[x]") == "tests/test_web.py"
