"""benchmarks/bench_movement.py runs end to end on a tiny size and writes its JSON. Timings are never asserted; the
script itself checks each case's output against NumPy's (and onnxruntime's, where installed) before timing it."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.benchmarks import run_benchmark

CASES = [
    "SLICE rows ::2",
    "SLICE1 W reversed",
    "JOIN 2 along C",
    "JOIN 2 along W",
    "SPLIT 2 along C",
    "PADDING CONSTANT",
    "PADDING REFLECTION",
    "TILE x2 along C",
    "DEPTH_TO_SPACE 2",
]


def test_quick_run_writes_a_row_per_movement_case(tmp_path: Path) -> None:
    report, _ = run_benchmark("bench_movement.py", tmp_path, "--quick")
    assert report["shape"] == [1, 16, 64, 64]
    rows = report["rows"]
    assert [row["case"] for row in rows] == CASES
    by_case = {row["case"]: row for row in rows}
    # Bytes read (the input elements the output holds) plus written, 4 a FLOAT32 element: 64K elements out,
    # half of them read by SLICE (every second row) and TILE (a tiled input counts once).
    assert by_case["SLICE rows ::2"]["bytes_moved"] == 4 * (2 << 15)
    assert by_case["TILE x2 along C"]["bytes_moved"] == 4 * (3 << 15)
    assert by_case["PADDING CONSTANT"]["bytes_moved"] == 4 * (16 * 62 * 62 + (1 << 16))
    for row in rows:
        assert row["kernel_s"] > 0 and row["copy_s"] > 0 and row["dispatch_s"] > 0 and row["numpy_s"] > 0
