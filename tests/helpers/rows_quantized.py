"""The operator-table row of ELEMENT_WISE_QUANTIZED_LINEAR_ADD.

Reference: NumPy in float32, step by step as the page writes it: each input's difference from its zero point
(exact), times its scale, the sum, divided by the output scale, ``np.rint`` (halves to even), plus the output zero
point, clipped to the output type's range. A default run takes INT8 with every zero point and UINT8 with none;
the mixed types with --run-slow."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops.element_wise_quantized_linear_add import PER_TENSOR
from tests.helpers.row_model import I8, U8, Array, Case, OperatorRow, other_values, scales, zero_points

F32 = np.dtype(np.float32)
ZERO_POINTS = {"a_tensor": "a_zero_point_tensor", "b_tensor": "b_zero_point_tensor"}


def _dequantized(values: Array, scale: Array, zero_point: Array | None) -> Array:
    zero = np.float32(0) if zero_point is None else zero_point.astype(F32)
    return (values.astype(F32) - zero) * scale.astype(F32)


def quantized_linear_add(inputs: Mapping[str, Array], out_dtype: np.dtype[Any]) -> Array:
    """saturate(rint((AValue + BValue) / OutputScale) + OutputZeroPoint) in float32, a missing zero point 0."""
    total = sum(
        _dequantized(inputs[name], inputs[name.replace("_tensor", "_scale_tensor")], inputs.get(zero))
        for name, zero in ZERO_POINTS.items()
    )
    quotient = total / inputs["output_scale_tensor"].astype(F32)
    zero_point = inputs.get("output_zero_point_tensor")
    shifted = np.rint(quotient) + (np.float32(0) if zero_point is None else zero_point.astype(F32))
    info = np.iinfo(out_dtype)
    return np.clip(shifted, info.min, info.max).astype(out_dtype)


def _reference(inputs: Mapping[str, Array], case: Case) -> Array:
    return quantized_linear_add(inputs, case.dtypes["output_tensor"])


def quantized_case(a: np.dtype[Any], b: np.dtype[Any], out: np.dtype[Any], zero_points: bool) -> Case:
    """A case: A, B and the output of these types, every zero point given or none."""
    dtypes: dict[str, np.dtype[Any]] = {}
    for name, dtype in (("a", a), ("b", b), ("output", out)):
        dtypes[f"{name}_scale_tensor"] = F32
        if zero_points:
            dtypes[f"{name}_zero_point_tensor"] = dtype
    return Case({"a_tensor": a, "b_tensor": b, **dtypes, "output_tensor": out})


_SLOW = (quantized_case(I8, U8, U8, True), quantized_case(U8, I8, I8, False))
ROW_QUANTIZED_LINEAR_ADD = OperatorRow(
    dml.ElementWiseQuantizedLinearAddOperatorDesc,
    (quantized_case(I8, I8, I8, True), quantized_case(U8, U8, U8, False), *_SLOW),
    _reference,
    {
        "b_tensor": other_values,
        **{f"{name}_scale_tensor": scales for name in ("a", "b", "output")},
        **{f"{name}_zero_point_tensor": zero_points for name in ("a", "b", "output")},
    },
    slow_cases=frozenset(case.id for case in _SLOW),
    per_tensor=frozenset(PER_TENSOR),
)
