"""The shape of the code: no import cycles in firmware/ (the board's package) or host/.

Computed from the source: every `import` and `from ... import`, at any depth of a module's code
(an import inside a function is a dependency too, only a later one). `from sy import x` is an
import of the module sy.x when there is one, else of the package sy."""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREES = (("firmware", ""), ("host", "host"))  # (folder, the dotted name of its top)


def module_names(folder, prefix):
    """{dotted module name: path} of the .py files under folder (a package's name for __init__)."""
    out = {}
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "node_modules") and not d.startswith("."))
        rel = os.path.relpath(here, folder)
        parts = [] if rel == "." else rel.split(os.sep)
        for name in files:
            if not name.endswith(".py"):
                continue
            stem = name[:-3]
            dotted = ([prefix] if prefix else []) + parts + ([] if stem == "__init__" else [stem])
            if dotted:
                out[".".join(dotted)] = os.path.join(here, name)
    return out


def imports_of(path, module, known):
    """The known modules the file at path (module `module`) imports, at any depth of its code."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = os.path.basename(path) == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                sub = base + "." + alias.name if base else alias.name
                if sub in known:
                    found.add(sub)
                elif base in known:
                    found.add(base)
    found.discard(module)
    return found


def import_graph(trees=TREES):
    known = {}
    for folder, prefix in trees:
        known.update(module_names(os.path.join(ROOT, folder), prefix))
    return {m: imports_of(p, m, known) for m, p in known.items()}


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_graph_sees_the_board_and_the_host():
    graph = import_graph()
    assert "main" in graph and "host.commands.cli" in graph
    assert any(m.startswith("sy.") for m in graph)
    assert any(m.startswith("sy.") for m in graph["main"])  # main.py's import inside main()


def test_no_import_cycles_in_firmware_or_host():
    found = cycles(import_graph())
    assert found == [], "import cycles: %s" % found


def _tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return import_graph(((str(tmp_path), ""),))


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    graph = _tree(tmp_path, {
        "pk/__init__.py": "",
        "pk/a.py": "from pk import b\n",
        "pk/b.py": "def f():\n    from pk import a\n    return a\n",
        "pk/c.py": "import pk.a\n",
    })
    assert graph["pk.a"] == {"pk.b"} and graph["pk.b"] == {"pk.a"} and graph["pk.c"] == {"pk.a"}
    assert cycles(graph) == [["pk.a", "pk.b"]]


def test_names_from_a_package_and_relative_imports_resolve(tmp_path):
    graph = _tree(tmp_path, {
        "pk/__init__.py": "def forget(name):\n    pass\n",
        "pk/sub/__init__.py": "",
        "pk/sub/x.py": "from pk import forget\nfrom . import y\nfrom ..sub.y import Y\n",
        "pk/sub/y.py": "Y = 1\n",
    })
    assert graph["pk.sub.x"] == {"pk", "pk.sub.y"}
    assert cycles(graph) == []
