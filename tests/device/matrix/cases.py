"""The matrix products' cases, shared by their device tests and Oclgrind variants: a descriptor, its inputs by slot,
the float64 result (NumPy's matmul on the inputs as the kernel reads them) and the bound the result must meet.

GEMM's bound (docs/operators/gemm.md): each output's sum over K is one serial chain of products and sums
(fused or not), |s - s*| <= gamma_K * sum |a||b|; Alpha's product and Beta * C add two roundings, so
|r - r*| <= gamma_(K+2) * (|Alpha| sum |a||b| + |Beta||c|), gamma_n = n u / (1 - n u), u = 2^-24. A FLOAT16 output
adds its one rounding to half: u_h (|r*| + bound) more, u_h = 2^-11."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.device.normalization.cases import past_bound as past_bound
from tests.helpers.object_model import NUMPY_TYPE

T = dml.TensorDataType
U32, U16 = 2.0**-24, 2.0**-11
RELU = dml.FusedActivation(type="ACTIVATION_RELU")


class Case(NamedTuple):
    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: npt.NDArray[np.float64]
    allowed: npt.NDArray[np.float64]


def gamma(n: int) -> float:
    return n * U32 / (1 - n * U32)


def values(data_type: Any, sizes: tuple[int, ...], seed: int) -> npt.NDArray[Any]:
    dtype = np.float16 if data_type == T.FLOAT16 else np.float32
    return np.random.default_rng(seed).standard_normal(sizes).astype(dtype)


def gemm_case(
    data_type: Any,
    batch: tuple[int, ...],
    m: int,
    k: int,
    n: int,
    *,
    trans_a: bool = False,
    trans_b: bool = False,
    c: str | None = "full",
    alpha: float = 0.75,
    beta: float = -1.5,
    gaps: Mapping[str, int] | None = None,
    b_batch_broadcast: bool = False,
    fused: Any = None,
) -> Case:
    """GEMM over ``batch`` x (M, K) by (K, N): ``c`` None (no CTensor), "full" or "row" (one row broadcast over M and
    the batch, 0 strides); ``gaps`` pads the innermost rows of the named slots; ``b_batch_broadcast`` reads one B for
    every batch index (0 batch strides); ``fused`` a FusedActivation (RELU: the reference's max with 0)."""
    gaps = gaps or {}
    a_sizes = (*batch, k, m) if trans_a else (*batch, m, k)
    b_sizes = (*batch, n, k) if trans_b else (*batch, k, n)
    out_sizes = (*batch, m, n)

    def strides(slot: str, sizes: tuple[int, ...]) -> tuple[int, ...] | None:
        return padded_strides(sizes, gaps[slot]) if slot in gaps else None

    a, b = values(data_type, a_sizes, 1), values(data_type, b_sizes, 2)
    b_strides = strides("b_tensor", b_sizes)
    if b_batch_broadcast:
        b[...] = b[(0,) * len(batch)]
        inner = b_strides[-2:] if b_strides is not None else (b_sizes[-1], 1)
        b_strides = (*(0,) * len(batch), *inner)
    inputs = {"a_tensor": a, "b_tensor": b}
    c_desc = None
    if c is not None:
        cv = values(data_type, out_sizes, 3)
        c_strides = strides("c_tensor", out_sizes)
        if c == "row":
            cv[...] = cv[(0,) * len(batch) + (0,)]
            c_strides = (*(0,) * (len(batch) + 1), 1)
        inputs["c_tensor"] = cv
        c_desc = tensor(data_type, out_sizes, c_strides)
    desc = dml.GemmOperatorDesc(
        a_tensor=tensor(data_type, a_sizes, strides("a_tensor", a_sizes)),
        b_tensor=tensor(data_type, b_sizes, b_strides),
        c_tensor=c_desc,
        output_tensor=tensor(data_type, out_sizes, strides("output_tensor", out_sizes)),
        trans_a="TRANSPOSE" if trans_a else "NONE",
        trans_b="TRANSPOSE" if trans_b else "NONE",
        alpha=alpha,
        beta=beta,
        fused_activation=fused,
    )
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if trans_a:
        a64 = np.swapaxes(a64, -1, -2)
    if trans_b:
        b64 = np.swapaxes(b64, -1, -2)
    exact = alpha * (a64 @ b64)
    magnitude = abs(alpha) * (np.abs(a64) @ np.abs(b64))
    if c is not None:
        c64 = inputs["c_tensor"].astype(np.float64)
        exact, magnitude = exact + beta * c64, magnitude + abs(beta) * np.abs(c64)
    allowed = gamma(k + 2) * magnitude
    if data_type == T.FLOAT16:
        allowed = allowed + U16 * (np.abs(exact) + allowed)
    if fused is not None:
        exact = np.maximum(exact, 0)  # RELU: 1-Lipschitz, exact, so the bound carries over
    return Case(desc, inputs, exact, allowed)


def integers(data_type: Any, sizes: tuple[int, ...], seed: int) -> npt.NDArray[Any]:
    """Random integers over ``data_type``'s whole range."""
    dtype = NUMPY_TYPE[data_type]
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, sizes, endpoint=True).astype(dtype)


def scales(data_type: Any, sizes: tuple[int, ...], seed: int) -> npt.NDArray[Any]:
    """Positive scales between 2^-8 and 2^-4, in ``data_type``'s NumPy type."""
    return np.exp2(np.random.default_rng(seed).uniform(-8, -4, sizes)).astype(NUMPY_TYPE[data_type])


