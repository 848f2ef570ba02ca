"""The tests themselves: a test module imports helper modules (tests/mpy.py, tests/yardplay.py...),
never another test module; what two test modules share is written once, in a helper."""
import ast
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def imported_modules(path):
    """The names of the modules a Python file imports, at any depth of its code."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def test_no_test_module_imports_another():
    found = []
    for folder, dirs, files in os.walk(HERE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                for module in imported_modules(path):
                    # (a library's own module named test_*, aiohttp.test_utils, is not one of ours)
                    if module.split(".")[-1].startswith("test_") and (module.startswith("tests.") or "." not in module):
                        found.append("%s imports %s" % (os.path.relpath(path, HERE), module))
    assert found == [], "\n".join(found)


def test_imported_modules_finds_nested_imports(tmp_path):
    path = tmp_path / "case.py"
    path.write_text("import os\n\ndef f():\n    from test_other import helper\n    import tests.test_x as x\n")
    assert list(imported_modules(str(path))) == ["os", "test_other", "tests.test_x"]
