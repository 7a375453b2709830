"""LOG_SUM_EXP (reduce_log_sum_exp.h: the maximum, then the terms exp(x - maximum) summed in the vector walks' lane
order) against float64, within docs/operators/reduction.md's bound: groups whose maximum rises all along (increasing,
and in steps of 32.5), that start at -inf, and of large magnitudes; and the same bits whichever walk reads the group
(LANES_WALK on a contiguous one, SCALAR_WALK through strides) and in a graph, fused with the node before it or not."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import tensor
from tests.device.reduction.cases import F, T, mismatch
from tests.helpers.object_model import run_graph
from tests.helpers.structured_runs import run_structured


def _groups() -> np.ndarray:
    n = 4096
    rng = np.random.default_rng(23)
    rows = [
        np.linspace(-500.0, 500.0, n),  # the maximum last
        np.repeat(np.arange(n // 8) * 32.5, 8) + rng.standard_normal(n) * 0.01,  # most terms underflow to 0
        np.concatenate([[-np.inf] * 7, rng.standard_normal(n - 7) * 40]),  # -inf terms (0) first
        rng.standard_normal(n) * 1e30,  # terms of every size, most underflowing
        np.linspace(300.0, -300.0, n),  # decreasing: no move
    ]
    return np.stack(rows).astype(np.float32)


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_log_sum_exp_stays_within_the_bound(device: Any, data_type: Any) -> None:
    x = _groups()
    if data_type == T.FLOAT16:
        x = np.clip(x, -60000, 60000).astype(np.float16)
    desc = dml.ReduceOperatorDesc(
        function=F.LOG_SUM_EXP,
        input_tensor=tensor(data_type, x.shape),
        output_tensor=tensor(data_type, (x.shape[0], 1)),
        axes=(1,),
    )
    desc.validate_on(device.feature_level)
    got = run_structured(device, desc, {"input_tensor": x}, offsets={"input_tensor": 32})["output_tensor"]
    problem = mismatch(F.LOG_SUM_EXP, x, (1,), got)
    assert problem is None, problem


@pytest.mark.one_profile
def test_every_walk_and_a_fused_graph_give_the_same_bits(device: Any) -> None:
    """The same values read packed (LANES_WALK), through a transpose's strides (SCALAR_WALK) and as a graph's
    REDUCE of x * 2, fused into one kernel (anchored.py's walk, SCALAR_WALK) and node by node: one set of bits."""
    x = np.random.default_rng(29).standard_normal((5, 37)).astype(np.float32) * 20
    results = {}
    for walk, strides in (("1", None), ("0", (1, 5))):
        desc = dml.ReduceOperatorDesc(
            function=F.LOG_SUM_EXP,
            input_tensor=tensor(T.FLOAT32, x.shape, strides),
            output_tensor=tensor(T.FLOAT32, (5, 1)),
            axes=(1,),
        )
        assert dict(desc.lower().kernel.defines)["WALK"] == walk
        results[walk] = run_structured(device, desc, {"input_tensor": x})["output_tensor"]
    assert results["1"].tobytes() == results["0"].tobytes()
    assert mismatch(F.LOG_SUM_EXP, x, (1,), results["1"]) is None
    g = dml.Graph(device)
    source = g.input(x.shape, np.float32)
    desc = g.desc_for([dml.graph.reduce(source * 2.0, "LOG_SUM_EXP", [1])])
    (fused,), compiled = run_graph(device, desc, [x / 2])  # x / 2 * 2 is x exactly
    (alone,), _ = run_graph(device, desc, [x / 2], fuse=False)
    assert compiled.kernel_count == 1
    assert fused.tobytes() == alone.tobytes() == results["1"].tobytes()
