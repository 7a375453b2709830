"""benchmarks/bench_gemm.py runs end to end on tiny shapes and writes its JSON. Timings are never asserted; the script
checks NumPy's and onnxruntime's results against float64 NumPy's before timing them, and reports dmlpy's distance
from it over the bound of docs/operators/gemm.md."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.benchmarks import run_benchmark


def test_quick_run_writes_a_row_per_case(tmp_path: Path) -> None:
    report, _ = run_benchmark("bench_gemm.py", tmp_path, "--quick")
    rows = report["rows"]
    assert [row["shape_mkn"] for row in rows] == [[64, 64, 64], [16, 48, 64]]
    for row in rows:
        m, k, n = row["shape_mkn"]
        assert row["kernel_s"] > 0 and row["numpy_s"] > 0
        assert row["kernel_gflops"] == 2 * m * n * k / row["kernel_s"] / 1e9
        assert row["error_over_allowed"] <= 1, row
