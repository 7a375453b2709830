"""The operator-table rows of the sign operators (ABS, NEGATE, SIGN) and the clamps (CLIP, CLIP1, THRESHOLD): every
type of each operator's newest support table, FLOAT16 and an integer type with a ScaleBias where the operator has
one; a default run takes the floats and one integer type per operator, with --run-slow every type.

The references are NumPy's: ``np.abs`` and ``np.negative`` (which wrap at an integer's MIN, as two's complement
does), SIGN's formula from its page, and the clamps' formulas with ``np.fmin`` and ``np.fmax`` (IEEE 754's minNum
and maxNum: a NaN operand gives the other, as DirectML's min and max do); an integer tensor's FLOAT bound or float
result converted by ``to_integer``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.dtypes import DATA_TYPE as NUMPY_DATA_TYPE
from tests.helpers.row_model import (
    F16,
    F32,
    Array,
    Case,
    OperatorRow,
    Reference,
    other_values,
    quieted,
    to_integer,
    unary_reference,
)

SCALE_BIAS = dml.ScaleBias(scale=1.5, bias=-0.25)
INTEGERS = tuple(np.dtype(t) for t in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"))
LOW, HIGH = -5.5, 100.7
"""CLIP's and THRESHOLD's FLOAT bounds: a fraction each (converted toward zero for integers), -5.5 below an unsigned
type's range."""


def _cases(desc: type[OperatorDescBase], scaled: bool, **options: Any) -> tuple[Case, ...]:
    """Every type of ``desc``'s newest table, each once; with ``scaled`` FLOAT16 and the narrowest signed integer
    type with SCALE_BIAS (FLOAT32 and the others without)."""
    types = desc.SUPPORT.rows[-1].data_types["InputTensor"]
    dtypes = [d for d in (F32, F16, *INTEGERS) if NUMPY_DATA_TYPE[d] in types]
    scaled_types = {F16, next(d for d in dtypes if d.kind == "i")} if scaled else set()
    cases = []
    for d in dtypes:
        given = {"scale_bias": SCALE_BIAS if d in scaled_types else None} if scaled else {}
        cases.append(Case({"input_tensor": d, "output_tensor": d}, {**given, **options}))
    return tuple(cases)


def _clip1_cases() -> tuple[Case, ...]:
    """CLIP1's cases: each type with bounds of its own near its edges (-5.5 and 100.7 for floats), the bounds'
    union member that type's; FLOAT16 and INT8 with SCALE_BIAS."""
    cases = []
    for case in _cases(dml.ElementWiseClip1OperatorDesc, True):
        d = case.dtypes["input_tensor"]
        data_type = NUMPY_DATA_TYPE[d]
        low, high = (LOW, HIGH) if d.kind == "f" else (int(np.iinfo(d).min) + 3, int(np.iinfo(d).max) - 5)
        bounds = {"min": dml.ScalarUnion.of(low, data_type), "max": dml.ScalarUnion.of(high, data_type)}
        cases.append(Case(case.dtypes, {**case.options, "min_max_data_type": data_type, **bounds}))
    return tuple(cases)


def _row(
    desc: type[OperatorDescBase],
    cases: tuple[Case, ...],
    reference: Reference,
    default: str,
    parameters: Mapping[str, Any] | None = None,
) -> OperatorRow:
    """The row, its integer cases but ``default``'s left to --run-slow, the layouts sampled; a NaN result is
    compared as any NaN only where a ScaleBias made it (unary_reference's rule)."""
    slow = frozenset(
        c.id for c in cases if c.dtypes["input_tensor"].kind in "iu" and c.dtypes["input_tensor"] != np.dtype(default)
    )
    return OperatorRow(desc, cases, reference, parameters or {}, sampled=True, slow_cases=slow)


def _sign(x: Array) -> Array:
    """SIGN's page: -1 below 0, 1 above, 0 otherwise (-0 and NaN included)."""
    return np.where(x > 0, 1, np.where(x < 0, -1, 0)).astype(x.dtype)


Bounds = Callable[[Case], list[Any]]
Clamp = Callable[[Array, list[Any]], Array]


def clamp_reference(function: Clamp, bounds: Bounds, *, typed: bool = False) -> Reference:
    """A clamp's reference, ``function(x, bounds)``: a float tensor in float32 after ScaleBias; an integer tensor
    with ScaleBias in float32 against the FLOAT bounds, converted at the end (``to_integer``), or, with ``typed``
    bounds (CLIP1's), the scaled value converted first; an integer tensor without ScaleBias in its own type, a
    FLOAT bound converted by ``to_integer``."""

    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        x, out = inputs["input_tensor"], case.dtypes["output_tensor"]
        scale_bias, values = case.options.get("scale_bias"), bounds(case)
        with np.errstate(all="ignore"):
            g = x if scale_bias is None else x.astype(F32) * F32.type(scale_bias.scale) + F32.type(scale_bias.bias)
            if out.kind == "f" or (scale_bias is not None and not typed):
                result = function(g.astype(F32), [np.float32(v) for v in values])
                return result.astype(out) if out.kind == "f" else to_integer(result, out)
            integers = to_integer(g, out) if scale_bias is not None else x
            info = np.iinfo(out)
            ignored = (info.min, info.max)  # a NaN bound clamps nothing, as on floats (D3D's min and max)
            typed_values = [
                v if typed else ignored[side] if np.isnan(v) else to_integer(np.array([v], F32), out)[0]
                for side, v in enumerate(values)
            ]
            return function(integers, [out.type(v) for v in typed_values]).astype(out)

    return reference


