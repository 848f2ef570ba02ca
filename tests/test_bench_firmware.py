"""`yard bench firmware`'s in-process figures (host/benchmarks/firmware_mpy.py on the unix port): the
benchmark runs on the product alone, the firmware and host/benchmarks/inprocess.py, never on the
tests' files (nothing of tests/ is compiled beside it)."""
from host.benchmarks.firmware import inprocess_figures
from mpy import needs_unix_port


@needs_unix_port
def test_the_in_process_benchmark_runs_without_the_tests(tmp_path):
    figures = inprocess_figures(str(tmp_path))
    assert not (tmp_path / "lib" / "testkit.mpy").exists()
    assert sorted(p.name for p in (tmp_path / "lib").iterdir()) == ["inprocess.mpy", "sy"]
    assert figures["scan_alloc_bytes"] == 0, figures
    assert figures["place_to_frame_cycles"] <= 2, figures
    game = figures["inprocess_game"]
    assert game["result"] in ("mrx", "detectives") and game["round"] >= 1, figures
