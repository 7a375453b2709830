"""LOCAL_RESPONSE_NORMALIZATION's cases, shared by its device tests and its Oclgrind script: the float64 formula of
docs/operators/normalization.md (NumPy, written here; onnx.reference's LRN agrees with it across channels), the
bound that page derives, and a case builder (data type, CrossChannel, LocalSize, strided)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor

T = dml.TensorDataType
U = 2.0**-24
SHAPE = (2, 5, 4, 6)
ALPHA, BETA, BIAS = 0.7, 0.75, 2.0


def lrn_reference(x: npt.NDArray[Any], cross_channel: bool, size: int, alpha: float, beta: float, bias: float) -> Any:
    """The page's formula in float64, the fields as the C FLOATs they are: the window floor((size - 1) / 2) before
    and ceil((size - 1) / 2) after an element (ONNX's centring), clipped at the edges, along C (CrossChannel TRUE)
    or along H and W (FALSE)."""
    xd = x.astype(np.float64)
    alpha, beta, bias = (float(np.float32(v)) for v in (alpha, beta, bias))
    before, after = (size - 1) // 2, size // 2
    padding = [(0, 0), (before, after), (0, 0), (0, 0)] if cross_channel else [(0, 0), (0, 0), *[(before, after)] * 2]
    squares = np.pad(xd**2, padding)
    total = np.zeros_like(xd)
    for k in range(size):
        for j in range(size) if not cross_channel else range(1):
            if cross_channel:
                total += squares[:, k : k + xd.shape[1]]
            else:
                total += squares[:, :, k : k + xd.shape[2], j : j + xd.shape[3]]
    return xd / (bias + alpha / size * total) ** beta


def bound(exact: Any, beta: float, half: bool) -> Any:
    """|got - exact| allowed: the sum of squares within 2u (compensated, each square exact through fma), Alpha /
    LocalSize, its product and + Bias one rounding each (a positive Bias: no cancellation), so the base within 5u
    and its power within 5|Beta|u; pow itself 16 ULPs (OpenCL 1.2 full profile, at most 32u relative), the division
    u; a FLOAT16 output adds its rounding (2^-11 relative, 2^-25 absolute below 2^-14)."""
    allowed = (6 * abs(beta) + 36) * U * np.abs(exact)
    return allowed + (2.0**-11 * np.abs(exact) + 2.0**-25 if half else 0.0)


@dataclass(frozen=True)
class LrnCase:
    desc: Any
    x: npt.NDArray[Any]
    exact: Any
    allowed: Any


def lrn_case(data_type: Any, cross_channel: bool, size: int, strided: bool, seed: int = 1) -> LrnCase:
    dtype = np.float16 if data_type == T.FLOAT16 else np.float32
    x = (np.random.default_rng(seed).standard_normal(SHAPE) * 3).astype(dtype)
    desc = dml.LocalResponseNormalizationOperatorDesc(
        input_tensor=tensor(data_type, SHAPE, padded_strides(SHAPE, 3) if strided else None),
        output_tensor=tensor(data_type, SHAPE, padded_strides(SHAPE, 1) if strided else None),
        cross_channel=cross_channel,
        local_size=size,
        alpha=ALPHA,
        beta=BETA,
        bias=BIAS,
    )
    exact = lrn_reference(x, cross_channel, size, ALPHA, BETA, BIAS)
    return LrnCase(desc, x, exact, bound(exact, BETA, data_type == T.FLOAT16))


def worst_excess(got: Any, case: LrnCase) -> float:
    """How far the worst element lies past its bound (<= 0: every element within)."""
    return float(np.max(np.abs(got.astype(np.float64) - case.exact) - case.allowed))