def _clip1_bounds(case: Case) -> list[Any]:
    """CLIP1's Min and Max as their union members hold them: a FLOAT16 bound as the half whose bits UInt16 holds."""
    values = [bound.model_dump(exclude_none=True).popitem()[1] for bound in (case.options["min"], case.options["max"])]
    if case.dtypes["input_tensor"] == F16:
        return [float(np.array([bits], np.uint16).view(np.float16)[0]) for bits in values]
    return values


def _clip(x: Array, bounds: list[Any]) -> Array:
    return np.fmin(bounds[1], np.fmax(bounds[0], quieted(x)))


def _clip1(x: Array, bounds: list[Any]) -> Array:
    return np.fmax(bounds[0], np.fmin(quieted(x), bounds[1]))


def _threshold(x: Array, bounds: list[Any]) -> Array:
    return np.fmax(quieted(x), bounds[0])


GRADIENT_TENSORS = ("input_tensor", "input_gradient_tensor", "output_gradient_tensor")


def _clip_grad_cases(typed: bool) -> tuple[Case, ...]:
    """CLIP_GRAD's (FLOAT bounds LOW and HIGH) or CLIP_GRAD1's (``typed``: bounds near each type's edges, as
    CLIP1's) cases, every type of the newest table."""
    desc = dml.ElementWiseClipGrad1OperatorDesc if typed else dml.ElementWiseClipGradOperatorDesc
    cases = []
    for case in _cases(desc, False):
        d = case.dtypes["input_tensor"]
        options: dict[str, Any] = {"min": LOW, "max": HIGH}
        if typed:
            data_type = NUMPY_DATA_TYPE[d]
            low, high = (LOW, HIGH) if d.kind == "f" else (int(np.iinfo(d).min) + 3, int(np.iinfo(d).max) - 5)
            options = {
                "min_max_data_type": data_type,
                "min": dml.ScalarUnion.of(low, data_type),
                "max": dml.ScalarUnion.of(high, data_type),
            }
        cases.append(Case(dict.fromkeys(GRADIENT_TENSORS, d), options))
    return tuple(cases)


def clip_grad_reference(bounds: Bounds) -> Reference:
    """A clamp's gradient: 0 where x <= low or x >= high, the incoming gradient elsewhere; the comparison of each
    value with the bounds (rounded to float32 where they are FLOATs) as Python compares numbers, exactly, an
    integer with a float too."""

    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        x, gradient = inputs["input_tensor"], inputs["input_gradient_tensor"]
        low, high = (float(np.float32(b)) if isinstance(b, float) else b for b in bounds(case))
        blocked = np.array([bool(v <= low or v >= high) for v in x.tolist()], dtype=bool)
        return np.where(blocked, gradient.dtype.type(0), gradient)

    return reference


ABS, NEGATE, SIGN = dml.ElementWiseAbsOperatorDesc, dml.ElementWiseNegateOperatorDesc, dml.ElementWiseSignOperatorDesc
CLIP, CLIP1, THRESHOLD = (
    dml.ElementWiseClipOperatorDesc,
    dml.ElementWiseClip1OperatorDesc,
    dml.ElementWiseThresholdOperatorDesc,
)
ROWS_SIGNS_CLAMPS: tuple[OperatorRow, ...] = (
    _row(ABS, _cases(ABS, True), unary_reference(np.abs), "i2"),
    _row(NEGATE, _cases(NEGATE, False), unary_reference(np.negative), "i8"),
    _row(SIGN, _cases(SIGN, False), unary_reference(_sign), "u1"),
    _row(CLIP, _cases(CLIP, True, min=LOW, max=HIGH), clamp_reference(_clip, lambda case: [LOW, HIGH]), "i1"),
    _row(CLIP1, _clip1_cases(), clamp_reference(_clip1, _clip1_bounds, typed=True), "u8"),
    _row(THRESHOLD, _cases(THRESHOLD, True, min=LOW), clamp_reference(_threshold, lambda case: [LOW]), "u2"),
    _row(
        dml.ElementWiseClipGradOperatorDesc,
        _clip_grad_cases(False),
        clip_grad_reference(lambda case: [LOW, HIGH]),
        "i2",
        {"input_gradient_tensor": other_values},
    ),
    _row(
        dml.ElementWiseClipGrad1OperatorDesc,
        _clip_grad_cases(True),
        clip_grad_reference(_clip1_bounds),
        "u8",
        {"input_gradient_tensor": other_values},
    ),
)
"""The sign operators' and the clamps' rows, in the operator table's order."""
