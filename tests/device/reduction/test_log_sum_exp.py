"""LOG_SUM_EXP in one pass (reduce.cl's log_sum_exp: a reference moved up by more than RESCALE_GAP at a time, the sum
scaled with it) against float64, within docs/operators/reduction.md's bound: groups whose maximum rises through
many moves (increasing, and in steps just over the gap), that start at -inf, and of large magnitudes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import tensor
from tests.device.reduction.cases import F, T, mismatch
from tests.helpers.structured_runs import run_structured


def _groups() -> np.ndarray:
    n = 4096
    rng = np.random.default_rng(23)
    rows = [
        np.linspace(-500.0, 500.0, n),  # ~31 moves, every term past the last move within the gap
        np.repeat(np.arange(n // 8) * 32.5, 8) + rng.standard_normal(n) * 0.01,  # a move every eight elements
        np.concatenate([[-np.inf] * 7, rng.standard_normal(n - 7) * 40]),  # a -inf reference first
        rng.standard_normal(n) * 1e30,  # terms of every size, most underflowing
        np.linspace(300.0, -300.0, n),  # decreasing: no move
    ]
    return np.stack(rows).astype(np.float32)


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_log_sum_exp_in_one_pass_stays_within_the_bound(device: Any, data_type: Any) -> None:
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
