"""benchmarks/bench_reduce.py runs end to end on a tiny size and writes its JSON. Timings are never asserted; the
script itself checks NumPy's and onnxruntime's results (where installed) against float64 NumPy's before timing them,
and reports dmlpy's distance from it."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.benchmarks import run_benchmark

CASES = [
    "SUM innermost",
    "SUM outer",
    "AVERAGE innermost",
    "MAX innermost",
    "ARGMAX innermost",
    "LOG_SUM_EXP innermost",
    "L2 both axes",
    "SUM innermost FLOAT16",
]


def test_quick_run_writes_a_row_per_reduction_case(tmp_path: Path) -> None:
    report, _ = run_benchmark("bench_reduce.py", tmp_path, "--quick")
    assert report["shape"] == [256, 256]
    rows = report["rows"]
    assert [row["case"] for row in rows] == CASES
    by_case = {row["case"]: row for row in rows}
    # The input's bytes, 4 a FLOAT32 element and 2 a FLOAT16 one; one group per kept row or column, one for L2.
    assert by_case["SUM innermost"]["input_bytes"] == 4 * 256 * 256
    assert by_case["SUM innermost FLOAT16"]["input_bytes"] == 2 * 256 * 256
    assert by_case["SUM outer"]["groups"] == 256 and by_case["L2 both axes"]["groups"] == 1
    for row in rows:
        assert row["kernel_s"] > 0 and row["read_s"] > 0 and row["copy_s"] > 0 and row["numpy_s"] > 0
        assert row["read_over_kernel"] == row["read_s"] / row["kernel_s"]
        assert row["error_over_allowed"] <= 1, row  # dmlpy's result, within the tolerance at this size
