"""GEMM runs (opencl/gemm.cl through dmlpy/kernels/contraction.py) against NumPy's float64 matmul within the bound
docs/operators/gemm.md derives (cases.gemm_case): every data type of its support table, TransA and TransB,
Alpha and Beta, C in full and broadcast, batch dimensions (B broadcast along them), 2- to 4-dimensional tensors,
strided tensors, tiles with tails in M, N and K, a FusedActivation, and as a graph node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.matrix.cases import RELU, Case, gamma, gemm_case, past_bound
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
TYPES = sorted(dml.GemmOperatorDesc.SUPPORT.rows[-1].data_types["ATensor"], key=lambda t: t.value)


def _run_and_check(device: Any, case: Case, offsets: dict[str, int] | None = None) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)["output_tensor"]
    wrong = past_bound(got, case.expected, case.allowed)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)"


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("trans_a", [False, True], ids=["A", "At"])
@pytest.mark.parametrize("trans_b", [False, True], ids=["B", "Bt"])
def test_every_type_and_transpose(device: Any, data_type: Any, trans_a: bool, trans_b: bool) -> None:
    _run_and_check(device, gemm_case(data_type, (2, 3), 37, 45, 29, trans_a=trans_a, trans_b=trans_b))


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_tiles_with_tails_and_deep_k(device: Any, data_type: Any) -> None:
    """M and N past one 64-wide tile, K past the "cpu" shape's 128-deep blocks and the "gpu" one's 16."""
    _run_and_check(device, gemm_case(data_type, (), 70, 300, 83, trans_b=True, c=None, alpha=1.0))


def test_strided_tensors_at_offsets(device: Any) -> None:
    gaps = {"a_tensor": 3, "b_tensor": 1, "c_tensor": 2, "output_tensor": 5}
    case = gemm_case(T.FLOAT32, (2,), 19, 23, 17, trans_a=True, gaps=gaps)
    _run_and_check(device, case, {"a_tensor": 16, "b_tensor": 32, "output_tensor": 48})


def test_c_row_broadcast_and_b_batch_broadcast(device: Any) -> None:
    _run_and_check(device, gemm_case(T.FLOAT32, (3, 2), 9, 33, 21, c="row", b_batch_broadcast=True))


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_fused_relu(device: Any, data_type: Any) -> None:
    _run_and_check(device, gemm_case(data_type, (1, 2), 13, 17, 19, fused=RELU))


def test_gemm_as_a_graph_node(device: Any) -> None:
    """(a + 1) x b, doubled: GEMM between element-wise nodes, its own launch among the fused groups."""
    case = gemm_case(T.FLOAT32, (), 12, 20, 10, c=None, alpha=1.0)
    a, b = case.inputs["a_tensor"], case.inputs["b_tensor"]
    g = dml.Graph(device)
    ga, gb = g.input(a.shape, T.FLOAT32), g.input(b.shape, T.FLOAT32)
    product = g.add_operator(case.desc, [ga + 1, gb])
    got = np.asarray(g.compile([product * 2])(a, b))
    exact = (a.astype(np.float64) + 1) @ b.astype(np.float64)
    magnitude = np.abs(a.astype(np.float64) + 1) @ np.abs(b.astype(np.float64))
    # a + 1 rounds once more: gamma_(K + 2) still covers it (K = 20, no C); the doubling is exact
    wrong = past_bound(got, 2 * exact, 2 * gamma(22) * magnitude)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()}"
