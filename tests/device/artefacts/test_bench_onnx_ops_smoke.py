"""benchmarks/bench_onnx_ops.py runs end to end on a tiny size and writes its JSON. Timings are never asserted; the
script itself stops where an exact operator's result differs from onnxruntime's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.benchmarks import run_benchmark

pytest.importorskip("onnxruntime")

MODELS = [
    *("Relu", "Abs", "Round", "Ceil", "Add", "Mul", "Max", "Div", "Cast", "QuantizeLinear", "Sqrt"),
    *("Exp", "Log", "Tanh", "Sigmoid", "Erf", "Softmax", "GELU chain", "Round 1K"),
]


def test_quick_run_measures_every_model_against_onnxruntime(tmp_path: Path) -> None:
    report, printed = run_benchmark("bench_onnx_ops.py", tmp_path, "--quick")
    rows = report["rows"]
    assert [row["model"] for row in rows] == MODELS
    for row in rows:
        assert row["elements"] == (1024 if row["model"] == "Round 1K" else 1 << 16)
        assert row["onnxruntime_s"] > 0 and row["dmlpy_s"] > 0
        assert row["ratio"] == pytest.approx(row["onnxruntime_s"] / row["dmlpy_s"])
        # The chain fuses into one kernel, as each one-node model is one.
        assert row["kernels"] == 1
        # Float results within a few float32 roundings of onnxruntime's (relative to the largest result).
        assert 0 <= row["relative_difference"] < 1e-5
    exact = {"Relu", "Abs", "Round", "Ceil", "Add", "Mul", "Max", "Div", "Cast", "QuantizeLinear", "Sqrt", "Round 1K"}
    assert all(row["relative_difference"] == 0 for row in rows if row["model"] in exact)
    assert "GELU chain" in printed and report["meta"][0]["size"] == "64K"
