"""benchmarks/bench_math.py runs end to end on a tiny size and writes its JSON. Timings are never asserted; the
script itself checks that each chain gives the same bytes fused and node by node."""

from __future__ import annotations

from pathlib import Path

from dmlpy.ops.element_wise_math import MATH_OPERATORS
from tests.helpers.benchmarks import run_benchmark


def test_quick_run_writes_every_operator_and_both_chains(tmp_path: Path) -> None:
    report, _ = run_benchmark("bench_math.py", tmp_path, "--quick")
    names = [desc.OPERATOR_TYPE.name for desc in MATH_OPERATORS]
    rows = report["operators"]
    assert [(r["dtype"], r["operator"]) for r in rows] == [(d, name) for d in ("float32", "float16") for name in names]
    for row in rows:
        assert row["elements"] == 1 << 16
        assert row["kernel_s"] > 0 and row["copy_s"] > 0 and row["dispatch_s"] > 0
        assert (row["numpy_s"] is None) == (row["operator"] == "ELEMENT_WISE_ERF")  # NumPy has no erf
    chains = {r["chain"]: r for r in report["chains"]}
    assert sorted(chains) == ["qdq_exp", "sqrt_round"]
    assert [chains["qdq_exp"]["dtype"], chains["sqrt_round"]["dtype"]] == ["int8", "float32"]
    for chain in chains.values():
        assert (chain["kernels_fused"], chain["kernels_separate"]) == (1, 3)
        assert chain["fused_s"] > 0 and chain["separate_s"] > 0 and chain["numpy_s"] > 0
    assert report["meta"]["launch_profile"] in ("cpu", "gpu")
