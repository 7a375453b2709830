"""MATRIX_MULTIPLY_INTEGER cases for gemm.cl's integer tiles (opencl/gemm_pairs.h: two steps of k a 32-bit lane, the
zero points and lifts folded out of the sum) at the shapes the small integer cases do not reach: K over several
blocks of 128 with an odd last one, A read along K at a step other than 1, the operands at their extremes. The
reference is NumPy's int64 product wrapped to INT32 (exact: ``allowed`` 0)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.matrix.cases import Case, integers
from tests.device.movement.cases import tensor

T = dml.TensorDataType


def pairs_case(
    a: npt.NDArray[Any], b: npt.NDArray[Any], za: npt.NDArray[Any], zb: npt.NDArray[Any], *, a_by_columns: bool
) -> Case:
    """A (M x K) times B (K x N), zero points per row of A and column of B; ``a_by_columns`` lays A out column-major
    (its step along K is M)."""
    (m, k), (_, n) = a.shape, b.shape
    a_type, b_type = (T.UINT8 if x.dtype == np.uint8 else T.INT8 for x in (a, b))
    desc = dml.MatrixMultiplyIntegerOperatorDesc(
        a_tensor=tensor(a_type, (m, k), (1, m) if a_by_columns else None),
        a_zero_point_tensor=tensor(a_type, (m, 1)),
        b_tensor=tensor(b_type, (k, n)),
        b_zero_point_tensor=tensor(b_type, (1, n)),
        output_tensor=tensor(T.INT32, (m, n)),
    )
    inputs = {"a_tensor": a, "a_zero_point_tensor": za, "b_tensor": b, "b_zero_point_tensor": zb}
    exact = ((a.astype(np.int64) - za) @ (b.astype(np.int64) - zb)).astype(np.int32)  # low 32 bits: INT32's wrap
    return Case(desc, inputs, exact.astype(np.float64), np.zeros(exact.shape))


def random_case(a_type: Any, m: int, k: int, n: int, *, a_by_columns: bool) -> Case:
    """Random operands and zero points over their types' whole ranges; B of the other 8-bit type."""
    b_type = T.INT8 if a_type == T.UINT8 else T.UINT8
    a, b = integers(a_type, (m, k), 21), integers(b_type, (k, n), 22)
    return pairs_case(a, b, integers(a_type, (m, 1), 23), integers(b_type, (1, n), 24), a_by_columns=a_by_columns)


def extreme_case(m: int, k: int, n: int) -> Case:
    """Every (a - za)(b - zb) = (0 - 255)(-128 - 127) = 65025: the kernel's lifted operands at their largest (510
    and 255), every pair's sum 260100; 33026 or more of them sum past 2^31."""
    a, b = np.zeros((m, k), np.uint8), np.full((k, n), -128, np.int8)
    return pairs_case(a, b, np.full((m, 1), 255, np.uint8), np.full((1, n), 127, np.int8), a_by_columns=False)
