"""The matrix products' builder functions (dmlpy/graph/matrix.py): a compiled graph of each against NumPy (GEMM
within the bound of cases.py, the integer products exactly), the output's Sizes and type from the operator's rule,
and refusals naming the argument."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.graph import matrix
from tests.device.matrix.cases import RELU, gamma, integers, past_bound, scales, values

T = dml.TensorDataType


def test_gemm_transposed_with_c_and_relu(device: Any) -> None:
    a, b, c = values(T.FLOAT32, (2, 7, 5), 1), values(T.FLOAT32, (2, 6, 7), 2), values(T.FLOAT32, (2, 5, 6), 3)
    g = dml.Graph(device)
    ga, gb, gc = (g.input(x.shape, T.FLOAT32) for x in (a, b, c))
    out = matrix.gemm(ga, gb, gc, trans_a="TRANSPOSE", trans_b="TRANSPOSE", alpha=0.5, beta=2, fused_activation=RELU)
    assert out.sizes == (2, 5, 6)
    got = np.asarray(g.compile([out])(a, b, c))
    a64, b64 = np.swapaxes(a.astype(np.float64), -1, -2), np.swapaxes(b.astype(np.float64), -1, -2)
    exact = np.maximum(0.5 * (a64 @ b64) + 2 * c, 0)
    allowed = gamma(9) * (0.5 * (np.abs(a64) @ np.abs(b64)) + 2 * np.abs(c))
    assert not past_bound(got, exact, allowed).size


def test_integer_products(device: Any) -> None:
    a, b = integers(T.UINT8, (3, 9), 1), integers(T.INT8, (9, 4), 2)
    za, zb = integers(T.UINT8, (3, 1), 3), integers(T.INT8, (1, 1), 4)
    sa, sb, so = scales(T.FLOAT32, (1, 1), 5), scales(T.FLOAT32, (1, 4), 6), scales(T.FLOAT32, (1, 1), 7)
    g = dml.Graph(device)
    ga, gb, gza, gzb = (g.input(x.shape, t) for x, t in ((a, T.UINT8), (b, T.INT8), (za, T.UINT8), (zb, T.INT8)))
    gsa, gsb, gso = (g.input(x.shape, T.FLOAT32) for x in (sa, sb, so))
    summed = matrix.matrix_multiply_integer(ga, gza, gb, gzb)
    quantized = matrix.quantized_linear_matrix_multiply(ga, gsa, gza, gb, gsb, gzb, gso, None, dtype="INT8")
    b2 = integers(T.UINT8, (9, 4), 8)
    floated = matrix.matrix_multiply_integer_to_float(ga, gsa, None, g.input(b2.shape, T.UINT8), gsb)
    assert (summed.data_type, quantized.data_type, floated.data_type) == (T.INT32, T.INT8, T.FLOAT32)
    compiled = g.compile([summed, quantized, floated])
    got_sum, got_q, got_f = (np.asarray(x) for x in compiled(a, b, za, zb, sa, sb, so, b2))
    exact = (a.astype(np.int64) - za) @ (b.astype(np.int64) - zb)
    assert np.array_equal(got_sum, exact)
    q = np.clip(np.rint(((exact.astype(np.float32) * sa) * sb) / so), -128, 127)
    assert np.array_equal(got_q, q)
    product = a.astype(np.float64) @ b2.astype(np.float64)
    assert not past_bound(got_f, product * sa * sb, gamma(14) * product * sa * sb).size


def test_refusals_name_the_argument_or_field() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)  # no device: the builder checks before anything compiles
    a, b = g.input((2, 3), T.FLOAT32), g.input((4, 5), T.FLOAT32)
    with pytest.raises(dml.InvalidArgumentError, match=r"dml\.graph\.gemm.*a"):
        matrix.gemm(np.zeros((2, 2)), b)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match="trans_a"):
        matrix.gemm(a, b, trans_a="SIDEWAYS")
    with pytest.raises(dml.InvalidArgumentError, match="fused_activation"):
        matrix.gemm(a, b, fused_activation="RELU")
    with pytest.raises(dml.InvalidArgumentError, match=r"BTensor.Sizes\[0\] is 4; it must equal K"):
        matrix.gemm(a, b)
