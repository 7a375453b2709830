"""The operator-table rows of the piecewise activations (RELU, LEAKY_RELU, THRESHOLDED_RELU, LINEAR, HARD_SIGMOID,
HARD_SWISH, SOFTSIGN, IDENTITY, SHRINK, PARAMETERIZED_RELU, RELU_GRAD): FLOAT32 and FLOAT16 with DirectMLX's default
parameters (LINEAR's 1.5 and -0.25; SHRINK's -100.25 and 2.5, a fractional Bias that saturates INT8), the integers
where the table takes them (a default run INT8, the others with --run-slow).

References: NumPy, each formula step by step in float32 (as dmlpy computes a FLOAT16 operator, then rounded once to
the output's type), with the choices of docs/operators/activation_piecewise.md written as NumPy says them: a NaN
gives 0 from RELU, THRESHOLDED_RELU and RELU_GRAD, 1 from HARD_SIGMOID (D3D's min and max: ``np.fmin``/``np.fmax``
on quieted NaNs); -0 gives +0 from RELU. SHRINK of an integer: Bias and Threshold as the real numbers their float32s
hold, compared and added exactly in Python (``fractions.Fraction``), the sum truncated toward zero and saturated."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.row_model import F16, F32, Array, Case, OperatorRow, Reference, other_values, quieted

I8, I16, I32, U8, U16, U32 = (np.dtype(t) for t in ("i1", "i2", "i4", "u1", "u2", "u4"))
PARAMETERS: Mapping[type[OperatorDescBase], dict[str, float]] = {
    dml.ActivationLeakyReluOperatorDesc: {"alpha": 0.01},
    dml.ActivationThresholdedReluOperatorDesc: {"alpha": 1.0},
    dml.ActivationLinearOperatorDesc: {"alpha": 1.5, "beta": -0.25},
    dml.ActivationHardSigmoidOperatorDesc: {"alpha": 0.2, "beta": 0.5},
    dml.ActivationHardSwishOperatorDesc: {"alpha": 1 / 6, "beta": 0.5},
    dml.ActivationShrinkOperatorDesc: {"bias": -100.25, "threshold": 2.5},
}
"""The parameters the rows run with: DirectMLX's defaults, LINEAR's and SHRINK's own (DirectMLX's Bias 0 would add
nothing)."""


def _hard_sigmoid(x: Array, alpha: float, beta: float) -> Array:
    return np.fmax(F32.type(0), np.fmin(quieted(F32.type(alpha) * x + F32.type(beta)), F32.type(1)))


def _shrink(x: Array, bias: float, threshold: float) -> Array:
    """SHRINK's exact result, rounded once to the output's type (its FLOAT16 result is the nearest half, as dmlpy
    rounds the float sum to odd). The float64 sum of two float32s is exact unless Bias lies 2^-29 below x or
    further; then x + Bias stays over 2^-27 |x| from a float32 or half tie, far beyond float64's
    rounding (2^-53), so rounding it to the output gives the exact sum's nearest value."""
    if x.dtype.kind == "f":  # the sum in float64, rounded once by the caller's astype
        b, t = F32.type(bias), F32.type(threshold)
        wide = x.astype(np.float64)
        return np.where(x > t, wide - b, np.where(x < -t, wide + b, 0.0))
    info = np.iinfo(x.dtype)
    b, t = float(np.float32(bias)), float(np.float32(threshold))

    def shrunk(v: int) -> int:
        sign = -1 if v > t else 1 if v < -t else 0  # Python compares an int and a float exactly
        if sign == 0 or math.isnan(b):
            return 0  # a NaN sum converts to 0
        if math.isinf(b):
            return int(info.max) if sign * b > 0 else int(info.min)
        return min(max(math.trunc(v + sign * Fraction(b)), int(info.min)), int(info.max))

    return np.array([shrunk(v) for v in x.tolist()], x.dtype)


