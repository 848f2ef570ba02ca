"""The Europe map format (docs/map-format.md): the test map's module, and every check's error
names its file and line. The map used here is made for the tests; it is not the real board."""
import csv
import filecmp
import os
import shutil
import subprocess
import sys

import pytest

from host.europe.mapformat import MapFormatError, read_map, write_map, load_graph, FILES, PROVENANCE
from sy.europe import graph as europe_graph

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTMAP = os.path.join(ROOT, "tests", "data", "europe_testmap")
NAMES = ("car", "train", "plane")


def csv_connections():
    with open(os.path.join(TESTMAP, "connections.csv")) as f:
        return {(int(r["a"]), int(r["b"]), NAMES.index(r["transport"])) for r in csv.DictReader(f)}


def graph_connections(g):
    out = set()
    for s in range(1, g.stations + 1):
        for t in range(3):
            for n in g.neighbours(s, t):
                assert g.connected(n, s, t)
                out.add((min(s, n), max(s, n), t))
    return out


def test_the_test_module_says_what_the_csv_says():
    g = europe_graph.load("europe_testmap")
    assert g.stations == 30
    assert graph_connections(g) == csv_connections()
    m = read_map(TESTMAP)
    for c, (_x, _y, kind) in m.cities.items():
        assert g.kinds[c] == kind
        for t in range(3):
            assert g.allows(c, t) == (t <= kind)
    assert list(g.ring_cities(0)) == [1, 7, 13, 19, 25]
    assert [g.destination(i) for i in range(3)] == [18, 25, 21]
    assert sorted(g.d_cards) == sorted(m.start_cards)
    assert m.counts()["connections"] == {"car": 51, "train": 14, "plane": 6}


def test_a_graph_straight_from_the_folder_equals_the_module():
    assert graph_connections(load_graph(TESTMAP)) == graph_connections(europe_graph.load("europe_testmap"))


def test_london_is_not_a_europe_map():
    with pytest.raises(ValueError, match="not a Europe map"):
        europe_graph.load("london")


def test_writing_the_map_back_gives_the_same_files(tmp_path):
    write_map(read_map(TESTMAP), str(tmp_path))
    for name in list(FILES) + [PROVENANCE]:
        assert filecmp.cmp(os.path.join(TESTMAP, name), str(tmp_path / name), shallow=False), name


def broken(tmp_path, filename, old, new):
    folder = tmp_path / "map"
    shutil.copytree(TESTMAP, folder)
    path = folder / filename
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return str(folder)


@pytest.mark.parametrize("filename, old, new, where, says", [
    ("cities.csv", "\n3,", "\n3x,", "cities.csv line 4", "not a whole number"),
    ("cities.csv", "\n2,", "\n1,", "cities.csv line 3", "listed twice"),
    ("cities.csv", ",car\n", ",bus\n", "cities.csv line", "not one of car, train, plane"),
    ("cities.csv", "city,x,y,kind", "city,x,y", "cities.csv line 1", "header"),
    ("connections.csv", "1,2,car", "1,2,boat", "connections.csv line 2", "boat"),
    ("connections.csv", "1,2,car", "1,31,car", "connections.csv line 2", "city 31 is not in cities.csv"),
    ("connections.csv", "1,2,car", "1,1,car", "connections.csv line 2", "two different cities"),
    ("connections.csv", "1,7,car", "1,2,car", "connections.csv line 3", "already on line 2"),
    ("connections.csv", "2,8,train", "1,7,train", "connections.csv line", "city 1 is a car city and city 7 a car city"),
    ("connections.csv", "1,2,car", "1,2,car,x", "connections.csv line 2", "4 fields"),
    ("missions.csv", "green,ring,25\n", "", "missions.csv", "green mission has 4 ringed"),
    ("missions.csv", "green,ring,25", "green,ring,1", "missions.csv line 6", "already a green ring"),
    ("missions.csv", "orange,destination,21", "orange,destination,2", "missions.csv", "also one of its start rings"),
    ("missions.csv", "orange,destination,21", "orange,goal,21", "missions.csv line 19", "ring, destination"),
    ("start_cards.csv", "\n10\n", "\n9\n", "start_cards.csv line 4", "listed twice"),
])
def test_errors_name_the_file_and_line(tmp_path, filename, old, new, where, says):
    with pytest.raises(MapFormatError) as e:
        read_map(broken(tmp_path, filename, old, new))
    assert e.value.where.startswith(where), str(e.value)
    assert says in str(e.value)


