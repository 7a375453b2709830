"""benchmarks/bench_softmax.py runs end to end on a tiny size and writes compare_revisions.py's rows. Timings are
never asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.benchmarks import run_benchmark

pytest.importorskip("onnxruntime")


def test_quick_run_times_each_case_against_the_copy_kernel(tmp_path: Path) -> None:
    report, printed = run_benchmark("bench_softmax.py", tmp_path, "--quick")
    rows = report["results"]
    assert [(row["mode"], row["dtype"]) for row in rows] == [
        ("SOFTMAX", "float32"),
        ("LOG_SOFTMAX", "float32"),
        ("SOFTMAX", "float16"),
    ]
    for row in rows:
        assert row["size"] == "64x1024"
        assert row["seconds"]["kernel"] > 0 and row["seconds"]["copy_kernel"] > 0
    assert rows[0]["seconds"]["end_to_end"] > 0 and rows[0]["seconds"]["onnxruntime"] > 0
    assert "ort/dml" in printed