FORMULAS: Mapping[type[OperatorDescBase], Callable[..., Array]] = {
    dml.ActivationReluOperatorDesc: lambda x: np.where(x > 0, x, x.dtype.type(0)),
    dml.ActivationLeakyReluOperatorDesc: lambda x, alpha: np.where(x >= 0, x, F32.type(alpha) * x),
    dml.ActivationThresholdedReluOperatorDesc: lambda x, alpha: np.where(x > F32.type(alpha), x, F32.type(0)),
    dml.ActivationLinearOperatorDesc: lambda x, alpha, beta: F32.type(alpha) * x + F32.type(beta),
    dml.ActivationHardSigmoidOperatorDesc: _hard_sigmoid,
    dml.ActivationHardSwishOperatorDesc: lambda x, alpha, beta: x * _hard_sigmoid(x, alpha, beta),
    dml.ActivationSoftsignOperatorDesc: lambda x: x / (F32.type(1) + np.abs(x)),
    dml.ActivationIdentityOperatorDesc: lambda x: x,
    dml.ActivationShrinkOperatorDesc: _shrink,
}
"""Each one-input activation's formula on float32 values (or an integer type's, for RELU)."""


def _activation(desc: type[OperatorDescBase]) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        x, out = inputs["input_tensor"], case.dtypes["output_tensor"]
        with np.errstate(all="ignore"):
            value = x.astype(F32) if x.dtype.kind == "f" else x
            if desc is dml.ActivationIdentityOperatorDesc:
                return x.copy()
            return FORMULAS[desc](value, **case.options).astype(out)

    return reference


def _two_inputs(function: Callable[[Array, Array], Array], second: str, output: str) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        x, y, out = inputs["input_tensor"], inputs[second], case.dtypes[output]
        with np.errstate(all="ignore"):
            if x.dtype.kind == "f":
                return function(x.astype(F32), y.astype(F32)).astype(out)
            return function(x, y).astype(out)

    return reference


def _cases(desc: type[OperatorDescBase], names: tuple[str, ...]) -> tuple[Case, ...]:
    table = desc.SUPPORT.rows[-1].data_types["InputTensor"]
    dtypes = [d for d in (F32, F16, I8, I16, I32, U8, U16, U32) if dml.TensorDataType[_name(d)] in table]
    return tuple(Case(dict.fromkeys(names, d), PARAMETERS.get(desc, {})) for d in dtypes)


def _name(dtype: np.dtype[Any]) -> str:
    return {"f": "FLOAT", "i": "INT", "u": "UINT"}[dtype.kind] + str(dtype.itemsize * 8)


def _row(desc: type[OperatorDescBase], names: tuple[str, ...], reference: Reference, **parameters: Any) -> OperatorRow:
    cases = _cases(desc, names)
    slow = frozenset(c.id for c in cases if c.dtypes["input_tensor"] not in (F32, F16, I8))
    nan = "bits" if desc is dml.ActivationIdentityOperatorDesc else "any"  # a copy keeps every bit
    return OperatorRow(desc, cases, reference, parameters, sampled=True, slow_cases=slow, nan=nan)


ONE_INPUT = ("input_tensor", "output_tensor")
ROWS_ACTIVATIONS: tuple[OperatorRow, ...] = (
    *(_row(desc, ONE_INPUT, _activation(desc)) for desc in FORMULAS),
    _row(
        dml.ActivationParameterizedReluOperatorDesc,
        ("input_tensor", "slope_tensor", "output_tensor"),
        _two_inputs(lambda x, slope: np.where(x >= 0, x, slope * x), "slope_tensor", "output_tensor"),
        slope_tensor=other_values,
    ),
    _row(
        dml.ActivationReluGradOperatorDesc,
        ("input_tensor", "input_gradient_tensor", "output_gradient_tensor"),
        _two_inputs(
            lambda x, gradient: np.where(x > 0, gradient, gradient.dtype.type(0)),
            "input_gradient_tensor",
            "output_gradient_tensor",
        ),
        input_gradient_tensor=other_values,
    ),
)
"""The piecewise activations' rows, in the operator table's order."""
