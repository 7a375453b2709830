"""gemm.cl's integer tiles (opencl/gemm_pairs.h) at pairs_cases.py's shapes, exact against NumPy: several blocks of
K with an odd last one, partial row and column tiles, A column-major, the operands at their extremes, and a sum past
2^31 (INT32 wraps). The "gpu" profile runs its own tiles on the same cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.matrix.pairs_cases import extreme_case, random_case
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType


def _check(device: Any, case: Any) -> None:
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    assert np.array_equal(got, case.expected.astype(np.int32))


@pytest.mark.parametrize("a_type", [T.UINT8, T.INT8], ids=lambda t: t.name)
@pytest.mark.parametrize("a_by_columns", [False, True], ids=["rows", "columns"])
def test_blocks_tiles_and_steps(device: Any, a_type: Any, a_by_columns: bool) -> None:
    """M 70 (a full 64-row tile and 6 rows), N 35 (a 32-column tile and 3), K 301 (128 + 128 + 45)."""
    _check(device, random_case(a_type, 70, 301, 35, a_by_columns=a_by_columns))


def test_extremes_and_a_sum_past_two_to_the_31(device: Any) -> None:
    _check(device, extreme_case(3, 40000, 17))
