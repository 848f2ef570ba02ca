"""The generated map module matches data/london/*.csv exactly."""
import csv
import json
import os
import subprocess
import sys

from sy.rules import mapgraph

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data", "london")
NAMES = ("taxi", "bus", "underground", "ferry")


def csv_edges():
    with open(os.path.join(DATA, "edges.csv")) as f:
        return {(int(r["a"]), int(r["b"]), NAMES.index(r["transport"])) for r in csv.DictReader(f)}


def graph_edges(graph):
    out = set()
    for s in range(1, graph.stations + 1):
        for t in range(4):
            for n in graph.neighbours(s, t):
                out.add((min(s, n), max(s, n), t))
                assert graph.connected(n, s, t), "adjacency is not symmetric at %d-%d" % (s, n)
    return out


def test_generated_module_is_up_to_date():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_map.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_london_matches_csv():
    g = mapgraph.load("london")
    edges = csv_edges()
    assert graph_edges(g) == edges
    assert len(edges) == 467
    assert [sum(1 for e in edges if e[2] == t) for t in range(4)] == [345, 99, 20, 3]
    with open(os.path.join(DATA, "start_cards.csv")) as f:
        cards = list(csv.DictReader(f))
    assert sorted(g.d_cards) == sorted(int(r["station"]) for r in cards if r["side"] == "D")
    assert sorted(g.x_cards) == sorted(int(r["station"]) for r in cards if r["side"] == "X")
    with open(os.path.join(DATA, "stations.csv")) as f:
        assert g.stations == len(list(csv.DictReader(f))) == 199


def test_1983_edition_adds_only_13_14_taxi():
    assert graph_edges(mapgraph.load("london1983")) - csv_edges() == {(13, 14, 0)}
    assert not mapgraph.load("london").connected(13, 14, 0)
    assert mapgraph.load("london1983").connected(14, 13, 0)


def test_map_data_fits_2kb():
    from sy.maps import london
    assert len(london.ADJ) + len(london.START) + len(london.COUNTS) + len(london.D_CARDS) + len(london.X_CARDS) <= 2048


def test_bench_rules_prints_the_figures():
    p = subprocess.run([sys.executable, "-m", "host", "bench", "rules", "--json", "--seconds", "0.5"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    figures = json.loads(p.stdout)
    for key in ("map_bytes", "mpy_state_heap_bytes", "mpy_legal_all_us", "mpy_candidates_us", "cpy_playouts_per_s"):
        assert figures[key] > 0, key
    assert figures["map_bytes"] <= 2048
    assert figures["mpy_state_heap_bytes"] <= 6 * 1024  # heap is deterministic: a size target, not a timing
