"""The benchmark script runs end to end on tiny sizes and writes its JSON. Timings are never asserted here."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.benchmarks import QUICK_ROUND_COMMAND, run_benchmark
from tests.helpers.modes import ONE_LINER_MODES

REPO = Path(__file__).resolve().parents[3]


def test_quick_run_writes_json(tmp_path: Path) -> None:
    # The README's own line (QUICK_ROUND_COMMAND), every peer installed included.
    assert QUICK_ROUND_COMMAND in (REPO / "README.md").read_text(encoding="utf-8")
    script, *arguments = QUICK_ROUND_COMMAND.removeprefix(".venv/bin/python benchmarks/").split()
    report, printed = run_benchmark(script, tmp_path, *arguments, timeout=120)
    assert set(report) >= {"meta", "results", "extras", "targets"}
    assert set(report["extras"]) == {"latency", "warm_cache", "peak_memory", "operators"}
    rows = report["results"]
    layouts = ("packed", "inplace", "strided", "padded", "reversed", "broadcast")
    # 2 sizes x 2 dtypes x 6 layouts x 3 modes
    assert len(rows) == 2 * 2 * len(layouts) * 3
    assert {(r["dtype"], r["layout"], r["mode"]) for r in rows} == {
        (d, layout, m) for d in ("float32", "float16") for layout in layouts for m in ONE_LINER_MODES
    }
    for row in rows:
        assert set(row) == {"dtype", "size", "layout", "mode", "seconds", "gbps", "ratios"}
        # A reversed view has no DirectML strides: only the one-liner on NumPy arrays (which copies it) runs.
        on_device = ("kernel", "device_array", "copy_kernel_events", "device_array_events")
        for key in ("np.copyto", "copy_kernel", "end_to_end", *(on_device if row["layout"] != "reversed" else ())):
            assert row["gbps"][key] > 0
        for key in ("kernel/copy_kernel", "device_array_events/copy_kernel_events", "end_to_end/np.copyto"):
            assert key in row["ratios"]
        assert (row["gbps"]["numpy"] is None) == (row["mode"] == "half_away_from_zero")
    # Round in 4 dtypes x 9 modes, then quantize and dequantize of float32 and float16
    assert len(report["extras"]["operators"]) == 4 * 9 + 4
    assert all(o["ratio"] > 0 for o in report["extras"]["operators"])
    assert {t["target"] for t in report["targets"]} == {4, "6/15c", 7, 8, 9, "14a", "14b", "15a", "15b", "15d", "15e"}
    assert report["extras"]["peak_memory"]["correct"] is True
    assert "Targets" in printed


def test_graph_benchmark_quick_run_writes_json(tmp_path: Path) -> None:
    """benchmarks/bench_graph.py: the fused QDQ graph, its nodes one by one, the copy kernel and the peers that
    are installed; it checks itself that fused and separate give the same bytes."""
    rows = run_benchmark("bench_graph.py", tmp_path, "--quick", timeout=180)[0]["rows"]
    engines = {(r["scale"], r["engine"]) for r in rows}
    for scale in ("per-tensor", "per-axis"):
        assert {(scale, e) for e in ("fused", "separate", "copy kernel", "numpy")} <= engines
    kernels = {(r["scale"], r["engine"]): r["kernels"] for r in rows}
    assert kernels[("per-tensor", "fused")] == 1 and kernels[("per-axis", "separate")] == 3
    assert all(r["gbps"] > 0 for r in rows)


def test_scale_benchmark_quick_run_writes_json(tmp_path: Path) -> None:
    """benchmarks/bench_scale.py: Dask on LocalClusters of 1 and 2 worker processes, and sub-devices."""
    report, _ = run_benchmark("bench_scale.py", tmp_path, "--quick")
    assert {(r["workers"], r["engine"]) for r in report["dask"]} == {
        (w, e) for w in (1, 2) for e in ("dml.round", "np.rint blocks", "da.rint")
    }
    assert all(r["gbps"] > 0 for r in report["dask"] + report["sub_devices"])
    assert any(r["engine"].startswith("2 sub-devices") for r in report["sub_devices"])
