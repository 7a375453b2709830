"""benchmarks/bench_binary.py runs end to end on a tiny size and writes its JSON. Timings are never asserted; the
script itself checks that the chain gives the same bytes fused and node by node."""

from __future__ import annotations

from pathlib import Path

from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from tests.helpers.benchmarks import run_benchmark


def test_quick_run_writes_every_operator_and_the_chain(tmp_path: Path) -> None:
    report, _ = run_benchmark("bench_binary.py", tmp_path, "--quick")
    names = [desc.OPERATOR_TYPE.name for desc in ARITHMETIC_OPERATORS]
    rows = report["operators"]
    assert [(r["dtype"], r["operator"]) for r in rows] == [(d, name) for d in ("float32", "int32") for name in names]
    for row in rows:
        assert row["elements"] == 1 << 16
        assert row["kernel_s"] > 0 and row["copy_s"] > 0 and row["dispatch_s"] > 0
    chains = {chain["chain"]: chain for chain in report["chains"]}
    assert sorted(chains) == ["five_ops", "qdq_add_relu6"]
    assert (chains["five_ops"]["dtype"], chains["qdq_add_relu6"]["dtype"]) == ("float32", "int8")
    assert (chains["five_ops"]["kernels_fused"], chains["five_ops"]["kernels_separate"]) == (1, 5)
    assert (chains["qdq_add_relu6"]["kernels_fused"], chains["qdq_add_relu6"]["kernels_separate"]) == (1, 4)
    for chain in chains.values():
        assert chain["fused_s"] > 0 and chain["separate_s"] > 0 and chain["numpy_s"] > 0