def test_an_unreachable_island_is_refused(tmp_path):
    folder = broken(tmp_path, "connections.csv", "25,26,car\n", "")
    text = open(os.path.join(folder, "connections.csv")).read()
    for line in ("19,25,car\n", "25,26,car\n"):
        text = text.replace(line, "")
    open(os.path.join(folder, "connections.csv"), "w").write(text)
    with pytest.raises(MapFormatError, match="without any connection: 25"):
        read_map(folder)


def test_a_map_needs_its_provenance(tmp_path):
    folder = tmp_path / "map"
    shutil.copytree(TESTMAP, folder)
    os.remove(folder / PROVENANCE)
    with pytest.raises(MapFormatError, match="PROVENANCE.md: missing"):
        read_map(str(folder))


def test_gen_map_writes_the_module_or_names_the_line(tmp_path):
    out = tmp_path / "mine.py"
    ok = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_map.py"), "--europe", TESTMAP,
                         "--name", "mine", "--out", str(out)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "NAME = 'mine'" in out.read_text() and "'cities': 30" in ok.stdout
    bad = broken(tmp_path, "connections.csv", "2,8,train", "1,7,train")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_map.py"), "--europe", bad,
                        "--out", str(tmp_path / "x.py")], capture_output=True, text=True)
    assert r.returncode == 1
    assert "connections.csv line" in r.stderr and "city 1 is a car city" in r.stderr
    assert not (tmp_path / "x.py").exists()


def test_a_line_into_a_city_it_cannot_leave_is_a_warning(tmp_path):
    # «можно уехать»: the rulebook limits leaving a city, not reaching it: a plane line from plane
    # city 8 into car city 1 can be flown one way
    folder = broken(tmp_path, "connections.csv", "2,8,train", "2,8,train\n1,8,plane")
    m = read_map(folder)
    assert (1, 8, 2) in m.connections
    assert len(m.warnings) == 1 and "city 1 is a car city" in m.warnings[0] and "one way" in m.warnings[0]
    g = load_graph(folder, "oneway")
    assert 1 in g.neighbours(8, 2) and 8 in g.neighbours(1, 2) and not g.allows(1, 2)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_map.py"), "--europe", folder,
                        "--out", str(tmp_path / "x.py")], capture_output=True, text=True)
    assert r.returncode == 0 and "warning" in r.stderr and "city 1 is a car city" in r.stderr


def test_a_city_no_one_could_leave_is_refused(tmp_path):
    # car city 25's two car lines become plane lines from plane cities: it may be reached, never left
    folder = broken(tmp_path, "connections.csv", "19,25,car", "20,25,plane")
    text = open(os.path.join(folder, "connections.csv")).read().replace("25,26,car", "25,27,plane")
    open(os.path.join(folder, "connections.csv"), "w").write(text)
    with pytest.raises(MapFormatError, match="no one could leave"):
        read_map(folder)


def test_the_london_board_loads_nothing_of_europe():
    """The Europe modules are new files: no London module imports them (the board loads only the
    variant it plays), and the London entry point does not name them."""
    firmware = os.path.join(ROOT, "firmware")
    europe = os.path.join(firmware, "sy", "europe")
    package = os.path.join(firmware, "sy", "__init__.py")  # its docstring lists every layer
    for folder, _dirs, files in os.walk(firmware):
        if folder == europe:
            continue
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and not name.startswith("europe"):
                text = open(path).read()
                if path == package:
                    text = text[text.index('"""', 3) + 3:]
                assert "europe" not in text.lower(), path
