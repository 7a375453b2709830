"""benchmarks/bench_operators.py runs end to end on a tiny size and writes its JSON: a row for every operator of
the table that no other benchmark measures, and those others named. Timings are never asserted."""

from __future__ import annotations

from pathlib import Path

from dmlpy.ops import OPERATORS
from tests.helpers.benchmarks import run_benchmark


def test_quick_run_measures_every_operator_the_other_benchmarks_leave_out(tmp_path: Path) -> None:
    report, _ = run_benchmark("bench_operators.py", tmp_path, "--quick")
    rows = report["operators"]
    measured = {row["operator"] for row in rows}
    elsewhere = set(report["elsewhere"])
    table = {str(desc.OPERATOR_TYPE.c_name) for desc in OPERATORS.values()}
    assert measured | elsewhere == table and not measured & elsewhere
    casts = [row["types"] for row in rows if row["operator"] == "DML_OPERATOR_CAST"]
    assert casts == [
        "float32 -> int32",
        "int32 -> float32",
        "float32 -> float16",
        "float16 -> float32",
        "int8 -> float32",
        "float32 -> int8",
    ]
    by_operator = {(row["operator"], row["types"]) for row in rows}
    assert ("DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN", "int32, int32 -> uint8") in by_operator
    assert ("DML_OPERATOR_ELEMENT_WISE_IF", "uint8, int32, int32 -> int32") in by_operator
    assert ("DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT", "uint32, uint32 -> uint32") in by_operator
    for row in rows:
        assert row["elements"] == 1 << 16
        assert row["kernel_s"] > 0 and row["copy_s"] > 0 and row["in_cache_s"] > 0