def parameter_sizes(per: str, m: int, n: int) -> tuple[int, int]:
    """A scale's or zero point's 2-D Sizes: one value ("one"), one per row of A ("row") or column of B ("column")."""
    return {"one": (1, 1), "row": (m, 1), "column": (1, n)}[per]


def integer_case(
    operator: str,
    a_type: Any,
    b_type: Any,
    out_type: Any,
    per: str,
    *,
    zero_points: bool = True,
    bias: bool = True,
    gaps: Mapping[str, int] | None = None,
) -> Case:
    """MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY or MATRIX_MULTIPLY_INTEGER_TO_FLOAT (``operator``, the
    OperatorType's name) over a batch of 2, M 11, K 37, N 19; A's parameters one per row and B's one per column where
    ``per`` is "vectors", else one value each; ``zero_points`` False leaves them out; ``gaps`` pads the innermost rows
    of the named matrices. The integer results are exact (``allowed`` 0): MATRIX_MULTIPLY_INTEGER's sum,
    QUANTIZED_LINEAR_MATRIX_MULTIPLY's float32 arithmetic as gemm.cl does it; MATRIX_MULTIPLY_INTEGER_TO_FLOAT is
    bounded as docs/operators/gemm.md says."""
    batch, m, k, n = (2,), 11, 37, 19
    row, column = ("row", "column") if per == "vectors" else ("one", "one")
    a, b = integers(a_type, (*batch, m, k), 4), integers(b_type, (*batch, k, n), 5)
    inputs: dict[str, Any] = {"a_tensor": a, "b_tensor": b}
    gaps = gaps or {}

    def matrix(slot: str, data_type: Any, sizes: tuple[int, ...]) -> Any:
        return tensor(data_type, sizes, padded_strides(sizes, gaps[slot]) if slot in gaps else None)

    fields: dict[str, Any] = {
        "a_tensor": matrix("a_tensor", a_type, a.shape),
        "b_tensor": matrix("b_tensor", b_type, b.shape),
        "output_tensor": matrix("output_tensor", out_type, (*batch, m, n)),
    }

    def add(slot: str, data_type: Any, sizes: tuple[int, ...], value: Any) -> npt.NDArray[Any]:
        inputs[slot], fields[slot] = value, tensor(data_type, sizes)
        return np.asarray(value)

    a_sizes, b_sizes = parameter_sizes(row, m, n), parameter_sizes(column, m, n)
    za = add("a_zero_point_tensor", a_type, a_sizes, integers(a_type, a_sizes, 6)) if zero_points else 0
    zb = add("b_zero_point_tensor", b_type, b_sizes, integers(b_type, b_sizes, 7)) if zero_points else 0
    da = a.astype(np.int64) - np.asarray(za, np.int64)
    db = b.astype(np.int64) - np.asarray(zb, np.int64)
    if operator == "MATRIX_MULTIPLY_INTEGER":
        exact = (da @ db).astype(np.int32)
        desc = dml.MatrixMultiplyIntegerOperatorDesc(**fields)
        return Case(desc, inputs, exact.astype(np.float64), np.zeros(exact.shape))
    scale_type = T.FLOAT32 if operator == "QUANTIZED_LINEAR_MATRIX_MULTIPLY" else out_type
    sa = add("a_scale_tensor", scale_type, a_sizes, scales(scale_type, a_sizes, 8))
    sb = add("b_scale_tensor", scale_type, b_sizes, scales(scale_type, b_sizes, 9))
    if operator == "QUANTIZED_LINEAR_MATRIX_MULTIPLY":
        out_sizes = parameter_sizes(row, m, n)
        so = add("output_scale_tensor", T.FLOAT32, out_sizes, scales(T.FLOAT32, out_sizes, 10) / 8)
        zo = (
            add("output_zero_point_tensor", out_type, out_sizes, integers(out_type, out_sizes, 11))
            if zero_points
            else 0
        )
        product = ((da @ db).astype(np.float32) * sa) * sb  # float32 throughout, as gemm.cl rounds
        info = np.iinfo(NUMPY_TYPE[out_type])
        q = np.clip(np.rint(product / so) + np.asarray(zo, np.float32), info.min, info.max)
        desc = dml.QuantizedLinearMatrixMultiplyOperatorDesc(**fields)
        return Case(desc, inputs, q.astype(np.float64), np.zeros(q.shape))
    scale64, da64, db64 = sa.astype(np.float64) * sb.astype(np.float64), da.astype(np.float64), db.astype(np.float64)
    exact, magnitude = scale64 * (da64 @ db64), scale64 * (np.abs(da64) @ np.abs(db64))  # 32-bit sums pass 2^63
    if bias:
        c = values(out_type, (*batch, m, n), 12)
        inputs["bias_tensor"], fields["bias_tensor"] = c, matrix("bias_tensor", out_type, c.shape)
        c = c.astype(np.float64)
        exact, magnitude = exact + c, magnitude + np.abs(c)
    allowed = gamma(k + 5) * magnitude  # differences (32-bit: one rounding each), K terms, two scales, the bias
    if out_type == T.FLOAT16:
        allowed = allowed + U16 * (np.abs(exact) + allowed)
    desc = dml.MatrixMultiplyIntegerToFloatOperatorDesc(**fields)
    return Case(desc, inputs, exact, allowed)
